# posenc generate: exit statuses, messages, formats, pipes, atomic output.

# --- global ---
run --help
check "--help exits 0" [ "$status" -eq 0 ]
check "--help lists generate" grep -q "generate" "$T/out"
run --version
check "--version first line" [ "$(head -1 "$T/out")" = "posenc 0.1.0" ]
run
check "no command: exit 2" [ "$status" -eq 2 ]
check "no command: one line and a hint" eval '[ "$(cat "$T/err")" = "posenc: missing command (one of: generate, similarity, skew, bucket, plot, explain)
Try '"'"'posenc --help'"'"'." ]'
run frobnicate
check "unknown command: exit 2" [ "$status" -eq 2 ]
check "unknown command: message" grep -q "^posenc: unknown command 'frobnicate'" "$T/err"
run generate sinusoidal -n 3 --help
check "--help anywhere: exit 0" [ "$status" -eq 0 ]
check "--help anywhere: usage" grep -q "^Usage: posenc generate" "$T/out"

# --- bad input: one line, exit 2, no output ---
usage_error "-d 0" generate sinusoidal -d 0
usage_error "-d -4" generate sinusoidal -d -4
usage_error "-n 1e99" generate sinusoidal -n 1e99
usage_error "-n 12x" generate sinusoidal -n 12x
usage_error "-n -3" generate sinusoidal -n -3
usage_error "--base 0" generate sinusoidal --base 0
usage_error "--base nan" generate sinusoidal --base nan
usage_error "--base inf" generate sinusoidal --base inf
usage_error "unknown preset" generate sinusoidal --preset nope
usage_error "unknown kind" generate wavelet
usage_error "missing kind" generate -n 4
usage_error "unknown option" generate sinusoidal --frobnicate
usage_error "abbreviation" generate rope --fac 2 --scaling linear -n 1 -d 4
check "abbreviation: names the full option" grep -q "^posenc: generate: option '--fac' is not a full name (write --factor)$" "$T/err"
usage_error "ambiguous prefix" generate sinusoidal --pre t2t
check "ambiguous prefix: names the candidates" grep -q "^posenc: generate: unknown option '--pre' (did you mean --preset or --precision?)$" "$T/err"
usage_error "misspelt option" generate sinusoidal --postions 5
check "misspelt option: the nearest real one" grep -q "^posenc: generate: unknown option '--postions' (did you mean --positions?)$" "$T/err"
usage_error "swapped letters" similarity --metirc dot -i x.npy
check "swapped letters: the nearest real one" grep -q "^posenc: similarity: unknown option '--metirc' (did you mean --metric?)$" "$T/err"
usage_error "nothing near" generate sinusoidal --xyzzy 3
check "nothing near: no guess" grep -q "^posenc: generate: unknown option '--xyzzy'$" "$T/err"
usage_error "missing value" generate sinusoidal -n
usage_error "too large" generate sinusoidal -n 1099511627776 -d 16777216
usage_error "option of another kind" generate sinusoidal --seed 3
usage_error "fairseq d=2" generate sinusoidal --preset fairseq -d 2
usage_error "padding with offset" generate sinusoidal --preset fairseq --padding-idx 1 --offset 3
usage_error "min-timescale outside t2t" generate sinusoidal --min-timescale 2
usage_error "unknown format" generate sinusoidal -f xml
usage_error "rows out of range" generate sinusoidal -n 4 --rows 2:9
usage_error "rows reversed" generate sinusoidal -n 4 --rows 3:1
usage_error "header with npy" generate sinusoidal -n 4 -f npy --header
usage_error "learned std 0" generate learned --std 0
usage_error "learned bad init" generate learned --init cauchy
usage_error "seed too large" generate learned --seed 18446744073709551616
check "error names the value" grep -q "got '18446744073709551616'" "$T/err"

# --- output ---
run generate sinusoidal -n 3 -d 4
check "default csv: exit 0" [ "$status" -eq 0 ]
check "default csv: 3 lines" [ "$(wc -l <"$T/out")" -eq 3 ]
check "default csv: row 1 golden" [ "$(sed -n 2p "$T/out")" = "0.84147096,0.5403023,0.009999833,0.99995" ]
run generate sinusoidal -n 2 -d 3 --header
check "header line" [ "$(head -1 "$T/out")" = "d0,d1,d2" ]

# shards concatenate to the whole, byte for byte (raw and csv)
run generate sinusoidal -n 100 -d 8 -f raw --force
cp "$T/out" "$T/whole.f32"
"$POSENC" generate sinusoidal -n 100 -d 8 -f raw --rows 0:37 >"$T/a.f32"
"$POSENC" generate sinusoidal -n 100 -d 8 -f raw --rows 37:100 >"$T/b.f32"
cat "$T/a.f32" "$T/b.f32" >"$T/ab.f32"
check "raw shards concatenate" same_output "$T/whole.f32" "$T/ab.f32"
check "raw size" [ "$(wc -c <"$T/whole.f32")" -eq 3200 ]
"$POSENC" generate learned -n 50 -d 6 >"$T/whole.csv"
"$POSENC" generate learned -n 50 -d 6 --rows :20 >"$T/a.csv"
"$POSENC" generate learned -n 50 -d 6 --rows 20: >"$T/b.csv"
cat "$T/a.csv" "$T/b.csv" >"$T/ab.csv"
check "csv shards concatenate" same_output "$T/whole.csv" "$T/ab.csv"

# raw, npy and safetensors reserve their blocks before writing (so ext4
# has nothing to allocate at the rename): exactly the bytes written, no
# blocks left reserved past the end
reserved_fits() {
	[ -s "$1" ] && [ "$(stat -c %s "$1")" -eq "$2" ] &&
		[ $(($(stat -c '%b * %B' "$1"))) -le $(($2 + 65536)) ]
}
"$POSENC" generate sinusoidal -n 4000 -d 256 -f raw -o "$T/res.raw"
check "raw: size and blocks of 4000 x 256 floats" reserved_fits "$T/res.raw" 4096000
"$POSENC" generate sinusoidal -n 4000 -d 256 --rows 10:3010 -f npy -o "$T/res.npy"
check "npy --rows: size and blocks of 3000 x 256 floats" reserved_fits "$T/res.npy" $((128 + 3072000))
"$POSENC" generate sinusoidal -n 4000 -d 256 -f raw >"$T/res-stdout.raw"
check "raw to a redirected stdout: size and blocks" reserved_fits "$T/res-stdout.raw" 4096000

# threads do not change the bytes
POSENC_THREADS=1 "$POSENC" generate sinusoidal -n 3000 -d 256 -f raw >"$T/t1.f32"
POSENC_THREADS=3 "$POSENC" generate sinusoidal -n 3000 -d 256 -f raw >"$T/t3.f32"
check "threads: same bytes (sinusoidal)" same_output "$T/t1.f32" "$T/t3.f32"
POSENC_THREADS=1 "$POSENC" generate learned -n 3000 -d 256 -f raw >"$T/l1.f32"
POSENC_THREADS=4 "$POSENC" generate learned -n 3000 -d 256 -f raw >"$T/l4.f32"
check "threads: same bytes (learned)" same_output "$T/l1.f32" "$T/l4.f32"
# csv and json text is made by the worker threads, each its own slice of
# a block: the same bytes for every count, the same numbers as raw
for f in csv json; do
	for n in 1 3 7; do
		POSENC_THREADS=$n "$POSENC" generate sinusoidal -n 3000 -d 256 -f $f >"$T/t$n.$f"
	done
	check "threads: same bytes ($f, 1 and 3)" same_output "$T/t1.$f" "$T/t3.$f"
	check "threads: same bytes ($f, 1 and 7)" same_output "$T/t1.$f" "$T/t7.$f"
done
check "threads: csv text reads back as the raw values" python3 -c '
import struct, sys
raw = open(sys.argv[1], "rb").read()
want = struct.unpack("<%df" % (len(raw) // 4), raw)
got = [float(x) for line in open(sys.argv[2]) for x in line.split(",")]
assert len(got) == len(want) == 3000 * 256
assert all(struct.pack("<f", g) == struct.pack("<f", w) for g, w in zip(got, want))
' "$T/t1.f32" "$T/t7.csv"
check "threads: json rows are the csv rows" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["data"]
rows = [[float(x) for x in line.split(",")] for line in open(sys.argv[2])]
assert len(d) == 3000 and d == rows
' "$T/t7.json" "$T/t1.csv"
POSENC_THREADS=zero "$POSENC" generate sinusoidal -n 3000 -d 256 -f raw >"$T/tz.f32" 2>"$T/err"
check "bad POSENC_THREADS: exit 2" [ $? -eq 2 ]

# format from the extension; atomic files
run generate sinusoidal -n 4 -d 4 -o "$T/x.npy"
check "npy by extension: exit 0" [ "$status" -eq 0 ]
check "npy magic" [ "$(head -c 6 "$T/x.npy" | tail -c 5)" = "NUMPY" ]
check "npy size" [ "$(wc -c <"$T/x.npy")" -eq $((128 + 64)) ]
run generate sinusoidal -n 4 -d 4 -o "$T/x.safetensors"
check "safetensors by extension" [ "$status" -eq 0 ] 
run generate sinusoidal -n 4 -d 4 -o "$T/x.json"
check "json by extension" grep -q '^{"shape":\[4,4\],"dtype":"float32","meta":{' "$T/x.json"
run generate sinusoidal -n 4 -d 4 -o "$T/x.f32"
check "raw by extension" [ "$(wc -c <"$T/x.f32")" -eq 64 ]
run generate sinusoidal -n 4 -d 4 -o "$T/x.txt"
check "unknown extension: exit 2, message names it, no file" eval '[ "$status" -eq 2 ] && grep -q "^posenc: generate: cannot tell the format of .*x.txt.: posenc does not write .txt files (give -f csv|json|raw|npy|safetensors|png|svg|pdf)$" "$T/err" && [ ! -e "$T/x.txt" ]'
for ext in npz pt; do
	run generate sinusoidal -n 4 -d 4 -o "$T/x.$ext"
	check ".$ext: exit 2, names it" eval '[ "$status" -eq 2 ] && grep -q "does not write .'"$ext"' files" "$T/err"'
done
run generate sinusoidal -n 4 -d 4 -o "$T/x.txt" -f csv
check "unknown extension with -f csv: 4 lines" ok_and [ "$(wc -l <"$T/x.txt")" -eq 4 ]
run generate sinusoidal -n 4 -d 4 -o "$T/UP.NPY"
check "extension in capitals: .NPY is npy" ok_and [ "$(head -c 6 "$T/UP.NPY" | tail -c 5)" = "NUMPY" ]
run generate sinusoidal -n 4 -d 4 -o "$T/noext"
check "no extension: csv" ok_and [ "$(wc -l <"$T/noext")" -eq 4 ]
check "no temporary files left" eval '[ -s "$T/noext" ] && [ -z "$(ls -A "$T" | grep "^\.posenc-")" ]'

echo "old" >"$T/keep.csv"
run generate sinusoidal -n 4 -d 0 -o "$T/keep.csv"
check "failed run keeps the old file" eval '[ "$status" -eq 2 ] && grep -q "^posenc: generate: --dim" "$T/err" && [ "$(cat "$T/keep.csv")" = "old" ]'
run generate sinusoidal -n 4 -d 4 -o "$T/nodir/x.csv"
check "missing directory: exit 1" status_msg 1 generate "cannot create"
check "missing directory: one line" [ "$(wc -l <"$T/err")" -eq 1 ]
check "missing directory: message" grep -q "^posenc: generate: cannot create" "$T/err"

# a full disk is an error, exit 1
if [ -w /dev/full ]; then
	run generate sinusoidal -n 1000 -d 64 -o /dev/full
	check "/dev/full: exit 1" status_msg 1 generate ".*No space left on device"
	check "/dev/full: message" grep -q "^posenc: generate: .*No space left on device" "$T/err"
	"$POSENC" generate sinusoidal -n 10 -d 4 >/dev/full 2>"$T/err"
	st=$?
	check "stdout to /dev/full: exit 1" eval '[ $st -eq 1 ] && grep -q "^posenc: generate: write failed: No space left on device$" "$T/err"'
	check "stdout to /dev/full: message" grep -q "No space left" "$T/err"
fi

# | head -1 ends quietly
"$POSENC" generate sinusoidal -n 100000 -d 64 2>"$T/err" | head -1 >"$T/out"
check "head -1: one line" [ "$(wc -l <"$T/out")" -eq 1 ]
check "head -1: quiet" eval '[ "$(cut -c1-4 "$T/out")" = "0,1," ] && [ ! -s "$T/err" ]'
( "$POSENC" generate sinusoidal -n 100000 -d 64 -f raw 2>"$T/err"; echo $? >"$T/rc" ) | head -c 10 >"$T/hc"
check "head -c: exit 0" [ "$(cat "$T/rc")" -eq 0 ]
check "head -c: quiet" eval '[ "$(wc -c <"$T/hc")" -eq 10 ] && [ ! -s "$T/err" ]'

# binary to a terminal is refused (needs script(1) for a pty)
if command -v script >/dev/null 2>&1; then
	script -qec "$POSENC generate sinusoidal -n 2 -d 2 -f npy" /dev/null >"$T/tty" 2>&1
	check "npy to a terminal: refused" grep -q "refusing to write binary output to a terminal" "$T/tty"
	script -qec "$POSENC generate sinusoidal -n 2 -d 2 -f raw --force" /dev/null >"$T/tty" 2>&1
	check "--force writes to a terminal" [ "$(wc -c <"$T/tty")" -ge 16 ]
fi

# presets and options that change values
run generate sinusoidal -n 2 -d 4 --preset marian
check "marian row 1" [ "$(sed -n 2p "$T/out")" = "0.84147096,0.009999833,0.5403023,0.99995" ]
run generate sinusoidal -n 2 -d 4 --preset t2t
check "t2t row 1" [ "$(sed -n 2p "$T/out")" = "0.84147096,0.0001,0.5403023,1" ]
run generate sinusoidal -n 2 -d 4 --preset fairseq --padding-idx 1
check "fairseq padding: rows" [ "$(wc -l <"$T/out")" -eq 4 ]
check "fairseq padding: row 1 zero" [ "$(sed -n 2p "$T/out")" = "0,0,0,0" ]
check "fairseq padding: row 2 is position 2" [ "$(sed -n 3p "$T/out" | cut -d, -f1)" = "0.9092974" ]
run generate sinusoidal -n 1 -d 4 --offset 1
check "offset" [ "$(cat "$T/out")" = "0.84147096,0.5403023,0.009999833,0.99995" ]
run generate sinusoidal -n 1 -d 4 --offset -1
check "negative offset" [ "$(cat "$T/out")" = "-0.84147096,0.5403023,-0.009999833,0.99995" ]
run generate sinusoidal -n 2 -d 4 --layout half
check "vaswani --layout half = marian" [ "$(sed -n 2p "$T/out")" = "0.84147096,0.009999833,0.5403023,0.99995" ]
run generate sinusoidal -n 2 -d 4 --preset t2t --base 100
check "t2t --base is max-timescale" [ "$(sed -n 2p "$T/out" | cut -d, -f2)" = "0.009999833" ]
usage_error "t2t base and max-timescale" generate sinusoidal --preset t2t --base 10 --max-timescale 10
run generate learned -n 3 -d 3 --seed 7
cp "$T/out" "$T/s7"
run generate learned -n 3 -d 3 --seed 7
check "learned: same seed same bytes" same_output "$T/s7" "$T/out"
run generate learned -n 3 -d 3 --seed 8
check "learned: other seed other bytes" differ "$T/s7" "$T/out"
run generate learned -n 3 -d 4 --preset fairseq --padding-idx 1
check "learned fairseq padding: rows" [ "$(wc -l <"$T/out")" -eq 5 ]
check "learned fairseq padding: zero row" [ "$(sed -n 2p "$T/out")" = "0,0,0,0" ]

# a long run shows its progress when stderr is a terminal (as similarity),
# then clears the line; a short one and a pipe show nothing
if command -v script >/dev/null 2>&1; then
	script -qec "$POSENC generate sinusoidal -n 65536 -d 1024 -f raw -o /dev/null" /dev/null >"$T/tty" 2>&1
	check "generate progress on a terminal" grep -q "posenc: generate: [0-9]*% of 65536 rows" "$T/tty"
	check "generate progress: the line cleared at the end" grep -q "$(printf '\r\033\\[K')" "$T/tty"
	script -qec "$POSENC generate sinusoidal -n 64 -d 64 -f raw -o /dev/null" /dev/null >"$T/tty" 2>&1
	check "generate: no progress for a short run" eval '[ "$(wc -c <"$T/tty")" -eq 0 ] && [ -x "$POSENC" ] && "$POSENC" --version >/dev/null'
fi
