# posenc generate sincos2d: MAE and timm grids.
run generate sincos2d --grid 2x2 -d 4 --cls-token
check "mae golden: 5 rows" [ "$(wc -l <"$T/out")" -eq 5 ]
check "mae golden: cls zero" [ "$(sed -n 1p "$T/out")" = "0,0,0,0" ]
check "mae golden: token (0,1)" [ "$(sed -n 3p "$T/out")" = "0.84147096,0.5403023,0,1" ]
check "mae golden: token (1,0)" [ "$(sed -n 4p "$T/out")" = "0,1,0.84147096,0.5403023" ]
run generate sincos2d --grid 2x3 -d 4 --preset timm
check "timm: 6 rows" [ "$(wc -l <"$T/out")" -eq 6 ]
check "timm token (0,1): [sin h|sin w|cos h|cos w]" [ "$(sed -n 2p "$T/out")" = "0,0.84147096,1,0.5403023" ]
run generate sincos2d --grid 14x14 -f json
check "sincos2d default D 768" grep -q '^{"shape":\[196,768\]' "$T/out"
usage_error "sincos2d D not /4" generate sincos2d --grid 2x2 -d 6
check "sincos2d D message" grep -q "divisible by 4" "$T/err"
usage_error "sincos2d no grid" generate sincos2d -d 8
usage_error "sincos2d bad grid" generate sincos2d --grid 2x
usage_error "sincos2d -n" generate sincos2d --grid 2x2 -n 4
usage_error "sincos2d preset" generate sincos2d --grid 2x2 --preset vaswani
