# Figures beyond the PNG heatmap: the same figure as SVG and PDF (parsed,
# and rasterised with rsvg-convert and pdftoppm, its heatmap's cells
# compared with the PNG's), line charts of curve results, and the colours
# of NaN and the infinities.

# png FILE CMD ...: tests/cli/png.py (defined in run.sh)

# --- svg and pdf: the png's figure as vector graphics ---
run generate sinusoidal -n 64 -d 32 -o "$T/f.png"
run generate sinusoidal -n 64 -d 32 -o "$T/f.svg"
check "svg: exit 0" [ "$status" -eq 0 ]
# well-formed XML, an <svg> as wide and tall (px) as the png
svg_size() {
	"$PYTHON" -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "{http://www.w3.org/2000/svg}svg"
print(r.attrib["width"].replace("px", ""), r.attrib["height"].replace("px", ""))' "$1" 2>/dev/null
}
check "svg: parses, the png's size in px" ok_and [ "$(svg_size "$T/f.svg")" = "$(png "$T/f.png" size)" ]
check "svg: the heatmap image is never smoothed" ok_and grep -q '<image style="image-rendering:pixelated"' "$T/f.svg"
check "svg: the parameters in <desc>" ok_and grep -q '<desc>{&quot;kind&quot;:&quot;sinusoidal&quot;' "$T/f.svg"
if command -v rsvg-convert >/dev/null 2>&1; then
	rsvg-convert "$T/f.svg" -o "$T/f_svg.png" 2>/dev/null
	check "svg rasterised: the png's size" ok_and [ "$(png "$T/f_svg.png" size)" = "$(png "$T/f.png" size)" ]
	check "svg rasterised: every cell the png's colour" ok_and png "$T/f.png" cells 64 32 "$T/f_svg.png"
fi
run generate sinusoidal -n 64 -d 32 -o "$T/f.pdf"
check "pdf: exit 0, a PDF" ok_and [ "$(head -c 5 "$T/f.pdf")" = "%PDF-" ]
if command -v pdfinfo >/dev/null 2>&1; then
	pdfinfo "$T/f.pdf" >"$T/pdfinfo" 2>/dev/null
	w_pt=$("$PYTHON" -c "import sys; w, h = map(int, sys.argv[1:3]); print('%g x %g pts' % (round(w * 0.72, 2), round(h * 0.72, 2)))" $(png "$T/f.png" size) 2>/dev/null)
	check "pdf: one page" grep -q '^Pages: *1$' "$T/pdfinfo"
	check "pdf: the png's size at 100 dpi" grep -q "^Page size: *$w_pt" "$T/pdfinfo"
	check "pdf: made by posenc" grep -q '^Creator: *posenc ' "$T/pdfinfo"
fi
if command -v pdftoppm >/dev/null 2>&1; then
	pdftoppm -r 100 -png -singlefile "$T/f.pdf" "$T/f_pdf" 2>/dev/null
	check "pdf rasterised: every cell the png's colour" ok_and png "$T/f.png" cells 64 32 "$T/f_pdf.png"
fi
run generate sinusoidal -n 64 -d 32 -o "$T/f2.pdf"
check "pdf: the same bytes twice (no time stamp)" same_output "$T/f.pdf" "$T/f2.pdf"
run generate sinusoidal -n 8 -d 8 -f svg --title 'a <b> & "c"'
check "svg -f to stdout, title escaped in <title>" ok_and grep -q '<title>a &lt;b&gt; &amp; &quot;c&quot;</title>' "$T/out"
usage_error "figure option with npy" generate sinusoidal -n 3 -d 3 -f npy --title x
check "figure option with npy: message" grep -q "^posenc: generate: --title applies to figures only" "$T/err"
# .PDF in any case
run generate sinusoidal -n 4 -d 4 -o "$T/UP.PDF"
check ".PDF is pdf" ok_and [ "$(head -c 5 "$T/UP.PDF")" = "%PDF-" ]

# --- line charts of curve results ---
run similarity sinusoidal -n 128 -d 64 --profile -o "$T/prof.png"
check "--profile -o .png: a chart" ok_and [ "$(png "$T/prof.png" text Title)" = "cosine similarity of sinusoidal by offset, 128 positions" ]
check "--profile chart: ink in the plot area" ok_and [ "$(png "$T/prof.png" ink 100 60 500 300)" -gt 500 ]
run similarity sinusoidal -n 128 -d 64 --profile -o "$T/prof.svg" --title "my profile" --size 400
check "--profile -o .svg: titled as asked" ok_and grep -q '<title>my profile</title>' "$T/prof.svg"
usage_error "--profile chart with --cmap" similarity sinusoidal -n 16 -d 8 --profile -o "$T/eo/p.png" --cmap magma
check "--profile chart with --cmap: message" grep -q "^posenc: similarity: --cmap does not apply to a line chart$" "$T/err"
run similarity sinusoidal -n 16 -d 8 --profile -o "$T/prof.csv"
check "--profile -o .csv is still the csv" ok_and [ "$(head -1 "$T/prof.csv")" = "offset,mean,std,count" ]
run bucket --distances -20:20 -o "$T/bd.png"
check "bucket --distances -o .png: a step chart" ok_and [ "$(png "$T/bd.png" text Title)" = "t5 buckets by relative distance, -20 to 19" ]
run bucket --distances -20:20 -o "$T/bd.pdf"
check "bucket --distances -o .pdf" ok_and [ "$(head -c 5 "$T/bd.pdf")" = "%PDF-" ]

# --- NaN and the infinities: their own colours, swatches under the bar ---
printf '0,-inf,-inf\n1,2,-inf\nnan,inf,3\n' >"$T/inf.csv"
run plot "$T/inf.csv" -o "$T/inf.png" --cmap viridis
check "-inf is light grey" ok_and [ "$(png "$T/inf.png" cell 0 1 3 3)" = "217 217 217" ]
check "+inf is black" ok_and [ "$(png "$T/inf.png" cell 2 1 3 3)" = "0 0 0" ]
check "NaN is magenta" ok_and [ "$(png "$T/inf.png" cell 2 0 3 3)" = "255 0 255" ]
check "the heatmap text names the infinities' colours" ok_and \
	png "$T/inf.png" hmtest 'd["neginf"] == "#d9d9d9" and d["posinf"] == "#000000"'
check "finite cells keep the map: 3 is the last colour" ok_and [ "$(png "$T/inf.png" cell 2 2 3 3)" = "253 231 36" ]
# --no-axes: the end colours, as imsave gives them
run plot "$T/inf.csv" -o "$T/inf_bare.png" --cmap viridis --no-axes
check "--no-axes: -inf is the first colour" ok_and [ "$(png "$T/inf_bare.png" cell 0 1 3 3)" = "68 1 84" ]
check "--no-axes: +inf is the last colour" ok_and [ "$(png "$T/inf_bare.png" cell 2 1 3 3)" = "253 231 36" ]
