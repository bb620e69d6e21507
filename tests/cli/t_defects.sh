# Issue 9, defects 3-5: no impossible values, meta always valid JSON and UTF-8.

# 3: frequencies whose angles leave 2^53 (or overflow) are refused, naming the parameter
fails 2 "defects: tiny --base" '--base 1e-14 gives frequencies up to .* angles beyond 2^53' \
	generate sinusoidal --base 1e-14 -n 1000 -d 64
fails 2 "defects: tiny --theta" '--theta 1e-60 gives frequencies up to 1e+30' \
	generate rope --theta 1e-60 -n 4 -d 4
fails 2 "defects: tiny linear --factor" '--theta 10000 with this scaling gives frequencies up to inf' \
	generate rope --scaling linear --factor 2.3e-308 -n 8 -d 4
fails 2 "defects: tiny sincos2d --base" '--base 1e-100 gives frequencies up to 1e+50' \
	generate sincos2d --grid 2x2 -d 8 --base 1e-100
fails 2 "defects: huge --min-timescale" '--min-timescale 1e+20 gives frequencies' \
	generate sinusoidal --preset t2t --min-timescale 1e20 -n 3 -d 4
fails 2 "defects: longrope attention factor inf" 'the attention factor (inf) is beyond float32' \
	generate rope --scaling longrope --original-max-positions 1 --factor 2 \
	--short-factor 1,1 --long-factor 1,1 -n 3 -d 4
# a small base that stays within range is accepted and stays in [-1, 1]
run generate sinusoidal --base 1e-3 -n 50 -d 8
check "defects: small --base accepted, values in [-1, 1]" ok_and \
	"$PYTHON" -c 'import sys
v = [float(x) for l in open(sys.argv[1]) for x in l.split(",")]
assert len(v) == 400 and max(abs(x) for x in v) <= 1 and max(v) > 0.9' "$T/out"

# learned: a --std whose draws overflow float32, or fall below its normal
# range, is refused with the limit for that init; the limit itself is accepted
fails 2 "defects: learned --std overflows" '--std 1e+300 would overflow float32 (inf values): at most 2.833e+37 with --init normal' \
	generate learned --std 1e300 -n 2 -d 4
fails 2 "defects: learned uniform --std overflows" '--std 2e+38 would overflow float32 (inf values): at most 1.964e+38 with --init uniform' \
	generate learned --init uniform --std 2e38 -n 2 -d 4
fails 2 "defects: learned --std underflows" '--std 1e-300 is below float32'"'"'s normal range: values would be zeros and subnormals (at least 1.176e-38)' \
	generate learned --std 1e-300 -n 2 -d 4
run generate learned --init uniform --std 1.964e38 -n 64 -d 64
check "defects: learned at the --std limit: finite, near float32's top" ok_and \
	"$PYTHON" -c 'import sys, math
v = [float(x) for l in open(sys.argv[1]) for x in l.split(",")]
assert len(v) == 4096 and all(math.isfinite(x) for x in v) and max(map(abs, v)) > 3e38' "$T/out"

# 4: an infinite derived base is refused; meta json never holds a bare inf
fails 2 "defects: dynamic base overflow" '--factor 1e+300 with sequence length 2 and --original-max-positions 1 makes the dynamic base' \
	generate rope --scaling dynamic --factor 1e300 --original-max-positions 1 -n 2 -d 4 -f json
run generate rope --scaling dynamic --factor 1e100 --original-max-positions 1 -n 2 -d 4 -f json
check "defects: dynamic json meta is JSON" ok_and "$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["meta"]["scaling"] == "dynamic"' "$T/out"

# 5: a config path with byte 0xff becomes U+FFFD in json, safetensors and PNG text
cfg="$T/$(printf 'c\377.json')"
printf '{"rope_theta":10000,"head_dim":4,"max_position_embeddings":8}' >"$cfg"
run generate rope --from-config "$cfg" -n 2 -f json
check "defects: json meta with a 0xff path is UTF-8" ok_and "$PYTHON" -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
assert d["meta"]["config"].endswith("c\ufffd.json"), d["meta"]' "$T/out"
run generate rope --from-config "$cfg" -n 2 -f safetensors -o "$T/c.safetensors"
check "defects: safetensors meta with a 0xff path is UTF-8" ok_and "$PYTHON" -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
m = json.loads(b[8:8 + n].decode("utf-8", "strict"))["__metadata__"]
assert m["config"].endswith("c\ufffd.json"), m' "$T/c.safetensors"
run generate rope --from-config "$cfg" -n 2 -f png -o "$T/c.png" --title "$(printf 't\377')"
check "defects: PNG iTXt with a 0xff path and title is UTF-8" ok_and "$PYTHON" -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read(); pos = 8; t = {}
while pos < len(b):
    n, k = struct.unpack(">I4s", b[pos:pos + 8]); body = b[pos + 8:pos + 8 + n]; pos += 12 + n
    if k == b"iTXt":
        key, rest = body.split(b"\0", 1); t[key] = rest[2:].split(b"\0", 2)[2].decode("utf-8", "strict")
assert json.loads(t[b"posenc:meta"])["config"].endswith("c\ufffd.json")
assert t[b"Title"] == "t\ufffd", t' "$T/c.png"
