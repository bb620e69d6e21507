# posenc audit: the research notes' worked numbers (float16 position 1857's
# angle 1044.27 is 1045, cos 0.715 off; bfloat16 holds 15962 as 15936;
# 257 and 2049 the first positions the types cannot hold), the CSV and
# JSON and chart outputs, full-precision errors whatever --dtype, bounds a
# stored table cannot exceed, and the usage errors.  Expected numbers are
# the types' own arithmetic (ab.py, standard library), never posenc's.
AU=$T/audit
mkdir -p "$AU"
cat >"$AU/ab.py" <<'EOF'
import math, struct, sys

from fixtures import json_holds


def row(path, pos):
    """the CSV line of position pos as a dict"""
    lines = open(path).read().splitlines()
    head = lines[0].split(',')
    for l in lines[1:]:
        f = l.split(',')
        if int(f[0]) == int(pos):
            return dict(zip(head, f))
    return None


def cmd_neox(path):
    """GPT-NeoX #1003 (64-wide, theta 10000, inv_freq, positions and
    angles in float16): at 1857, column 2's angle is 1045, not 1044.27"""
    r = row(path, 1857)
    exact = 1857 * 10.0 ** -0.25
    want = abs(math.cos(1045.0) - math.cos(exact))
    return (r is not None and r['worst_column'] == '2' and abs(float(r['max_abs']) - want) < 1e-6
            and r['stored_position'] == '1857' and abs(exact - 1044.2678) < 1e-4)


def bf16(x):
    """x (a float32) rounded to bfloat16, the integer formula"""
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    return struct.unpack('<f', struct.pack('<I', ((u + 0x7fff + ((u >> 16) & 1)) >> 16) << 16))[0]


def cmd_stored(path, pos, want):
    r = row(path, pos)
    return r is not None and float(r['stored_position']) == float(want) == bf16(float(pos))


def cmd_full_precision(path):
    """the errors are printed in full, not rounded to bfloat16: some
    max_abs is no bfloat16 number"""
    lines = open(path).read().splitlines()[1:]
    vals = [float(l.split(',')[1]) for l in lines]
    return any(v != bf16(v) for v in vals if v > 0) and len(lines) == 512


def cmd_bound(path, bound):
    """every max_abs within bound"""
    lines = open(path).read().splitlines()[1:]
    return len(lines) > 0 and all(float(l.split(',')[1]) <= float(bound) for l in lines)


def cmd_json(path, expr):
    return json_holds(path, expr)


if __name__ == '__main__':
    sys.exit(0 if globals()['cmd_' + sys.argv[1]](*sys.argv[2:]) else 1)
EOF
ab() {
	PYTHONPATH="$here/../lib" "$PYTHON" "$AU/ab.py" "$@" 2>>"$AU/python.log"
}

# --- the worked numbers ---
run audit rope -d 64 -n 2048 --dtype float16 --steps inv-freq,positions,angles -o "$AU/neox.csv"
check "float16 (GPT-NeoX #1003): position 1857's angle 1045, cos 0.715 off, column 2" \
	ok_and ab neox "$AU/neox.csv"
check "the CSV header" ok_and \
	[ "$(head -1 "$AU/neox.csv")" = "position,max_abs,mean_abs,max_ulp_f32,max_rel,worst_column,stored_position" ]
run audit rope -d 64 -n 2048 --dtype float16 --steps inv-freq,positions,angles -f json
check "float16 json: worst 0.782 at 2008 (1129.18 as 1130), nothing unrepresentable below 2049" \
	ok_and ab json "$T/out" 'd["worst"][:2] == [2008, 2] and abs(d["worst"][2] - abs(__import__("math").cos(1130.0) - __import__("math").cos(2008 * 10 ** -0.25))) < 1e-6 and d["first_unrepresentable_position"] is None and d["dtype"] == "float16" and d["steps"] == "inv-freq,positions,angles"'
run audit rope -d 64 -n 4096 --dtype float16 -f json
check "float16 -n 4096: 2049 is the first position it cannot hold" \
	ok_and ab json "$T/out" 'd["first_unrepresentable_position"] == 2049 and d["threshold"] == 2 ** -10 and d["first_over_threshold"] is not None'
run audit rope -d 128 -n 16000 --dtype bfloat16 -o "$AU/bf.csv"
check "bfloat16: position 15962 is held as 15936" ok_and ab stored "$AU/bf.csv" 15962 15936
run audit rope -d 128 -n 512 --dtype bfloat16 -f json
check "bfloat16 json: 257 the first position it cannot hold" \
	ok_and ab json "$T/out" 'd["first_unrepresentable_position"] == 257 and d["worst_position"] == d["worst"][0] and d["max_abs"] == d["worst"][2]'
run audit rope -d 128 -n 200 --dtype bfloat16 -f json
check "bfloat16 -n 200: every position held (null)" ok_and ab json "$T/out" 'd["first_unrepresentable_position"] is None'
# audit's --dtype is the computing type: the errors are written in full
run audit rope -d 64 -n 512 --dtype bfloat16 -f csv
check "--dtype bfloat16 -f csv: errors in full precision, not bfloat16" ok_and ab full_precision "$T/out"
# a table only stored in the type: within half an ulp of bfloat16 at [1, 2)
run audit sinusoidal -n 256 -d 64 --dtype bfloat16
check "sinusoidal stored in bfloat16: every error within 2^-9" ok_and ab bound "$T/out" 0.001953125
# (the float32 angle itself is off by at most 1024 x 2^-25 + 2^-15 < 2^-13)
run audit rope -d 64 -n 1024 --dtype bfloat16 --steps table
check "--steps table: a cache stored in bfloat16 (|cos| <= 1): within 2^-9 + 2^-13" \
	ok_and ab bound "$T/out" 0.0020751953125
run audit rope -d 64 -n 2048 --dtype float32 -f json
check "float32: PyTorch's pipeline, off by ulps (below 2e-4 at 2048 positions)" \
	ok_and ab json "$T/out" 'd["steps"] == "pipeline" and 0 < d["max_abs"] < 2e-4 and d["max_ulp_f32"] > 0 and d["first_unrepresentable_position"] is None'
run audit rope -d 64 -n 2048 --dtype float16 -o "$AU/chart.png"
check "-o .png: a line chart with its meta" ok_and eval 'png "$AU/chart.png" text posenc:meta | grep -q "\"command\":\"audit\"" && ! png "$AU/chart.png" text posenc:heatmap && [ "$(png "$AU/chart.png" ink 100 60 500 300)" -gt 500 ]'
run audit rope -d 64 -n 2048 --dtype bfloat16 --table inv-freq
check "--table inv-freq: a line per frequency" \
	ok_and eval '[ "$(head -1 "$T/out" | cut -d, -f1)" = frequency ] && [ "$(wc -l <"$T/out")" -eq 33 ]'

# --- usage errors ---
fails 2 "audit without --dtype" "--dtype is required: bfloat16, float16 or float32$" audit rope
fails 2 "audit without a kind" "missing KIND" audit --dtype bfloat16
fails 2 "audit with two operands" "expected one KIND, got 2 operands: 'rope' is one too many$" \
	audit rope rope --dtype bfloat16
fails 2 "an unknown step" "--steps: unknown step 'angle' (one of: inv-freq, positions, angles, table)$" \
	audit rope --dtype bfloat16 --steps inv-freq,angle
fails 2 "--steps with float32" "--steps applies to bfloat16 and float16" \
	audit rope --dtype float32 --steps angles
fails 2 "--steps angles for a kind that is only stored" "--steps angles: sinusoidal's table is only stored" \
	audit sinusoidal --dtype bfloat16 --steps angles
fails 2 "float32 without a float32 pipeline" "--dtype float32: alibi has no float32 pipeline here" \
	audit alibi --dtype float32
fails 2 "--dtype float64" "unknown --dtype 'float64' (one of: bfloat16, float16, float32)$" \
	audit rope --dtype float64
fails 2 "--header (the CSV has its own)" "--header does not apply to --audit" audit rope --dtype bfloat16 --header
