# posenc bucket: ids against the published tables (research notes §5, Swin
# issue #281), integers in all five formats, the gathered bias, errors.
# Expected values are written here from those tables, never taken from
# posenc's output.
B=$T/bucket
mkdir -p "$B"

# T5 defaults, bidirectional: keys after the query are 17.., |n| 8-11 -> 8
run bucket -n 20
check "t5: query 0 row, from the published table" ok_and \
	[ "$(sed -n 1p "$T/out")" = "0,17,18,19,20,21,22,23,24,24,24,24,25,25,25,25,26,26,26,26" ]
check "t5: query 19 row" ok_and \
	[ "$(sed -n 20p "$T/out")" = "10,10,10,10,9,9,9,9,8,8,8,8,7,6,5,4,3,2,1,0" ]
check "t5: 20 x 20" ok_and [ "$(wc -l <"$T/out")" -eq 20 ] && [ "$(awk -F, '{print NF}' "$T/out" | sort -u)" = 20 ]
# the ids of every distance, where they change: 91 -> 15, +16 after the query
run bucket --distances -200:201
awk -F, 'NR == 1 || $2 != p { printf "%s:%s ", $1, $2 } { p = $2 }' "$T/out" >"$T/steps"
check "t5 --distances: the published steps" ok_and [ "$(cat "$T/steps")" = \
	"-200:15 -90:14 -63:13 -45:12 -31:11 -22:10 -15:9 -11:8 -7:7 -6:6 -5:5 -4:4 -3:3 -2:2 -1:1 0:0 1:17 2:18 3:19 4:20 5:21 6:22 7:23 8:24 12:25 16:26 23:27 32:28 46:29 64:30 91:31 " ]
run bucket --causal --distances -120:3 --header
check "t5 causal: header" ok_and [ "$(sed -n 1p "$T/out")" = "distance,bucket" ]
awk -F, 'NR > 1 && (NR == 2 || $2 != p) { printf "%s:%s ", $1, $2 } NR > 1 { p = $2 }' "$T/out" >"$T/steps"
check "t5 causal: the published steps, future keys 0" ok_and [ "$(cat "$T/steps")" = \
	"-120:31 -112:30 -98:29 -86:28 -76:27 -66:26 -58:25 -51:24 -45:23 -39:22 -34:21 -30:20 -26:19 -23:18 -20:17 -18:16 -15:15 -14:14 -13:13 -12:12 -11:11 -10:10 -9:9 -8:8 -7:7 -6:6 -5:5 -4:4 -3:3 -2:2 -1:1 0:0 " ]
# DeBERTa (query - key), the examples of the notes
run bucket --scheme deberta --distances -600:601
for pair in 129,129 130,130 140,137 200,169 256,192 511,255 -511,-255 600,270 -5,-5 0,0; do
	check "deberta: distance ${pair%,*} -> ${pair#*,}" ok_and grep -qx -- "$pair" "$T/out"
done
run bucket --scheme deberta -n 3
check "deberta: query - key, signed" ok_and [ "$(cat "$T/out")" = "0,-1,-2
1,0,-1
2,1,0" ]
# Swin 2x2 (issue #281); a class token (BEiT): row R, column R+1, corner R+2
run bucket --scheme swin --window 2x2
check "swin 2x2 index" ok_and [ "$(cat "$T/out")" = "4,3,1,0
5,4,2,1
7,6,4,3
8,7,5,4" ]
run bucket --scheme swin --window 1x2 --cls-token
check "swin 1x2 with a class token" ok_and [ "$(cat "$T/out")" = "5,3,3
4,1,0
4,2,1" ]
run bucket --scheme swin --window 2x3
check "swin non-square 2x3: 6 x 6, corner ids" ok_and \
	[ "$(sed -n 1p "$T/out")" = "7,6,5,2,1,0" ] && [ "$(sed -n 6p "$T/out")" = "14,13,12,9,8,7" ]

# integers in every format: json ints, npy <i4, safetensors I32, raw int32
run bucket --scheme swin --window 2x2 -f json
check "json: int32, plain integers" ok_and grep -q '"dtype":"int32"' "$T/out"
check "json: the rows" ok_and [ "$(sed -n '2,$p' "$T/out" | tr -d '\n')" = "[4,3,1,0],[5,4,2,1],[7,6,4,3],[8,7,5,4]]}" ]
check "json: the sign convention in meta" ok_and grep -q '"relative_position":"query - key per axis"' "$T/out"
run bucket --scheme swin --window 2x2 -f npy
check "npy: <i4 header" ok_and grep -q "'descr': '<i4'" "$T/out"
cp "$T/out" "$B/ids.npy"
run bucket --scheme swin --window 2x2 -f raw
check "raw: little-endian int32" ok_and [ "$(od -An -v -t d4 --endian=little "$T/out" | tr -s ' \n' ' ')" = " 4 3 1 0 5 4 2 1 7 6 4 3 8 7 5 4 " ]
check "npy data = raw" ok_and [ "$(tail -c 64 "$B/ids.npy" | od -An -v -t d4 --endian=little | tr -s ' \n' ' ')" = " 4 3 1 0 5 4 2 1 7 6 4 3 8 7 5 4 " ]
run bucket --scheme swin --window 2x2 -f safetensors
check "safetensors: I32 [4,4]" ok_and grep -q '"bucket_ids":{"dtype":"I32","shape":\[4,4\]' "$T/out"
check "safetensors: the data" ok_and [ "$(tail -c 64 "$T/out" | od -An -v -t d4 --endian=little | tr -s ' \n' ' ')" = " 4 3 1 0 5 4 2 1 7 6 4 3 8 7 5 4 " ]

# --rows shards concatenate to the whole
run bucket -n 300 -f raw -o "$B/whole.raw"
run bucket -n 300 -f raw --rows 0:123 -o "$B/a.raw"
run bucket -n 300 -f raw --rows 123:300 -o "$B/b.raw"
cat "$B/a.raw" "$B/b.raw" >"$B/ab.raw"
check "--rows shards = the whole" same_output "$B/whole.raw" "$B/ab.raw"
check "the whole: 300 x 300 int32" [ "$(wc -c <"$B/whole.raw")" -eq 360000 ]

# the bias: a 32 x 3 table, bias[b][h] = 10 b + h, gathered by the ids
awk 'BEGIN { for (b = 0; b < 32; b++) printf "%d,%d,%d\n", 10 * b, 10 * b + 1, 10 * b + 2 }' >"$B/bias.csv"
run bucket -n 20 --bias "$B/bias.csv" --head 1
check "bias --head 1, query 0: 10 id + 1" ok_and \
	[ "$(sed -n 1p "$T/out")" = "1,171,181,191,201,211,221,231,241,241,241,241,251,251,251,251,261,261,261,261" ]
run bucket -n 20 --bias "$B/bias.csv" -f json
check "bias: 3 x 20 x 20 float32" ok_and grep -q '"shape":\[3,20,20\],"dtype":"float32"' "$T/out"
check "bias: provenance in meta" ok_and grep -q "\"bias_input\":\"$B/bias.csv\"" "$T/out"
run bucket -n 20 --bias "$B/bias.csv"
check "bias csv: heads stacked (60 rows), head 2 row 0" ok_and \
	[ "$(wc -l <"$T/out")" -eq 60 ] && [ "$(sed -n 41p "$T/out" | cut -d, -f1-3)" = "2,172,182" ]
run bucket --distances -2:3 --bias "$B/bias.csv" --header
check "bias --distances: one row per distance, one column per head" ok_and [ "$(cat "$T/out")" = "head0,head1,head2
20,21,22
10,11,12
0,1,2
170,171,172
180,181,182" ]
run_stdin "$B/bias.csv" bucket -n 3 --bias - --head 0
check "bias from stdin" ok_and [ "$(sed -n 2p "$T/out")" = "10,0,170" ]
# Swin: (2H-1)(2W-1) rows
awk 'BEGIN { for (b = 0; b < 9; b++) printf "%d\n", b * 100 }' >"$B/swin.csv"
run bucket --scheme swin --window 2x2 --bias "$B/swin.csv"
check "swin bias: the index x 100" ok_and [ "$(sed -n 1p "$T/out")" = "400,300,100,0" ]

# PNG of ids and of a bias
run bucket -n 64 -o "$B/ids.png"
check "png of ids: a picture" ok_and [ -n "$(png "$B/ids.png" size)" ]
run bucket -n 16 --bias "$B/bias.csv" -o "$B/bias.png"
check "png of a 3-head bias: a picture" ok_and [ -n "$(png "$B/bias.png" size)" ]

# errors: one line naming what is needed
fails 1 "bias of the wrong shape" "$B/swin.csv: the bias table must have 32 rows (one per bucket) and one column per head, got 9 x 1$" \
	bucket -n 4 --bias "$B/swin.csv" -o "$T/eo/o.csv"
awk 'BEGIN { for (h = 0; h < 8; h++) { for (b = 0; b < 32; b++) printf "%s%d", b ? "," : "", b; printf "\n" } }' >"$B/transposed.csv"
fails 1 "bias transposed" "$B/transposed.csv: the bias table must have 32 rows (one per bucket) and one column per head, got 8 x 32 (transposed? the reference stores buckets x heads)$" \
	bucket -n 4 --bias "$B/transposed.csv" -o "$T/eo/o.csv"
fails 1 "bias file missing" "$B/nope.npy: cannot open: No such file or directory$" \
	bucket -n 4 --bias "$B/nope.npy" -o "$T/eo/o.csv"
fails 2 "odd buckets, bidirectional" "--num-buckets must be even and at least 4 when bidirectional" \
	bucket --num-buckets 31 -o "$T/eo/o.csv"
fails 2 "max-distance <= max_exact" "--max-distance must exceed max_exact = 8 (bidirectional --num-buckets 32 / 4" \
	bucket --max-distance 8 -o "$T/eo/o.csv"
fails 2 "causal max_exact" "--max-distance must exceed max_exact = 16 (causal" \
	bucket --causal --max-distance 16 -o "$T/eo/o.csv"
fails 2 "deberta max-position" "--max-position must exceed --bucket-size / 2 + 1 = 129" \
	bucket --scheme deberta --max-position 100 -o "$T/eo/o.csv"
fails 2 "window 0" "--window must be HxW with H and W in 1..2048, got '0x3'$" \
	bucket --scheme swin --window 0x3 -o "$T/eo/o.csv"
fails 2 "an option of another scheme" "--window applies to --scheme swin, not t5$" \
	bucket --window 2x2 -o "$T/eo/o.csv"
fails 2 "t5 option with deberta" "--causal applies to --scheme t5, not deberta$" \
	bucket --scheme deberta --causal -o "$T/eo/o.csv"
fails 2 "both directions" "--bidirectional and --causal contradict each other" \
	bucket --bidirectional --causal -o "$T/eo/o.csv"
fails 2 "--head without --bias" "--head applies to --bias FILE only$" bucket --head 0 -o "$T/eo/o.csv"
fails 2 "--head beyond the table" "--head must be below the table's 3 heads, got 3$" \
	bucket -n 4 --bias "$B/bias.csv" --head 3 -o "$T/eo/o.csv"
fails 2 "swin distances" "--distances does not apply to --scheme swin" \
	bucket --scheme swin --distances 0:4 -o "$T/eo/o.csv"
fails 2 "-n and --distances" "-n (an L x L grid) and --distances (a list) are two outputs" \
	bucket -n 4 --distances 0:4 -o "$T/eo/o.csv"
fails 2 "distances reversed" "--distances must be A:B with A < B, both within +-2147483647, got '5:-5'$" \
	bucket --distances 5:-5 -o "$T/eo/o.csv"
fails 2 "-n 0" "--positions must be" bucket -n 0 -o "$T/eo/o.csv"
fails 2 "unknown scheme" "unknown --scheme 'alibi' (one of: t5, deberta, swin)$" bucket --scheme alibi -o "$T/eo/o.csv"
fails 2 "an operand" "unexpected operand 't5' (the scheme is --scheme NAME)$" bucket t5 -o "$T/eo/o.csv"
