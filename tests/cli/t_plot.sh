# posenc plot: tables as heatmaps, curves as line charts, several files
# as panels side by side; its option errors.

# png FILE CMD ...: tests/cli/png.py (defined in run.sh)

# --- a table as a heatmap: the same cells as the command that made it ---
"$POSENC" generate sinusoidal -n 64 -d 32 -f npy -o "$T/sin.npy" 2>/dev/null
"$POSENC" generate sinusoidal -n 64 -d 32 -o "$T/sin_gen.png" --cmap coolwarm --vmin -1 --vmax 1 2>/dev/null
run plot "$T/sin.npy" -o "$T/sin.png" --vmin -1 --vmax 1 --cmap coolwarm
check "plot npy: exit 0" [ "$status" -eq 0 ]
check "plot npy: its cells are generate's" ok_and png "$T/sin.png" cells 64 32 "$T/sin_gen.png"
check "plot npy: titled by the file" ok_and [ "$(png "$T/sin.png" text Title)" = "sin.npy" ]
check "plot npy: the heatmap text" ok_and png "$T/sin.png" hmtest 'd["shape"] == [64, 32] and d["cmap"] == "coolwarm"'
# signed data without --cmap: coolwarm centred on 0
run plot "$T/sin.npy" -o "$T/sin_auto.png"
check "plot signed data: coolwarm from -m to m" ok_and \
	png "$T/sin_auto.png" hmtest 'd["cmap"] == "coolwarm" and d["vmin"] == -d["vmax"]'
# csv without a header, and stdin
"$POSENC" generate sinusoidal -n 5 -d 4 -o "$T/t.csv" 2>/dev/null
run_stdin "$T/t.csv" plot - -o "$T/stdin.png"
check "plot - (stdin csv): a heatmap titled stdin" ok_and [ "$(png "$T/stdin.png" text Title)" = "stdin" ]
run plot "$T/t.csv" -f svg -o "$T/t.svg"
check "plot -f svg" ok_and grep -q '<image style="image-rendering:pixelated"' "$T/t.svg"

# --- several files: panels side by side, each its own scale or one ---
"$POSENC" similarity sinusoidal -n 64 -d 32 -f npy -o "$T/s1.npy" 2>/dev/null
"$POSENC" similarity learned -n 64 -d 32 -f npy -o "$T/s2.npy" 2>/dev/null
"$POSENC" similarity learned -n 48 -d 32 --seed 3 -f npy -o "$T/s3.npy" 2>/dev/null
run plot "$T/s1.npy" "$T/s2.npy" "$T/s3.npy" --titles 'sinusoid,GPT-2 init,other' -o "$T/three.png" --cmap magma
check "three files: three panels in a row" ok_and \
	png "$T/three.png" hmtest 'len(d["panels"]) == 3 and len({p[1] for p in d["panels"]}) == 1 and d["panels"][0][0] < d["panels"][1][0] < d["panels"][2][0]'
check "three files: one shared scale" ok_and png "$T/three.png" hmtest 'len({tuple(s) for s in d["scales"]}) == 1'
run plot "$T/s1.npy" "$T/s2.npy" "$T/s3.npy" --scale each -o "$T/each.png" --cmap magma
check "--scale each: each panel its own range" ok_and png "$T/each.png" hmtest 'len({tuple(s) for s in d["scales"]}) == 3'
# the diagonal (cosine 1) is the last colour of each panel's own scale
check "--scale each: a panel's diagonal is the top of its own scale" ok_and \
	[ "$(png "$T/each.png" pcell 1 10 10 64 64 | cut -d' ' -f1)" -ge 250 ]
check "no title for several files" ok_and eval '! png "$T/each.png" text Title' 

# --- a curve: csv with a header is a line chart ---
printf 'offset,mean\n0,1\n1,0.5\n2,0.25\n3,0.125\n' >"$T/curve.csv"
run plot "$T/curve.csv" -o "$T/curve.png"
check "curve csv: a line chart (no heatmap text)" ok_and eval '! png "$T/curve.png" text posenc:heatmap' 
check "curve csv: ink in the plot" ok_and [ "$(png "$T/curve.png" ink 100 60 500 300)" -gt 300 ]
check "curve csv: meta says line" ok_and png "$T/curve.png" text posenc:meta | grep -q '"kind":"line"'
run plot "$T/curve.csv" --logy -o "$T/curvelog.pdf"
check "curve --logy to pdf" ok_and [ "$(head -c 5 "$T/curvelog.pdf")" = "%PDF-" ]
run plot "$T/curve.csv" --kind heatmap -o "$T/curve_hm.png"
check "--kind heatmap draws a curve file's values" ok_and png "$T/curve_hm.png" hmtest 'd["shape"] == [4, 2]'
"$POSENC" similarity sinusoidal -n 32 -d 16 --profile -o "$T/prof.csv" 2>/dev/null
run plot "$T/prof.csv" "$T/curve.csv" -o "$T/two.svg"
check "two curves side by side, titled by file" ok_and \
	eval 'grep -q "prof.csv" "$T/two.svg" && grep -q "<svg" "$T/two.svg"'

# --- errors: one line, nothing written ---
usage_error "plot without files" plot -o "$T/eo/x.png"
check "plot without files: message" grep -q "^posenc: plot: give the FILE(s) to draw$" "$T/err"
usage_error "plot to csv" plot "$T/sin.npy" -o "$T/eo/x.csv"
check "plot to csv: message" grep -q "^posenc: plot: this is a figure: give -o FILE.png, .svg or .pdf" "$T/err"
usage_error "plot --titles count" plot "$T/s1.npy" "$T/s2.npy" --titles a -o "$T/eo/x.png"
check "plot --titles count: message" grep -q "^posenc: plot: --titles names 1 panels and there are 2 files, got 'a'$" "$T/err"
usage_error "plot mixed kinds" plot "$T/sin.npy" "$T/curve.csv" -o "$T/eo/x.png"
check "plot mixed kinds: message" grep -q "^posenc: plot: .*sin.npy' is a table and .*curve.csv' a curve: give --kind" "$T/err"
usage_error "plot line with --cmap" plot "$T/curve.csv" --cmap magma -o "$T/eo/x.png"
check "plot line with --cmap: message" grep -q "^posenc: plot: --cmap does not apply to a line chart$" "$T/err"
usage_error "plot heatmap with --logy" plot "$T/sin.npy" --logy -o "$T/eo/x.png"
usage_error "plot --rows" plot "$T/sin.npy" --rows 0:2 -o "$T/eo/x.png"
fails 1 "plot a missing file" "$T/nope.npy: cannot open" plot "$T/nope.npy" -o "$T/eo/x.png"
