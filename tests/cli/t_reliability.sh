# Issue 9's defects of the output side, each with the check that guards it:
# signals mid-write (1), write errors reported once (6), text after a
# config object (10), -o /dev/stdout and /dev/fd/N (11), -o through a
# symlink, permission bits, -o naming an input (12).  Then issue 18's, at
# the end: every signal that ends the process, SIGXFSZ (4); -o decided by
# what the path is, /dev/shm, /proc/self/cwd, descriptors (1); a FIFO with
# no reader, a directory renamed mid-run (10); a 4,092-character path (11);
# json refused before its first byte (7).  Every check needs posenc's own
# output or message.
R=$T/rel
mkdir -p "$R"
PY=${PYTHON:-/usr/bin/python3}

# 1. a signal while writing -o FILE: the temp file goes, the status is the
# signal's (128 + N), nothing is left in the directory (tests/cli/midwrite.py)
midwrite() {
	"$PY" "$here/midwrite.py" "$@" 2>/dev/null
}
for sig in TERM HUP INT; do
	rm -rf "$R/sig" && mkdir "$R/sig"
	st=$(midwrite "$R/sig" $sig "$POSENC" generate sinusoidal -n 4000000 -d 1024 -f csv -o "$R/sig/big.csv")
	check "SIG$sig mid-write: ends by the signal, no temp file, no partial file" [ "$st" = signal ]
done

# 6. a write error on stdout: one line, exit 1
"$POSENC" generate sinusoidal -n 4 -d 4 >&- 2>"$R/err"
st=$?
check "stdout closed: one line naming the error, exit 1" eval \
	'[ $st -eq 1 ] && [ "$(cat "$R/err")" = "posenc: generate: write failed: Bad file descriptor" ]'
"$POSENC" generate sinusoidal -n 4 -d 4 >/dev/full 2>"$R/err"
st=$?
check "/dev/full as stdout: one line, exit 1" eval \
	'[ $st -eq 1 ] && [ "$(cat "$R/err")" = "posenc: generate: write failed: No space left on device" ]'
"$POSENC" generate sinusoidal -n 3 -d 2 -o "$R/closed.csv" >&-
st=$?
check "stdout closed, -o FILE: the file is written" eval '[ $st -eq 0 ] && [ "$(sed -n 2p "$R/closed.csv")" = "0.84147096,0.5403023" ]'

# 10. text after the config object (Python's json refuses it)
cp "$here/../data/rope_llama3.json" "$R/trail.json"
printf 'x' >>"$R/trail.json"
size=$(($(wc -c <"$R/trail.json") - 1))
fails 1 "config: text after the object" "$R/trail.json: not valid JSON (more text after the object, at byte $size)$" \
	generate rope --from-config "$R/trail.json" -n 2 -o "$T/eo/o.csv"
cp "$here/../data/rope_llama3.json" "$R/blank.json"
printf '\n \t\r\n' >>"$R/blank.json"
run generate rope --from-config "$R/blank.json" -n 2 --table inv-freq
check "config: trailing blanks are fine" ok_and [ "$(wc -l <"$T/out")" -gt 1 ]

# 11. /dev/stdout and /dev/fd/1 are written in place, into the redirection
"$POSENC" generate sinusoidal -n 2 -d 2 -o /dev/stdout >"$R/viastdout.csv" 2>"$R/err"
check "-o /dev/stdout with stdout a file" [ "$(cat "$R/viastdout.csv" 2>/dev/null)" = "0,1
0.84147096,0.5403023" ]
"$POSENC" generate sinusoidal -n 2 -d 2 -o /dev/fd/1 2>"$R/err" | cat >"$R/viafd.csv"
check "-o /dev/fd/1 into a pipe" [ "$(sed -n 2p "$R/viafd.csv")" = "0.84147096,0.5403023" ]

# 12. through a symlink the target is replaced and the link stays; an
# existing file keeps its mode; a dangling link gets its target created
echo old >"$R/target.csv"
chmod 640 "$R/target.csv"
ln -sf target.csv "$R/link.csv"
run generate sinusoidal -n 2 -d 2 -o "$R/link.csv"
check "-o link: still a link" ok_and [ -L "$R/link.csv" ]
check "-o link: the target replaced" ok_and [ "$(sed -n 2p "$R/target.csv")" = "0.84147096,0.5403023" ]
check "-o link: the target keeps mode 640" ok_and [ "$(stat -c %a "$R/target.csv")" = 640 ]
ln -sf nowhere.csv "$R/dangling.csv"
run generate sinusoidal -n 2 -d 2 -o "$R/dangling.csv"
check "-o dangling link: its target created" ok_and [ -L "$R/dangling.csv" ] && [ "$(sed -n 1p "$R/nowhere.csv")" = "0,1" ]
ln -sf loopb "$R/loopa" && ln -sf loopa "$R/loopb"
fails 1 "-o a symlink loop" "cannot write '$R/loopa': Too many levels of symbolic links$" \
	generate sinusoidal -n 2 -d 2 -o "$R/loopa"
# -o naming an input: refused, the input unchanged
cp "$here/../data/rope_llama3.json" "$R/cfg.json"
fails 2 "-o naming the --from-config file" "-o '$R/cfg.json' is also an input of this command: refusing to replace it$" \
	generate rope --from-config "$R/cfg.json" -n 4 -o "$R/cfg.json"
check "-o naming the config: the config unchanged" eval '[ "$status" -eq 2 ] && cmp -s "$R/cfg.json" "$here/../data/rope_llama3.json"'
printf '1,2\n3,4\n' >"$R/in.csv"
fails 2 "-o naming the -i file" "-o '$R/in.csv' is also an input of this command: refusing to replace it$" \
	similarity -i "$R/in.csv" -o "$R/in.csv"

# 9. a key written twice: the last value, as Python's json, and a warning
printf '{"rope_theta": 10000, "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 500000}' >"$R/dup.json"
printf '{"hidden_size": 64, "num_attention_heads": 4, "rope_theta": 500000}' >"$R/last.json"
run generate rope --from-config "$R/dup.json" -n 4 --table inv-freq
cp "$T/out" "$R/dup.out"
check "duplicate key: a warning naming it" ok_and [ "$(cat "$T/err")" = "posenc: warning: $R/dup.json: 'rope_theta' is written more than once; using the last value, as Python's json (and so transformers) does" ]
run generate rope --from-config "$R/last.json" -n 4 --table inv-freq
check "duplicate key: the table of the last value" same_output "$R/dup.out" "$T/out"
check "duplicate key: as Python's json reads it" eval '[ "$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[\"rope_theta\"])" "$R/dup.json")" = 500000 ] && [ "$(sed -n 2p "$R/dup.out")" = "0.19392274" ]'

# 8. bad values inside config.json: data errors (exit 1) naming the file
# and its fields, never options the user did not give
printf '{"hidden_size": 63, "num_attention_heads": 4, "rope_theta": 10000}' >"$R/odd.json"
fails 1 "config: odd rotary width" "$R/odd.json: the rotary width must be even and at least 2; the file's head dim 15 (hidden_size / num_attention_heads) x partial rotary factor 1 gives 15$" \
	generate rope --from-config "$R/odd.json" -n 2 -o "$T/eo/o.csv"
printf '{"hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}}' >"$R/l3.json"
# llama3 with high_freq_factor <= low_freq_factor: transformers computes it
# with a warning (Llama 4 Scout has them equal), and so does posenc: divided
# by the factor where the wavelength exceeds L0 / low = 2048 (pairs 6, 7 of a
# head of 16: 10000^(-6/8) / 8 = 0.000125), kept below
run generate rope --from-config "$R/l3.json" -n 2 --table inv-freq
check "config: llama3 high <= low: warns, naming the file's keys" \
	grep -q "^posenc: warning: $R/l3.json: rope_scaling.high_freq_factor (1) is not above rope_scaling.low_freq_factor (4)" "$T/err"
check "config: llama3 high <= low: transformers' values" \
	eval '[ "$status" -eq 0 ] && [ "$(sed -n 6p "$T/out")" = 0.0031622776 ] && [ "$(sed -n 7p "$T/out")" = 0.000125 ]'

# odd files as inputs of every command: one line naming the file
fails 1 "similarity -i a device" "/dev/zero: is a device, not a file$" similarity -i /dev/zero -o "$T/eo/o.csv"
fails 1 "skew -i a directory" "$R: is a directory$" skew -i "$R" -o "$T/eo/o.csv"
fails 1 "bucket --bias a device" "/dev/urandom: is a device, not a file$" bucket --bias /dev/urandom -o "$T/eo/o.csv"
fails 1 "--from-config a device" "/dev/null: is a device, not a file$" generate rope --from-config /dev/null -o "$T/eo/o.csv"
rm -f "$R/fifo" && mkfifo "$R/fifo"
fails 1 "skew -i a FIFO without a writer" "$R/fifo: a FIFO with no writer$" skew -i "$R/fifo" -o "$T/eo/o.csv"

# two writers to one path: the file is one whole result, no temp file left
rm -rf "$R/two" && mkdir "$R/two"
"$POSENC" generate sinusoidal -n 20000 -d 64 -o "$R/two/t.csv" 2>"$R/two.err1" &
p1=$!
"$POSENC" generate learned -n 20000 -d 64 -o "$R/two/t.csv" 2>"$R/two.err2" &
p2=$!
wait $p1
s1=$?
wait $p2
s2=$?
"$POSENC" generate sinusoidal -n 20000 -d 64 -o "$R/one-a.csv" 2>/dev/null
"$POSENC" generate learned -n 20000 -d 64 -o "$R/one-b.csv" 2>/dev/null
check "two writers: both succeed" [ "$s1$s2" = 00 ]
check "two writers: the file is one whole result" eval 'same_output "$R/two/t.csv" "$R/one-a.csv" || same_output "$R/two/t.csv" "$R/one-b.csv"'
check "two writers: nothing else left" eval '[ -s "$R/two/t.csv" ] && [ "$(ls -A "$R/two")" = t.csv ]'

# ---- issue 18, the output side ----

# 4. every other signal that ends the process and can be caught: the temp
# file goes and the status is the signal's; SIGXFSZ (ulimit -f) is a write
# error instead, exit 1, nothing left
for sig in QUIT USR1 USR2 ALRM VTALRM PROF XCPU IO PWR RTMIN RTMAX; do
	rm -rf "$R/sig" && mkdir "$R/sig"
	st=$(midwrite "$R/sig" $sig "$POSENC" generate sinusoidal -n 4000000 -d 1024 -f csv -o "$R/sig/big.csv")
	check "SIG$sig mid-write: ends by the signal, nothing left" [ "$st" = signal ]
done
for f in raw npy csv json safetensors png; do
	rm -rf "$R/fsz" && mkdir "$R/fsz"
	(ulimit -f 20 && exec "$POSENC" generate sinusoidal -n 20000 -d 64 -f $f -o "$R/fsz/out") 2>"$R/err"
	st=$?
	check "ulimit -f, $f: 'File too large', exit 1, nothing left" eval \
		'[ $st -eq 1 ] && [ "$(cat "$R/err")" = "posenc: generate: write failed: File too large" ] && [ -z "$(ls -A "$R/fsz")" ]'
done
(ulimit -f 20 && exec "$POSENC" generate sinusoidal -n 20000 -d 64 -f raw) >"$R/fsz/stdout.f32" 2>"$R/err"
st=$?
check "ulimit -f on stdout: 'File too large', exit 1" eval \
	'[ $st -eq 1 ] && [ "$(cat "$R/err")" = "posenc: generate: write failed: File too large" ]'

# 1. -o is decided by what the path is, not how it is spelled: a regular
# file in /dev/shm or reached through /proc/self/cwd is replaced whole and
# is never one of the inputs; /dev/stdout and /dev/fd/N are the descriptors
"$POSENC" generate sinusoidal -n 6 -d 4 -o "$R/pe.npy" 2>/dev/null
cp "$R/pe.npy" "$R/pe.orig"
(cd "$R" && exec "$POSENC" similarity -i pe.npy -o /proc/self/cwd/pe.npy) >"$T/out" 2>"$T/err"
status=$?
check "-o /proc/self/cwd/INPUT: refused" usage_lines similarity "-o '/proc/self/cwd/pe.npy' is also an input of this command: refusing to replace it$"
check "-o /proc/self/cwd/INPUT: the input unchanged" eval '[ $status -eq 2 ] && cmp -s "$R/pe.npy" "$R/pe.orig"'
(cd "$R" && exec "$POSENC" generate sinusoidal -n 2 -d 2 -o /proc/self/cwd/cwd.csv) 2>"$T/err"
check "-o /proc/self/cwd/NEW: written" eval '[ "$(sed -n 2p "$R/cwd.csv" 2>/dev/null)" = "0.84147096,0.5403023" ] && [ -z "$(ls -A "$R" | grep posenc-)" ]'
if [ -d /dev/shm ] && SHM=$(mktemp -d /dev/shm/posenc-test.XXXXXX); then
	cp "$R/pe.npy" "$SHM/pe.npy"
	fails 2 "-o /dev/shm/INPUT" "-o '$SHM/pe.npy' is also an input of this command: refusing to replace it$" \
		similarity -i "$SHM/pe.npy" -o "$SHM/pe.npy"
	check "-o /dev/shm/INPUT: the input unchanged" eval '[ $status -eq 2 ] && cmp -s "$SHM/pe.npy" "$R/pe.orig"'
	echo precious >"$SHM/keep.csv"
	chmod 640 "$SHM/keep.csv"
	st=$(midwrite "$SHM" TERM "$POSENC" generate sinusoidal -n 3000000 -d 64 -o "$SHM/keep.csv")
	check "-o /dev/shm/FILE, SIGTERM: the old file whole, no temp file" eval \
		'[ "$st" = "signal keep.csv pe.npy" ] && [ "$(cat "$SHM/keep.csv")" = precious ]'
	"$POSENC" generate sinusoidal -n 2 -d 2 -o "$SHM/keep.csv" 2>"$T/err"
	check "-o /dev/shm/FILE: replaced whole, keeps its mode" eval \
		'[ "$(sed -n 2p "$SHM/keep.csv")" = "0.84147096,0.5403023" ] && [ "$(stat -c %a "$SHM/keep.csv")" = 640 ]'
	rm -rf "$SHM"
else
	echo "t_reliability.sh: skipped: the /dev/shm checks (no /dev/shm here)"
fi
echo keep >"$R/append.csv"
"$POSENC" generate sinusoidal -n 2 -d 2 -o /dev/stdout >>"$R/append.csv" 2>"$T/err"
check "-o /dev/stdout >> FILE: appended, never truncated" [ "$(cat "$R/append.csv")" = "keep
0,1
0.84147096,0.5403023" ]
{ echo head; "$POSENC" generate sinusoidal -n 2 -d 2 -o /dev/fd/1 2>"$T/err"; echo foot; } >"$R/shared.csv"
check "-o /dev/fd/1: writes where the descriptor stands" [ "$(cat "$R/shared.csv")" = "head
0,1
0.84147096,0.5403023
foot" ]
cp "$R/pe.orig" "$R/pe.npy"
"$POSENC" similarity -i "$R/pe.npy" -o /dev/stdout >>"$R/pe.npy" 2>"$T/err"
status=$?
check "-o /dev/stdout that is an input: refused" usage_lines similarity "-o '/dev/stdout' is also an input of this command: refusing to write into it$"
"$POSENC" similarity -i "$R/pe.npy" >>"$R/pe.npy" 2>"$T/err"
status=$?
check "stdout that is an input: refused" usage_lines similarity "standard output is also an input of this command: refusing to write into it$"
check "stdout that is an input: the input unchanged" eval '[ $status -eq 2 ] && cmp -s "$R/pe.npy" "$R/pe.orig"'

# 10. a FIFO with no reader: refused after the input side's 2 s; a reader
# that comes late is waited for
rm -f "$R/ofifo" && mkfifo "$R/ofifo"
fails 1 "-o a FIFO with no reader" "cannot write '$R/ofifo': a FIFO with no reader$" \
	generate sinusoidal -n 3 -d 2 -o "$R/ofifo"
(sleep 0.3 && exec cat "$R/ofifo" >"$R/fifo.out") &
reader=$!
run_timeout 10 generate sinusoidal -n 2 -d 2 -o "$R/ofifo"
for i in 1 2 3 4 5 6 7 8 9 10; do	# without a writer, cat waits for one
	kill -0 $reader 2>/dev/null || break
	sleep 0.2
done
kill $reader 2>/dev/null
wait $reader
check "-o a FIFO whose reader comes late" ok_and [ "$(sed -n 2p "$R/fifo.out")" = "0.84147096,0.5403023" ]

# 10. the output directory renamed during the run: the file is finished in
# it; a directory put where the file goes: the rename's error, path once,
# nothing left
rm -rf "$R/race" "$R/moved" && mkdir "$R/race"
st=$(midwrite "$R/race" mv:"$R/moved" "$POSENC" generate sinusoidal -n 100000 -d 64 -o "$R/race/out.csv")
check "directory renamed mid-run: the whole file in it, nothing else" eval \
	'[ "$st" = "0 out.csv" ] && [ "$(wc -l <"$R/moved/out.csv")" -eq 100000 ]'
rm -rf "$R/race" && mkdir "$R/race"
st=$("$PY" "$here/midwrite.py" "$R/race" mkdir:"$R/race/out.csv" "$POSENC" generate sinusoidal -n 100000 -d 64 -o "$R/race/out.csv" 2>&1)
check "directory at the target: one line, the path once, nothing left" [ "$st" = "posenc: generate: '$R/race/out.csv': cannot rename the finished file into place: Is a directory
1 out.csv" ]

# 11. a 4,092-character path with a short name: the temp name is relative
# to the directory, never longer than the path allows
long=$R/long
while [ ${#long} -lt 3850 ]; do long=$long/$(printf 'd%.0s' $(seq 180)); done
long=$long/$(printf 'e%.0s' $(seq $((4092 - ${#long} - 7))))
mkdir -p "$long"
run generate sinusoidal -n 2 -d 2 -o "$long/x.csv"
check "a 4,092-character -o path" ok_and eval '[ $((${#long} + 6)) -eq 4092 ] && [ "$(sed -n 2p "$long/x.csv")" = "0.84147096,0.5403023" ] && [ "$(ls -A "$long")" = x.csv ]'
rm -rf "$R/long"

# 7. json on stdout: a value json cannot hold that is known before the
# first byte fails before it, and stdout stays empty (it held half a
# document); rows the value does not reach are written
printf '1,2,3\n4,5,6\n7,8,9\n' >"$R/r3.csv"
fails 2 "skew causal --fill -inf -f json" "--fill -inf lands in the result and json cannot hold it; give a finite --fill or use csv, raw, npy or safetensors$" \
	skew -i "$R/r3.csv" --mode causal --fill -inf -f json
fails 2 "skew --inverse --fill nan -f json" "--fill nan lands in the result and json cannot hold it; give a finite --fill or use csv, raw, npy or safetensors$" \
	skew -i "$R/r3.csv" --inverse --fill nan -f json
run skew -i "$R/r3.csv" --mode causal --fill -inf -f json --rows 2:3
check "skew causal --fill -inf -f json, a row without fill" ok_and [ "$(sed -n 2p "$T/out")" = "[7,8,9]]}" ]
# bidir: A[i][j] = R[i][j - i + 2]; R[1][3] = nan is A[1][2], R[0][0] = nan is never read
printf 'nan,2,3,4,5\n4,5,6,nan,inf\n7,8,9,1,2\n' >"$R/r5.csv"
fails 1 "skew -f json, an input nan that lands" "json cannot hold nan (tensor 'skew', row 1, column 2); use csv, raw, npy or safetensors$" \
	skew -i "$R/r5.csv" -f json
run skew -i "$R/r5.csv" -f json --rows 2:3
check "skew -f json, input nan that does not land" ok_and [ "$(sed -n 2p "$T/out")" = "[7,8,9]]}" ]
printf '3e38,3e38,3e38\n3e38,3e38,3e38\n3e38,3e38,3e38\n3e38,3e38,3e38\n' >"$R/big3.csv"
fails 1 "skew --grid -f json, sums beyond float32" "json cannot hold an infinity (tensor 'skew', row 0, column 0); use csv, raw, npy or safetensors$" \
	skew --grid 2x2 --rel-h "$R/big3.csv" --rel-w "$R/big3.csv" -f json
# t5 bidirectional: distance +1 is bucket 17, whose head 1 is inf
awk 'BEGIN { for (b = 0; b < 32; b++) printf "%d,%s,%d\n", 10 * b, b == 17 ? "inf" : 10 * b + 1, 10 * b + 2 }' >"$R/infbias.csv"
fails 1 "bucket --bias -f json, an inf in the bias" "json cannot hold an infinity (tensor 'bucket_bias', row 3, column 1); use csv, raw, npy or safetensors$" \
	bucket --distances -2:3 --bias "$R/infbias.csv" -f json
printf '1,2\n0,0\n3,4\n' >"$R/z.csv"
run similarity -i "$R/z.csv" -f json
check "similarity -f json with a zero row: exit 1, the warning and one error, nothing on stdout" eval \
	'[ $status -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 2 ] && [ "$(sed -n 2p "$T/err")" = "posenc: similarity: json cannot hold nan (tensor '"'similarity'"', row 0, column 1); use csv, raw, npy or safetensors" ]'
run similarity -i "$R/z.csv" -f json --rows 1:2
check "similarity -f json, the zero row itself" eval \
	'[ $status -eq 1 ] && [ ! -s "$T/out" ] && [ "$(sed -n 2p "$T/err")" = "posenc: similarity: json cannot hold nan (tensor '"'similarity'"', row 0, column 0); use csv, raw, npy or safetensors" ]'
# |x|^2 = 4e38 > FLT_MAX: the diagonal is inf, exact or float32
printf '1,1\n2e19,0\n' >"$R/long.csv"
for prec in exact float32; do
	run similarity -i "$R/long.csv" --metric dot --precision $prec -f json
	check "similarity --metric dot --precision $prec -f json, a row beyond float32" eval \
		'[ $status -eq 1 ] && [ ! -s "$T/out" ] && [ "$(sed -n 2p "$T/err")" = "posenc: similarity: json cannot hold an infinity (tensor '"'similarity'"', row 1, column 1); use csv, raw, npy or safetensors" ]'
done
run similarity -i "$R/long.csv" --metric dot -f json --rows 0:1
check "similarity --metric dot -f json, rows without the inf" ok_and [ "$(sed -n 2p "$T/out")" = "[2,2e+19]]}" ]
# the documented limit: a value only the computation shows (distances
# beyond float32) fails where it is met, naming the first whichever worker
# meets its own first; with -o FILE nothing is left
awk 'BEGIN { for (i = 0; i < 1023; i++) print (i % 2 ? "-3e38" : "3e38") }' >"$R/alt.csv"
for n in 1 3; do
	rm -rf "$R/lim" && mkdir "$R/lim"
	run similarity -i "$R/alt.csv" --metric euclidean --threads $n -o "$R/lim/s.json"
	check "similarity -f json, an inf met while computing, $n threads: the first, nothing left" eval \
		'[ $status -eq 1 ] && [ -z "$(ls -A "$R/lim")" ] && [ "$(sed -n 2p "$T/err")" = "posenc: similarity: json cannot hold an infinity (tensor '"'similarity'"', row 0, column 1); use csv, raw, npy or safetensors" ]'
done

# similarity under `ulimit -v` (reliability-2 finding 2): OpenBLAS before
# 0.3.30 retries a buffer it cannot map for ever, so 150 MB used to spin at
# 100 % CPU; now one line naming the limit, exit 1, at once, nothing
# written.  A limit that holds the buffers (128 MiB a thread) still works.
# Not under valgrind, nor with ASan (its shadow memory needs terabytes of
# address space, so no ASan binary starts under ulimit -v).
if [ -n "$VALGRIND" ] || grep -q __asan_init "$POSENC" 2>/dev/null; then
	echo "t_reliability.sh: ulimit -v checks skipped (valgrind or ASan)"
else
	"$POSENC" similarity sinusoidal -n 64 -d 16 --threads 1 -f raw -o "$R/av-free.f32" 2>/dev/null
	for th in 1 3; do
		rm -rf "$T/eo" && mkdir "$T/eo"
		(ulimit -v 150000; exec timeout 20 "$POSENC" similarity sinusoidal -n 64 -d 16 --threads $th \
			-f raw -o "$T/eo/s.f32") >"$T/out" 2>"$T/err" </dev/null
		status=$?
		check "ulimit -v 150000, $th threads: exit 1 within 20 s, one line naming the limit and the need" \
			status_msg 1 similarity "not enough address space for OpenBLAS (ulimit -v is 150000 KiB; it needs about [0-9]* KiB, with 128 MiB for "
		check "ulimit -v 150000, $th threads: nothing but that line" eval \
			'err_is 1 similarity "not enough address space for OpenBLAS" && [ ! -s "$T/out" ] && [ -z "$(ls -A "$T/eo")" ]'
	done
	for lim in "400000 1" "800000 2"; do
		set -- $lim
		rm -f "$R/av.f32"
		(ulimit -v "$1"; exec timeout 20 "$POSENC" similarity sinusoidal -n 64 -d 16 --threads "$2" \
			-f raw -o "$R/av.f32") >"$T/out" 2>"$T/err" </dev/null
		status=$?
		check "ulimit -v $1, $2 threads: the similarity, as without a limit" \
			eval '[ "$status" -eq 0 ] && same_output "$R/av.f32" "$R/av-free.f32"'
	done
fi

# Issue 18, the input side (findings of research/reliability-2.md): each
# check needs posenc's own output or message.
I=$T/rel18
mkdir -p "$I"

# 3. 200,000 keys in config.json: linear, not quadratic (it took 65 s)
"$PY" -c "import json,sys; d={'hidden_size':64,'num_attention_heads':4,'rope_theta':10000}; d.update(('k%d'%i,0) for i in range(200000)); json.dump(d, open(sys.argv[1],'w'))" "$I/many.json"
run_timeout 10 generate rope --from-config "$I/many.json" -n 2 --table inv-freq
check "config with 200,000 keys: read in seconds" ok_and [ "$(sed -n 2p "$T/out")" = "0.31622776" ]

# 8. npy descr spellings: posenc reads a file exactly when np.load reads it
# as float16/32/64, in the byte order np.load uses (values 1.5 and -2, so a
# wrong order shows in the dot products), and refuses the rest
"$PY" - "$I" <<'PYEOF' >"$I/descr.list"
import struct, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
d = sys.argv[1]
for i, descr in enumerate(["f4", "|f4", "<f", ">f", "=f", "float32", "single", "f 04", ">f+08",
                           "f4,", "<f4, ", "e", "|e", ">e", "half", "float16", "|f2", "d", "=d",
                           "float64", "double", "float", "float_", "f8", "|f8", ">d,",
                           "f-4", "f4 ", "<float32", "Float32", "f1", "g", "<f16", "<i4", "e2", "f4.0"]):
    h = ("{'descr': %r, 'fortran_order': False, 'shape': (2, 1), }" % descr).encode()
    h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
    try:
        t = np.dtype(descr)
        ok = t.kind == "f" and t.itemsize in (2, 4, 8)
        data = np.array([[1.5], [-2]], dtype=t).tobytes() if ok else b"\0" * 16
    except Exception:
        ok, data = False, b"\0" * 16
    name = "%s/d%02d.npy" % (d, i)
    open(name, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)
    try:
        a = np.load(name)
        ok = a.dtype.kind == "f" and a.dtype.itemsize in (2, 4, 8) and a.ravel().tolist() == [1.5, -2]
    except Exception:
        ok = False
    print(name, "read" if ok else "refused")
PYEOF
descr_bad=0 descr_n=0
while read -r f want; do
	descr_n=$((descr_n + 1))
	run similarity -i "$f" --metric dot
	if [ "$want" = read ]; then
		[ "$status" -eq 0 ] && [ "$(cat "$T/out")" = "2.25,-3
-3,4" ] || descr_bad=$((descr_bad + 1))
	else
		[ "$status" -eq 1 ] && grep -q "is not float16, float32 or float64$" "$T/err" ||
			descr_bad=$((descr_bad + 1))
	fi
done <"$I/descr.list"
check "npy descr: every spelling np.load reads, none it refuses ($descr_n files)" eval '[ "$descr_n" -ge 30 ] && [ "$descr_bad" -eq 0 ]'

# 6. the csv header guess: a first line with a number in it, or a field
# that starts like one, is data (an error naming line and column), never a
# row dropped silently; a header is said on stderr; a number of any length
# is read, as np.loadtxt reads it
printf '0.5,0.25x\n1,2\n3,4\n' >"$I/typo.csv"
fails 1 "csv: a typo in the first row" "$I/typo.csv: line 1, column 2: '0.25x' is not a number$" \
	similarity -i "$I/typo.csv" --metric dot -o "$T/eo/o.csv"
printf '7x\n1\n2\n' >"$I/typo1.csv"
fails 1 "csv: a typo in a 1-column first row" "$I/typo1.csv: line 1, column 1: '7x' is not a number$" \
	skew -i "$I/typo1.csv" -o "$T/eo/o.csv"
printf 'a,b\n1,2\n' >"$I/head.csv"
run similarity -i "$I/head.csv" --metric dot
check "csv: a header line is said on stderr" ok_and [ "$(cat "$T/out"):$(cat "$T/err")" = "5:posenc: warning: $I/head.csv: line 1 ('a,b') is taken as a header, not data: none of it is a number" ]
printf '0.%s,1\n1,2\n3,4\n' "$("$PY" -c 'print("1" * 1100)')" >"$I/long.csv"
run similarity -i "$I/long.csv" --metric dot
check "csv: a number of 1100 digits in the first row is read, as np.loadtxt reads it" ok_and eval \
	'[ "$(wc -l <"$T/out")" -eq "$("$PY" -c "import numpy,sys; print(len(numpy.loadtxt(sys.argv[1], delimiter=\",\")))" "$I/long.csv")" ] && [ "$(sed -n 2p "$T/out")" = "2.1111112,5,11" ] && [ ! -s "$T/err" ]'

# 11. a subnormal option value is a positive finite number; a nonzero one
# too small for a double is refused, not read as 0; POSENC_THREADS set but
# empty is unset
run similarity sinusoidal -n 4 -d 4 --stats --tau 1e-308
check "--tau 1e-308 (subnormal) is accepted" ok_and grep -q '"tau":1e-308,' "$T/out"
fails 2 "--tau 1e-400 (below every double)" "--tau must be a positive finite number, got '1e-400'$" \
	similarity sinusoidal -n 4 -d 4 --stats --tau 1e-400 -o "$T/eo/o.json"
POSENC_THREADS= "$POSENC" generate sinusoidal -n 2 -d 2 >"$I/thr.csv" 2>"$I/thr.err"
check "POSENC_THREADS= (empty) means unset" eval '[ "$(sed -n 2p "$I/thr.csv")" = "0.84147096,0.5403023" ] && [ ! -s "$I/thr.err" ]'

# 11. a message too long for its buffer keeps its reason, and no value in
# a message is cut inside a UTF-8 character
long=$I/$("$PY" -c 'print("d" * 200 + "/" + "e" * 200 + "/" + "f" * 200 + "/" + "g" * 200 + "/" + "h" * 200 + "/" + "x" * 200)').npy
run similarity -i "$long"
check "a 1,300-byte path: the message keeps its reason" eval '[ "$status" -eq 1 ] && grep -q "^posenc: similarity: $I/ddd.*\.\.\..*xxxx\.npy: cannot open: No such file or directory$" "$T/err" && [ "$(wc -c <"$T/err")" -lt 1100 ]'
"$PY" -c 'import sys; open(sys.argv[1], "w").write("{\"hidden_size\": 64, \"num_attention_heads\": 4, \"rope_scaling\": {\"rope_type\": \"" + "\u00e9" * 40 + "\"}}")' "$I/utf8.json"
run generate rope --from-config "$I/utf8.json" -n 2
check "a long rope_type of e-acutes: the message is whole UTF-8" eval '[ "$status" -eq 1 ] && grep -q "unsupported rope_scaling.rope_type" "$T/err" && "$PY" -c "import sys; open(sys.argv[1], \"rb\").read().decode(\"utf-8\")" "$T/err"'

# 9. names from files and argv reach the terminal escaped as messages
# escape them: --list keeps one tab-separated line per tensor
"$PY" - "$I/esc.safetensors" <<'PYEOF'
import json, struct, sys
h = json.dumps({"\x1b]0;owned\x07\x1b[2J": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                "a\nb\tc": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}).encode()
h += b" " * (-len(h) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + b"\0" * 8)
PYEOF
run similarity -i "$I/esc.safetensors" --list
check "--list: control characters in names escaped, one line each" ok_and [ "$(cat "$T/out")" = "$(printf '%s\tF32\t[1]\n%s\tF32\t[1]' '\x1b]0;owned\x07\x1b[2J' 'a\x0ab\x09c')" ]
"$PY" -c 'import sys; open(sys.argv[1], "wb").write(b"\x10\0\0\0\0\0\0\0{\"a\\u0000b\":1}  ")' "$I/nul.safetensors"
fails 1 "safetensors: a NUL in a name is refused, not cut" "$I/nul.safetensors: the header holds a NUL character (\\\\u0000 at byte 11), which posenc cannot keep in a name or value$" \
	similarity -i "$I/nul.safetensors" --list
run "$(printf 'x\033[2J\nb')"
check "an unknown command is echoed escaped, on one line" eval '[ "$status" -eq 2 ] && [ "$(cat "$T/err")" = "posenc: unknown command '"'"'x\x1b[2J\x0ab'"'"'
Try '"'"'posenc --help'"'"'." ]'
run "$(printf -- '--x\033[2J')"
check "an unknown option is echoed escaped" eval '[ "$status" -eq 2 ] && [ "$(head -1 "$T/err")" = "posenc: unknown option '"'"'--x\x1b[2J'"'"'" ]'

# 5. an input file truncated while posenc parses it: one line, exit 1, no
# SIGBUS.  The file is cut as soon as posenc has mapped it (its parse of
# 60 MB of csv takes about a second); tried up to three times in case the
# cut came after the parse
"$POSENC" generate learned -n 300000 -d 16 -o "$I/big.src.csv" 2>/dev/null
for cmd in similarity skew; do
	tr_out=
	for try in 1 2 3; do
		cp "$I/big.src.csv" "$I/big.csv"
		tr_out=$("$PY" - "$POSENC" "$I/big.csv" $cmd -i "$I/big.csv" --positions-range 0:10 -o "$I/trunc.out" <<'PYEOF'
import os, subprocess, sys, time
posenc, path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
if cmd[0] == "skew":
    cmd = cmd[:3] + ["-o", cmd[-1]]
p = subprocess.Popen([posenc] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
real = os.path.realpath(path)
for _ in range(40000):
    try:
        if real in open("/proc/%d/maps" % p.pid).read():
            break
    except OSError:
        break
    time.sleep(0.0005)
os.truncate(path, 1000)
err = p.stderr.read().decode("utf-8", "replace").strip()
print("%d|%s" % (p.wait(), err))
PYEOF
)
		[ "$tr_out" = "1|posenc: $cmd: $I/big.csv: changed while being read" ] && break
	done
	check "$cmd: input truncated while parsed: one line, exit 1 (got '$tr_out')" [ "$tr_out" = "1|posenc: $cmd: $I/big.csv: changed while being read" ]
done
rm -f "$I/big.csv" "$I/big.src.csv" "$I/trunc.out"

# 10. endless or huge streams stop as soon as they cannot be a table
run_stdin /dev/zero similarity -i -
check "-i - < /dev/zero: stops at the first NUL" eval '[ "$status" -eq 1 ] && [ "$(cat "$T/err")" = "posenc: similarity: stdin: binary data (a NUL byte at byte 0), not a text table; raw float32 needs its shape" ]'
run_stdin /dev/zero skew -i - --shape 2x3
check "-i - --shape 2x3 < /dev/zero: more than the shape's bytes" eval '[ "$status" -eq 1 ] && [ "$(cat "$T/err")" = "posenc: skew: stdin: more than 24 bytes, the size of a 2 x 3 float32 table" ]'
run_timeout 10 similarity -i /proc/self/pagemap
check "-i /proc/self/pagemap: stops at once" eval '[ "$status" -eq 1 ] && [ "$(cat "$T/err")" = "posenc: similarity: /proc/self/pagemap: binary data (a NUL byte at byte 0), not a text table; raw float32 needs its shape" ]'
"$POSENC" generate sinusoidal -n 3 -d 4 -f npy -o "$I/s.npy"
(cat "$I/s.npy"; cat /dev/zero) | timeout "$(tmo 10)" "$POSENC" similarity -i - --metric dot >"$I/zs.csv" 2>"$I/zs.err"
check "npy then endless zeros on stdin: the npy read, the rest ignored as NumPy does" eval '[ "$(sed -n 1p "$I/zs.csv")" = "2,1.5402522,0.5836532" ] && [ ! -s "$I/zs.err" ]'
