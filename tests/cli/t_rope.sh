# posenc generate rope: tables, layouts, scalings, --from-config, errors.
D=$(cd "$(dirname "$0")/.." && pwd)/data

# data error: exit 1, one line naming the field, no output file
data_error() {
	de_what=$1
	de_want=$2
	shift 2
	rm -f "$T/de.out"
	run "$@" -o "$T/de.out"
	check "$de_what: exit 1 and the message" eval '[ "$status" -eq 1 ] && grep -qF "$de_want" "$T/err"'
	check "$de_what: one line" [ "$(wc -l <"$T/err")" -eq 1 ]
	check "$de_what: message" grep -qF "$de_want" "$T/err"
	check "$de_what: no output file" eval 'grep -qF "$de_want" "$T/err" && [ ! -e "$T/de.out" ]'
}

run generate rope -n 2 -d 4
check "rope default: exit 0" [ "$status" -eq 0 ]
check "rope golden row 1 (half)" [ "$(sed -n 2p "$T/out")" = "0.5403023,0.99995,0.5403023,0.99995" ]
run generate rope -n 2 -d 4 --layout interleaved --table sin
check "rope interleaved sin row 1" [ "$(sed -n 2p "$T/out")" = "0.84147096,0.84147096,0.009999833,0.009999833" ]
run generate rope -d 8 --table inv-freq
check "inv-freq: one value per line" [ "$(tr '\n' ' ' <"$T/out")" = "1 0.1 0.01 0.001 " ]
run generate rope -n 3 -d 4 --table angles --offset 10
check "angles with offset" awk -F, 'NR == 1 && $1 == 10 && $2 == 0.1 && $3 == 10 && $4 == 0.1 { ok = 1 } END { exit !ok }' "$T/out"
run generate rope -n 2 -d 8 --partial-rotary-factor 0.5 --table inv-freq
check "partial rotary: R/2 values, denominator R" [ "$(tr '\n' ' ' <"$T/out")" = "1 0.01 " ]
run generate rope -n 2 -d 4 --table all -f json
check "all in json: three tensors" grep -q '"rope_cos".*' "$T/out"
check "all in json: inv_freq 1-D" grep -q '"rope_inv_freq":{"shape":\[2\]' "$T/out"
run generate rope -n 2 -d 4 --table all -f safetensors -o "$T/all.safetensors"
check "all in safetensors" [ "$status" -eq 0 ]
run generate rope -n 2 -d 4 --table all -f csv
check "all in csv: refused" [ "$status" -eq 2 ]

# yarn: attention factor 0.1 ln 4 + 1 in row 0 of cos
run generate rope -n 1 -d 128 --scaling yarn --factor 4 --original-max-positions 4096
check "yarn: row 0 = attention factor" [ "$(cut -d, -f1 "$T/out")" = "1.1386294" ]
run generate rope -n 1 -d 128 --scaling yarn --factor 4 --original-max-positions 4096 -f json
check "yarn: meta low/high" grep -q '"yarn_low":20,"yarn_high":46' "$T/out"
run generate rope -n 1 -d 128 --scaling yarn --factor 4 --original-max-positions 4096 --no-truncate -f json
check "yarn --no-truncate: fractional range" grep -q '"truncate":false,"yarn_low":20.9' "$T/out"
# linear: the table at 4p is the unscaled table at p
"$POSENC" generate rope -n 401 -d 16 --scaling linear --factor 4 | sed -n 401p >"$T/lin"
"$POSENC" generate rope -n 101 -d 16 | sed -n '101p' >"$T/base"
check "linear = positions / factor" same_output "$T/lin" "$T/base"
# dynamic: unscaled until seq-len exceeds the original length
"$POSENC" generate rope -n 8 -d 16 --scaling dynamic --factor 2 --original-max-positions 64 >"$T/dyn"
"$POSENC" generate rope -n 8 -d 16 >"$T/plain"
check "dynamic below L0 = unscaled" same_output "$T/dyn" "$T/plain"
"$POSENC" generate rope -n 8 -d 16 --scaling dynamic --factor 2 --original-max-positions 64 --seq-len 128 >"$T/dyn2"
check "dynamic with --seq-len 128 scales" differ "$T/dyn2" "$T/plain"
# float32 emulation differs from exact at long positions, not at p = 0
run generate rope -n 2048 -d 128 --precision float32 -f raw -o "$T/f32.raw"
run generate rope -n 2048 -d 128 -f raw -o "$T/ex.raw"
check "float32 differs from exact" differ_output "$T/f32.raw" "$T/ex.raw"
check "float32: row 0 identical" cmp -s -n 512 "$T/f32.raw" "$T/ex.raw"
# threads do not change the bytes
POSENC_THREADS=1 "$POSENC" generate rope -n 3000 -d 64 --scaling llama3 --factor 8 --original-max-positions 8192 -f raw >"$T/r1"
POSENC_THREADS=3 "$POSENC" generate rope -n 3000 -d 64 --scaling llama3 --factor 8 --original-max-positions 8192 -f raw >"$T/r3"
check "rope: threads same bytes" same_output "$T/r1" "$T/r3"

# usage errors
usage_error "rope odd rotary dim" generate rope -d 7
usage_error "rope rotary > head" generate rope -d 8 --rotary-dim 16
usage_error "rope both widths" generate rope -d 8 --rotary-dim 4 --partial-rotary-factor 0.5
# PyTorch's float32 kernels: the options need --precision float32 and known values
usage_error "rope --torch-cpu without float32" generate rope -n 2 -d 8 --torch-cpu avx2
usage_error "rope --torch-vml without float32" generate sinusoidal -n 2 -d 8 --torch-vml sleef
usage_error "rope --torch-cpu avx3" generate rope -n 2 -d 8 --precision float32 --torch-cpu avx3
usage_error "rope --torch-threads 0" generate rope -n 2 -d 8 --precision float32 --torch-threads 0
usage_error "sinusoidal float32 marian" generate sinusoidal --preset marian -n 2 -d 8 --precision float32
usage_error "rope --torch-trig without float32" generate rope -n 2 -d 8 --torch-trig polar
usage_error "rope --torch-trig sine" generate rope -n 2 -d 8 --precision float32 --torch-trig sine
usage_error "rope factor > 1" generate rope -d 8 --partial-rotary-factor 1.5
usage_error "rope unknown table" generate rope --table tan
usage_error "rope unknown scaling" generate rope --scaling ntk
usage_error "rope linear without factor" generate rope --scaling linear
usage_error "rope yarn without L0" generate rope --scaling yarn --factor 2
usage_error "rope beta with linear" generate rope --scaling linear --factor 2 --beta-fast 8
check "rope option of another scaling: message" grep -q "applies to --scaling yarn only" "$T/err"
usage_error "rope truncate both" generate rope --scaling yarn --factor 2 --original-max-positions 64 --truncate --no-truncate
usage_error "rope longrope list length" generate rope -d 8 --scaling longrope --original-max-positions 16 --factor 2 --short-factor 1,1,1,1 --long-factor 1,2
usage_error "rope bad list" generate rope -d 8 --scaling longrope --short-factor 1,x,1,1
usage_error "rope theta nan" generate rope --theta nan
usage_error "rope factor 12x" generate rope --scaling linear --factor 12x
usage_error "rope grid option" generate rope --grid 2x2
usage_error "rope precision" generate rope --precision float16

# --from-config, one file per rope type
run generate rope --from-config "$D/rope_default.json" -n 2 --table inv-freq -f json
check "config default: head_dim 128" grep -q '"shape":\[64\]' "$T/out"
run generate rope --from-config "$D/rope_llama3.json" -n 2 -f json --table inv-freq
check "config llama3" grep -q '"theta":500000,"scaling":"llama3"' "$T/out"
run generate rope --from-config "$D/rope_yarn.json" -n 1
check "config yarn: attention in cos" [ "$(cut -d, -f1 "$T/out")" = "1.1386294" ]
run generate rope --from-config "$D/rope_linear.json" -n 2 -f json --table inv-freq
check "config linear (legacy type)" grep -q '"scaling":"linear",.*"factor":4' "$T/out"
run generate rope --from-config "$D/rope_dynamic.json" -n 4096 -f json --table inv-freq
check "config dynamic scales past max_position_embeddings" grep -q '"seq_len":4096,"dynamic_theta":' "$T/out"
run generate rope --from-config "$D/rope_longrope.json" -n 2 -f json --table inv-freq
check "config longrope: short factors for a short table" grep -q '"longrope_factors":"short"' "$T/out"
run generate rope --from-config "$D/rope_longrope.json" -n 2 --seq-len 5000 -f json --table inv-freq
check "config longrope: long factors past L0" grep -q '"longrope_factors":"long"' "$T/out"
run generate rope --from-config "$D/rope_v5.json" -n 2 -f json --table inv-freq
check "config v5 rope_parameters" grep -q '"rotary_dim":64,"theta":1000000,"scaling":"yarn"' "$T/out"
run generate rope --from-config "$D/rope_neox.json" -n 2 -f json --table inv-freq
check "config gpt-neox rotary_pct" grep -q '"head_dim":64,"rotary_dim":16' "$T/out"
run generate rope --from-config "$D/rope_neox_nopct.json" -n 2 --table inv-freq
check "config gpt-neox default 0.25: warning" grep -q "^posenc: warning: .*default 0.25" "$T/err"
check "config gpt-neox default 0.25: exit 0" [ "$status" -eq 0 ]
run generate rope --from-config "$D/rope_gptj.json" -n 2 -f json --table inv-freq
check "config gpt-j: interleaved, rotary_dim 64" grep -q '"layout":"interleaved",.*"rotary_dim":64' "$T/out"
run generate rope --from-config "$D/rope_llama3.json" --scaling none --theta 10000 -d 64 -n 2 -f json --table inv-freq
check "options override the config" grep -q '"head_dim":64,"rotary_dim":64,"theta":10000,"scaling":"none"' "$T/out"
# a config without max_position_embeddings: -n is the class's default, as
# transformers' config then holds it (Gemma3TextConfig: 131072), said so
printf '{"model_type":"gemma3_text","head_dim":8,"num_attention_heads":2,"num_hidden_layers":2,"layer_types":["sliding_attention","full_attention"]}' >"$T/g3.json"
run generate rope --from-config "$T/g3.json" --layer-type full_attention -f raw -o "$T/g3.f32"
check "config without max_position_embeddings: the class's 131072 rows" ok_and [ "$(wc -c <"$T/g3.f32")" -eq $((131072 * 8 * 4)) ]
run explain rope --from-config "$T/g3.json" -f json
check "explain: positions from the class's default" ok_and grep -q '"positions": *{"value": *131072, *"origin": *"default", *"key": *"max_position_embeddings (the class'"'"'s)"' "$T/out"
# yarn without factor: transformers' KeyError (its L0 would come from the
# class's max_position_embeddings)
data_error "config missing field" "rope_scaling.factor is missing (transformers requires it for rope_type yarn)" generate rope --from-config "$D/rope_bad_missing.json"
data_error "config wrong type" "rope_theta must be a number, got '\"10000\"'" generate rope --from-config "$D/rope_bad_type.json"
data_error "config non-numeric factor" "rope_scaling.factor must be a number" generate rope --from-config "$D/rope_bad_factor.json"
data_error "config no rope fields" "no RoPE field" generate rope --from-config "$D/rope_bad_norope.json"
data_error "config unknown rope type" "rope_type 'su'" generate rope --from-config "$D/rope_bad_unknown.json"
data_error "config not json" "not valid JSON" generate rope --from-config "$D/../cli/run.sh"
data_error "config missing file" "cannot open" generate rope --from-config "$T/nonexistent.json"

# Llama 4's rotary module takes cos/sin from torch.polar: glibc's cosf, whose
# cos(1) is 0x3f0a5140 in torch 2.13 (Tensor.cos() gives 0x3f0a5141)
L4=$T/llama4.json
printf '{"model_type":"llama4_text","hidden_size":256,"num_attention_heads":4,"head_dim":64,"rope_parameters":{"rope_type":"default","rope_theta":500000.0}}' >"$L4"
run generate rope --from-config "$L4" -n 2 --precision float32
check "config llama4 float32: torch.polar's cos(1)" [ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "0.5403023,0.5403023" ]
run generate rope --from-config "$L4" -n 2 --precision float32 --torch-trig tensor
check "config llama4 --torch-trig tensor: Tensor.cos()'s" [ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "0.54030234,0.54030234" ]
run generate rope --from-config "$L4" -n 2 --precision float32 --table sin -f json
check "config llama4 float32: meta torch_trig polar" grep -q '"torch_trig":"polar"' "$T/out"
run generate rope -d 64 --theta 500000 -n 2 --precision float32 --torch-trig polar
check "--torch-trig polar without a config" [ "$(sed -n 2p "$T/out" | cut -d, -f1)" = "0.5403023" ]

# dynamic beyond L0 in float32: the forward's float32 base (torch's inv_freq[5]
# is 0x3e1d6d9f; a double base gave 0x3e1d6da0)
printf '{"hidden_size":256,"num_attention_heads":4,"max_position_embeddings":512,"rope_parameters":{"rope_type":"dynamic","rope_theta":10000.0,"factor":2.0}}' >"$T/dyn.json"
run generate rope --from-config "$T/dyn.json" -n 4016 --precision float32 --table inv-freq
check "config dynamic float32 at 4016: torch's inv_freq[5]" [ "$(sed -n 6p "$T/out")" = "0.15373848" ]

# A config's values are judged by core/rope.c alone; its messages name the
# file's keys, never options the user did not give, and are data errors.
C=$T/rope-params
mkdir -p "$C"
printf '{"hidden_size":64,"num_attention_heads":4,"rope_theta":1,"max_position_embeddings":4096,"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":1024}}' >"$C/yarn_theta1.json"
printf '{"hidden_size":64,"num_attention_heads":4,"rope_scaling":{"rope_type":"linear","factor":1e-320}}' >"$C/tiny_factor.json"
printf '{"hidden_size":64,"num_attention_heads":4,"rope_theta":1e-320}' >"$C/tiny_theta.json"
printf '{"hidden_size":64,"num_attention_heads":4,"max_position_embeddings":8,"rope_parameters":{"rope_type":"yarn","factor":2,"attention_factor":1e308}}' >"$C/big_attention.json"
printf '{"head_dim":8,"max_position_embeddings":8,"rope_scaling":{"type":"longrope","short_factor":[1,2,3,4],"long_factor":[1,2]}}' >"$C/short_list.json"
data_error "config yarn theta 1: the file's key" "$C/yarn_theta1.json: yarn scaling needs rope_theta greater than 1 (it divides by ln theta), got 1" \
	generate rope --from-config "$C/yarn_theta1.json" -n 2
data_error "config tiny linear factor: the file's keys" "$C/tiny_factor.json: rope_theta 10000 with this scaling gives frequencies up to inf" \
	generate rope --from-config "$C/tiny_factor.json" -n 4
check "config tiny linear factor: names rope_scaling.factor" grep -qF "raise rope_theta or rope_scaling.factor or lower" "$T/err"
data_error "config tiny theta" "$C/tiny_theta.json: rope_theta 9.99989e-321 gives frequencies up to inf" \
	generate rope --from-config "$C/tiny_theta.json" -n 4
data_error "config huge attention factor" "$C/big_attention.json: rope_parameters.attention_factor 1e+308 is beyond float32's range" \
	generate rope --from-config "$C/big_attention.json" -n 4
data_error "config longrope list length" "$C/short_list.json: rope_scaling.long_factor has 2 values, rotary width 8 needs 4" \
	generate rope --from-config "$C/short_list.json" -n 4
# issue 21's bad configs: what transformers refuses or reads otherwise than
# the file says; one line naming the file and key, exit 1, no output file
printf '{"hidden_size":64,"num_attention_heads":4,"rope_theta":NaN}' >"$C/nan.json"
printf '{"hidden_size":64,"num_attention_heads":4,"num_hidden_layers":2,"layer_types":["sliding_attention","full_attention"],"rope_parameters":{"sliding_attention":{"rope_type":"default","rope_theta":1e4},"full_attention":{"rope_type":"default","rope_theta":1e6},"factor":8}}' >"$C/nested_key.json"
printf '{"model_type":"gemma4_text","hidden_size":256,"num_attention_heads":4,"num_hidden_layers":6,"per_layer_config":{"6":{"head_dim":128}}}' >"$C/layer_index.json"
printf '{"head_dim":64,"rope_parameters":{"rope_type":"proportional","rope_theta":1e6}}' >"$C/proportional.json"
fails 1 "config NaN" "$C/nan.json: rope_theta is NaN (at byte 55)" \
	generate rope --from-config "$C/nan.json" -n 2 -o "$T/eo/o.csv"
fails 1 "config nested key not a layer type" "$C/nested_key.json: rope_parameters.factor is not a layer type of the config" \
	generate rope --from-config "$C/nested_key.json" -n 2 --table all -o "$T/eo/o.safetensors"
fails 1 "config per_layer_config index out of range" "$C/layer_index.json: per_layer_config key '6' is not a layer index from 0 to 5" \
	generate rope --from-config "$C/layer_index.json" -n 2 --layer-type full_attention -o "$T/eo/o.npy"
fails 1 "config proportional without partial_rotary_factor" "$C/proportional.json: rope_parameters.partial_rotary_factor is missing" \
	generate rope --from-config "$C/proportional.json" -n 2 -o "$T/eo/o.csv"
data_error "similarity: config yarn theta 1" "$C/yarn_theta1.json: yarn scaling needs rope_theta greater than 1" \
	similarity rope --from-config "$C/yarn_theta1.json" -n 2
# the same rules given as options stay usage errors naming the options
fails 2 "options: yarn theta 1" "yarn scaling needs --theta greater than 1 (it divides by ln theta), got 1$" \
	generate rope -d 8 -n 2 --theta 1 --scaling yarn --factor 2 --original-max-positions 4 -o "$T/eo/o.csv"
fails 2 "option overriding a config value" "yarn scaling needs --theta greater than 1" \
	generate rope --from-config "$D/rope_yarn.json" -n 2 --theta 1 -o "$T/eo/o.csv"
fails 2 "options: longrope list length" "--long-factor has 2 values, rotary width 8 needs 4$" \
	generate rope -d 8 -n 2 --scaling longrope --factor 2 --original-max-positions 4 --short-factor 1,2,3,4 --long-factor 1,2 -o "$T/eo/o.csv"
