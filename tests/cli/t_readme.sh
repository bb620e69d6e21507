# Every shell example of the README runs as written, from a copy of the
# clone, after the two set-up commands (a new user's first ten minutes):
# each ```sh block is one script, run with bash -e in a scratch directory
# holding ./posenc and data/.  The set-up block's own build steps are left
# out (this suite runs after them; so is its make check-reference); its
# ./posenc line runs.
R=$T/readme
rm -rf "$R" && mkdir -p "$R"
cp "$POSENC" "$R/posenc" && cp -r "$here/../../data" "$R/data"
README=$here/../../README.md
awk -v dir="$R" '
	/^```sh$/ { n++; f = sprintf("%s/block%02d.sh", dir, n); inb = 1; next }
	/^```$/ { if (inb) close(f); inb = 0; next }
	inb { print > f }
' "$README"
nblocks=$(ls "$R"/block*.sh 2>/dev/null | wc -l)
for b in "$R"/block*.sh; do
	[ -f "$b" ] || continue
	# the set-up commands: already done, but keep what they run
	sed -i 's/^sh tools\/deps\.sh && make && //; /^make check$/d; /^sh tools\/deps\.sh ref && make check-reference$/d' "$b"
	name=$(basename "$b")
	( cd "$R" && timeout 120 bash -e "$b" ) >"$T/out" 2>"$T/err" </dev/null
	status=$?
	check "README $name runs as written: $(grep -v '^#' "$b" | grep -m1 . | cut -c1-60)" \
		eval '[ "$status" -eq 0 ] && [ -s "$b" ]'
done
check "README: $nblocks shell blocks; the set-up block wrote pe.csv" \
	eval '[ "$nblocks" -ge 8 ] && [ "$(wc -l <"$R/pe.csv")" -eq 512 ]'
check "README: the scaling-out parts join to the whole" \
	eval '[ -s "$R/similarity.f32" ] && [ "$(wc -c <"$R/similarity.f32")" -eq $((8192 * 8192 * 4)) ]'

# `man ./man/posenc.1` from the clone, as the README says, and every
# command's page (the commands as --help lists them) renders at 80 columns
# without a warning from groff
man_pages=$(cd "$here/../.." && "$POSENC" --help 2>/dev/null |
	sed -n 's/^  \([a-z][a-z]*\)  .*/man\/posenc-\1.1/p')
if command -v man >/dev/null 2>&1; then
	( cd "$here/../.." && MANWIDTH=80 man ./man/posenc.1 ) >"$T/man.txt" 2>"$T/man.err" </dev/null
	check "man ./man/posenc.1 from the clone" eval '[ -n "$man_pages" ] && grep -q "^NAME" "$T/man.txt"'
	( cd "$here/../.." && for m in man/posenc.1 $man_pages; do
		MANWIDTH=80 man --warnings -l "$m" >/dev/null || echo "failed: $m"
	done ) >"$T/man.warn" 2>&1 </dev/null
	check "man pages: $(echo $man_pages | wc -w) commands, no warnings at 80 columns" \
		eval '[ "$(echo $man_pages | wc -w)" -ge 5 ] && [ ! -s "$T/man.warn" ]'
fi
