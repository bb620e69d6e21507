# posenc resample: a learned grid on a new grid, as timm's resample_abs_pos_embed.
# a 1 x 4 grid (one prefix row) of a ramp: nearest doubles each cell
printf '9,9\n0,10\n1,11\n2,12\n3,13\n' >"$T/ramp.csv"
run resample -i "$T/ramp.csv" --grid 1x4 --to 1x8 --interp nearest
check "nearest 4 -> 8: the prefix row kept, each cell twice" \
	[ "$(tr '\n' ' ' <"$T/out")" = "9,9 0,10 0,10 1,11 1,11 2,12 2,12 3,13 3,13 " ]
# bilinear on a ramp: the value at the source coordinate (i + 1/2)/2 - 1/2, clamped
run resample -i "$T/ramp.csv" --grid 1x4 --to 1x8 --interp bilinear
check "bilinear 4 -> 8 on a ramp" \
	[ "$(tr '\n' ' ' <"$T/out")" = "9,9 0,10 0.25,10.25 0.75,10.75 1.25,11.25 1.75,11.75 2.25,12.25 2.75,12.75 3,13 " ]
# bicubic 2 -> 4, output 1: source 0.25, Keys A = -0.75 weights
# -0.10546875, 0.87890625, 0.26171875, -0.03515625 on cells 0, 0, 1, 1
printf '0\n1\n' >"$T/two.csv"
run resample -i "$T/two.csv" --grid 1x2 --to 1x4 --prefix-tokens 0
check "bicubic 2 -> 4: Keys' weights" [ "$(sed -n 2p "$T/out")" = "0.2265625" ]
# timm's defaults: one prefix row, a square grid from the rows
"$PYTHON" -c "import numpy as np; np.save('$T/vit.npy', np.arange(197 * 3, dtype=np.float32).reshape(1, 197, 3))" 2>/dev/null
run resample -i "$T/vit.npy" --to 16x16 -f json
check "14x14 + cls -> 16x16: 257 rows" grep -q '^{"shape":\[257,3\]' "$T/out"
check "14x14 + cls: meta" grep -q '"grid":"14x14","to":"16x16","prefix_tokens":1' "$T/out"
run resample -i "$T/vit.npy" --to 14x14
"$PYTHON" -c "import numpy as np; np.savetxt('$T/vit.csv', np.load('$T/vit.npy')[0], delimiter=',', fmt='%g')" 2>/dev/null
run resample -i "$T/vit.npy" --to 14x14
check "the same grid: the table itself" same_output "$T/vit.csv" "$T/out"
run resample -i "$T/vit.npy" --to 7x21 --antialias --interp bilinear -o "$T/ns.npy"
check "non-square antialiased: 1 + 147 rows" ok_and "$PYTHON" -c "import numpy as np, sys; a = np.load('$T/ns.npy'); sys.exit(int(a.shape != (148, 3) or bool((a[0] != [0, 1, 2]).any())))"
run resample -i "$T/vit.npy" --to 24x24 --coords exact -o "$T/ex.npy"
run resample -i "$T/vit.npy" --to 24x24 -o "$T/pt.npy"
check "exact and pytorch coordinates differ a little" ok_and "$PYTHON" -c "import numpy as np, sys; a, b = np.load('$T/ex.npy'), np.load('$T/pt.npy'); d = np.abs(a - b).max(); sys.exit(not (0 < d < 1e-3))"
# bad input
fails 1 "grid does not fit" "$T/vit.npy: a 12x12 grid after 1 prefix rows needs 145 rows, the table has 197 (a 14x14 grid would fit)$" \
	resample -i "$T/vit.npy" --grid 12x12 --to 16x16 -o "$T/eo/o.npy"
fails 1 "no cls row" "$T/vit.npy: a 14x14 grid after 5 prefix rows needs 201 rows, the table has 197" \
	resample -i "$T/vit.npy" --grid 14x14 --prefix-tokens 5 --to 16x16 -o "$T/eo/o.npy"
fails 1 "too many prefix tokens" "$T/vit.npy: 300 prefix rows, but the table has 197 rows: none left for the grid$" \
	resample -i "$T/vit.npy" --prefix-tokens 300 --to 5x5 -o "$T/eo/o.npy"
printf '0\n1\n2\n' >"$T/three.csv"
fails 1 "no square grid" "$T/three.csv: 2 rows after 1 prefix rows are no square grid: give --grid HxW$" \
	resample -i "$T/three.csv" --to 5x5 -o "$T/eo/o.npy"
fails 2 "--to 0x5" "--to must be HxW with sides from 1 to 2^24, got '0x5'$" \
	resample -i "$T/vit.npy" --to 0x5 -o "$T/eo/o.npy"
fails 2 "no --to" "give the new grid with --to HxW$" resample -i "$T/vit.npy"
fails 2 "nearest with antialias" "--antialias applies to bicubic and bilinear, not nearest" \
	resample -i "$T/vit.npy" --to 5x5 --interp nearest --antialias
fails 2 "no input" "give the table to resample with -i FILE$" resample --to 5x5
