# posenc explain: the worked numbers of rope-2026.md §A.6 (and §D, §E.2)
# for the real configs in tests/data/hf/, read from -f json with Python.
# Every expected value is the research notes' number or a closed form
# written here (theta^(-2j/d), 0.1 ln f + 1, ...), never posenc's output.
X=$T/explain
mkdir -p "$X"
HF=$here/../data/hf

# jsonok WHAT EXPR: the last run exited 0 and its stdout is a JSON report for
# which the Python expression EXPR holds (tests/cli/explain_json.py says
# what EXPR may use)
json_holds() {
	[ "$status" -eq 0 ] && "$PYTHON" "$here/explain_json.py" "$T/out" "$1"
}

jsonok() {
	check "$1" json_holds "$2"
}

# Llama 3.1 8B: 29 kept, 6 blended (29-34, wavelengths before scaling
# 2401.7 .. 6695.1), 29 divided by 8; inv[1] 0.8146172, inv[63] 3.0689259e-07;
# the per-pair divisors are llama.cpp's rope_freqs (§E.2)
run explain rope --from-config "$HF/llama-3.1-8b-instruct.legacy.json" -f json
jsonok "llama 3.1: regions 29 / 6 / 29" 'G() == "kept 0-28 29; ramped 29-34 6; interpolated 35-63 29"'
jsonok "llama 3.1: inv[1], inv[63]" 'close(P()[1]["inv_freq"], 0.8146172) and close(P()[63]["inv_freq"], 3.0689259e-07, 1e-6)'
jsonok "llama 3.1: kept = theta^(-2j/d), interpolated = that / 8" \
	'all(close(p["inv_freq"], th(5e5, p["pair"], 128) / (8 if p["pair"] > 34 else 1), 1e-12) for p in P() if p["region"] != "ramped")'
jsonok "llama 3.1: blended wavelengths before scaling 2401.7 .. 6695.1" \
	'abs(P()[29]["wavelength"] / P()[29]["scale"] - 2401.7) < 0.1 and abs(P()[34]["wavelength"] / P()[34]["scale"] - 6695.1) < 0.1'
jsonok "llama 3.1: llama.cpp's rope_freqs 1.2074839 .. 5.257327" \
	'all(close(P()[29 + i]["scale"], v, 2e-7) for i, v in enumerate([1.2074839, 1.5534146, 2.026313, 2.69453, 3.6842532, 5.257327]))'
jsonok "llama 3.1: wavelength bounds L0/4, L0/1" \
	'V(None, "wavelength_kept_below") == 2048 and V(None, "wavelength_interpolated_above") == 8192'
jsonok "llama 3.1: where each value came from" \
	'O(None, "factor") == "config" and R()["parameters"]["factor"]["key"] == "rope_scaling.factor" and O(None, "head_dim") == "derived" and O(None, "attention_factor") == "default" and V(None, "attention_factor") == 1'
jsonok "llama 3.1: wavelength 2 pi / inv_freq, rotations within L0 8192" \
	'all(close(p["wavelength"], 2 * math.pi / p["inv_freq"], 1e-15) and close(p["rotations"], 8192 * p["inv_freq"] / (2 * math.pi), 1e-15) for p in P())'
jsonok "llama 3.1: half layout, pair j turns columns j and j + 64" \
	'all(p["columns"] == [p["pair"], p["pair"] + 64] for p in P()) and R()["unrotated_columns"] == "none"'

# Llama 3.2 1B: 15 kept, 3 blended (15-17), 14 divided by 32
run explain rope --from-config "$HF/llama-3.2-1b.legacy.json" -f json
jsonok "llama 3.2: 15 / 3 / 14, factor 32" \
	'G() == "kept 0-14 15; ramped 15-17 3; interpolated 18-31 14" and V(None, "factor") == 32'

# Llama 4 Scout: 35 kept, none blended, 29 divided by 16; interleaved
# pairs; NoPE layers 3, 7, ..., 47 with the temperature tuning of §D
run explain rope --from-config "$HF/llama-4-scout-17b-16e.fields.json" -f json
jsonok "scout: 35 kept, 29 divided by 16, none blended" 'G() == "kept 0-34 35; interpolated 35-63 29"'
jsonok "scout: interleaved pairs (2j, 2j+1)" \
	'V(None, "layout") == "interleaved" and all(p["columns"] == [2 * p["pair"], 2 * p["pair"] + 1] for p in P())'
jsonok "scout: NoPE layers 3, 7, ..., 47" \
	'd["nope_layers"] == ", ".join(str(i) for i in range(3, 48, 4)) and R()["layer_count"] == 36'
jsonok "scout: query scale 1 to 8190, then 1.0693147, 1.1098612" \
	'Q(0) == 1 and Q(8190) == 1 and close(Q(8191), 1.0693147) and close(Q(16383), 1.1098612) and d["query_scale"]["layers"] == d["nope_layers"]'
jsonok "scout: every sample log1p(floor((p + 1) / 8192)) 0.1 + 1" \
	'len(d["query_scale"]["samples"]) > 5 and all(close(s["scale"], math.log1p((s["position"] + 1) // 8192) * 0.1 + 1, 1e-15) for s in d["query_scale"]["samples"])'

# Phi-3.5-mini: longrope, factor 131072 / 4096 = 32 derived, the top-level
# L0 4096, attention sqrt(1 + ln 32 / ln 4096) = 1.1902381, switch at 4096
run explain rope --from-config "$HF/phi-3.5-mini-instruct.legacy.json" -f json
jsonok "phi-3.5: factor 32 derived, L0 4096 from the file" \
	'V(None, "factor") == 32 and O(None, "factor") == "derived" and V(None, "original_max_positions") == 4096 and O(None, "original_max_positions") == "config"'
jsonok "phi-3.5: attention 1.1902381 = sqrt(1 + ln 32 / ln 4096)" \
	'close(V(None, "attention_factor"), 1.1902381) and close(V(None, "attention_factor"), math.sqrt(1 + math.log(32) / math.log(4096)), 1e-15)'
jsonok "phi-3.5: switch at 4096, long factors at 131072 tokens" \
	'V(None, "switch_position") == 4096 and V(None, "factors") == "long" and all(p["region"] == "long" and close(p["scale"], p["long_factor"], 1e-12) for p in P())'
run explain rope --from-config "$HF/phi-3.5-mini-instruct.legacy.json" -f json --seq-len 4096
jsonok "phi-3.5: short factors at 4096 tokens, the same attention factor" \
	'V(None, "factors") == "short" and all(p["region"] == "short" and close(p["scale"], p["short_factor"], 1e-12) for p in P()) and close(V(None, "attention_factor"), 1.1902381)'

# Qwen3-0.6B: plain RoPE, theta 1e6, head_dim 128
run explain rope --from-config "$HF/qwen3-0.6b.legacy.json" -f json
jsonok "qwen3: plain, theta 1e6, 64 pairs kept" \
	'V(None, "scaling") == "none" and V(None, "theta") == 1e6 and V(None, "head_dim") == 128 and G() == "kept 0-63 64" and d["query_scale"] == "none"'

# DeepSeek-V3: yarn on qk_rope_head_dim 64: low 10, high 23; cos/sin
# factor 1.0 (the mscale ratio)
run explain rope --from-config "$HF/deepseek-v3.fields.json" -f json
jsonok "deepseek-v3: rotary 64, yarn 10..23, attention 1.0" \
	'V(None, "rotary_dim") == 64 and V(None, "yarn_low") == 10 and V(None, "yarn_high") == 23 and V(None, "attention_factor") == 1.0 and V(None, "factor") == 40'
jsonok "deepseek-v3: softmax scale 192^-0.5 (0.1 ln 40 + 1)^2 = 0.1352338" \
	'close(d["softmax_scale"]["scale"]["value"], 0.1352338, 4e-7) and close(d["softmax_scale"]["scale"]["value"], 192 ** -0.5 * (0.1 * math.log(40) + 1) ** 2, 1e-15) and close(d["softmax_scale"]["mscale_squared"]["value"], 1.873854, 1e-6)'
jsonok "deepseek-v3: kept below 10, divided by 40 from 23" \
	'G() == "kept 0-10 11; ramped 11-22 12; interpolated 23-31 9" and all(close(P()[j]["inv_freq"], th(1e4, j, 64) / 40, 1e-12) for j in range(23, 32))'

# gpt-oss-20b: yarn with truncate false: low 8.0928, high 17.3980, attention
# 0.1 ln 32 + 1 = 1.3465736
run explain rope --from-config "$HF/gpt-oss-20b.legacy.json" -f json
jsonok "gpt-oss: truncate false, 8.0928 .. 17.3980" \
	'V(None, "truncate") is False and abs(V(None, "yarn_low") - 8.0928) < 1e-4 and abs(V(None, "yarn_high") - 17.3980) < 1e-4'
jsonok "gpt-oss: attention 1.3465736 = 0.1 ln 32 + 1" \
	'close(V(None, "attention_factor"), 1.3465736) and close(V(None, "attention_factor"), 0.1 * math.log(32) + 1, 1e-15)'

# Ministral 3 (v5 JSON): low 20, high 37, attention 1.0, query scale
# 1 + 0.1 ln(1 + floor(p / 16384)) on every layer
run explain rope --from-config "$HF/ministral-3-3b-2512.v5.json" -f json
jsonok "ministral 3: yarn 20..37, attention 1.0" \
	'V(None, "yarn_low") == 20 and V(None, "yarn_high") == 37 and V(None, "attention_factor") == 1.0'
jsonok "ministral 3: query scale 1 at 16383, 1.0693147 at 16384, 1.1098612 at 32768" \
	'd["query_scale"]["rule"] == "llama_4_scaling_beta" and Q(16383) == 1 and close(Q(16384), 1.0693147) and close(Q(32768), 1.1098612)'

# Gemma 3 27B: full layers 5, 11, ..., 59 (linear 8, theta 1e6), 52 sliding
# (theta 1e4)
run explain rope --from-config "$HF/gemma-3-27b.fields.json" -f json
jsonok "gemma 3 27b: full layers 5, 11, ..., 59" \
	'R("full_attention")["layers"] == ", ".join(str(i) for i in range(5, 62, 6)) and R("full_attention")["layer_count"] == 10 and R("sliding_attention")["layer_count"] == 52'
jsonok "gemma 3 27b: full linear 8 at 1e6, sliding plain at 1e4" \
	'V("full_attention", "scaling") == "linear" and V("full_attention", "factor") == 8 and V("full_attention", "theta") == 1e6 and V("sliding_attention", "scaling") == "none" and V("sliding_attention", "theta") == 1e4'
jsonok "gemma 3 27b: full inv_freq = 1e6^(-2j/128) / 8" \
	'all(close(p["inv_freq"], th(1e6, p["pair"], 128) / 8, 1e-12) and p["scale"] == 8 for p in P("full_attention"))'
run explain rope --from-config "$HF/gemma-3-27b.fields.json" --layer 5 -f json
jsonok "gemma 3 27b --layer 5: the full layers' rope alone" \
	'len(d["rope"]) == 1 and d["rope"][0]["layer_type"] == "full_attention"'

# Gemma 3 1B: full layers 5, 11, 17, 23; 270m (4.55's explicit list): 5, 11, 17
run explain rope --from-config "$HF/gemma-3-1b-it.legacy.json" -f json
jsonok "gemma 3 1b: full layers 5, 11, 17, 23" 'R("full_attention")["layers"] == "5, 11, 17, 23"'
run explain rope --from-config "$HF/gemma-3-270m.t4.55-serialized.json" -f json
jsonok "gemma 3 270m: full layers 5, 11, 17" 'R("full_attention")["layers"] == "5, 11, 17"'

# ModernBERT-base: global layers 0, 3, ..., 21; inv[31] 9.0888e-06 (theta
# 160000) and 1.3335e-04 (10000)
run explain rope --from-config "$HF/modernbert-base.fields.json" -f json
jsonok "modernbert: global layers 0, 3, ..., 21" \
	'R("full_attention")["layers"] == ", ".join(str(i) for i in range(0, 22, 3)) and R("full_attention")["layer_count"] == 8'
jsonok "modernbert: inv[31] 9.0888e-06 global, 1.3335e-04 local" \
	'close(P("full_attention")[31]["inv_freq"], 9.0888e-06, 1e-4) and close(P("sliding_attention")[31]["inv_freq"], 1.3335e-04, 1e-4) and close(P("full_attention")[31]["inv_freq"], th(160000, 31, 64), 1e-12)'

# without a config: Qwen3's YaRN recipe (low 23, high 40, attention
# 1.1386294), the worked yarn example (low 20, high 46), dynamic's base at
# 8192 tokens theta (2 * 8192 / 4096 - 1)^(128/126) = 30527.74 (§A.5)
run explain rope -d 128 --theta 1e6 --scaling yarn --factor 4 --original-max-positions 32768 -f json
jsonok "qwen3 yarn recipe: 23..40, attention 1.1386294" \
	'V(None, "yarn_low") == 23 and V(None, "yarn_high") == 40 and close(V(None, "attention_factor"), 1.1386294) and O(None, "factor") == "option"'
run explain rope -d 128 --scaling yarn --factor 4 --original-max-positions 4096 -f json
jsonok "yarn worked example: 20..46" 'V(None, "yarn_low") == 20 and V(None, "yarn_high") == 46'
run explain rope -d 128 --scaling dynamic --factor 2 --original-max-positions 4096 --seq-len 8192 -f json
jsonok "dynamic: base 30527.74 at 8192 tokens" \
	'abs(V(None, "dynamic_theta") - 30527.74) < 0.01 and close(V(None, "dynamic_theta"), 1e4 * 3 ** (128 / 126), 1e-13) and G() == "rescaled 0-63 64"'
jsonok "dynamic: the base at 4096 is theta itself, at 16384 theta 7^(64/63)" \
	'R()["dynamic_theta_at"][0] == {"seq_len": 4096, "dynamic_theta": 10000} and close(R()["dynamic_theta_at"][2]["dynamic_theta"], 1e4 * 7 ** (128 / 126), 1e-13)'

# partial rotary: the columns no pair turns
run explain rope -d 64 --partial-rotary-factor 0.25 -f json
jsonok "partial 0.25 of 64: 8 pairs, columns 16-63 unrotated" \
	'len(P()) == 8 and P()[7]["columns"] == [7, 15] and R()["unrotated_columns"] == "16-63" and R()["unrotated_count"] == 48'
# proportional (Gemma 4 full layers, 512 x 0.25): pairs 0-63 turn, columns
# 64-255 and 320-511 do not (§A.5)
run explain rope -d 512 --scaling proportional --partial-rotary-factor 0.25 --theta 1e6 -f json
jsonok "proportional: 64 pairs turn, the middle columns do not" \
	'R()["unrotated_columns"] == "64-255, 320-511" and G() == "kept 0-63 64; unrotated 64-255 192" and P()[63]["columns"] == [63, 319] and P()[64]["wavelength"] is None and close(P()[63]["inv_freq"], th(1e6, 63, 512), 1e-12)'

# sinusoidal: wavelengths 2 pi base^(2k/D); alibi: 12 heads' slopes 2^-1 ..
# 2^-8, then 2^-0.5 .. 2^-3.5
run explain sinusoidal -d 8 -n 100 -f json
check "sinusoidal: wavelengths 2 pi 10000^(2k/8), sin/cos columns" ok_and "$PYTHON" -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
f = d["frequencies"]
sys.exit(0 if len(f) == 4 and all(abs(e["wavelength"] - 2 * math.pi * 10000 ** (2 * k / 8)) <= 1e-12 * e["wavelength"]
                                  and e["sin_col"] == 2 * k and e["cos_col"] == 2 * k + 1 for k, e in enumerate(f)) else 1)' "$T/out"
run explain alibi --heads 12 -f csv
check "alibi 12 heads: slopes 2^-1 .. 2^-8, then 2^-0.5 .. 2^-3.5" ok_and "$PYTHON" -c '
import sys
rows = open(sys.argv[1]).read().split("\n")
want = [-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5]
got = [r.split(",") for r in rows[1:] if r]
sys.exit(0 if rows[0] == "head,slope,log2_slope,from" and len(got) == 12 and
         all(float(g[1]) == 2.0 ** w and float(g[2]) == w for g, w in zip(got, want)) else 1)' "$T/out"

# the formats: text (default, and -o .txt), csv with its header, json, images
run explain rope --from-config "$HF/gemma-3-1b-it.legacy.json"
check "text: both layer types as sections, aligned params" ok_and \
	eval 'grep -q "^rope full_attention:$" "$T/out" && grep -q "^rope sliding_attention:$" "$T/out" && grep -Eq "^    theta +1000000 +config +rope_theta$" "$T/out"'
run explain rope --from-config "$HF/gemma-3-1b-it.legacy.json" -o "$X/r.txt"
check "-o FILE.txt: the text report" ok_and eval 'grep -q "^rope full_attention:$" "$X/r.txt" && [ ! -s "$T/out" ]'
run explain rope --from-config "$HF/gemma-3-1b-it.legacy.json" -o "$X/r.csv"
check "csv: header, one line per pair of every layer type" ok_and eval '[ "$(sed -n 1p "$X/r.csv")" = "layer_type,pair,col1,col2,inv_freq,inv_freq_f32,wavelength,rotations,region,scale" ] && [ "$(wc -l <"$X/r.csv")" -eq 257 ] && [ "$(grep -c "^sliding_attention," "$X/r.csv")" -eq 128 ]'
check "csv: sliding pair 1 is 10000^(-2/256)" ok_and "$PYTHON" -c '
import sys
r = [l.split(",") for l in open(sys.argv[1]) if l.startswith("sliding_attention,1,")][0]
sys.exit(0 if r[2:4] == ["1", "129"] and abs(float(r[4]) - 10000 ** (-2 / 256)) <= 1e-15 else 1)' "$X/r.csv"
run explain rope --from-config "$HF/llama-3.1-8b-instruct.legacy.json" -o "$X/r.png"
check "png: a chart of the regions" ok_and eval '[ "$(head -c 8 "$X/r.png" | od -An -c | tr -d " ")" = "211PNG\r\n032\n" ] && [ "$(png "$X/r.png" size)" != "" ]'
run explain rope --from-config "$HF/gemma-3-27b.fields.json" -o "$X/r2.png"
check "png: a panel per layer type, two a row (twice as wide)" ok_and \
	eval 'w1=$(png "$X/r.png" size | cut -d" " -f1) w2=$(png "$X/r2.png" size | cut -d" " -f1) && [ "$w2" -gt $((w1 * 3 / 2)) ]'
run explain rope --from-config "$HF/gemma-3-27b.fields.json" -o "$X/r.svg"
check "svg: the figure, titled by the config" ok_and \
	eval 'grep -q "^<svg" "$X/r.svg" && grep -q "<title>rope: wavelength per frequency pair, gemma-3-27b.fields.json</title>" "$X/r.svg"'
run explain rope -d 64 --precision float32 --scaling dynamic --factor 2 --original-max-positions 128 --seq-len 1000 -f json
check "--precision float32: the float32 base, its inv_freq_f32 within an ulp" ok_and "$PYTHON" -c '
import json, sys, struct
d = json.load(open(sys.argv[1]))
r = d["rope"][0]
b = r["parameters"]["dynamic_theta"]["value"]
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
exact = 1e4 * (2 * 1000 / 128 - 1) ** (64 / 62)
ok = d["precision"] == "float32" and b == f32(b) and b != exact and abs(b - exact) < 1e-6 * exact
ok = ok and all(abs(f32(p["inv_freq_f32"]) - b ** (-2 * p["pair"] / 64)) <= 2.5e-7 * b ** (-2 * p["pair"] / 64) for p in r["pairs"])
sys.exit(0 if ok else 1)' "$T/out"

# bad input: one line, the right status, nothing written
fails 2 "explain without a kind" "missing KIND (one of: sinusoidal, rope, alibi)$" explain
fails 2 "explain learned" "no report for kind 'learned' (explain takes sinusoidal, rope, alibi)$" explain learned
fails 2 "explain --table" "--table does not apply to explain" explain rope --table cos
fails 2 "explain -f npy" "explain writes a report: text, json, csv, or a figure (png, svg, pdf), not npy$" explain rope -f npy
fails 2 "explain -o x.safetensors" "explain writes a report: text, json, csv, or a figure (png, svg, pdf), not safetensors$" \
	explain rope -o "$T/eo/x.safetensors"
fails 2 "explain -o x.npz" "cannot tell the format of '$T/eo/x.npz': explain writes .txt, .json, .csv, .png, .svg or .pdf (or give -f)$" \
	explain rope -o "$T/eo/x.npz"
fails 2 "explain --rows" "--rows does not apply to explain$" explain rope --rows 0:4
fails 2 "explain --cmap without a figure" "--cmap applies to figures" explain rope --cmap magma
fails 2 "explain --cmap on a chart" "--cmap does not apply to a line chart$" explain rope --cmap magma -o "$T/eo/x.png"
fails 2 "explain --header on text" "--header applies to csv output only$" explain rope --header
fails 2 "explain alibi --precision" "--precision does not apply to alibi$" explain alibi --precision float32
fails 2 "explain a bad option value" "yarn scaling needs --factor (a positive number), got 0$" \
	explain rope --scaling yarn -o "$T/eo/x.json"
fails 1 "explain a config with a bad key" "$HF/../rope_bad_type.json: rope_parameters.rope_theta must be a number, got '\"10000\"'$" \
	explain rope --from-config "$HF/../rope_bad_type.json" -o "$T/eo/x.json"
fails 1 "explain a missing config" "$T/eo/none.json: cannot open: No such file or directory$" \
	explain rope --from-config "$T/eo/none.json"
fails 2 "explain --layer out of range" "--layer 26: .*gemma-3-1b-it.legacy.json describes 26 layers (0 to 25)$" \
	explain rope --from-config "$HF/gemma-3-1b-it.legacy.json" --layer 26
fails 2 "explain --layer of a NoPE layer" "--layer 3 of .* has no RoPE (a NoPE layer: 3, 7, " \
	explain rope --from-config "$HF/llama-4-scout-17b-16e.fields.json" --layer 3
fails 2 "explain a head dim too wide to report" "explain reports at most 65536 frequencies: --dim at most 131072, got 131074$" \
	explain rope -d 131074
fails 2 "explain too many heads" "explain reports at most 65536 heads, got 65537 (generate alibi --table slopes writes them all)$" \
	explain alibi --heads 65537
