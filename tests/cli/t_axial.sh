# posenc generate axial: the presets' worked values (rope-2026.md section C),
# shapes, tables, the general form's options and its errors.

# Pixtral, D 8, 4 x 4: patch (1, 2) = row 6, cos [0.5403023, 0.99995,
# 0.9800666, 0.999998] twice (half layout)
run generate axial --preset pixtral -d 8 --grid 4x4
check "pixtral: 16 rows" [ "$(wc -l <"$T/out")" -eq 16 ]
check "pixtral: patch (1,2)" [ "$(sed -n 7p "$T/out")" = "0.5403023,0.99995,0.9800666,0.999998,0.5403023,0.99995,0.9800666,0.999998" ]
run generate axial --preset pixtral -d 8 --grid 4x4 --table inv-freq
check "pixtral: rows the even, columns the odd frequencies" [ "$(tr '\n' ' ' <"$T/out")" = "1 0.01 0.1 0.001 " ]

# Qwen2-VL's vision tower: merge order, the position ids
run generate axial --preset qwen2-vl-vision -d 8 --grid 4x6 --table ids
check "qwen2-vl: ids in 2x2 merge blocks" [ "$(head -8 "$T/out" | tr '\n' ' ')" = "0,0 0,1 1,0 1,1 0,2 0,3 1,2 1,3 " ]
run generate axial --preset qwen2-vl-vision -d 8 --grid 2x4x6 --table ids
check "qwen2-vl: a video repeats the frame's ids" [ "$(sed -n 25p "$T/out")" = "0,0" ] 
check "qwen2-vl: 48 tokens" [ "$(wc -l <"$T/out")" -eq 48 ]
run generate axial --preset qwen2-vl-vision -d 8 --grid 4x6 --table angles
check "qwen2-vl: cell (1,2) turns by [1, 0.01, 2, 0.02]" [ "$(sed -n 7p "$T/out")" = "1,0.01,2,0.02,1,0.01,2,0.02" ]
fails 2 "qwen2-vl: grid not divisible by the merge" "--grid 5x6 is not divisible into --merge 2 x 2 blocks$" \
	generate axial --preset qwen2-vl-vision --grid 5x6 -o "$T/eo/o.npy"

# Llama 4 vision: 1-based (x, y), the class token last with angle 0
run generate axial --preset llama4-vision -d 8 --grid 3x3 --table angles
check "llama4: 10 rows (9 patches + cls)" [ "$(wc -l <"$T/out")" -eq 10 ]
check "llama4: id 1 turns by [2, 0.02, 1, 0.01]" [ "$(sed -n 2p "$T/out")" = "2,2,0.02,0.02,1,1,0.01,0.01" ]
check "llama4: cls by 0" [ "$(sed -n 10p "$T/out")" = "0,0,0,0,0,0,0,0" ]
run generate axial --preset llama4-vision -f json
check "llama4: default 24x24 grid + cls, D 88" grep -q '^{"shape":\[577,88\]' "$T/out"

# FLUX: text tokens first, BFL's rotation matrices, float32 and float64
run generate axial --preset flux --grid 2x2 --prefix-tokens 1 --table rot -f json
check "flux rot: N x 2D" grep -q '^{"shape":\[5,256\]' "$T/out"
check "flux rot: the text token is [[1, -0], [0, 1]]" grep -q '^\[1,-0,0,1,1,-0,0,1,' "$T/out"
run generate axial --preset flux --grid 64x64 --table cos -f csv --rows 4032:4033
cp "$T/out" "$T/flux64"
run generate axial --preset flux --grid 64x64 --table cos -f csv --rows 4032:4033 --precision float32 --torch-cpu avx2
check "flux: float32 (BFL) and exact (diffusers) differ at row 63" differ_output "$T/out" "$T/flux64"

# Wan: 44, 42, 42 of a 128 head; float32 has no reference
run generate axial --preset wan --grid 2x2x2 --table inv-freq
check "wan: 64 frequencies" [ "$(wc -l <"$T/out")" -eq 64 ]
check "wan: t's second 0.6579332" [ "$(sed -n 2p "$T/out")" = "0.65793324" ]
check "wan: h's second 0.6449467" [ "$(sed -n 24p "$T/out")" = "0.6449467" ]
fails 2 "wan float32" "--precision float32: wan's references" generate axial --preset wan --grid 2x2x2 \
	--precision float32 -o "$T/eo/o.npy"

# HunyuanVideo: theta 256
run generate axial --preset hunyuan-video --grid 1x1x1 --table inv-freq
check "hunyuan: t 1, 0.5, 0.25" [ "$(head -3 "$T/out" | tr '\n' ' ')" = "1 0.5 0.25 " ]

# RoPE-ViT: (x, y), theta 100, float32 from torch.polar (glibc's cosf(1))
run generate axial --preset rope-vit -d 8 --grid 3x4 --table angles
check "rope-vit: token 6 turns by [2, 0.2, 1, 0.1]" [ "$(sed -n 7p "$T/out")" = "2,2,0.2,0.2,1,1,0.1,0.1" ]
run generate axial --preset rope-vit -d 8 --grid 1x2 --precision float32 --table cis
check "rope-vit float32: torch.polar's cos(1) 0x3f0a5140" [ "$(sed -n 2p "$T/out" | cut -d, -f1)" = "0.5403023" ]
check "rope-vit: meta torch_trig polar" eval 'posenc_meta=$("$POSENC" generate axial --preset rope-vit --precision float32 -f json --grid 1x1) && echo "$posenc_meta" | grep -q "\"torch_trig\":\"polar\""'

# the general form
run generate axial -d 12 --grid 2x3 --axes w,h --axes-dim 4,8 --theta 100,10000 --table inv-freq
check "general: per-block widths and thetas" [ "$(tr '\n' ' ' <"$T/out")" = "1 0.1 1 0.1 0.01 0.001 " ]
run generate axial --axes-dim 4,4 --grid 2x3 --origin 5 --table ids
check "general: origin on every block, -d from --axes-dim" [ "$(sed -n 6p "$T/out")" = "6,7" ]
run generate axial -d 8 --grid 1x3 --position-scale 0.5 --table angles --layout interleaved
check "general: scaled positions" [ "$(sed -n 3p "$T/out")" = "0,0,0,0,1,1,0.01,0.01" ]
run generate axial -d 8 --grid 2x2 --prefix-tokens 2 --suffix-tokens 1 --table ids
check "general: prefix and suffix tokens" [ "$(tr '\n' ' ' <"$T/out")" = "0,0 0,0 0,0 0,1 1,0 1,1 0,0 " ]
run generate axial -d 12 --grid 2x2x2 --table all -f json
check "general: all is cos, sin, inv_freq, ids" eval '[ "$(grep -o "^\"axial_[a-z_]*\"" "$T/out" | tr "\n" " ")" = "\"axial_cos\" \"axial_sin\" \"axial_inv_freq\" \"axial_ids\" " ]'

# a 64 x 64 x 64 video streams in a few MiB (the per-coordinate values are
# copied into each row)
if [ -x /usr/bin/time ] && [ -z "$VALGRIND" ]; then
	/usr/bin/time -f %M -o "$T/rss" "$POSENC" generate axial --preset wan --grid 64x64x64 -f raw --threads 2 >"$T/out" 2>"$T/err"
	status=$?
	check "wan 64x64x64: 128 MiB of rows" [ "$(wc -c <"$T/out")" -eq 134217728 ]
	check "wan 64x64x64: peak RSS under 32 MiB" eval '[ "$status" -eq 0 ] && [ "$(tail -1 "$T/rss")" -lt 32768 ]'
else
	skipped "axial streaming RSS" "no /usr/bin/time, or valgrind"
fi

# a figure of the table ticks its rows by cell
if command -v pdftotext >/dev/null 2>&1; then
	run generate axial --preset qwen2-vl-vision --grid 8x12 -o "$T/g.pdf"
	pdftotext "$T/g.pdf" "$T/g.txt" 2>/dev/null
	check "figure: rows ticked by cell, merge bands" ok_and eval 'grep -qx "(2,0)" "$T/g.txt" && grep -qx "token (y,x)" "$T/g.txt"'
else
	skipped "axial figure ticks" "no pdftotext"
fi

# bad input: one line, exit 2
fails 2 "axial: widths that do not sum" "--axes-dim 16,56,54 sums to 126, not the head dim --dim 128$" \
	generate axial -d 128 --axes-dim 16,56,54 --grid 2x2x2 -o "$T/eo/o.npy"
fails 2 "axial: odd width" "--axes-dim must be even widths of at least 2 (whole rotation pairs), got 7 for axis h$" \
	generate axial --axes-dim 7,9 --grid 2x2 -o "$T/eo/o.npy"
fails 2 "axial: no grid" "axial --preset pixtral needs --grid HxW or TxHxW (e.g. --grid 16x16)$" \
	generate axial --preset pixtral -o "$T/eo/o.npy"
fails 2 "axial: bad grid" "--grid must be HxW or TxHxW with positive sides up to 2^26, got '4x0'$" \
	generate axial --preset pixtral --grid 4x0 -o "$T/eo/o.npy"
fails 2 "axial: no head dim" "axial needs the head dim: -d D, --axes-dim LIST or a --preset$" \
	generate axial --grid 4x4 -o "$T/eo/o.npy"
fails 2 "axial: -d that does not split" "-d 10 does not split into 2 equal blocks of whole pairs: give --axes-dim$" \
	generate axial -d 10 --grid 4x4 -o "$T/eo/o.npy"
fails 2 "axial: pixtral odd head" "pixtral splits the head in two blocks of whole pairs: --dim must be divisible by 4, got 66$" \
	generate axial --preset pixtral -d 66 --grid 4x4 -o "$T/eo/o.npy"
fails 2 "axial: flux other head" "flux splits a head of 128 as 16, 56, 56: --dim 64 needs its own --axes-dim$" \
	generate axial --preset flux -d 64 --grid 4x4 -o "$T/eo/o.npy"
fails 2 "axial: unknown axis" "--axes must be 1 to 3 of t, h, w separated by commas, got 'h,z'$" \
	generate axial -d 8 --axes h,z --grid 4x4 -o "$T/eo/o.npy"
fails 2 "axial: theta count" "--theta gives 2 values for 3 blocks (give 1 or 3)$" \
	generate axial -d 12 --grid 2x2x2 --theta 1,2 -o "$T/eo/o.npy"
fails 2 "axial: alternate unequal" "--axis-freqs alternate deals one set to the blocks in turn: --axes-dim must be equal$" \
	generate axial --axes-dim 4,8 --grid 2x2 --axis-freqs alternate -o "$T/eo/o.npy"
fails 2 "axial: -n" "--positions does not apply to axial (rows = the tokens of --grid)$" \
	generate axial --preset rope-vit -n 5 -o "$T/eo/o.npy"
fails 2 "axial: torch option without float32" "--torch-tensor applies to --precision float32 (PyTorch's kernels)$" \
	generate axial --preset rope-vit --torch-tensor joint -o "$T/eo/o.npy"
fails 2 "axial: origin out of range" "--origin must be 1 to 3 integers within +-2^30 separated by commas, got '1,x'$" \
	generate axial --preset rope-vit --origin 1,x -o "$T/eo/o.npy"
usage_error "axial: unknown preset" generate axial --preset sd3 --grid 2x2
check "axial: unknown preset lists them" grep -q "pixtral, qwen2-vl-vision, llama4-vision, flux, wan, hunyuan-video, rope-vit" "$T/err"
