# posenc generate alibi: slopes, forms, 3-D output, --head.
run generate alibi --table slopes --heads 3
check "alibi slopes H=3" [ "$(tr '\n' ' ' <"$T/out")" = "0.0625 0.00390625 0.25 " ]
run generate alibi --table slopes --heads 12 -f json
check "alibi slopes: 1-D" grep -q '^{"shape":\[12\]' "$T/out"
run generate alibi -n 3 --heads 2
check "alibi csv stacks heads: 6 rows" [ "$(wc -l <"$T/out")" -eq 6 ]
check "alibi causal row 2 head 0" [ "$(sed -n 3p "$T/out")" = "-0.125,-0.0625,0" ]
check "alibi no negative zero" sh -c '[ -s "$1" ] && ! grep -qE -- "(^|,)-0(,|$)" "$1"' _ "$T/out"
run generate alibi -n 3 --heads 2 --form symmetric
check "alibi symmetric row 0" [ "$(sed -n 1p "$T/out")" = "0,-0.0625,-0.125" ]
run generate alibi -n 3 --heads 2 --form bloom --head 1
check "alibi bloom head 1: 3 rows" [ "$(wc -l <"$T/out")" -eq 3 ]
check "alibi bloom row" [ "$(sed -n 2p "$T/out")" = "0,0.00390625,0.0078125" ]
run generate alibi -n 4 --heads 3 -f json
check "alibi json: 3-D shape" grep -q '^{"shape":\[3,4,4\]' "$T/out"
run generate alibi -n 4 --heads 3 -f npy -o "$T/a.npy"
check "alibi npy: 3-D header" grep -q "'shape': (3, 4, 4)" "$T/a.npy"
run generate alibi -n 4 --heads 3 -f raw -o "$T/a.raw"
check "alibi raw: H*N*N floats" [ "$(wc -c <"$T/a.raw")" -eq $((3 * 4 * 4 * 4)) ]
run generate alibi -n 4 --heads 3 --rows 4:8
check "alibi --rows picks head 1" [ "$(wc -l <"$T/out")" -eq 4 ]
run generate alibi --table slopes --heads 4 --alibi-bias-max 16
check "alibi bias max 16" [ "$(head -1 "$T/out")" = "0.0625" ]
usage_error "alibi head out of range" generate alibi --heads 4 --head 4
usage_error "alibi dim" generate alibi -d 8
usage_error "alibi heads 0" generate alibi --heads 0
usage_error "alibi form" generate alibi --form paper
usage_error "alibi slopes with head" generate alibi --table slopes --head 1
usage_error "alibi bias max 0" generate alibi --alibi-bias-max 0
usage_error "alibi rope option" generate alibi --theta 100
