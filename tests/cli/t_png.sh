# posenc ... -f png: heatmaps decoded (pixels and text chunks, never file
# bytes), option errors, atomic output, pipes and full disks.

# png FILE CMD ...: tests/cli/png.py (defined in run.sh)

# --- the familiar picture ---
run generate sinusoidal -n 3 -d 3 -o "$T/s.png"
check "png: exit 0" [ "$status" -eq 0 ]
check "png: nothing on stdout" eval '[ -s "$T/s.png" ] && [ ! -s "$T/out" ]'
check "png: Software chunk" [ "$(png "$T/s.png" text Software)" = "posenc 0.1.0" ]
meta_json=$("$POSENC" generate sinusoidal -n 3 -d 3 -f json | "$PYTHON" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["meta"], separators=(",", ":")))' 2>/dev/null)
check "png: meta is the json meta" eval '[ -n "$meta_json" ] && [ "$(png "$T/s.png" text posenc:meta)" = "$meta_json" ]'
check "png: no time stamp" sh -c "'$PYTHON' '$here/png.py' '$T/s.png' chunks | grep -q IDAT && ! '$PYTHON' '$here/png.py' '$T/s.png' chunks | grep -q tIME"
# 3 x 3 is scaled up by 170 (512 / 3): square cells
check "png: 3x3 heatmap 510 px" [ "$(png "$T/s.png" hm | cut -d' ' -f3-)" = "510 510" ]
# row 0 is sin 0, cos 0, sin 0 = 0 1 0; the minimum is cos 2 (row 2, column 1)
check "png: minimum is viridis[0]" [ "$(png "$T/s.png" cell 2 1 3 3)" = "68 1 84" ]
check "png: maximum is viridis[255]" [ "$(png "$T/s.png" cell 0 1 3 3)" = "253 231 36" ]

# -f png to stdout (with --force past a terminal check) = -o FILE.png
"$POSENC" generate sinusoidal -n 3 -d 3 -f png >"$T/stdout.png" 2>"$T/err"
check "png to a pipe: exit 0" [ $? -eq 0 ]
check "png to stdout: same pixels as -o" png "$T/s.png" same "$T/stdout.png"

# --size, --no-colorbar, --cmap, --vmin/--vmax, --title
run generate sinusoidal -n 256 -d 128 -o "$T/big.png" --size 64 --no-colorbar --title ""
check "--size 64: 32 wide, 64 tall" [ "$(png "$T/big.png" hm | cut -d' ' -f3-)" = "32 64" ]
run generate sinusoidal -n 256 -d 128 -o "$T/bigc.png" --size 64 --title ""
check "colour bar widens the image" [ "$(png "$T/bigc.png" size | cut -d' ' -f1)" -gt \
	"$(png "$T/big.png" size | cut -d' ' -f1)" ]
run generate sinusoidal -n 3 -d 3 -o "$T/m.png" --cmap magma
check "--cmap magma: minimum" [ "$(png "$T/m.png" cell 2 1 3 3)" = "0 0 3" ]
check "--cmap magma: recorded" [ -n "$(png "$T/m.png" text posenc:heatmap | grep '"cmap":"magma"')" ]
run generate sinusoidal -n 3 -d 3 -o "$T/v.png" --vmin -1 --vmax 0.5
check "--vmax: above the range is the last colour" [ "$(png "$T/v.png" cell 0 1 3 3)" = "253 231 36" ]
run generate sinusoidal -n 3 -d 3 -o "$T/t.png" --title "Vaswani, 3 x 3"
check "--title: Title chunk" [ "$(png "$T/t.png" text Title)" = "Vaswani, 3 x 3" ]
run generate sinusoidal -n 3 -d 3 -o "$T/cb.png" --colorbar
check "--colorbar is the default" png "$T/s.png" same "$T/cb.png"
run generate sinusoidal -n 10 -d 4 -o "$T/r.png" --rows 2:5 --no-colorbar
check "--rows with png: 3 rows" [ "$(png "$T/r.png" text posenc:heatmap | grep -c '"shape":\[3,4\]')" -eq 1 ]
check "--rows with png: rows labelled 2, 3, 4" ok_and \
	[ "$(png "$T/r.png" hmjson 'd["row_labels"]')" = "[2, 1]" ]
run generate sinusoidal -n 64 -d 16 --offset 1000 -o "$T/off.png"
check "--offset 1000: rows labelled from position 1000" ok_and \
	[ "$(png "$T/off.png" hmjson 'd["row_labels"]')" = "[1000, 1]" ]
# a 1-D result is drawn across: --rows moves its column labels
run generate alibi --heads 12 --table slopes --rows 4:8 -o "$T/sl.png"
check "1-D --rows 4:8: columns labelled heads 4 to 7" ok_and \
	[ "$(png "$T/sl.png" hmjson 'd["col_labels"]')" = "[4, 1]" ]
run generate learned -n 20 -d 8 -o "$T/l.png"
check "learned to png: exit 0" [ "$status" -eq 0 ]

# --- bad input: one line, exit 2, nothing written ---
usage_error "png --size 0" generate sinusoidal -n 3 -d 3 -f png --size 0
check "--size 0: message" grep -q "^posenc: generate: --size must be an integer from 1 to 16384, got '0'$" "$T/err"
usage_error "png --size 16385" generate sinusoidal -n 3 -d 3 -f png --size 16385
usage_error "png --size 12x" generate sinusoidal -n 3 -d 3 -f png --size 12x
usage_error "png vmin = vmax" generate sinusoidal -n 3 -d 3 -f png --vmin 1 --vmax 1
check "vmin = vmax: message" grep -q "^posenc: generate: --vmin must be below --vmax, got '1' and '1'$" "$T/err"
usage_error "png vmin > vmax" generate sinusoidal -n 3 -d 3 -f png --vmin 2 --vmax 1
usage_error "png vmin nan" generate sinusoidal -n 3 -d 3 -f png --vmin nan
usage_error "png vmax inf" generate sinusoidal -n 3 -d 3 -f png --vmax inf
usage_error "png unknown cmap" generate sinusoidal -n 3 -d 3 -f png --cmap jet
check "unknown cmap: message" grep -q "^posenc: generate: unknown --cmap 'jet' (one of: viridis|" "$T/err"
usage_error "png option with csv" generate sinusoidal -n 3 -d 3 --cmap magma
check "png option with csv: message" grep -q "^posenc: generate: --cmap applies to figures only (-f png, svg or pdf, or -o FILE.png)" "$T/err"
usage_error "png option with npy" generate sinusoidal -n 3 -d 3 -f npy --size 10
usage_error "colorbar and no-colorbar" generate sinusoidal -n 3 -d 3 -f png --colorbar --no-colorbar
usage_error "title too long" generate sinusoidal -n 3 -d 3 -f png --title \
	"$(printf '%0201d' 0)"
usage_error "vmin above the data" generate sinusoidal -n 3 -d 3 -f png --vmin 5
run generate sinusoidal -n 3 -d 3 -o "$T/none.png" --size 0
check "bad option: no file" eval 'grep -q "^posenc: generate: --size" "$T/err" && [ ! -e "$T/none.png" ]'
run generate sinusoidal -n 3 -d 3 -o "$T/none.png" --vmin 5
check "vmin above the data: no file" eval 'grep -q "^posenc: generate: .*vmin" "$T/err" && [ ! -e "$T/none.png" ]'
check "vmin above the data: no temp file" eval 'grep -q "^posenc: generate: " "$T/err" && [ -z "$(ls -A "$T" | grep "^\.posenc-")" ]'

# a terminal is refused without --force
if command -v script >/dev/null 2>&1; then
	script -qec "$POSENC generate sinusoidal -n 2 -d 2 -f png" /dev/null >"$T/tty" 2>&1
	check "png to a terminal: refused" grep -q "refusing to write binary output to a terminal" "$T/tty"
fi

# a full disk is an error; a closed pipe is quiet
if [ -w /dev/full ]; then
	run generate sinusoidal -n 300 -d 300 -f png -o /dev/full
	check "png /dev/full: exit 1" status_msg 1 generate ".*No space left on device"
	check "png /dev/full: message" grep -q "^posenc: generate: .*No space left on device" "$T/err"
	"$POSENC" generate sinusoidal -n 300 -d 300 -f png >/dev/full 2>"$T/err"
	st=$?
	check "png stdout to /dev/full: exit 1" eval '[ $st -eq 1 ] && grep -q "^posenc: generate: .*No space left on device$" "$T/err"'
fi
( "$POSENC" generate sinusoidal -n 2000 -d 2000 -f png 2>"$T/err"; echo $? >"$T/rc" ) | head -c 10 >"$T/hc"
check "png | head -c: exit 0" [ "$(cat "$T/rc")" -eq 0 ]
check "png | head -c: quiet" eval '[ "$(head -c 4 "$T/hc" | tail -c 3)" = PNG ] && [ ! -s "$T/err" ]'

# --- shape: tables beyond 1:4 are drawn at 1:4, not as slivers ---
# the heatmap's w and h, and the image's margins around it: "w h mw mh"
hm_margins() {
	set -- $(png "$1" size) $(png "$1" hm)
	[ $# -eq 6 ] && echo "$5 $6 $(($1 - $5)) $(($2 - $6))"
}
# w h mw mh: the heatmap is 1:4 to 1:3 and the margins are labels' room
ratio_ok() {
	set -- $(hm_margins "$1")
	[ $# -eq 4 ] && [ "$3" -lt 250 ] && [ "$4" -lt 120 ] &&
		{ [ $(($1 * 3)) -le "$2" ] && [ "$2" -le $(($1 * 4)) ] ||
		  [ $(($2 * 3)) -le "$1" ] && [ "$1" -le $(($2 * 4)) ]; }
}
run generate sinusoidal -n 1000000 -d 64 -o "$T/tall.png"
check "1,000,000 x 64: a 512 x 2048 heatmap" ok_and [ "$(png "$T/tall.png" hm | cut -d' ' -f3-)" = "512 2048" ]
check "1,000,000 x 64: within 1:4, plus margins" ok_and ratio_ok "$T/tall.png"
check "1,000,000 x 64: cell = 2048 / 10^6 rows, 8 pixels per column" ok_and \
	[ "$(png "$T/tall.png" hmjson 'd["cell"]')" = "[0.002048, 8]" ]
run generate sinusoidal -n 5 -d 300 -o "$T/wide.png"
check "5 x 300: a 300 x 75 heatmap" ok_and [ "$(png "$T/wide.png" hm | cut -d' ' -f3-)" = "300 75" ]
check "5 x 300: within 1:4, plus margins" ok_and ratio_ok "$T/wide.png"
check "5 x 300: rows are 15-pixel bands, columns 1 pixel" ok_and \
	[ "$(png "$T/wide.png" hmjson 'd["cell"]')" = "[15, 1]" ]
run generate sinusoidal -n 5 -d 300 -o "$T/wide_eq.png" --aspect equal
check "--aspect equal: 5 x 300 keeps its 300 x 5 strip" ok_and \
	[ "$(png "$T/wide_eq.png" hm | cut -d' ' -f3-)" = "300 5" ]
check "--aspect equal: no cell entry" ok_and [ "$(png "$T/wide_eq.png" hmjson '"cell" in d')" = False ]

# --- 3-D results: a grid of head panels ---
run generate alibi --heads 12 -n 64 -o "$T/heads.png"
check "alibi 12 heads: 12 panels, 4 columns, 3 rows, shape [12, 64, 64]" ok_and \
	[ "$(png "$T/heads.png" hmjson 'len(d["panels"]), len({p[0] for p in d["panels"]}), len({p[1] for p in d["panels"]}), d["shape"]')" = "(12, 4, 3, [12, 64, 64])" ]
check "alibi 12 heads: panels of 128 x 128, none overlapping" ok_and \
	[ "$(png "$T/heads.png" hmjson 'all(p[2:] == [128, 128] for p in d["panels"]) and all(a == b or a[0] + 128 < b[0] or b[0] + 128 < a[0] or a[1] + 128 < b[1] or b[1] + 128 < a[1] for a in d["panels"] for b in d["panels"])')" = True ]
check "alibi 12 heads: the image holds them, not a strip" ok_and \
	[ "$(png "$T/heads.png" hmjson 'max(p[0] + p[2] for p in d["panels"]) > 3 * max(p[1] + p[3] for p in d["panels"]) // 4')" = True ]
# one scale: the steepest head (8, slope 2^-1/2) reaches the minimum at
# query 63, key 0; head 0 (slope 1/2) does not; 0 above the diagonal
check "alibi 12 heads: one colour scale, head 8 holds the minimum" ok_and \
	[ "$(png "$T/heads.png" pcell 8 63 0 64 64)" = "68 1 84" ]
check "alibi 12 heads: head 0 is not at the minimum" ok_and \
	[ "$(png "$T/heads.png" pcell 0 63 0 64 64)" != "68 1 84" ]
check "alibi 12 heads: 0 is the maximum in every head" ok_and \
	[ "$(png "$T/heads.png" pcell 5 0 63 64 64)" = "253 231 36" ]
run generate alibi --heads 12 -n 64 --head 3 -o "$T/head3.png"
check "alibi --head 3: one heatmap, no panels" ok_and \
	[ "$(png "$T/head3.png" hmjson '"panels" in d, d["shape"]')" = "(False, [64, 64])" ]
# --scale each: every head its own range and colour bar
run generate alibi --heads 8 -n 32 --scale each -o "$T/each.png"
check "--scale each: a range per head, -m * 31 .. 0" ok_and \
	png "$T/each.png" hmtest 'd["scales"] == [[-31 * 2 ** -(k + 1), 0] for k in range(8)]'
check "--scale each: each head's minimum is the first colour" ok_and \
	[ "$(png "$T/each.png" pcell 7 31 0 32 32)" = "68 1 84" ]
check "--scale each: head 0's too" ok_and [ "$(png "$T/each.png" pcell 0 31 0 32 32)" = "68 1 84" ]
usage_error "--scale with csv" generate alibi --heads 8 -n 32 --scale each
fails 2 "png of 1025 heads" "png draws at most 1024 heads as panels, this result has 1025 " \
	generate alibi --heads 1025 -n 2 -o "$T/eo/x.png"

# --- --no-axes: the heatmap's pixels alone ---
run generate sinusoidal -n 256 -d 128 --no-axes -o "$T/bare.png"
check "--no-axes: the image is the 128 x 256 heatmap" ok_and \
	[ "$(png "$T/bare.png" size) $(png "$T/bare.png" hm)" = "128 256 0 0 128 256" ]
check "--no-axes: cell (0, 1) = cos 0 is the last colour" ok_and [ "$(png "$T/bare.png" cell 0 1 256 128)" = "253 231 36" ]
run generate sinusoidal -n 256 -d 128 --no-axes --size 64 -o "$T/bare64.png"
check "--no-axes --size 64: a 32 x 64 image" ok_and [ "$(png "$T/bare64.png" size)" = "32 64" ]
run generate alibi --heads 12 -n 64 --no-axes -o "$T/bare_heads.png"
check "--no-axes, 12 heads: 4 x 3 panels 2 pixels apart" ok_and \
	[ "$(png "$T/bare_heads.png" size)" = "262 196" ]

# (deflate settings change the bytes, never the pixels: tests/numpy/check.py
# compares --no-axes heatmaps with matplotlib's imsave, pixel for pixel)

# --- docs/gallery.md: every image is what its command draws, at its size ---
gallery=$here/../../docs
rm -rf "$T/gallery"
sh "$gallery/make-gallery.sh" "$POSENC" "$T/gallery" >"$T/out" 2>"$T/err"
status=$?
# (commands may also write inputs for the next ones, as dotfiles)
check "gallery: make-gallery.sh made every image" ok_and \
	[ "$(ls "$T/gallery" | wc -l)" -eq "$(grep -c '^<img src="img/' "$gallery/gallery.md")" ]
sed -n 's|^<img src="img/\([^"]*\)" width="\([0-9]*\)" height="\([0-9]*\)".*|\1 \2 \3|p' \
	"$gallery/gallery.md" >"$T/gallery.txt"
while read -r g_name g_w g_h; do
	check "gallery $g_name: drawn at the recorded $g_w x $g_h" ok_and \
		[ "$(png "$T/gallery/$g_name" size)" = "$g_w $g_h" ]
	check "gallery $g_name: the committed image is what the command draws" ok_and \
		png "$T/gallery/$g_name" same "$gallery/img/$g_name"
done <"$T/gallery.txt"
check "gallery: every image listed has a command" ok_and \
	[ "$(wc -l <"$T/gallery.txt")" -eq "$(ls "$T/gallery" | wc -l)" ]
