# posenc generate mrope: the position ids of research/rope-2026.md B.4's
# worked examples (written out here) under both rules, the lane maps of the
# Qwen-VL configs, --position-ids files against --sequence, a text-only
# sequence against plain rope, threads and --rows, and bad input: one line
# naming the problem, exit 2 for options, 1 for files.
M=$T/mrope
mkdir -p "$M"
D=$here/../data

run generate mrope --sequence "text:3,image:1x4x6,text:2" --table ids
check "mrope B.4 image: T" [ "$(sed -n 1p "$T/out")" = "0,1,2,3,3,3,3,3,3,6,7" ]
check "mrope B.4 image: H" [ "$(sed -n 2p "$T/out")" = "0,1,2,3,3,3,4,4,4,6,7" ]
check "mrope B.4 image: W" [ "$(sed -n 3p "$T/out")" = "0,1,2,3,4,5,3,4,5,6,7" ]
run generate mrope --sequence "text:3,image:1x4x6,text:2" --table ids --rule reference
check "mrope B.4 image: reference agrees" [ "$(tr '\n' ' ' <"$T/out")" = "0,1,2,3,3,3,3,3,3,6,7 0,1,2,3,3,3,4,4,4,6,7 0,1,2,3,4,5,3,4,5,6,7 " ]
run generate mrope --sequence "text:3,image:1x4x6,text:2" --table ids -f json
check "mrope rope_delta in the metadata" grep -q '"rope_delta":-3,' "$T/out"
check "mrope ids json: int32 3 x N" grep -q '^{"shape":\[3,11\],"dtype":"int32"' "$T/out"

# B.4's divergence: a 4 x 4 x 6 video at 2 tokens per second, 1 s a grid
run generate mrope --sequence "text:3,video:4x4x6@1,text:2" --tokens-per-second 2 --table ids
check "mrope B.4 video hf: T" [ "$(sed -n 1p "$T/out")" = "0,1,2,3,3,3,3,3,3,5,5,5,5,5,5,7,7,7,7,7,7,9,9,9,9,9,9,6,7" ]
check "mrope B.4 video hf: W" [ "$(sed -n 3p "$T/out")" = "0,1,2,3,4,5,3,4,5,3,4,5,3,4,5,3,4,5,3,4,5,3,4,5,3,4,5,6,7" ]
run generate mrope --sequence "text:3,video:4x4x6@1,text:2" --tokens-per-second 2 --table ids --rule reference
check "mrope B.4 video reference: text after at 10" [ "$(sed -n 2p "$T/out")" = "0,1,2,3,3,3,4,4,4,3,3,3,4,4,4,3,3,3,4,4,4,3,3,3,4,4,4,10,11" ]

# the configs: Qwen2.5-VL's timing (fps 4: 0.5 s a grid, interval 1),
# Qwen3-VL's split frames and interleaved lanes
run generate mrope --from-config "$D/mrope_qwen2_5_vl.json" --sequence "text:1,video:4x2x2@0.5" --table ids
check "mrope qwen2.5-vl: 2 tokens/s x 0.5 s" [ "$(sed -n 1p "$T/out")" = "0,1,2,3,4" ]
run generate mrope --from-config "$D/mrope_qwen3_vl.json" --sequence "text:3,video:2x4x6,text:1" --table ids
check "mrope qwen3-vl: frames split" [ "$(sed -n 1p "$T/out")" = "0,1,2,3,3,3,3,3,3,6,6,6,6,6,6,9" ]
run generate mrope --from-config "$D/mrope_qwen3_vl.json" --table lanes
# columns 0-6, 57-67 and 119-127: THW up to 59, 60-63 T, then again
check "mrope qwen3-vl lanes: THW x 20, TTTT, twice" \
	[ "$(tr '\n' ' ' <"$T/out" | cut -d' ' -f1-7,58-68,120-128)" = "0 1 2 0 1 2 0 0 1 2 0 0 0 0 0 1 2 0 1 2 0 1 2 0 0 0 0" ]
run generate mrope --from-config "$D/mrope_qwen2_vl.json" --table lanes
check "mrope qwen2-vl lanes: 16 T, 24 H, 24 W" \
	[ "$(sort "$T/out" | uniq -c | tr -s ' ' | tr '\n' ';')" = " 32 0; 48 1; 48 2;" ]
check "mrope qwen2-vl lanes: columns 15, 16, 40" [ "$(sed -n '16p;17p;41p' "$T/out" | tr '\n' ' ')" = "0 1 2 " ]
run generate mrope --from-config "$D/mrope_qwen2_vl.json" --sequence text:2 -f json
check "mrope qwen2-vl: theta and head dim from the file" \
	grep -q '"head_dim":128,"rotary_dim":128,"theta":1000000,"mrope_layout":"chunked","mrope_section":\[16,24,24\]' "$T/out"

# a text-only sequence is plain RoPE; ids from a file give the same table
run generate mrope --sequence text:50 -d 64 --theta 10000 --mrope-section 8,12,12 -f raw -o "$M/text.f32"
run generate rope -n 50 -d 64 --theta 10000 -f raw -o "$M/rope.f32"
check "mrope text-only = rope" same_output "$M/text.f32" "$M/rope.f32"
seq="text:5,image:1x4x6,video:3x6x4@2,text:7"
run generate mrope --sequence "$seq" --tokens-per-second 2 --table ids -o "$M/ids.csv"
run generate mrope --position-ids "$M/ids.csv" --table ids -o "$M/ids2.csv"
check "mrope --position-ids csv: the ids back" ok_and same_output "$M/ids.csv" "$M/ids2.csv"
for p in exact float32; do
	run generate mrope --sequence "$seq" --tokens-per-second 2 --precision $p -f raw -o "$M/seq-$p.f32"
	run generate mrope --position-ids "$M/ids.csv" --precision $p -f raw -o "$M/file-$p.f32"
	check "mrope --position-ids $p: the --sequence table" ok_and same_output "$M/seq-$p.f32" "$M/file-$p.f32"
done
check "mrope float32 is not the exact table" differ_output "$M/seq-exact.f32" "$M/seq-float32.f32"
if "$PYTHON" -c 'import numpy' 2>/dev/null; then
	"$PYTHON" -c 'import numpy as np, sys
ids = np.loadtxt(sys.argv[1], delimiter=",", dtype=np.int64)
np.save(sys.argv[2], ids)' "$M/ids.csv" "$M/ids.npy"
	run generate mrope --position-ids "$M/ids.npy" -f raw -o "$M/npy.f32"
	check "mrope --position-ids int64 npy" ok_and same_output "$M/seq-exact.f32" "$M/npy.f32"
else
	skipped "mrope: int64 npy ids" "$PYTHON has no numpy"
fi

# threads and shards change nothing
big="text:700,image:2x28x40,video:5x20x12@0.75,text:300"
for p in exact float32; do
	run generate mrope --sequence "$big" --tokens-per-second 2 --precision $p --threads 1 -f raw -o "$M/t1.f32"
	run generate mrope --sequence "$big" --tokens-per-second 2 --precision $p --threads 2 -f raw -o "$M/t2.f32"
	check "mrope $p: 2 threads, the same bytes" ok_and same_output "$M/t1.f32" "$M/t2.f32"
	run generate mrope --sequence "$big" --tokens-per-second 2 --precision $p --rows 0:777 -f raw -o "$M/a.f32"
	run generate mrope --sequence "$big" --tokens-per-second 2 --precision $p --rows 777: -f raw -o "$M/b.f32"
	cat "$M/a.f32" "$M/b.f32" >"$M/ab.f32"
	check "mrope $p: shards concatenate to the whole" same_output "$M/t1.f32" "$M/ab.f32"
done
run generate mrope --sequence "text:3,image:1x4x6" --table all -o "$M/all.safetensors"
check "mrope --table all: four tensors" ok_and \
	sh -c 'for n in mrope_cos mrope_sin mrope_ids mrope_lanes; do head -c 600 "$1" | grep -q "\"$n\"" || exit 1; done' _ "$M/all.safetensors"

# bad input
fails 2 "mrope sequence that does not parse" "--sequence item 2 'imge:1x4x6': not text:N, image:TxHxW or video:TxHxW\[@S\]$" \
	generate mrope --sequence "text:3,imge:1x4x6" -o "$T/eo/o.csv"
fails 2 "mrope empty item" "--sequence item 2 is empty (a comma too many)$" \
	generate mrope --sequence "text:3,,text:1" -o "$T/eo/o.csv"
fails 2 "mrope grid not divisible" "--sequence item 2 'image:1x4x5': the grid's height 4 and width 5 must be multiples of the spatial merge, 2 (--merge)$" \
	generate mrope --sequence "text:3,image:1x4x5" -o "$T/eo/o.csv"
fails 2 "mrope grid not divisible by the config's merge" "--sequence item 1 'video:2x6x6': the grid's height 6 and width 6 must be multiples of the spatial merge, 4 (--merge)$" \
	generate mrope --from-config "$D/mrope_qwen2_vl.json" --merge 4 --sequence "video:2x6x6" -o "$T/eo/o.csv"
fails 2 "mrope sections" "--mrope-section 16,24,20 must sum to the rotary half R/2 = 64 (one section per stream, in frequencies)$" \
	generate mrope --mrope-section 16,24,20 -o "$T/eo/o.csv"
fails 2 "mrope sections: not integers" "--mrope-section must be 3 non-negative integers, got '16,24.5,23.5'$" \
	generate mrope --mrope-section 16,24.5,23.5 -o "$T/eo/o.csv"
fails 2 "mrope sections: two" "--mrope-section needs 3 counts (T, H, W), got 2$" \
	generate mrope --mrope-section 32,32 -o "$T/eo/o.csv"
fails 2 "mrope @S untimed" "--sequence item 1 'video:2x4x4@0.5': seconds per grid (@S) space a video's temporal ids by --tokens-per-second (Qwen2.5-VL's timing), not given$" \
	generate mrope --sequence "video:2x4x4@0.5" -o "$T/eo/o.csv"
fails 2 "mrope timing of split frames" "--tokens-per-second does not apply to videos split into frames (--video-frames split: their timestamps are text tokens)$" \
	generate mrope --from-config "$D/mrope_qwen3_vl.json" --tokens-per-second 2 -o "$T/eo/o.csv"
fails 2 "mrope both sources" "give --sequence or --position-ids, not both$" \
	generate mrope --sequence text:3 --position-ids "$M/ids.csv" -o "$T/eo/o.csv"
fails 2 "mrope -n with a sequence" "-n does not apply with --sequence: it sets the tokens$" \
	generate mrope --sequence text:3 -n 5 -o "$T/eo/o.csv"
fails 2 "mrope --rule with given ids" "--rule applies to --sequence (the ids are given)$" \
	generate mrope --position-ids "$M/ids.csv" --rule reference -o "$T/eo/o.csv"
fails 2 "mrope rotary width" "the rotary width 256 exceeds the head dim 128$" \
	generate mrope --rotary-dim 256 -o "$T/eo/o.csv"
printf '0,1,2,3\n0,1,2,3\n' >"$M/two.csv"
fails 1 "mrope ids not 3 x N" "$M/two.csv: position ids are 3 x N (rows T, H, W), got 2 x 4$" \
	generate mrope --position-ids "$M/two.csv" -o "$T/eo/o.csv"
printf '0,0,0\n1,1,1\n2,2,2\n3,3,3\n' >"$M/nx3.csv"
fails 1 "mrope ids N x 3" "$M/nx3.csv: position ids are 3 x N (rows T, H, W), got 4 x 3 (transposed?)$" \
	generate mrope --position-ids "$M/nx3.csv" -o "$T/eo/o.csv"
printf '0,1,2\n0,1.5,2\n0,1,2\n' >"$M/half.csv"
fails 1 "mrope ids not integers" "$M/half.csv: position id 1.5 (row 1, column 1) is not an integer below 2^24 in magnitude" \
	generate mrope --position-ids "$M/half.csv" -o "$T/eo/o.csv"
printf '{"model_type": "qwen2_vl", "hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": "mrope", "mrope_section": [8, 4]}}' >"$M/bad.json"
fails 1 "mrope config sections" "$M/bad.json: rope_scaling.mrope_section must be 3 non-negative integers, got '\[8,4\]'$" \
	generate mrope --from-config "$M/bad.json" -o "$T/eo/o.csv"
printf '{"model_type": "qwen2_vl", "hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 2]}}' >"$M/sum.json"
fails 1 "mrope config sections' sum" "$M/sum.json: rope_scaling.mrope_section 2,3,2 must sum to the rotary half R/2 = 8 (one section per stream, in frequencies)$" \
	generate mrope --from-config "$M/sum.json" -o "$T/eo/o.csv"
printf '{"model_type": "qwen2_vl", "hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": "mrope"}}' >"$M/none.json"
fails 1 "mrope config without sections" "$M/none.json: no rope_scaling.mrope_section (give --mrope-section)$" \
	generate mrope --from-config "$M/none.json" -o "$T/eo/o.csv"
usage_error "mrope option of another kind" generate mrope --scaling yarn
