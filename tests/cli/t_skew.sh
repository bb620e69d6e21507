# posenc skew: the research notes' worked examples through csv (the expected
# text written here), the index formula computed independently in Python
# (sk.py) for every input and output format, 2-D grids, shards, PNG, every
# error (status, message, nothing left).  Without NumPy the file-format
# parts are SKIPPED.
K=$T/skew
mkdir -p "$K"
cat >"$K/sk.py" <<'EOF'
import json, os, struct, sys

from fixtures import json_holds, st_write

# helpers of t_skew.sh; each exits non-zero when its input is missing or
# wrong, so nothing passes without posenc.




def cmd_fixtures(d):
    """inputs in every format, and the expected results by the formulas"""
    import numpy as np
    j = lambda name: os.path.join(d, name)
    rng = np.random.default_rng(1812)
    L = 7
    r = rng.standard_normal((L, 2 * L - 1)).astype(np.float32)
    np.save(j('r.npy'), r)
    np.save(j('r_f8.npy'), r.astype('<f8'))
    np.save(j('r_be.npy'), r.astype('>f4'))
    np.savetxt(j('r.csv'), r, fmt='%.9g', delimiter=',')
    r.astype('<f4').tofile(j('r.f32'))
    st_write(j('r.safetensors'), [('rel', 'F32', r.shape, r.astype('<f4').tobytes())])
    st_write(j('two.safetensors'), [('a', 'F32', r.shape, r.astype('<f4').tobytes()),
                                    ('b', 'F32', (L, L), r[:, :L].astype('<f4').tobytes())])
    a = np.empty((L, L), np.float32)      # bidir forward: A[i][j] = R[i][j - i + L - 1]
    for i in range(L):
        for k in range(L):
            a[i, k] = r[i, k - i + L - 1]
    a.tofile(j('want_bidir.f32'))
    c = r[:, :L].copy()                   # causal: L x L, fill 0 above the diagonal
    np.save(j('c.npy'), c)
    ac = np.zeros((L, L), np.float32)
    for i in range(L):
        for k in range(i + 1):
            ac[i, k] = c[i, k - i + L - 1]
    ac.tofile(j('want_causal.f32'))
    inv = np.full((L, 2 * L - 1), -5, np.float32)   # bidir inverse, fill -5
    for i in range(L):
        for k in range(2 * L - 1):
            if 0 <= k + i - L + 1 < L:
                inv[i, k] = c[i, k + i - L + 1]
    inv.tofile(j('want_inverse.f32'))
    idx = np.full((L, 2 * L - 1), -1, np.int32)    # its index map
    for i in range(L):
        for k in range(2 * L - 1):
            if 0 <= k + i - L + 1 < L:
                idx[i, k] = k + i - L + 1
    idx.astype('<i4').tofile(j('want_index.i32'))
    for H, W in ((2, 3), (3, 2)):
        n = H * W
        rh = rng.standard_normal((n, 2 * H - 1)).astype(np.float32)
        rw = rng.standard_normal((n, 2 * W - 1)).astype(np.float32)
        np.save(j(f'rh{H}{W}.npy'), rh)
        np.save(j(f'rw{H}{W}.npy'), rw)
        rh.astype('<f4').tofile(j(f'rh{H}{W}.F32'))
        rw.astype('<f4').tofile(j(f'rw{H}{W}.bin'))
        out = np.empty((n, n), np.float32)
        for p in range(n):
            for m in range(n):
                out[p, m] = rw[p, m % W - p % W + W - 1] + rh[p, m // W - p // W + H - 1]
        out.tofile(j(f'want_2d{H}{W}.f32'))
    np.save(j('big.npy'), rng.standard_normal((300, 599)).astype(np.float32))


def values(path, fmt):
    """(dtype char, little-endian bytes) of an output file"""
    data = open(path, 'rb').read()
    if fmt == 'raw':
        return None, data
    if fmt == 'npy':
        assert data[:6] == b'\x93NUMPY' and data[6:8] == b'\x01\x00'
        n = struct.unpack('<H', data[8:10])[0]
        hdr = data[10:10 + n].decode('latin-1')
        assert (10 + n) % 64 == 0, 'header not padded to 64'
        kind = 'f' if "'descr': '<f4'" in hdr else 'i' if "'descr': '<i4'" in hdr else '?'
        return kind, data[10 + n:]
    if fmt == 'safetensors':
        n = struct.unpack('<Q', data[:8])[0]
        hdr = json.loads(data[8:8 + n])
        meta = hdr.pop('__metadata__')
        assert meta['command'] == 'skew' and meta['distance'] == 'key - query', meta
        (name, t), = hdr.items()
        kind = {'F32': 'f', 'I32': 'i'}.get(t['dtype'], '?')
        a, b = t['data_offsets']
        return kind, data[8 + n + a:8 + n + b]
    if fmt == 'json':
        d = json.loads(data)
        vals = [v for row in d['data'] for v in row]
        assert d['meta']['command'] == 'skew' and d['meta']['distance'] == 'key - query'
        if d['dtype'] == 'int32':
            assert all(type(v) is int for v in vals), 'json ints'
            return 'i', struct.pack(f'<{len(vals)}i', *vals)
        return 'f', struct.pack(f'<{len(vals)}f', *vals)
    if fmt == 'csv':
        fields = [v for l in data.decode().split('\n') if l for v in l.split(',')]
        if all(f.lstrip('-').isdigit() for f in fields):
            return 'i', struct.pack(f'<{len(fields)}i', *map(int, fields))
        return 'f', struct.pack(f'<{len(fields)}f', *map(float, fields))
    raise SystemExit('format?')


def cmd_same(path, fmt, want, kind):
    """the output holds exactly the bytes of want, as dtype kind (f or i)"""
    k, b = values(path, fmt)
    w = open(want, 'rb').read()
    ok = (k is None or k == kind) and len(w) > 0 and b == w
    sys.exit(0 if ok else 1)


def cmd_json(path, expr):
    sys.exit(0 if json_holds(path, expr) else 1)


if __name__ == '__main__':
    globals()['cmd_' + sys.argv[1]](*sys.argv[2:])
EOF
sk() {
	PYTHONPATH="$here/../lib" "$PYTHON" "$K/sk.py" "$@" 2>>"$K/python.log"
}

# --- 1. the worked examples (research notes section 4), through csv ---
printf '0,1,2,3,4\n10,11,12,13,14\n20,21,22,23,24\n' >"$K/a.csv"
run skew -i "$K/a.csv"
check "(a) bidir L = 3: A[i][j] = R[i][j-i+2]" ok_and [ "$(cat "$T/out")" = "$(printf '2,3,4\n11,12,13\n20,21,22')" ]
cp "$T/out" "$K/a-fwd.csv"
run skew -i "$K/a-fwd.csv" --inverse
check "(a) --inverse: back on the band, 0 elsewhere" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,0,2,3,4\n0,11,12,13,0\n20,21,22,0,0')" ]
run skew -i "$K/a-fwd.csv" --inverse --raw
check "(a) --inverse --raw: the pads' zeros" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,0,2,3,4\n0,11,12,13,0\n20,21,22,0,0')" ]
run skew -i "$K/a-fwd.csv" --inverse --fill nan --header
check "(a) --inverse --fill nan --header: distance columns" ok_and \
	[ "$(cat "$T/out")" = "$(printf 'd-2,d-1,d0,d1,d2\nnan,nan,2,3,4\nnan,11,12,13,nan\n20,21,22,nan,nan')" ]
run skew -i "$K/a.csv" --raw --header
check "(a) --raw: the same as the formula; key columns" ok_and \
	[ "$(cat "$T/out")" = "$(printf 'k0,k1,k2\n2,3,4\n11,12,13\n20,21,22')" ]
printf -- '-2,-1,0,1,2\n' >"$K/dist.csv"
run skew -i "$K/dist.csv" --broadcast
check "(a) --broadcast of the distances: A[i][j] = j - i" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,1,2\n-1,0,1\n-2,-1,0')" ]
printf '0,1,2,3\n10,11,12,13\n20,21,22,23\n30,31,32,33\n' >"$K/b.csv"
run skew -i "$K/b.csv" --mode causal
check "(b) causal L = 4: lower triangle, 0 above" ok_and \
	[ "$(cat "$T/out")" = "$(printf '3,0,0,0\n12,13,0,0\n21,22,23,0\n30,31,32,33')" ]
run skew -i "$K/b.csv" --mode causal --fill -inf
check "(b) --fill -inf" ok_and \
	[ "$(cat "$T/out")" = "$(printf '3,-inf,-inf,-inf\n12,13,-inf,-inf\n21,22,23,-inf\n30,31,32,33')" ]
run skew -i "$K/b.csv" --mode causal --raw
check "(b) --raw: the pad and the next row's values" ok_and \
	[ "$(cat "$T/out")" = "$(printf '3,0,10,11\n12,13,0,20\n21,22,23,0\n30,31,32,33')" ]
run skew --index-map -n 4 --mode causal
check "(b) --index-map: the column read, -1 where none" ok_and \
	[ "$(cat "$T/out")" = "$(printf '3,-1,-1,-1\n2,3,-1,-1\n1,2,3,-1\n0,1,2,3')" ]
run skew --index-map -n 3 --inverse --fill -9
check "--index-map --inverse: the column of A, --fill -9" ok_and \
	[ "$(cat "$T/out")" = "$(printf -- '-9,-9,0,1,2\n-9,0,1,2,-9\n0,1,2,-9,-9')" ]
run skew -i "$K/b.csv" --mode causal --inverse
check "causal --inverse: c >= L-1-i read, 0 before" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,0,0,0\n0,0,10,11\n0,20,21,22\n30,31,32,33')" ]
# t2t's masked inverse: row 0 zeros, row i > 0 starts with A[i-1][i+1 ...]
run skew -i "$K/b.csv" --mode causal --inverse --raw
check "causal --inverse --raw: the row above's upper triangle" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,0,0,0\n2,3,10,11\n13,20,21,22\n30,31,32,33')" ]
printf '7\n' >"$K/one.csv"
run skew -i "$K/one.csv" --mode causal --inverse
check "L = 1: a copy" ok_and [ "$(cat "$T/out")" = 7 ]
printf -- '-1,0,1\n' >"$K/rw.csv"
printf -- '-10,0,10\n' >"$K/rh.csv"
run skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" --broadcast
check "(c) 2x2 grid: 10 drow + dcol of key - query" ok_and \
	[ "$(cat "$T/out")" = "$(printf '0,1,10,11\n-1,0,9,10\n-10,-9,0,1\n-11,-10,-1,0')" ]
printf -- '-10,0,10\n' >"$K/rh2.csv"
printf -- '-2,-1,0,1,2\n' >"$K/rw3.csv"
run skew --grid 2x3 --rel-h "$K/rh2.csv" --rel-w "$K/rw3.csv" --broadcast
check "2x3 grid: the row term changes with drow" ok_and [ "$(cat "$T/out")" = "$(printf '%s\n' \
	0,1,2,10,11,12 -1,0,1,9,10,11 -2,-1,0,8,9,10 -10,-9,-8,0,1,2 -11,-10,-9,-1,0,1 -12,-11,-10,-2,-1,0)" ]
run skew -i "$K/b.csv" --mode causal --fill -3 -f json
check "json meta: the parameters and the sign convention" ok_and sh -c 'printf "%s" "$1" | grep -q "\"command\":\"skew\",\"mode\":\"causal\",\"inverse\":false,\"raw\":false,\"broadcast\":false,\"index_map\":false,\"fill\":-3,\"L\":4,\"distance\":\"key - query\"},\"data\":\[$"' _ "$(head -1 "$T/out")"
fails 2 "json refuses a -inf fill" "--fill -inf lands in the result and json cannot hold it; give a finite --fill or use csv, raw, npy or safetensors$" \
	skew -i "$K/b.csv" --mode causal --fill -inf -o "$T/eo/o.json"
# a mask written into the input (-inf at every distance > 0): every slice
# of every block has an infinity, and the error names the first, whichever
# worker thread fills its own first
{ seq -1023 0; yes -- -inf | head -1023; } | paste -sd, - >"$K/rel1023.csv"
for n in 1 3 8; do
	fails 1 "json refuses an input's -inf, $n threads" "json cannot hold an infinity (tensor 'skew', row 0, column 1); use csv, raw, npy or safetensors$" \
		skew -i "$K/rel1023.csv" --broadcast --threads $n -o "$T/eo/o.json"
done
run skew -i "$K/one.csv" --mode causal --fill -inf -f json
check "json with a -inf fill no cell gets: valid json, fill as a string" ok_and sk json "$T/out" \
	'd["data"] == [[7]] and d["meta"]["fill"] == "-inf" and d["meta"]["L"] == 1'

# --- 2. shards ---
run skew --index-map -n 300 -f raw -o "$K/idx-whole.raw"
: >"$K/idx-joined.raw"
for a in 0 70 140 210 280; do
	b=$((a + 70))
	[ $b -gt 300 ] && b=300
	"$POSENC" skew --index-map -n 300 -f raw --rows $a:$b >>"$K/idx-joined.raw" 2>/dev/null
done
check "--index-map: 300 x 300 int32" ok_and [ "$(wc -c <"$K/idx-whole.raw")" -eq 360000 ]
check "--rows shards concatenate to the whole" same_output "$K/idx-whole.raw" "$K/idx-joined.raw"

# --- 3. errors: usage (exit 2 + hint) and data (exit 1), nothing written ---
fails 2 "no form" "give -i FILE, --grid HxW with --rel-h and --rel-w, or --index-map -n L$" skew -o "$T/eo/o.csv"
fails 2 "-i and --grid" "-i FILE and --grid are two forms of skew: give one$" \
	skew -i "$K/a.csv" --grid 2x2 -o "$T/eo/o.csv"
fails 2 "-i and --index-map" "-i FILE and --index-map are two forms of skew: give one$" \
	skew -i "$K/a.csv" --index-map -n 3 -o "$T/eo/o.csv"
fails 2 "an operand" "unexpected operand 'x.npy' (the input is -i FILE)$" skew x.npy -o "$T/eo/o.csv"
fails 2 "--rel-h without --grid" "--rel-h applies to --grid only$" \
	skew -i "$K/a.csv" --rel-h "$K/rh.csv" -o "$T/eo/o.csv"
fails 2 "--grid without --rel-w" "--grid needs --rel-h FILE and --rel-w FILE$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" -o "$T/eo/o.csv"
fails 2 "--tensor with --grid" "--tensor applies to -i FILE only$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" --tensor t -o "$T/eo/o.csv"
fails 2 "--shape with --index-map" "--shape applies to -i FILE only$" \
	skew --index-map -n 3 --shape 3x5 -o "$T/eo/o.csv"
fails 2 "-n with -i" "--positions applies to --index-map only$" skew -i "$K/a.csv" -n 3 -o "$T/eo/o.csv"
fails 2 "--index-map without -n" "--index-map needs -n L (the number of queries)$" skew --index-map -o "$T/eo/o.csv"
fails 2 "--index-map --raw" "--raw does not apply to --index-map: it maps the index formula, with no input$" \
	skew --index-map -n 3 --raw -o "$T/eo/o.csv"
fails 2 "--index-map --broadcast" "--broadcast does not apply to --index-map" \
	skew --index-map -n 3 --broadcast -o "$T/eo/o.csv"
fails 2 "--grid --inverse" "--inverse is not defined for --grid: R_w and R_h cannot be told apart in their sum$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" --inverse -o "$T/eo/o.csv"
fails 2 "--grid --mode causal" "--mode causal does not apply to --grid: the 2-D skew is bidirectional and fills every cell$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" --mode causal -o "$T/eo/o.csv"
fails 2 "--grid --raw" "--raw does not apply to --grid" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" --raw -o "$T/eo/o.csv"
fails 2 "--grid 0x2" "--grid must be HxW with positive H and W and H \* W at most 16777216, got '0x2'$" \
	skew --grid 0x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" -o "$T/eo/o.csv"
fails 2 "--rel-h - --rel-w -" "--rel-h and --rel-w cannot both read stdin$" \
	skew --grid 2x2 --rel-h - --rel-w - -o "$T/eo/o.csv"
fails 2 "--raw --fill" "--raw and --fill contradict each other" \
	skew -i "$K/b.csv" --mode causal --raw --fill 1 -o "$T/eo/o.csv"
fails 2 "--fill with bidir forward" "--fill applies to --mode causal and to --inverse: a bidir skew reaches every cell$" \
	skew -i "$K/a.csv" --fill 1 -o "$T/eo/o.csv"
fails 2 "--broadcast --inverse" "--broadcast does not apply to --inverse" \
	skew -i "$K/dist.csv" --broadcast --inverse -o "$T/eo/o.csv"
fails 2 "--fill abc" "--fill must be a number, nan, inf or -inf, got 'abc'$" \
	skew -i "$K/b.csv" --mode causal --fill abc -o "$T/eo/o.csv"
fails 2 "--fill 1e39" "--fill 1e39 is beyond float32's range (about 3.4e38): give inf or -inf$" \
	skew -i "$K/b.csv" --mode causal --fill 1e39 -o "$T/eo/o.csv"
fails 2 "--fill 0x10" "--fill must be a number, nan, inf or -inf, got '0x10'$" \
	skew -i "$K/b.csv" --mode causal --fill 0x10 -o "$T/eo/o.csv"
fails 2 "--index-map --fill 1.5" "--fill must be an integer from -2147483648 to 2147483647, got '1.5'$" \
	skew --index-map -n 3 --mode causal --fill 1.5 -o "$T/eo/o.csv"
fails 2 "--mode sideways" "unknown --mode 'sideways' (one of: bidir, causal)$" \
	skew -i "$K/a.csv" --mode sideways -o "$T/eo/o.csv"
fails 2 "-n 0" "--positions must be an integer from 1 to 8388608, got '0'$" \
	skew --index-map -n 0 -o "$T/eo/o.csv"
fails 2 "-n 8388609" "--positions must be an integer from 1 to 8388608, got '8388609'$" \
	skew --index-map -n 8388609 -o "$T/eo/o.csv"
usage_error "usage_error helper: no form" skew
fails 1 "bidir, wrong shape" "$K/b.csv: bidir skew needs L x (2L-1) relative logits; got 4 x 4 (for L = 4: 4 x 7)$" \
	skew -i "$K/b.csv" -o "$T/eo/o.csv"
fails 1 "causal, wrong shape" "$K/a.csv: causal skew needs L x L relative logits; got 3 x 5 (for L = 3: 3 x 3)$" \
	skew -i "$K/a.csv" --mode causal -o "$T/eo/o.csv"
fails 1 "inverse, wrong shape" "$K/a.csv: inverse bidir skew needs an L x L matrix; got 3 x 5 (for L = 3: 3 x 3)$" \
	skew -i "$K/a.csv" --inverse -o "$T/eo/o.csv"
printf '1,2,3,4\n' >"$K/even.csv"
fails 1 "--broadcast, even length" "$K/even.csv: bidir skew of a broadcast row needs 2L-1 values (an odd count); got 4$" \
	skew -i "$K/even.csv" --broadcast -o "$T/eo/o.csv"
fails 1 "--broadcast of a matrix" "$K/a.csv: a broadcast row must be one row (or one column) of values; got 3 x 5$" \
	skew -i "$K/a.csv" --broadcast -o "$T/eo/o.csv"
fails 1 "2-D: R_w of the wrong width" "$K/rw3.csv: R_w of a 2 x 2 grid needs 1 x 3 (one row of 2W-1 values, column distances -(W-1)..W-1); got 1 x 5$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw3.csv" --broadcast -o "$T/eo/o.csv"
fails 1 "2-D: R_h of the wrong width" "$K/rw3.csv: R_h of a 2 x 2 grid needs 1 x 3 (one row of 2H-1 values, row distances -(H-1)..H-1); got 1 x 5$" \
	skew --grid 2x2 --rel-h "$K/rw3.csv" --rel-w "$K/rh.csv" --broadcast -o "$T/eo/o.csv"
fails 1 "2-D: R_h not per token" "$K/rh.csv: R_h of a 2 x 2 grid needs 4 x 3 (HW x (2H-1): a row per query token, a column per row distance); got 1 x 3$" \
	skew --grid 2x2 --rel-h "$K/rh.csv" --rel-w "$K/rw.csv" -o "$T/eo/o.csv"
fails 1 "a missing file" "$K/nope.npy: cannot open: No such file or directory$" \
	skew -i "$K/nope.npy" -o "$T/eo/o.csv"

if "$PYTHON" -c 'import numpy' 2>/dev/null; then
sk fixtures "$K"

# --- 4. every output format holds the formula's values ---
for f in raw npy safetensors json csv; do
	run skew -i "$K/r.npy" -f $f -o "$K/o.$f"
	check "bidir -f $f: exactly the formula's float32 values" ok_and sk same "$K/o.$f" $f "$K/want_bidir.f32" f
	run skew -i "$K/c.npy" --inverse --fill -5 -f $f -o "$K/i.$f"
	check "bidir --inverse --fill -5 -f $f: the formula's values" ok_and sk same "$K/i.$f" $f "$K/want_inverse.f32" f
	run skew --index-map -n 7 --inverse -f $f -o "$K/x.$f"
	check "--index-map -f $f: int32 (<i4, I32, plain integers)" ok_and sk same "$K/x.$f" $f "$K/want_index.i32" i
done
run skew -i "$K/c.npy" --mode causal -f raw
check "causal -i npy: the formula's values, 0 above" ok_and sk same "$T/out" raw "$K/want_causal.f32" f
run skew --index-map -n 7 --inverse -f json -o "$K/x2.json"
check "--index-map json: dtype int32, the tensor's shape" ok_and sk json "$K/x2.json" \
	'd["dtype"] == "int32" and d["shape"] == [7, 13] and d["meta"]["index_map"] is True and d["meta"]["fill"] == -1'

# --- 5. every input format ---
for f in r_f8.npy r_be.npy r.csv r.safetensors; do
	run skew -i "$K/$f" -f raw
	check "input $f: the formula's values" ok_and sk same "$T/out" raw "$K/want_bidir.f32" f
done
run skew -i "$K/r.f32" --shape 7x13 -f raw
check "input raw --shape 7x13" ok_and sk same "$T/out" raw "$K/want_bidir.f32" f
run skew -i "$K/two.safetensors" --tensor a -f raw
check "input safetensors --tensor a" ok_and sk same "$T/out" raw "$K/want_bidir.f32" f
for f in r.npy r.safetensors r.csv; do
	run_stdin "$K/$f" skew -i - -f raw
	check "stdin $f" ok_and sk same "$T/out" raw "$K/want_bidir.f32" f
done
run_stdin "$K/r.f32" skew -i - --shape 7x13 -f raw
check "stdin raw --shape" ok_and sk same "$T/out" raw "$K/want_bidir.f32" f
run skew -i "$K/two.safetensors" -o "$T/eo/o.csv"
check "two tensors, no --tensor: exit 1, the tensors one a line" eval '[ "$status" -eq 1 ] &&
	grep -q "^posenc: skew: $K/two.safetensors: no tensor is named .*; it has:$" "$T/err" &&
	[ "$(sed -n 2p "$T/err")" = "  a F32 [7,13]" ] && [ "$(sed -n 3p "$T/err")" = "  b F32 [7,7]" ] &&
	[ "$(wc -l <"$T/err")" -eq 3 ] && [ ! -e "$T/eo/o.csv" ]'
fails 1 "raw --shape that is not L x (2L-1)" "$K/r.f32: bidir skew needs L x (2L-1) relative logits; got 13 x 7 (for L = 13: 13 x 25)$" \
	skew -i "$K/r.f32" --shape 13x7 -o "$T/eo/o.csv"

# --- 6. 2-D grids from files, H != W ---
for g in 23 32; do
	H=${g%?} W=${g#?}
	run skew --grid ${H}x$W --rel-h "$K/rh$g.npy" --rel-w "$K/rw$g.npy" -f raw
	check "2-D ${H}x$W grid from npy: R_w + R_h by the formula" ok_and sk same "$T/out" raw "$K/want_2d$g.f32" f
	run skew --grid ${H}x$W --rel-h "$K/rh$g.F32" --rel-w "$K/rw$g.bin" -f npy -o "$K/g$g.npy"
	check "2-D ${H}x$W from raw *.F32 / *.bin (the grid's shape)" ok_and sk same "$K/g$g.npy" npy "$K/want_2d$g.f32" f
done
run_stdin "$K/rw23.npy" skew --grid 2x3 --rel-h "$K/rh23.npy" --rel-w - -f raw
check "2-D --rel-w from stdin" ok_and sk same "$T/out" raw "$K/want_2d23.f32" f
fails 1 "2-D: swapped files" "$K/rw23.npy: R_h of a 2 x 3 grid needs 6 x 3 (HW x (2H-1): a row per query token, a column per row distance); got 6 x 5$" \
	skew --grid 2x3 --rel-h "$K/rw23.npy" --rel-w "$K/rh23.npy" -o "$T/eo/o.csv"
fails 1 "2-D: a raw file of the wrong size" "$K/rw23.bin: a 6 x 3 float32 table needs 72 bytes, the file has 120$" \
	skew --grid 2x3 --rel-h "$K/rw23.bin" --rel-w "$K/rh23.F32" -o "$T/eo/o.csv"
run skew --grid 2x3 --rel-h "$K/rh23.npy" --rel-w "$K/rw23.npy" -f json -o "$K/g.json"
check "2-D json meta: grid and both inputs" ok_and sk json "$K/g.json" \
	'd["meta"]["grid"] == "2x3" and d["meta"]["rel_h_input_shape"] == [6, 3] and d["meta"]["rel_w_input_shape"] == [6, 5] and "L" not in d["meta"]'

# --- 7. a bigger input: shards, threads ---
run skew -i "$K/big.npy" -f raw -o "$K/big.f32"
check "300 x 599: 300 x 300 float32" ok_and [ "$(wc -c <"$K/big.f32")" -eq 360000 ]
: >"$K/big-joined.f32"
for a in 0 100 200; do
	"$POSENC" skew -i "$K/big.npy" -f raw --rows $a:$((a + 100)) >>"$K/big-joined.f32" 2>/dev/null
done
check "raw shards of 100 rows concatenate to the whole" same_output "$K/big.f32" "$K/big-joined.f32"
run skew -i "$K/big.npy" -o "$K/big.csv" --threads 1
: >"$K/big-joined.csv"
for a in 0 150; do
	"$POSENC" skew -i "$K/big.npy" --rows $a:$((a + 150)) --threads 3 >>"$K/big-joined.csv" 2>/dev/null
done
check "csv shards (3 threads) concatenate to the whole (1 thread)" same_output "$K/big.csv" "$K/big-joined.csv"

# --- 8. PNG ---
run skew -i "$K/r.npy" -o "$K/f.png"
check "png forward: 7 x 7, columns are keys from 0" ok_and png "$K/f.png" hmtest \
	'd["shape"] == [7, 7] and d.get("col_labels", [0, 1]) == [0, 1]'
run skew -i "$K/c.npy" --inverse -o "$K/i.png"
check "png --inverse: 7 x 13, columns are distances from -6" ok_and png "$K/i.png" hmtest \
	'd["shape"] == [7, 13] and d["col_labels"] == [-6, 1]'
png "$K/i.png" text posenc:meta >"$K/i.meta"
check "png: the parameters in its text" ok_and grep -q '"command":"skew".*"inverse":true.*"distance":"key - query"' "$K/i.meta"
else
	skipped "skew: input files" "$PYTHON has no numpy"
fi
