# posenc diff: exit statuses as cmp (0 equal, 1 different, 2 trouble, each
# with what only a working posenc prints), operands (a third is refused:
# the issue's dropped second -i), every input format against every other
# and against a generated table, tolerances at their boundaries, the pair
# conventions (NaN, zeros, inf), shapes, the JSON keys, the error matrix and
# the curves, the diagnosis of known mistakes, bounded memory on large
# tables.  Expected numbers come from NumPy (dd.py), never from posenc;
# without NumPy those parts are SKIPPED.
DD=$T/diff
mkdir -p "$DD"
cat >"$DD/dd.py" <<'EOF'
import json, os, resource, subprocess, sys

from fixtures import json_holds, st_write


def cos_table(n, d, theta=10000.0, inter=False, off=0, mul=1.0, use_sin=False):
    import numpy as np
    k = np.arange(d) // 2 if inter else np.arange(d) % (d // 2)
    inv = theta ** (-2.0 * k / d)
    a = mul * (np.arange(n)[:, None] + off) * inv[None]
    return (np.sin(a) if use_sin else np.cos(a)).astype(np.float32)


def cmd_fixtures(d):
    import numpy as np
    j = lambda name: os.path.join(d, name)
    b = cos_table(64, 16)
    np.save(j('b.npy'), b)
    np.savetxt(j('b.csv'), b, fmt='%.9g', delimiter=',')
    b.astype('<f4').tofile(j('b.f32'))
    st_write(j('b.safetensors'), [('pos', 'F32', b.shape, b.astype('<f4').tobytes())])
    h = b.astype(np.float16)
    st_write(j('b16.safetensors'), [('pos', 'F16', b.shape, h.astype('<f2').tobytes())])
    np.save(j('b16_as_f32.npy'), h.astype(np.float32))
    bf = ((b.view(np.uint32).astype(np.uint64) + 0x7fff + ((b.view(np.uint32) >> 16) & 1)) >> 16).astype(np.uint16)
    st_write(j('bbf16.safetensors'), [('pos', 'BF16', b.shape, bf.astype('<u2').tobytes())])
    bf32 = (bf.astype(np.uint32) << 16).view(np.float32)
    np.save(j('bbf16_as_f32.npy'), bf32)
    # one change of 0.5 at (5, 3) and 0.25 at (7, 1)
    a = b.copy()
    a[5, 3] += np.float32(0.5)
    a[7, 1] += np.float32(0.25)
    np.save(j('a_one.npy'), a)
    e = np.abs(a.astype(np.float64) - b.astype(np.float64))
    np.save(j('want_abs.npy'), e.astype(np.float32))
    with np.errstate(divide='ignore', invalid='ignore'):
        np.save(j('want_rel.npy'), np.where(e == 0, 0, e / np.abs(b.astype(np.float64))).astype(np.float32))
    def key(x):
        i = x.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7fffffff), i)
    np.save(j('want_ulp.npy'), np.abs(key(a) - key(b)).astype(np.float32))
    with open(j('want.json'), 'w') as f:
        json.dump({'max_abs': float(e.max()), 'where': [5, 3], 'differ': 2,
                   'max_ulp': int(np.abs(key(a) - key(b)).max()),
                   'max_rel': float((e / np.abs(b.astype(np.float64))).max()),
                   'mean_abs': float(e.sum() / e.size)}, f)
    # tolerances: 3e-6 off at (2, 2); 2 ulps off at (4, 4)
    t = b.copy()
    t[2, 2] = np.float32(t[2, 2] + np.float32(3e-6))
    np.save(j('a_tol.npy'), t)
    with open(j('tol.txt'), 'w') as f:
        d22 = abs(float(t[2, 2]) - float(b[2, 2]))
        f.write('%r %r %r\n' % (d22, d22 * 0.999, d22 / abs(float(b[2, 2])) * 1.001))
    u = b.copy()
    u[4, 4] = np.nextafter(np.nextafter(u[4, 4], np.float32(2)), np.float32(2))
    np.save(j('a_ulp2.npy'), u)
    # the conventions
    x = b.copy(); y = b.copy()
    x[1, 1] = np.nan; y[1, 1] = -np.nan; x[2, 2] = 0.0; y[2, 2] = -0.0
    np.save(j('nan_a.npy'), x); np.save(j('nan_b.npy'), y)
    z = b.copy(); z[3, 3] = np.nan
    np.save(j('nan_one.npy'), z)
    w = b.copy(); w[0, 0] = np.inf
    v = b.copy(); v[0, 0] = np.finfo(np.float32).max
    np.save(j('inf_a.npy'), w); np.save(j('max_b.npy'), v)
    # shapes
    np.save(j('b_T.npy'), np.ascontiguousarray(b.T))
    np.save(j('b_rows.npy'), b[:32])
    np.save(j('b_half.npy'), np.ascontiguousarray(b[:, :8]))
    # mistakes to diagnose
    np.save(j('a_bf16.npy'), bf32)
    np.save(j('a_inter.npy'), cos_table(64, 16, inter=True))
    np.save(j('a_off.npy'), cos_table(64, 16, off=3))
    np.save(j('a_scale.npy'), (b.astype(np.float64) * (0.1 * np.log(32) + 1)).astype(np.float32))
    np.save(j('a_sin.npy'), cos_table(64, 16, use_sin=True))
    rng = np.random.default_rng(5)
    np.save(j('r.npy'), rng.standard_normal(b.shape).astype(np.float32))
    # a rope table as posenc generate rope -n 512 -d 32 would be, in numpy,
    # and its theta-500000 and doubled-angle mistakes
    np.save(j('rope.npy'), cos_table(512, 32))
    np.save(j('rope_t5.npy'), cos_table(512, 32, theta=500000.0))
    np.save(j('rope_x2.npy'), cos_table(512, 32, mul=2.0))


def cmd_same(path, want):
    """an npy (posenc's) holds exactly the float32 values of want"""
    import numpy as np
    a, b = np.load(path), np.load(want)
    return a.shape == b.shape and a.dtype == b.dtype and (
        a.view(np.uint32) == b.view(np.uint32)).all()


def cmd_report(path, want):
    """posenc's json report agrees with NumPy's numbers"""
    d = json.load(open(path))
    w = json.load(open(want))
    return (d['max_abs'] == w['max_abs'] and d['where'] == w['where'] and d['differ'] == w['differ']
            and d['max_ulp'] == w['max_ulp'] and d['max_rel'] == w['max_rel'] and abs(d['mean_abs'] - w['mean_abs']) <= 1e-15
            and d['equal'] is False and d['first_row'] == 5 and d['first_col'] == 3
            and d['shape'] == [64, 16] and d['values'] == 1024)


def cmd_curve(path, what, a, b):
    """--per csv: the header and a line per row (column) with the largest
    and mean abs error, the largest rel error and the count that differ,
    as NumPy computes them from the two tables"""
    import numpy as np
    a, b = np.load(a).astype(np.float64), np.load(b).astype(np.float64)
    e = np.abs(a - b)
    with np.errstate(divide='ignore', invalid='ignore'):
        r = np.where(e == 0, 0, e / np.abs(b))
    ax = 1 if what == 'row' else 0
    lines = open(path).read().splitlines()
    if lines[0] != what + ',max_abs,mean_abs,max_rel,max_ulp,differ' or len(lines) != e.shape[1 - ax] + 1:
        return False
    for i, l in enumerate(lines[1:]):
        f = l.split(',')
        if (int(f[0]) != i or float(f[1]) != e.max(axis=ax)[i] or float(f[3]) != r.max(axis=ax)[i]
                or abs(float(f[2]) - e.mean(axis=ax)[i]) > 1e-15 or int(f[5]) != (e > 0).sum(axis=ax)[i]):
            return False
    return True


def cmd_rss(kb, *cmd):
    """run cmd (a diff of different tables); true when it says so and its
    peak resident memory stays below kb KiB"""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stderr.write('rss %d KiB, exit %d\n' % (peak, p.returncode))
    return p.returncode == 1 and b'\ndifferent: ' in p.stdout and peak < int(kb)


def cmd_json(path, expr):
    return json_holds(path, expr)


if __name__ == '__main__':
    r = globals()['cmd_' + sys.argv[1]](*sys.argv[2:])
    sys.exit(0 if r is None or r else 1)
EOF
dd() {
	PYTHONPATH="$here/../lib" "$PYTHON" "$DD/dd.py" "$@" 2>>"$DD/python.log"
}

# --- operands and options: usage errors (exit 2) ---
"$POSENC" generate rope -n 64 -d 16 -o "$DD/g.npy" 2>/dev/null
"$POSENC" generate rope -n 64 -d 16 -o "$DD/g.csv" 2>/dev/null
fails 2 "diff without operands" "expected two operands, A and B (a file or a KIND), got 0$" diff
fails 2 "a third operand (never silently dropped)" \
	"expected two operands, A and B (a file or a KIND), got 3: '$DD/g.csv' is one too many$" \
	diff "$DD/g.npy" "$DD/g.npy" "$DD/g.csv"
fails 2 "the kind first" "A is a file, the generated table comes second: posenc diff FILE rope" \
	diff rope "$DD/g.npy"
fails 2 "--per and --error" "--per and --error are two outputs: give one$" \
	diff "$DD/g.npy" "$DD/g.csv" --per row --error abs
fails 2 "a kind's option with a file B" "--theta applies to a generated B (posenc diff A KIND), not to a file$" \
	diff "$DD/g.npy" "$DD/g.csv" --theta 5
fails 2 "--dtype float16 of float32 errors (no double rounding)" \
	"--dtype float16: diff_abs is computed as correctly rounded float32 values, and rounding those again would not always give the nearest float16$" \
	diff "$DD/g.npy" "$DD/g.csv" -o "$DD/e16.npy" --dtype float16
fails 2 "--dtype float64 of float32 errors (no widening passed off as exact)" \
	"--dtype float64: diff_abs is computed as float32 values, and widened they are not the float64 nearest the exact ones: leave --dtype out for float32$" \
	diff "$DD/g.npy" "$DD/g.csv" -o "$DD/e64.npy" --dtype float64
check "a refused --dtype leaves no file" eval '[ ! -e "$DD/e16.npy" ] && [ ! -e "$DD/e64.npy" ] && [ -s "$DD/g.npy" ]'
fails 2 "--tensor-b with a generated B" "--tensor-b applies to a file B, not to a generated one$" \
	diff "$DD/g.npy" rope --tensor-b x
fails 2 "the report in npy" "the report is text, or json with -f json, not 'npy'" \
	diff "$DD/g.npy" "$DD/g.csv" -f npy
fails 2 "both stdin" "A and B are both standard input ('-')$" diff - -
fails 2 "a figure option with the report" "--cmap does not apply to the report (text)$" \
	diff "$DD/g.npy" "$DD/g.csv" --cmap magma
fails 2 "--ulps -1" "--ulps" diff "$DD/g.npy" "$DD/g.csv" --ulps -1
# trouble is 2, not 1 (1 is "different"): a missing file, a bad one
run diff "$DD/nope.npy" "$DD/g.npy"
check "a missing file: exit 2, one line" eval 'status_msg 2 diff "$DD/nope.npy: cannot open" && err_is 1 diff . && [ ! -s "$T/out" ]'
printf 'not a table\n' >"$DD/bad.npy"
run diff "$DD/bad.npy" "$DD/g.npy"
check "an unreadable file: exit 2 and its message" status_msg 2 diff "$DD/bad.npy: not an npy file"

# --- equal, different: the exit status and the words ---
run diff "$DD/g.npy" "$DD/g.csv"
check "npy = csv of the same table: exit 0, equal" \
	eval '[ "$status" -eq 0 ] && grep -q "^equal: all 1024 values equal (identical float32 values)$" "$T/out"'
run diff "$DD/g.npy" rope -n 64 -d 16
check "a file = the generated table: exit 0" ok_and grep -q "^B: rope (generated rope_cos, exact, 64 x 16)$" "$T/out"
run diff "$DD/g.npy" rope -n 64 -d 16 --precision float32
check "against the float32 pipeline: exit 1, different" \
	eval '[ "$status" -eq 1 ] && grep -q "^different: [0-9]* of 1024 values differ" "$T/out"'
check "float32 pipeline: diagnosed precision" grep -q "^  1\. precision (residual 0): A is B's table computed exactly (B is PyTorch's float32 pipeline)" "$T/out"
run diff "$DD/g.npy" rope -n 64 -d 16 --precision float32 --ulps 100000000
check "--ulps wide enough: exit 0, equal, the values not identical counted" \
	eval '[ "$status" -eq 0 ] && grep -q "^equal: no value differs beyond the tolerance ([0-9]* of 1024 not identical; tolerance: within 100000000 ulps)$" "$T/out" && grep -q "^max ulp error" "$T/out"'
run diff -q "$DD/g.npy" rope -n 64 -d 16
check "-q equal: exit 0, nothing printed" eval '[ "$status" -eq 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ]'
run diff -q "$DD/g.npy" rope -n 64 -d 16 --theta 500 -o "$DD/q.npy"
check "-q different: exit 1, nothing printed, the errors written" \
	eval '[ "$status" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(head -c 6 "$DD/q.npy" | tail -c 5)" = "NUMPY" ]'
# the half and interleaved layouts: a known permutation, named
"$POSENC" generate rope -n 64 -d 16 --layout interleaved -o "$DD/gi.npy" 2>/dev/null
run diff "$DD/gi.npy" "$DD/g.npy"
check "interleaved against half: permuted-columns, named" \
	eval '[ "$status" -eq 1 ] && grep -q "^  1\. permuted-columns (residual 0): A is interleaved" "$T/out"'
run diff "$DD/gi.npy" rope -n 64 -d 16 -f json
check "-f json (different): the diagnosis list, best first" \
	eval '[ "$status" -eq 1 ] && dd json "$T/out" "d[\"diagnosis\"][0][\"cause\"] == \"permuted-columns\" and d[\"diagnosis\"][0][\"evidence\"][\"permutation\"] == \"interleaved-to-half\" or d[\"diagnosis\"][0][\"evidence\"][\"permutation\"] == \"half-to-interleaved\""'
# stdin, raw
run_stdin "$DD/g.npy" diff - rope -n 64 -d 16
check "stdin (npy by its magic) = generated: exit 0" ok_and grep -q "^A: stdin (npy <f4, 64 x 16)$" "$T/out"
"$POSENC" generate rope -n 64 -d 16 -f raw -o "$DD/g.f32" 2>/dev/null
run diff "$DD/g.f32" "$DD/g.npy" --shape-a 64x16
check "raw (--shape-a) = npy: exit 0" ok_and grep -q "^equal: all 1024" "$T/out"
run diff "$DD/g.f32" "$DD/g.f32" --shape 64x16
check "raw = raw (--shape for both): exit 0" ok_and grep -q "^A: $DD/g.f32 (raw <f4, 64 x 16)$" "$T/out"
"$POSENC" generate rope -n 64 -d 16 --table all -o "$DD/g.safetensors" 2>/dev/null
run diff "$DD/g.safetensors" "$DD/g.npy" --tensor-a rope_cos
check "safetensors (--tensor-a) = npy: exit 0" ok_and grep -q "tensor rope_cos, 64 x 16)$" "$T/out"
run diff "$DD/g.safetensors" rope -n 64 -d 16 --table sin --tensor rope_sin
check "safetensors sin (--tensor) = generated sin: exit 0" ok_and grep -q "^equal" "$T/out"
run diff "$DD/g.safetensors" rope -n 64 -d 16 --tensor rope_sin
check "sin against cos: swapped-sin-cos" \
	eval '[ "$status" -eq 1 ] && grep -q "^  1\. swapped-sin-cos" "$T/out"'
# every format posenc writes against the generated table
for f in "g.csv" "g.f32 --shape-a 64x16" "g.safetensors --tensor rope_cos"; do
	# shellcheck disable=SC2086
	run diff "$DD"/$f rope -n 64 -d 16
	check "$f = generated: exit 0" ok_and grep -q "^equal: all 1024 values equal" "$T/out"
done
# shapes: the rows in common compared, still different
"$POSENC" generate rope -n 32 -d 16 -o "$DD/g32.npy" 2>/dev/null
run diff "$DD/g32.npy" "$DD/g.npy"
check "32 rows against 64: exit 1, the first 32 compared" \
	eval '[ "$status" -eq 1 ] && grep -q "^shapes differ: A has 32 rows, B 64: their first 32 rows are compared$" "$T/out" && grep -q "^different: the shapes differ; all 512 values compared are equal$" "$T/out"'
# a full stdout is trouble (2), not "different"
"$POSENC" diff "$DD/g.npy" "$DD/g.csv" >/dev/full 2>"$T/err"
status=$?
check "stdout /dev/full: exit 2, a write error" status_msg 2 diff "write failed: No space left on device"
# the error matrix to a file: the report still on stdout
run diff "$DD/g.npy" rope -n 64 -d 16 --precision float32 -o "$DD/e.png"
check "-o .png: the report on stdout, exit 1" \
	eval '[ "$status" -eq 1 ] && grep -q "^different:" "$T/out"'
check "-o .png (different): a 64 x 16 heatmap of the abs error" \
	eval '[ "$status" -eq 1 ] && png "$DD/e.png" hmtest "d[\"shape\"] == [64, 16]"'
run diff "$DD/g.npy" rope -n 64 -d 16 --precision float32 --per row -o "$DD/per.svg"
check "--per row -o .svg: a line chart" eval '[ "$status" -eq 1 ] && grep -q "<svg" "$DD/per.svg"'
run diff "$DD/g.npy" rope -n 64 -d 16 --precision float32 --per row -o "$DD/per.png"
check "--per row -o .png: a line chart titled per row, no heatmap" \
	eval '[ "$status" -eq 1 ] && png "$DD/per.png" text Title | grep -q "^diff .*g\.npy vs rope: error per row$" && ! png "$DD/per.png" text posenc:heatmap && [ "$(png "$DD/per.png" ink 100 60 500 300)" -gt 500 ]'

if "$PYTHON" -c 'import numpy' 2>/dev/null; then
dd fixtures "$DD"

# --- every input format against the others ---
for f in "b.csv" "b.safetensors" "b.f32 --shape-a 64x16"; do
	# shellcheck disable=SC2086
	run diff "$DD"/$f "$DD/b.npy"
	check "NumPy's b.npy = $f: exit 0" ok_and grep -q "^equal: all 1024 values equal" "$T/out"
done
run diff "$DD/b16.safetensors" "$DD/b16_as_f32.npy"
check "F16 safetensors = its float32 values: exit 0" ok_and grep -q "^equal" "$T/out"
run diff "$DD/bbf16.safetensors" "$DD/bbf16_as_f32.npy"
check "BF16 safetensors = its float32 values: exit 0" ok_and grep -q "^equal" "$T/out"
run diff "$DD/b.npy" rope -n 64 -d 16
check "NumPy's cos table = posenc's exact one: exit 0" ok_and grep -q "^equal" "$T/out"

# --- the numbers, against NumPy's ---
run diff "$DD/a_one.npy" "$DD/b.npy" -f json
check "json: max_abs, max_rel, where, differ, max_ulp, mean_abs as NumPy computes them" \
	eval '[ "$status" -eq 1 ] && dd report "$T/out" "$DD/want.json"'
for m in abs rel ulp; do
	run diff "$DD/a_one.npy" "$DD/b.npy" --error $m -o "$DD/e_$m.npy"
	check "--error $m: NumPy's error matrix, bit for bit" \
		eval '[ "$status" -eq 1 ] && dd same "$DD/e_$m.npy" "$DD/want_$m.npy"'
done
run diff "$DD/a_one.npy" "$DD/b.npy" --per row
check "--per row: NumPy's errors per row" \
	eval '[ "$status" -eq 1 ] && dd curve "$T/out" row "$DD/a_one.npy" "$DD/b.npy"'
run diff "$DD/a_one.npy" "$DD/b.npy" --per column
check "--per column: NumPy's errors per column" \
	eval '[ "$status" -eq 1 ] && dd curve "$T/out" column "$DD/a_one.npy" "$DD/b.npy"'

# --- tolerances at their boundaries ---
read -r d22 below rel <"$DD/tol.txt"
run diff "$DD/a_tol.npy" "$DD/b.npy" --atol "$d22"
check "--atol = the difference: equal (<=)" ok_and grep -q "^equal: no value differs beyond the tolerance (1 of 1024 not identical" "$T/out"
run diff "$DD/a_tol.npy" "$DD/b.npy" --atol "$below"
check "--atol just below: different" eval '[ "$status" -eq 1 ] && grep -q "^different: 1 of 1024" "$T/out"'
run diff "$DD/a_tol.npy" "$DD/b.npy" --rtol "$rel"
check "--rtol just above the relative difference: equal" ok_and grep -q "^equal: no value differs beyond" "$T/out"
run diff "$DD/a_ulp2.npy" "$DD/b.npy" --ulps 2
check "--ulps 2, 2 ulps apart: equal" ok_and grep -q "^equal: no value differs beyond the tolerance (1 of 1024 not identical; tolerance: within 2 ulps)$" "$T/out"
run diff "$DD/a_ulp2.npy" "$DD/b.npy" --ulps 1
check "--ulps 1, 2 ulps apart: different, max ulp error 2" \
	eval '[ "$status" -eq 1 ] && grep -q "^max ulp error  2 at row 4, column 4$" "$T/out"'

# --- the conventions ---
run diff "$DD/nan_a.npy" "$DD/nan_b.npy"
check "NaN = -NaN and 0 = -0: equal" ok_and grep -q "^equal: all 1024 values equal" "$T/out"
run diff "$DD/nan_one.npy" "$DD/b.npy" -f json
check "NaN against a number: incomparable, inf errors as strings" \
	eval '[ "$status" -eq 1 ] && dd json "$T/out" "d[\"incomparable\"] == 1 and d[\"max_abs\"] == \"inf\" and d[\"where\"] == [3, 3] and d[\"max_ulp\"] == \"inf\""'
run diff "$DD/inf_a.npy" "$DD/max_b.npy" --ulps 1000
check "inf against FLT_MAX: never within ulps" \
	eval '[ "$status" -eq 1 ] && grep -q "^incomparable: 1 values" "$T/out"'
run diff "$DD/nan_one.npy" "$DD/b.npy" --error abs -f json
check "an error matrix holding inf: json refuses it (exit 2)" status_msg 2 diff ".*inf"

# --- shapes ---
run diff "$DD/b_T.npy" "$DD/b.npy" -f json
check "transposed: said, and the cause" \
	eval '[ "$status" -eq 1 ] && dd json "$T/out" "\"is B transposed\" in d[\"shape_finding\"] and d[\"diagnosis\"][0][\"cause\"] == \"transposed\""'
run diff "$DD/b_half.npy" "$DD/b.npy"
check "half as wide: the first half of B's columns" \
	eval '[ "$status" -eq 1 ] && grep -q "^shapes differ: A (8 columns) is B.s first half of columns" "$T/out"'

# --- the diagnosis of known mistakes (tables built by NumPy) ---
for c in "a_bf16.npy b.npy storage-dtype" "a_inter.npy b.npy permuted-columns" \
	"a_off.npy b.npy row-offset" "a_scale.npy b.npy constant-scale" \
	"a_sin.npy b.npy swapped-sin-cos" "rope_t5.npy rope.npy theta" \
	"rope_x2.npy rope.npy double-rotation"; do
	# shellcheck disable=SC2086
	set -- $c
	dg_a=$1 dg_b=$2 dg_cause=$3
	run diff "$DD/$dg_a" "$DD/$dg_b" -f json
	check "diagnosis of $dg_a: $dg_cause first" \
		eval '[ "$status" -eq 1 ] && dd json "$T/out" "d[\"diagnosis\"][0][\"cause\"] == \"$dg_cause\" and d[\"diagnosis\"][0][\"residual\"] <= 0.1"'
done
run diff "$DD/rope_t5.npy" rope -n 512 -d 32 -f json
check "theta against a generated B: the base fitted and rounded" \
	eval '[ "$status" -eq 1 ] && dd json "$T/out" "d[\"diagnosis\"][0][\"cause\"] == \"theta\" and d[\"diagnosis\"][0][\"evidence\"][\"theta_a\"] == 500000"'
run diff "$DD/r.npy" "$DD/b.npy"
check "random against rope: no simple explanation" \
	eval '[ "$status" -eq 1 ] && grep -q "^diagnosis: no simple explanation" "$T/out"'
else
	skipped "diff: NumPy's tables" "$PYTHON has no numpy"
fi

# --- two large tables in bounded memory (the rows streamed) ---
if [ -z "$VALGRIND" ]; then
	"$POSENC" generate rope -n 200000 -d 128 -o "$DD/big_a.npy" 2>/dev/null
	"$POSENC" generate rope -n 200000 -d 128 --theta 20000 -o "$DD/big_b.npy" 2>/dev/null
	check "two 200000 x 128 tables (200 MB): different, at most 40 MB resident" \
		dd rss 40960 "$POSENC" diff "$DD/big_a.npy" "$DD/big_b.npy"
	rm -f "$DD/big_a.npy" "$DD/big_b.npy"
fi
