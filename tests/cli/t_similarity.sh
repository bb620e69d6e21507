# posenc similarity: the closed form of the sinusoid's matrix, every input
# format giving the same bytes, a GPT-2-shaped model file, shards, threads,
# GNU parallel, every error (status, message, nothing left), PNG labels,
# --stats and --profile files.  NumPy (in $PYTHON) builds the input files;
# without it those parts are SKIPPED.  sim.py: the Python helpers.
S=$T/sim
mkdir -p "$S"
cat >"$S/sim.py" <<'EOF'
import json, math, os, struct, sys

from fixtures import json_holds, st_write

# helpers of t_similarity.sh; each command exits non-zero (or prints BAD)
# when its input is missing or wrong, so nothing passes without posenc.


def closed_form(n, d):
    """(2/D) sum_k cos(o w_k), w_k = 10000^(-2k/D), for offsets o = 0..n-1"""
    w = [10000.0 ** (-2.0 * k / d) for k in range(d // 2)]
    return [(2.0 / d) * math.fsum(math.cos(o * wk) for wk in w) for o in range(n)]


def f32s(path, count):
    data = open(path, 'rb').read()
    assert len(data) == 4 * count, f'{path}: {len(data)} bytes, want {4 * count}'
    return list(struct.unpack(f'<{count}f', data)), list(struct.unpack(f'<{count}I', data))


def cmd_closed(raw, n, d):
    n, d = int(n), int(d)
    try:
        s, bits = f32s(raw, n * n)
    except Exception as e:
        print('BAD', e)
        return
    p = closed_form(n, d)
    worst = max(abs(s[i * n + j] - p[abs(i - j)]) for i in range(n) for j in range(n))
    print('values', 'ok' if worst <= 2e-6 else f'BAD {worst}')
    one = struct.unpack('<I', struct.pack('<f', 1.0))[0]
    print('diag', 'ok' if all(bits[i * n + i] == one for i in range(n)) else 'BAD')
    sym = all(bits[i * n + j] == bits[j * n + i] for i in range(n) for j in range(n))
    print('sym', 'ok' if sym else 'BAD')
    toe = max(abs(s[i * n + j] - s[(i + 1) * n + j + 1]) for i in range(n - 1) for j in range(n - 1))
    print('toeplitz', 'ok' if toe <= 2e-6 else f'BAD {toe}')




def cmd_fixtures(out, wpe_raw):
    import numpy as np
    j = lambda name: os.path.join(out, name)
    rng = np.random.default_rng(20201006)
    # one random float32 table, in every input format
    x = rng.standard_normal((40, 12)).astype(np.float32)
    np.save(j('x_f4.npy'), x)
    np.save(j('x_bf4.npy'), x.astype('>f4'))
    np.save(j('x_f8.npy'), x.astype('<f8'))
    np.save(j('x_bf8.npy'), x.astype('>f8'))
    np.save(j('x_fort.npy'), np.asfortranarray(x))
    with open(j('x_v2.npy'), 'wb') as f:
        np.lib.format.write_array(f, x, version=(2, 0))
    np.save(j('x_1.npy'), x[None])
    np.savetxt(j('x.csv'), x, fmt='%.9g', delimiter=',')
    np.savetxt(j('x_blank.csv'), x, fmt='%.9g')
    x.astype('<f4').tofile(j('x.f32'))
    st_write(j('x.safetensors'), [('table', 'F32', x.shape, x.astype('<f4').tobytes())])
    st_write(j('x64.safetensors'), [('table', 'F64', x.shape, x.astype('<f8').tobytes())])
    # half precision: values exactly representable in f2
    h = rng.standard_normal((30, 10)).astype(np.float16)
    np.save(j('h_f2.npy'), h)
    np.save(j('h_f4.npy'), h.astype(np.float32))
    st_write(j('h.safetensors'), [('table', 'F16', h.shape, h.astype('<f2').tobytes())])
    # a file for shards and threads
    np.save(j('r600.npy'), rng.standard_normal((600, 24)).astype(np.float32))
    # GPT-2-shaped: wpe holds posenc's own sinusoid (a known matrix)
    wpe = np.fromfile(wpe_raw, dtype='<f4')
    assert wpe.size == 1024 * 768, 'no wpe table'
    wte = (0.02 * rng.standard_normal((64, 768))).astype(np.float16)
    attn = rng.standard_normal((32, 48)).astype(np.float32)
    attn_bf16 = (attn.view(np.uint32) >> 16).astype('<u2')
    ln = np.ones(768, dtype=np.float32)
    ln_bf16 = (ln.view(np.uint32) >> 16).astype('<u2')
    mask = np.tril(np.ones((16, 16), dtype='<f4'))[None, None]
    st_write(j('gpt2.safetensors'), [
        ('transformer.wte.weight', 'F16', (64, 768), wte.astype('<f2').tobytes()),
        ('transformer.wpe.weight', 'F32', (1024, 768), wpe.tobytes()),
        ('transformer.h.0.ln_1.weight', 'BF16', (768,), ln_bf16.tobytes()),
        ('transformer.h.0.attn.c_attn.weight', 'BF16', (32, 48), attn_bf16.tobytes()),
        ('transformer.h.0.attn.bias', 'F32', (1, 1, 16, 16), mask.tobytes()),
    ], meta={'format': 'pt'})
    np.save(j('wte_f4.npy'), wte.astype(np.float32))
    np.save(j('attn_f4.npy'), (attn_bf16.astype(np.uint32) << 16).view(np.float32))
    small = np.arange(1, 13, dtype='<f4').reshape(4, 3)
    st_write(j('ambiguous.safetensors'), [
        ('transformer.wpe.weight', 'F32', (4, 3), small.tobytes()),
        ('wpe.weight', 'F32', (4, 3), small.tobytes()),
        ('h.0.w', 'F32', (4, 3), small.tobytes())])
    # valid npy and safetensors headers that np.save and the reference writer never make
    def npy(name, header, payload, align=16):
        hb = header.encode('latin-1')
        hb += b' ' * (-(10 + len(hb) + 1) % align) + b'\n'
        open(j(name), 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hb)) + hb + payload)
    npy('x_odd.npy', '{"shape":(40,12),"fortran_order":False,"descr":"<f4"}', x.astype('<f4').tobytes())
    npy('h_bf2.npy', "{'descr': '>f2', 'fortran_order': False, 'shape': (30, 10), }", h.astype('>f2').tobytes())
    with open(j('x_v3.npy'), 'wb') as f:
        np.lib.format.write_array(f, x, version=(3, 0))
    hdr = b'\n {"table": {"dtype": "F32", "shape": [40, 12], "data_offsets": [0, 1920]}}'
    st_write(j('x_ws.safetensors'), [], header=hdr, tail=x.astype('<f4').tobytes())
    hdr = b'{"t": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]}, "t": {"dtype": "F32", "shape": [4, 3], "data_offsets": [48, 96]}}'
    st_write(j('dupname.safetensors'), [], header=hdr, tail=small.tobytes() * 2)
    hdr = b'{"t": {"dtype": "F32", "shape": [4, 3], "data_offsets": [4, 52]}}'
    st_write(j('gap.safetensors'), [], header=hdr, tail=b'\0' * 4 + small.tobytes())
    st_write(j('i32.safetensors'), [('t', 'I32', (4, 3), small.astype('<i4').tobytes())])
    # broken files
    np.save(j('obj.npy'), np.array([[1.0, 'a']], dtype=object), allow_pickle=True)
    np.save(j('struct.npy'), np.zeros(4, dtype=[('a', '<f4'), ('b', '<f4')]))
    np.save(j('d3.npy'), np.ones((2, 3, 4), dtype=np.float32))
    np.save(j('i4.npy'), np.ones((4, 3), dtype=np.int32))
    data = open(j('x_f4.npy'), 'rb').read()
    open(j('trunc.npy'), 'wb').write(data[:-8])
    open(j('empty.csv'), 'wb').close()
    both = small.tobytes()
    st_write(j('overlap.safetensors'), [], header=json.dumps({
        'a': {'dtype': 'F32', 'shape': [4, 3], 'data_offsets': [0, 48]},
        'b': {'dtype': 'F32', 'shape': [4, 3], 'data_offsets': [0, 48]}}).encode(), tail=both)
    st_write(j('cut.safetensors'), [('t', 'F32', (4, 3), both)])
    data = open(j('cut.safetensors'), 'rb').read()
    open(j('cut.safetensors'), 'wb').write(data[:-4])
    n = struct.unpack('<Q', data[:8])[0]
    open(j('pasteof.safetensors'), 'wb').write(struct.pack('<Q', n + 4096) + data[8:])
    open(j('ragged.csv'), 'w').write('1,2,3\n4,5,6\n7,8\n')
    open(j('nonnum.csv'), 'w').write('1,2,3\n4,5,6\n7,abc,9\n')
    bad = x.copy()
    bad[2, 3] = np.nan
    np.save(j('nan.npy'), bad)
    np.save(j('huge.npy'), np.array([[1e20, 2e20], [3e20, 1e20]], dtype=np.float32))
    z = x[:5].copy()
    z[1] = 0
    np.save(j('zero.npy'), z)


def cmd_json(path, expr):
    sys.exit(0 if json_holds(path, expr, {'math': math, 'cf': closed_form}) else 1)


def cmd_csvraw(csv, raw):
    """csv (or json's data) holds exactly the raw file's float32 values"""
    if csv.endswith('.json'):
        rows = json.load(open(csv))['data']
        vals = [float(v) for r in rows for v in r]
    else:
        vals = [float(v) for l in open(csv).read().split('\n') if l for v in l.split(',')]
    got = struct.pack(f'<{len(vals)}f', *vals)
    sys.exit(0 if vals and got == open(raw, 'rb').read() else 1)


def cmd_profile(path, n, d):
    n, d = int(n), int(d)
    lines = open(path).read().split('\n')
    assert lines[-1] == '' and lines[0] == 'offset,mean,std,count', 'header'
    rows = [l.split(',') for l in lines[1:-1]]
    assert len(rows) == n, f'{len(rows)} rows'
    p = closed_form(n, d)
    for k, (o, mean, std, count) in enumerate(rows):
        assert int(o) == k and int(count) == n - k, f'row {k}'
        assert abs(float(mean) - p[k]) <= 1e-6, f'mean {k}: {mean} vs {p[k]}'
        assert 0 <= float(std) <= 1e-6, f'std {k}: {std}'


if __name__ == '__main__':
    globals()['cmd_' + sys.argv[1]](*sys.argv[2:])
EOF
sim() {
	PYTHONPATH="$here/../lib" "$PYTHON" "$S/sim.py" "$@" 2>>"$S/python.log"
}

# --- 1. the closed form: S[i][j] = (2/D) sum_k cos((i-j) w_k) ---
run similarity sinusoidal -n 64 -d 16 -f raw -o "$S/s64.f32"
check "sinusoid 64x16: exit 0, 64 x 64 float32, nothing on stdout" \
	ok_and [ "$(wc -c <"$S/s64.f32")" -eq 16384 -a ! -s "$T/out" ]
sim closed "$S/s64.f32" 64 16 >"$S/closed.txt"
check "sinusoid: every value within 2e-6 of the closed form" grep -qx "values ok" "$S/closed.txt"
check "sinusoid: diagonal exactly 1" grep -qx "diag ok" "$S/closed.txt"
check "sinusoid: symmetric bit for bit" grep -qx "sym ok" "$S/closed.txt"
check "sinusoid: Toeplitz within 2e-6" grep -qx "toeplitz ok" "$S/closed.txt"
# the same values in every output format
run similarity sinusoidal -n 64 -d 16 -o "$S/s64.npy"
tail -c +129 "$S/s64.npy" >"$S/s64.npy-data" 2>/dev/null
check "npy: 128-byte header, then the raw bytes" ok_and same_output "$S/s64.npy-data" "$S/s64.f32"
run similarity sinusoidal -n 64 -d 16 -o "$S/s64.csv"
check "csv: reads back to the raw bytes" ok_and sim csvraw "$S/s64.csv" "$S/s64.f32"
run similarity sinusoidal -n 64 -d 16 -o "$S/s64.json"
check "json: reads back to the raw bytes" ok_and sim csvraw "$S/s64.json" "$S/s64.f32"
check "json: shape and meta" sim json "$S/s64.json" \
	'd["shape"] == [64, 64] and d["meta"]["command"] == "similarity" and d["meta"]["metric"] == "cosine"'
run similarity sinusoidal -n 3 -d 4 --header
check "csv --header: p0,p1,p2, then 3 rows" ok_and [ "$(head -1 "$T/out")" = p0,p1,p2 -a "$(wc -l <"$T/out")" -eq 4 ]
run similarity sinusoidal -n 64 -d 16 --metric dot -f raw -o "$S/d64.f32"
check "--metric dot: other bytes" ok_and differ_output "$S/s64.f32" "$S/d64.f32"
run similarity sinusoidal -n 64 -d 16 --center -f raw -o "$S/c64.f32"
check "--center: other bytes" ok_and differ_output "$S/s64.f32" "$S/c64.f32"

if "$PYTHON" -c 'import numpy' 2>/dev/null; then
"$POSENC" generate sinusoidal -n 1024 -d 768 -f raw -o "$S/wpe.f32" 2>/dev/null
sim fixtures "$S" "$S/wpe.f32"

# --- 2. every input format gives the same bytes ---
run similarity -i "$S/x_f4.npy" -f raw -o "$S/x.out"
check "npy <f4: exit 0, 40 x 40" ok_and [ "$(wc -c <"$S/x.out")" -eq 6400 ]
for f in x_bf4.npy x_f8.npy x_bf8.npy x_fort.npy x_v2.npy x_v3.npy x_odd.npy x_1.npy x.csv \
	x_blank.csv x.safetensors x64.safetensors x_ws.safetensors; do
	run similarity -i "$S/$f" -f raw -o "$S/o-$f.f32"
	check "input $f: the same bytes as <f4" ok_and same_output "$S/x.out" "$S/o-$f.f32"
done
run similarity -i "$S/x.f32" --shape 40x12 -f raw -o "$S/o-raw.f32"
check "input raw --shape: the same bytes" ok_and same_output "$S/x.out" "$S/o-raw.f32"
for f in x_f4.npy x.safetensors x.csv; do
	run_stdin "$S/$f" similarity -i - -f raw
	check "stdin $f: the same bytes" ok_and same_output "$S/x.out" "$T/out"
done
run_stdin "$S/x.f32" similarity -i - --shape 40x12 -f raw
check "stdin raw --shape: the same bytes" ok_and same_output "$S/x.out" "$T/out"
run similarity -i "$S/h_f4.npy" -f raw -o "$S/h.out"
for f in h_f2.npy h_bf2.npy h.safetensors; do
	run similarity -i "$S/$f" -f raw -o "$S/o-$f.f32"
	check "input $f (float16): the same bytes as its float32 values" ok_and same_output "$S/h.out" "$S/o-$f.f32"
done
# a csv with the header line posenc writes reads back
"$POSENC" generate sinusoidal -n 40 -d 12 --header -o "$S/g.csv" 2>/dev/null
"$POSENC" generate sinusoidal -n 40 -d 12 -o "$S/g.npy" 2>/dev/null
run similarity -i "$S/g.csv" -f raw -o "$S/g-csv.f32"
check "csv with --header: header line, exit 0" ok_and [ "$(head -1 "$S/g.csv")" = "d0,d1,d2,d3,d4,d5,d6,d7,d8,d9,d10,d11" ]
run similarity -i "$S/g.npy" -f raw -o "$S/g-npy.f32"
check "csv with --header = npy" ok_and same_output "$S/g-csv.f32" "$S/g-npy.f32"
run similarity sinusoidal -n 40 -d 12 -f raw -o "$S/g-kind.f32"
check "a file = the KIND it was generated from" ok_and same_output "$S/g-kind.f32" "$S/g-npy.f32"

# --- 3. a GPT-2-shaped model file ---
run similarity sinusoidal -n 1024 -d 768 -f raw -o "$S/sin1024.f32"
run similarity -i "$S/gpt2.safetensors" -f raw -o "$S/gpt2.f32"
check "gpt2: the default tensor is transformer.wpe.weight" ok_and same_output "$S/sin1024.f32" "$S/gpt2.f32"
run similarity -i "$S/gpt2.safetensors" --tensor transformer.wte.weight -f raw -o "$S/wte.f32"
run similarity -i "$S/wte_f4.npy" -f raw -o "$S/wte-ref.f32"
check "gpt2 --tensor (F16): its values" ok_and same_output "$S/wte-ref.f32" "$S/wte.f32"
run similarity -i "$S/gpt2.safetensors" --tensor transformer.h.0.attn.c_attn.weight -f raw -o "$S/attn.f32"
run similarity -i "$S/attn_f4.npy" -f raw -o "$S/attn-ref.f32"
check "gpt2 --tensor (BF16): its values" ok_and same_output "$S/attn-ref.f32" "$S/attn.f32"
run similarity -i "$S/gpt2.safetensors" --tensor transformer.h.0.ln_1.weight --positions-range 0:3
check "gpt2 1-D tensor: a 768 x 1 table of ones" ok_and [ "$(cat "$T/out")" = "$(printf '1,1,1\n1,1,1\n1,1,1')" ]
run similarity -i "$S/gpt2.safetensors" --tensor transformer.h.0.attn.bias --positions-range 0:2
check "gpt2 [1,1,16,16] tensor: a 16 x 16 table" ok_and [ "$(cat "$T/out")" = "$(printf '1,0.70710677\n0.70710677,1')" ]
# a wrong or ambiguous name: the message, then the tensors one a line
rm -rf "$T/eo" && mkdir "$T/eo"
run similarity -i "$S/gpt2.safetensors" --tensor nope -o "$T/eo/o.csv"
printf '%s\n' "posenc: similarity: $S/gpt2.safetensors: no tensor 'nope'; it has:" \
	"  transformer.wte.weight F16 [64,768]" "  transformer.wpe.weight F32 [1024,768]" \
	"  transformer.h.0.ln_1.weight BF16 [768]" "  transformer.h.0.attn.c_attn.weight BF16 [32,48]" \
	"  transformer.h.0.attn.bias F32 [1,1,16,16]" >"$T/want_err"
check "gpt2 --tensor nope: exit 1, the tensors one a line" \
	eval '[ "$status" -eq 1 ] && cmp -s "$T/err" "$T/want_err" && [ -z "$(ls -A "$T/eo")" ]'
run similarity -i "$S/ambiguous.safetensors" -o "$T/eo/o.csv"
printf '%s\n' "posenc: similarity: $S/ambiguous.safetensors: more than one tensor could be the position table; it has:" \
	"  transformer.wpe.weight F32 [4,3]" "  wpe.weight F32 [4,3]" "  h.0.w F32 [4,3]" >"$T/want_err"
check "two *wpe.weight: exit 1, the tensors one a line" \
	eval '[ "$status" -eq 1 ] && cmp -s "$T/err" "$T/want_err" && [ -z "$(ls -A "$T/eo")" ]'
# --tensor names the end of one name after a '.', when no other ends so
run similarity -i "$S/gpt2.safetensors" --tensor h.0.attn.bias --positions-range 0:2
check "--tensor h.0.attn.bias is transformer.h.0.attn.bias" ok_and [ "$(cat "$T/out")" = "$(printf '1,0.70710677\n0.70710677,1')" ]
run similarity -i "$S/gpt2.safetensors" --tensor wpe.weight --positions-range 0:2 -f json
check "--tensor wpe.weight: meta names transformer.wpe.weight" ok_and grep -q '"tensor":"transformer.wpe.weight"' "$T/out"
run similarity -i "$S/gpt2.safetensors" --tensor weight -o "$T/eo/o.csv"
check "--tensor weight: several end so, listed" eval '[ "$status" -eq 1 ] && grep -q "^posenc: similarity: .*: 4 tensors end in .weight.; it has:$" "$T/err" && [ "$(wc -l <"$T/err")" -eq 6 ]'
run similarity -i "$S/gpt2.safetensors" --tensor pe.weight -o "$T/eo/o.csv"
check "--tensor pe.weight: only at a '.'" eval '[ "$status" -eq 1 ] && grep -q "no tensor .pe.weight.; it has:$" "$T/err"'
run similarity -i "$S/ambiguous.safetensors" --tensor wpe.weight
check "--tensor settles the ambiguity" ok_and [ "$(wc -l <"$T/out")" -eq 4 ]
run similarity -i "$S/gpt2.safetensors" --list
printf '%s\t%s\t%s\n' transformer.wte.weight F16 '[64,768]' transformer.wpe.weight F32 '[1024,768]' \
	transformer.h.0.ln_1.weight BF16 '[768]' transformer.h.0.attn.c_attn.weight BF16 '[32,48]' \
	transformer.h.0.attn.bias F32 '[1,1,16,16]' >"$S/list.want"
check "--list: name, dtype, shape of each tensor (no __metadata__)" ok_and same_output "$S/list.want" "$T/out"
run similarity -i "$S/x_f4.npy" --list
check "--list of an npy" ok_and [ "$(cat "$T/out")" = "$(printf '(array)\t<f4\t[40,12]')" ]

# --- 5. shards and threads of a file ---
run similarity -i "$S/r600.npy" -o "$S/r600.csv"
check "r600: exit 0, 600 csv lines" ok_and [ "$(wc -l <"$S/r600.csv")" -eq 600 ]
: >"$S/r600-joined.csv"
for a in 0 100 200 300 400 500; do
	"$POSENC" similarity -i "$S/r600.npy" --rows $a:$((a + 100)) >>"$S/r600-joined.csv" 2>/dev/null
done
check "csv shards of 100 rows concatenate to the whole" same_output "$S/r600.csv" "$S/r600-joined.csv"
for p in exact float32; do
	run similarity -i "$S/r600.npy" -f raw --precision $p --threads 1 -o "$S/r600-$p-1.f32"
	run similarity -i "$S/r600.npy" -f raw --precision $p --threads 3 -o "$S/r600-$p-3.f32"
	check "file, --precision $p: --threads 1 and 3 give the same bytes" ok_and same_output "$S/r600-$p-1.f32" "$S/r600-$p-3.f32"
done
check "file: exact and float32 differ" differ_output "$S/r600-exact-1.f32" "$S/r600-float32-1.f32"

# --- 7. errors in files: exit 1, one line naming the file, nothing written ---
fails 1 "missing file" "$S/nope.npy: cannot open: No such file or directory$" \
	similarity -i "$S/nope.npy" -o "$T/eo/o.csv"
fails 1 "a directory" "$S: is a directory$" similarity -i "$S" -o "$T/eo/o.csv"
fails 1 "empty file" "$S/empty.csv: empty$" similarity -i "$S/empty.csv" -o "$T/eo/o.csv"
fails 1 "truncated npy" "$S/trunc.npy: shape (40, 12) of '<f4' needs 1920 data bytes, the file has 1912 after its header$" \
	similarity -i "$S/trunc.npy" -o "$T/eo/o.csv"
fails 1 "npy |O" "$S/obj.npy: pickled Python objects are refused (dtype '|O')$" \
	similarity -i "$S/obj.npy" -o "$T/eo/o.csv"
fails 1 "npy structured dtype" "$S/struct.npy: a structured dtype, not a table$" \
	similarity -i "$S/struct.npy" -o "$T/eo/o.csv"
fails 1 "npy int32" "$S/i4.npy: dtype '<i4' is not float16, float32 or float64$" \
	similarity -i "$S/i4.npy" -o "$T/eo/o.csv"
fails 1 "3-D npy" "$S/d3.npy: shape (2, 3, 4) has 3 dimensions; a table has 1 or 2$" \
	similarity -i "$S/d3.npy" -o "$T/eo/o.csv"
fails 1 "safetensors overlapping offsets" "$S/overlap.safetensors: tensor 'b' data_offsets \[0, 48\] overlap the tensor before" \
	similarity -i "$S/overlap.safetensors" -o "$T/eo/o.csv"
fails 1 "safetensors cut in its data" "$S/cut.safetensors: truncated: the tensors need 48 bytes after the header, the file has 44$" \
	similarity -i "$S/cut.safetensors" -o "$T/eo/o.csv"
# reported: the message is "no rows" (the file is read as csv); only the file name is checked
fails 1 "safetensors header length past EOF" "$S/pasteof.safetensors: " \
	similarity -i "$S/pasteof.safetensors" -o "$T/eo/o.csv"
fails 1 "safetensors: two tensors of one name" "$S/dupname.safetensors: two tensors are named 't'$" \
	similarity -i "$S/dupname.safetensors" -o "$T/eo/o.csv"
fails 1 "safetensors: a gap before the first tensor" "$S/gap.safetensors: tensor 't' data_offsets \[4, 52\] leave a gap" \
	similarity -i "$S/gap.safetensors" -o "$T/eo/o.csv"
fails 1 "safetensors I32" "$S/i32.safetensors: tensor 't' is I32; a table is F32, F16, BF16 or F64$" \
	similarity -i "$S/i32.safetensors" -o "$T/eo/o.csv"
fails 1 "csv ragged row" "$S/ragged.csv: line 3 has 2 fields, line 1 has 3$" \
	similarity -i "$S/ragged.csv" -o "$T/eo/o.csv"
fails 1 "csv non-numeric field" "$S/nonnum.csv: line 3, column 2: 'abc' is not a number$" \
	similarity -i "$S/nonnum.csv" -o "$T/eo/o.csv"
fails 1 "raw, wrong --shape" "$S/x.f32: a 40 x 13 float32 table needs 2080 bytes, the file has 1920$" \
	similarity -i "$S/x.f32" --shape 40x13 -o "$T/eo/o.csv"
fails 1 "NaN in the table" "$S/nan.npy: row 2, column 3 of the table is nan: similarity needs finite values$" \
	similarity -i "$S/nan.npy" -o "$T/eo/o.csv"
fails 1 "--list of a csv" "$S/x.csv: not an npy or safetensors file, no tensors to list$" \
	similarity -i "$S/x.csv" --list
fails 2 "--tensor with a csv" "$S/x.csv: a tensor name was given, but the input is csv, not safetensors$" \
	similarity -i "$S/x.csv" --tensor table -o "$T/eo/o.csv"
fails 2 "--tensor with an npy" "$S/x_f4.npy: a tensor name was given, but the input is npy, not safetensors$" \
	similarity -i "$S/x_f4.npy" --tensor table -o "$T/eo/o.csv"
fails 2 "--positions-range outside the table" "--positions-range must be A:B with 0 <= A < B <= 40 (the table's rows), got '30:41'$" \
	similarity -i "$S/x_f4.npy" --positions-range 30:41 -o "$T/eo/o.csv"
fails 2 "--rows outside the matrix" "--rows must be A:B with 0 <= A < B <= 10 (the result's rows), got '0:11'$" \
	similarity -i "$S/x_f4.npy" --positions-range 0:10 --rows 0:11 -o "$T/eo/o.csv"

# a zero row under cosine: NaN for its row and column, one warning, exit 0
run similarity -i "$S/zero.npy" -o "$S/zero.csv"
check "zero row: exit 0, one warning line" ok_and [ "$(cat "$T/err")" = \
	"posenc: warning: similarity: 1 of the 5 rows is zero: their cosine similarities are NaN" ]
check "zero row: its row is nan" ok_and [ "$(sed -n 2p "$S/zero.csv")" = "nan,nan,nan,nan,nan" ]
check "zero row: its column is nan, the diagonal 1" ok_and [ "$(cut -d, -f1,2 "$S/zero.csv" | tr '\n' ' ')" = "1,nan nan,nan $(sed -n 3p "$S/zero.csv" | cut -d, -f1),nan $(sed -n 4p "$S/zero.csv" | cut -d, -f1),nan $(sed -n 5p "$S/zero.csv" | cut -d, -f1),nan " ]
check "zero row: other entries are numbers" ok_and [ "$(sed -n 3p "$S/zero.csv" | cut -d, -f3)" = 1 ]
# ... and json cannot hold them: warning + error, no file
rm -rf "$T/eo" && mkdir "$T/eo"
run similarity -i "$S/zero.npy" -o "$T/eo/z.json"
check "json with NaN: exit 1, the warning then the error" eval '[ "$status" -eq 1 ] &&
	[ "$(sed -n 1p "$T/err")" = "posenc: warning: similarity: 1 of the 5 rows is zero: their cosine similarities are NaN" ] &&
	[ "$(sed -n 2p "$T/err")" = "posenc: similarity: json cannot hold nan (tensor '"'"'similarity'"'"', row 0, column 1); use csv, raw, npy or safetensors" ] &&
	[ "$(wc -l <"$T/err")" -eq 2 ]'

check "json with NaN: no file, no temp file" nothing_left similarity "json cannot hold nan"
# a run that fails while computing keeps the old file
echo old >"$S/keep.json"
run similarity -i "$S/huge.npy" --metric dot --stats -o "$S/keep.json"
check "dot overflows in --stats: exit 1, message" status_msg 1 similarity "similarity matrix entry (0, 0) is infinite$"
check "failed --stats keeps the old file, leaves no temp file" eval 'status_msg 1 similarity "similarity matrix entry" &&
	[ "$(cat "$S/keep.json")" = old ] &&
	[ -z "$(ls -A "$S" | grep "^\.posenc-")" ]'
else
	skipped "similarity: input files" "$PYTHON has no numpy"
fi

# --- 5. shards and threads of a generated table ---
run similarity sinusoidal -n 600 -d 32 -f raw -o "$S/whole.f32"
check "600 x 600: exit 0, 1440000 bytes" ok_and [ "$(wc -c <"$S/whole.f32")" -eq 1440000 ]
: >"$S/joined.f32"
for a in 0 100 200 300 400 500; do
	"$POSENC" similarity sinusoidal -n 600 -d 32 -f raw --rows $a:$((a + 100)) >>"$S/joined.f32" 2>/dev/null
done
check "raw shards of 100 rows concatenate to the whole" same_output "$S/whole.f32" "$S/joined.f32"
run similarity sinusoidal -n 600 -d 32 -o "$S/whole.csv"
: >"$S/joined.csv"
for a in 0 100 200 300 400 500; do
	"$POSENC" similarity sinusoidal -n 600 -d 32 --rows $a:$((a + 100)) >>"$S/joined.csv" 2>/dev/null
done
check "csv shards of 100 rows concatenate to the whole" same_output "$S/whole.csv" "$S/joined.csv"
for p in exact float32; do
	run similarity sinusoidal -n 700 -d 48 -f raw --precision $p --threads 1 -o "$S/t-$p-1.f32"
	run similarity sinusoidal -n 700 -d 48 -f raw --precision $p --threads 3 -o "$S/t-$p-3.f32"
	check "generated, --precision $p: --threads 1 and 3 give the same bytes" ok_and same_output "$S/t-$p-1.f32" "$S/t-$p-3.f32"
done
check "generated: exact and float32 differ" differ_output "$S/t-exact-1.f32" "$S/t-float32-1.f32"
old_threads=${POSENC_THREADS-unset}
export POSENC_THREADS=2
run similarity sinusoidal -n 700 -d 48 -f raw -o "$S/t-env.f32"
check "POSENC_THREADS=2: the same bytes" ok_and same_output "$S/t-exact-1.f32" "$S/t-env.f32"
POSENC_THREADS=bad
fails 2 "POSENC_THREADS=bad" "POSENC_THREADS must be an integer from 1 to 16, got 'bad'$" \
	similarity sinusoidal -n 4 -d 4 -o "$T/eo/o.csv"
if [ "$old_threads" = unset ]; then unset POSENC_THREADS; else POSENC_THREADS=$old_threads; fi
fails 2 "--threads 0" "--threads must be an integer from 1 to 16, got '0'$" \
	similarity sinusoidal -n 4 -d 4 --threads 0 -o "$T/eo/o.csv"

# --- 6. the scaling-out recipe of the README, with GNU parallel ---
if command -v parallel >/dev/null 2>&1; then
	N=600 STEP=100
	{
		seq 0 $STEP $((N - STEP)) | parallel --jobs 3 \
			"$POSENC similarity sinusoidal -n $N -d 32 -f raw --rows {}:\$(({} + $STEP)) -o $S/part-{}.f32"
	} </dev/null >"$S/parallel.out" 2>&1
	for a in $(seq 0 $STEP $((N - STEP))); do cat "$S/part-$a.f32"; done >"$S/pjoined.f32" 2>/dev/null
	check "GNU parallel: 6 shards" [ "$(ls "$S" | grep -c '^part-[0-9]*\.f32$')" -eq 6 ]
	check "GNU parallel: the shards are the whole" same_output "$S/whole.f32" "$S/pjoined.f32"
else
	skipped "similarity: GNU parallel" "not installed"
fi

# --- 7. errors: status, the one message, nothing left ---
fails 1 "/dev/zero (never hangs)" "/dev/zero: is a device, not a file$" similarity -i /dev/zero -o "$T/eo/o.csv"
mkfifo "$S/fifo"
t0=$(date +%s%N)
fails 1 "FIFO without a writer" "$S/fifo: a FIFO with no writer$" similarity -i "$S/fifo" -o "$T/eo/o.csv"
t1=$(date +%s%N)
check "FIFO without a writer: refused within 5 s" eval \
	'status_msg 1 similarity "$S/fifo: a FIFO" && [ $(((t1 - t0) / 1000000)) -le 5000 ]'
t0=$(date +%s%N)
fails 1 "generate rope --from-config FIFO" "$S/fifo: a FIFO with no writer$" \
	generate rope --from-config "$S/fifo" -o "$T/eo/o.csv"
t1=$(date +%s%N)
check "--from-config FIFO without a writer: refused within 5 s" eval \
	'status_msg 1 generate "$S/fifo: a FIFO" && [ $(((t1 - t0) / 1000000)) -le 5000 ]'
# a writer that comes after posenc opened the FIFO
( sleep 0.3; timeout 10 sh -c 'exec "$1" generate sinusoidal -n 6 -d 4 -f npy >"$2"' _ "$POSENC" "$S/fifo" ) &
writer=$!
run_timeout 10 similarity -i "$S/fifo"
for i in 1 2 3 4 5 6 7 8 9 10; do
	kill -0 "$writer" 2>/dev/null || break
	sleep 0.1
done
# posenc did not read it: open the FIFO once, so that the writer is not left waiting
if kill -0 "$writer" 2>/dev/null; then
	"$PYTHON" -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK))' "$S/fifo"
fi
wait "$writer"
check "a FIFO with a writer is read" ok_and [ "$(wc -l <"$T/out")" -eq 6 ]
fails 2 "-i FILE and a KIND" "give a KIND or -i FILE, not both$" \
	similarity sinusoidal -i "$S/whole.csv" -o "$T/eo/o.csv"
fails 2 "neither -i nor a KIND" "give -i FILE or a KIND (one of: sinusoidal, learned, rope, alibi, sincos2d, axial, timestep, mrope)$" \
	similarity -o "$T/eo/o.csv"
fails 2 "-n with -i" "--positions applies to a generated table (KIND), not to -i FILE$" \
	similarity -i "$S/whole.csv" -n 5 -o "$T/eo/o.csv"
fails 2 "--seed with -i" "--seed applies to a generated table (KIND), not to -i FILE$" \
	similarity -i "$S/whole.csv" --seed 5 -o "$T/eo/o.csv"
fails 2 "--shape with --tensor" "--shape (raw input) and --tensor (safetensors) contradict each other$" \
	similarity -i "$S/whole.f32" --shape 600x600 --tensor t -o "$T/eo/o.csv"
fails 2 "--shape 0x4" "--shape must be RxC with positive R and C (C at most 16777216), got '0x4'$" \
	similarity -i "$S/whole.f32" --shape 0x4 -o "$T/eo/o.csv"
fails 2 "--list with a KIND" "--list applies to -i FILE only$" similarity sinusoidal --list
# a newline in a file name does not break the one-line message
fails 1 "a newline in the file name" "$T/eo/a\\\\x0ab.npy: cannot open: No such file or directory$" \
	similarity -i "$T/eo/a
b.npy" -o "$T/eo/o.csv"
printf '1,2\n1e39,3\n' >"$S/big.csv"
fails 1 "a csv number beyond float32" "$S/big.csv: line 2, column 1: '1e39' is too large for float32 (beyond 3.4e38)$" \
	similarity -i "$S/big.csv" -o "$T/eo/o.csv"
fails 2 "unknown --metric" "unknown --metric 'manhattan' (one of: cosine, dot, euclidean)$" \
	similarity sinusoidal -n 4 -d 4 --metric manhattan -o "$T/eo/o.csv"
fails 2 "--stride 0" "--stride must be an integer from 1 to [0-9]*, got '0'$" \
	similarity sinusoidal -n 4 -d 4 --stride 0 -o "$T/eo/o.csv"
fails 2 "--positions-range past the table" "--positions-range must be A:B with 0 <= A < B <= 10 (the table's rows), got '5:11'$" \
	similarity sinusoidal -n 10 -d 4 --positions-range 5:11 -o "$T/eo/o.csv"
fails 2 "--positions-range empty" "--positions-range must be A:B with 0 <= A < B <= 10 (the table's rows), got '3:3'$" \
	similarity sinusoidal -n 10 -d 4 --positions-range 3:3 -o "$T/eo/o.csv"
fails 2 "--stats with --profile" "--stats and --profile are two outputs: give one$" \
	similarity sinusoidal -n 4 -d 4 --stats --profile -o "$T/eo/o.csv"
fails 2 "--window without --stats" "--window applies to --stats only$" \
	similarity sinusoidal -n 4 -d 4 --window 3 -o "$T/eo/o.csv"
fails 2 "--tau without --stats" "--tau applies to --stats only$" \
	similarity sinusoidal -n 4 -d 4 --tau 3 -o "$T/eo/o.csv"
fails 2 "--window 0" "--window must be an integer from 1 to [0-9]*, got '0'$" \
	similarity sinusoidal -n 4 -d 4 --stats --window 0 -o "$T/eo/o.json"
fails 2 "--tau 0" "--tau must be a positive finite number, got '0'$" \
	similarity sinusoidal -n 4 -d 4 --stats --tau 0 -o "$T/eo/o.json"
fails 2 "--positions-range reversed" "--positions-range must be A:B with 0 <= A < B <= 10 (the table's rows), got '5:2'$" \
	similarity sinusoidal -n 10 -d 4 --positions-range 5:2 -o "$T/eo/o.csv"
fails 2 "unknown --precision" "unknown --precision 'float64' (one of: exact, float32)$" \
	similarity sinusoidal -n 4 -d 4 --precision float64 -o "$T/eo/o.csv"
fails 2 "--cmap with csv" "--cmap applies to figures only" \
	similarity sinusoidal -n 4 -d 4 --cmap magma -o "$T/eo/o.csv"
fails 2 "--profile --rows" "--rows does not apply to --profile" \
	similarity sinusoidal -n 4 -d 4 --profile --rows 0:2 -o "$T/eo/o.csv"
fails 2 "--stats -f npy" "--stats writes json, not 'npy'$" \
	similarity sinusoidal -n 4 -d 4 --stats -f npy -o "$T/eo/o.npy"
fails 2 "--profile -f json" "--profile writes csv, not 'json'$" \
	similarity sinusoidal -n 4 -d 4 --profile -f json -o "$T/eo/o.json"
fails 2 "--stats --rows" "--rows does not apply to --stats: it describes the whole matrix$" \
	similarity sinusoidal -n 4 -d 4 --stats --rows 0:2 -o "$T/eo/o.json"
fails 2 "--profile --header" "--header does not apply to --profile, which writes csv of its own$" \
	similarity sinusoidal -n 4 -d 4 --profile --header -o "$T/eo/o.csv"
fails 2 "--stats --cmap" "--cmap does not apply to --stats, which writes json of its own$" \
	similarity sinusoidal -n 4 -d 4 --stats --cmap magma -o "$T/eo/o.json"
fails 2 "--profile --window" "--window applies to --stats only$" \
	similarity sinusoidal -n 4 -d 4 --profile --window 3 -o "$T/eo/o.csv"
fails 2 "--stats -o x.png" "--stats writes json; '$T/eo/x.png' names png output$" \
	similarity sinusoidal -n 6 -d 4 --stats -o "$T/eo/x.png"
fails 2 "--profile -o x.npy" "--profile writes csv; '$T/eo/x.npy' names npy output$" \
	similarity sinusoidal -n 6 -d 4 --profile -o "$T/eo/x.npy"
run similarity sinusoidal -n 6 -d 4 --stats -o "$T/stats.txt"
check "--stats -o x.txt: json in it" ok_and grep -q '^{"meta":{' "$T/stats.txt"
fails 2 "--list -o" "--output does not apply to --list (it prints the tensors to stdout)$" \
	similarity -i "$S/x_f4.npy" --list -o "$T/eo/l.txt"
fails 2 "--list --stats" "--stats does not apply to --list (it prints the tensors to stdout)$" \
	similarity -i "$S/x_f4.npy" --list --stats
fails 2 "--preset t2t with -i" "--preset t2t applies to a generated table (KIND); a file takes --preset wang-chen$" \
	similarity -i "$S/whole.csv" --preset t2t -o "$T/eo/o.csv"
fails 2 "rope --preset gpt2" "--preset gpt2: rope has no presets (similarity's own is wang-chen)$" \
	similarity rope --preset gpt2 -o "$T/eo/o.csv"
fails 2 "alibi: 3-D" "similarity compares the rows of one 2-D table; alibi gives a 3-D one (choose one --head)$" \
	similarity alibi -n 4 -o "$T/eo/o.csv"
fails 2 "rope --table all" "similarity compares the rows of one 2-D table; rope gives several tensors (choose one --table)$" \
	similarity rope -n 4 -d 4 --table all -o "$T/eo/o.csv"
run similarity alibi -n 4 --head 1
check "alibi --head 1: a 4 x 4 matrix" ok_and [ "$(wc -l <"$T/out")" -eq 4 ]
run similarity alibi --heads 6 --table slopes
check "alibi slopes: a 6 x 1 table, all cosines 1" ok_and [ "$(sort -u "$T/out")" = "1,1,1,1,1,1" ]

# --- 8. PNG: the positions compared label the axes ---
run similarity sinusoidal -n 66 -d 16 --positions-range 2:66 --stride 4 -o "$S/pr.png"
check "png --positions-range 2:66 --stride 4: labels [2,4], 16 x 16" ok_and png "$S/pr.png" hmtest \
	'd["row_labels"] == [2, 4] and d["col_labels"] == [2, 4] and d["shape"] == [16, 16]'
check "png of a square matrix: a square heatmap" ok_and png "$S/pr.png" hmtest 'd["heatmap"][2] == d["heatmap"][3] > 0'
check "png cosine: coolwarm from -1 to 1" ok_and png "$S/pr.png" hmtest \
	'd["cmap"] == "coolwarm" and d["vmin"] == -1 and d["vmax"] == 1'
check "png cosine: the diagonal (1) is coolwarm's last colour" ok_and [ "$(png "$S/pr.png" cell 5 5 16 16)" = "179 3 38" ]
run similarity sinusoidal -n 64 -d 16 --rows 10:20 -o "$S/rows.png"
check "png --rows 10:20: rows labelled from 10, columns from 0" ok_and png "$S/rows.png" hmtest \
	'd["row_labels"] == [10, 1] and d.get("col_labels", [0, 1]) == [0, 1] and d["shape"] == [10, 64]'
run similarity sinusoidal -n 64 -d 16 --offset 5 --positions-range 2:10 --stride 2 --rows 1:3 -o "$S/all.png"
check "png --offset, --positions-range, --stride, --rows together" ok_and png "$S/all.png" hmtest \
	'd["row_labels"] == [9, 2] and d["col_labels"] == [7, 2] and d["shape"] == [2, 4]'
run similarity sinusoidal -n 32 -d 16 --preset wang-chen -o "$S/wc.png"
check "png --preset wang-chen: magma over the data's range" ok_and png "$S/wc.png" hmtest \
	'd["cmap"] == "magma" and d["vmax"] == 1 and 0 < d["vmin"] < 1'
check "png --preset wang-chen: the diagonal is magma's last colour" ok_and [ "$(png "$S/wc.png" cell 3 3 32 32)" = "251 252 191" ]
run similarity sinusoidal -n 32 -d 16 --metric euclidean -o "$S/eu.png"
check "png euclidean: viridis from 0" ok_and png "$S/eu.png" hmtest 'd["cmap"] == "viridis" and d["vmin"] == 0 < d["vmax"]'

# --- 9. --stats and --profile to files; pipes ---
rm -f "$S/st.json"
run similarity sinusoidal -n 64 -d 16 --stats -o "$S/st.json"
check "--stats -o: exit 0, nothing on stdout" ok_and [ -s "$S/st.json" -a ! -s "$T/out" ]
check "--stats -o: the JSON object" sim json "$S/st.json" \
	'd["n"] == 64 and d["window"] == 32 and d["tau"] == 1 and d["meta"]["command"] == "similarity" and
	 d["translation_invariance"] > 0.999999 and d["profile"]["count"] == list(range(64, 0, -1)) and
	 d["first_increase"] == next(k for k in range(1, 64) if cf(64, 16)[k] > cf(64, 16)[k - 1])'
run similarity sinusoidal -n 64 -d 16 --stats --window 5 --tau 0.5
check "--stats --window 5 --tau 0.5: recorded" ok_and sh -c 'printf "%s" "$1" | grep -q "\"window\":5,\"tau\":0.5,"' _ "$(cat "$T/out")"
run similarity sinusoidal -n 64 -d 16 --profile -o "$S/prof.csv"
check "--profile -o: exit 0, nothing on stdout" ok_and [ -s "$S/prof.csv" -a ! -s "$T/out" ]
check "--profile -o: header, 64 lines, the closed form" sim profile "$S/prof.csv" 64 16
run similarity sinusoidal -n 64 -d 16 --stride 4 --profile
check "--profile --stride 4: offsets in positions" ok_and [ "$(cut -d, -f1,4 "$T/out" | head -4 | tr '\n' ' ')" = "offset,count 0,16 4,15 8,14 " ]
echo old >"$S/prof-old.csv"
run similarity sinusoidal -n 64 -d 16 --profile -o "$S/prof-old.csv"
check "--profile -o replaces a file" ok_and same_output "$S/prof.csv" "$S/prof-old.csv"
check "--stats/--profile: no temp file left" ok_and [ -z "$(ls -A "$S" | grep '^\.posenc-')" ]
( "$POSENC" similarity sinusoidal -n 3000 -d 16 --profile 2>"$S/pipe.err"; echo $? >"$S/pipe.rc" ) | head -1 >"$S/pipe.out"
check "--profile | head -1: quiet, exit 0" eval '[ "$(cat "$S/pipe.out")" = offset,mean,std,count ] &&
	[ "$(cat "$S/pipe.rc")" -eq 0 ] && [ ! -s "$S/pipe.err" ]'
( "$POSENC" similarity sinusoidal -n 3000 -d 16 2>"$S/pipe.err"; echo $? >"$S/pipe.rc" ) | head -1 >"$S/pipe.out"
check "matrix | head -1: quiet, exit 0" eval '[ "$(cut -d, -f1 "$S/pipe.out")" = 1 ] &&
	[ "$(cat "$S/pipe.rc")" -eq 0 ] && [ ! -s "$S/pipe.err" ]'
( "$POSENC" similarity sinusoidal -n 3000 -d 16 --stats 2>"$S/pipe.err"; echo $? >"$S/pipe.rc" ) | head -c 9 >"$S/pipe.out"
check "--stats | head -c 9: quiet, exit 0" eval '[ "$(cat "$S/pipe.out")" = "{\"meta\":{" ] &&
	[ "$(cat "$S/pipe.rc")" -eq 0 ] && [ ! -s "$S/pipe.err" ]'

# --- input defects found by the first round of these tests, now fixed ---
S2=$T/s2
mkdir -p "$S2"
"$POSENC" generate sinusoidal -n 4 -d 4 -o "$S2/t.safetensors"
head -c 40 "$S2/t.safetensors" >"$S2/cut.safetensors"
fails 1 "safetensors cut inside its header" "$S2/cut.safetensors: header length [0-9]* runs past the end of the file (40 bytes)$" \
	similarity -i "$S2/cut.safetensors" -o "$T/eo/o.csv"
cp "$S2/cut.safetensors" "$S2/cut.bin"
fails 1 "cut safetensors, any name" "$S2/cut.bin: header length [0-9]* runs past the end of the file (40 bytes)$" \
	similarity -i "$S2/cut.bin" -o "$T/eo/o.csv"
echo "1,2" >"$S2/fake.npy"
fails 1 "a csv named .npy" "$S2/fake.npy: not an npy file" similarity -i "$S2/fake.npy" -o "$T/eo/o.csv"
"$POSENC" generate sinusoidal -n 3 -d 2 -o "$S2/s.npy"
fails 2 "--shape given an npy" "$S2/s.npy: this is an npy file, not raw float32: its shape is in its header$" \
	similarity -i "$S2/s.npy" --shape 38x1 -o "$T/eo/o.csv"
"$POSENC" generate sinusoidal -n 3 -d 2 -f raw -o "$S2/r.f32"
fails 1 "raw without --shape" "$S2/r.f32: binary data (a NUL byte at byte [0-9]*), not a text table; raw float32 needs its shape$" \
	similarity -i "$S2/r.f32" -o "$T/eo/o.csv"
printf '1,2 # first\n3,4\n5,7\n' >"$S2/comment.csv"
run similarity -i "$S2/comment.csv"
check "csv: a comment after numbers, 3 rows kept" ok_and [ "$(wc -l <"$T/out")" -eq 3 ]
printf '1,2x,3\n4,5,6\n' >"$S2/typo.csv"
fails 1 "csv: a typo in the first line is not a header" "$S2/typo.csv: line 1, column 2: '2x' is not a number$" \
	similarity -i "$S2/typo.csv" -o "$T/eo/o.csv"
# an .npy v1.0 of float64 written by hand: this part needs no NumPy
"$PYTHON" -c "import struct; h = \"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\"
h += ' ' * (63 - (10 + len(h)) % 64) + '\\n'
open('$S2/f8big.npy', 'wb').write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<4d', 1e39, 2.0, 3.0, 4.0))"
fails 1 "f8 beyond float32" "$S2/f8big.npy: 1 values are finite but too large for float32 (beyond 3.4e38)$" \
	similarity -i "$S2/f8big.npy" -o "$T/eo/o.csv"
printf '1e20,2e20\n3e20,1e20\n' >"$S2/long.csv"
run similarity -i "$S2/long.csv" --metric dot
check "dot beyond float32: inf and one warning" ok_and [ "$(head -1 "$T/out")" = "inf,inf" -a \
	"$(cat "$T/err")" = "posenc: warning: similarity: rows as long as 3.16228e+20: dot products beyond float32's range are written as inf" ]
run similarity sinusoidal -n 12 -d 4 --positions-range 2:12 --stride 4 --header
check "csv --header: the positions compared" ok_and [ "$(head -1 "$T/out")" = "p2,p6,p10" -a "$(wc -l <"$T/out")" -eq 4 ]
run similarity sinusoidal --preset wang-chen -n 8 -d 4 --stats
check "wang-chen: the table's own preset stays in meta" ok_and grep -q '"preset":"vaswani".*"similarity_preset":"wang-chen"' "$T/out"

# --- grids: --query maps, grid-aware ticks ---
run similarity axial --preset rope-vit -d 8 --grid 3x4 --table cis --query 1,2 -f csv
check "query map: H rows of W" [ "$(wc -l <"$T/out")" -eq 3 ] && [ "$(head -1 "$T/out" | tr ',' '\n' | wc -l)" -eq 4 ]
check "query map: 1 at the query's own cell" [ "$(sed -n 2p "$T/out" | cut -d, -f3)" = "1" ]
run similarity axial --preset rope-vit -d 8 --grid 3x4 --table cis --query 6 -f csv
cp "$T/out" "$T/q6"
run similarity axial --preset rope-vit -d 8 --grid 3x4 --table cis --query 1,2 -f csv
check "query: a row number or its cell" same_output "$T/out" "$T/q6"
run similarity axial --preset hunyuan-video --grid 3x2x2 --table cis --query 1,0,1 -f json
check "query on a video: T x H x W" grep -q '^{"shape":\[3,2,2\]' "$T/out"
check "query: meta names the cell" grep -q '"query":5,"query_cell":"(1,0,1)"' "$T/out"
run similarity axial --preset hunyuan-video --grid 3x2x2 --table cis --query 1,0,1 --frame 2 -f json
check "query --frame: one H x W frame" grep -q '^{"shape":\[2,2\]' "$T/out"
run similarity axial --preset hunyuan-video --grid 5x4x4 --table cis --query 1,0,1 -o "$T/v.png"
check "query png: 5 frame panels in a row" ok_and png "$T/v.png" hmtest "len(d['panels']) == 5 and len(set(p[1] for p in d['panels'])) == 1"
check "query png: title names the cell" [ "$(png "$T/v.png" text Title)" = "cosine similarity of axial row 17 (1,0,1) to every cell" ]
run similarity sinusoidal -n 12 -d 8 --query 3 -f json
check "query without a grid: the row, 1-D" grep -q '^{"shape":\[12\]' "$T/out"
run generate sincos2d --grid 3x4 -d 8 --cls-token -o "$T/s2.npy"
run similarity -i "$T/s2.npy" --grid 3x4 --prefix-tokens 1 --query 2,3 -f csv
cp "$T/out" "$T/sfile"
run similarity sincos2d --grid 3x4 -d 8 --cls-token --query 2,3 -f csv
check "query: a file with --grid, --prefix-tokens = the kind's own grid" same_output "$T/out" "$T/sfile"
if command -v pdftotext >/dev/null 2>&1; then
	run similarity axial --preset qwen2-vl-vision -d 8 --grid 8x12 --table cis -o "$T/qm.pdf"
	pdftotext "$T/qm.pdf" "$T/qm.txt" 2>/dev/null
	check "grid ticks: merge bands labelled by cell" ok_and eval 'grep -qx "(2,0)" "$T/qm.txt" && grep -qx "(6,0)" "$T/qm.txt"'
	run similarity axial --preset wan --grid 3x6x8 --table cis -o "$T/w.pdf"
	pdftotext "$T/w.pdf" "$T/w.txt" 2>/dev/null
	check "grid ticks: a video's cells (t,y,x)" ok_and grep -qx "(1,2,0)" "$T/w.txt"
else
	skipped "grid tick labels" "no pdftotext"
fi
fails 2 "query with --stats" "--stats does not apply to --query (it compares one row with every row)$" \
	similarity sinusoidal -n 8 -d 4 --query 1 --stats -o "$T/eo/o.json"
fails 2 "query cell without a grid" "--query 1,2 names a cell: give --grid (the rows' patch grid)$" \
	similarity sinusoidal -n 8 -d 4 --query 1,2 -o "$T/eo/o.csv"
fails 2 "query outside the grid" "--query 3,0 is outside the 1x3x4 grid$" \
	similarity axial --preset rope-vit -d 8 --grid 3x4 --query 3,0 -o "$T/eo/o.csv"
fails 2 "query beyond the rows" "--query must be a row 0 to 11, or a cell Y,X of --grid, got '12'$" \
	similarity axial --preset rope-vit -d 8 --grid 3x4 --query 12 -o "$T/eo/o.csv"
fails 2 "grid that is not the table's rows" "--grid 3x5 has 15 cells, the table 12 rows$" \
	similarity sinusoidal -n 12 -d 8 --grid 3x5 -o "$T/eo/o.csv"
fails 2 "--frame beyond the video" "--frame 3: the grid has 3 frames$" \
	similarity axial --preset hunyuan-video --grid 3x2x2 --query 0 --frame 3 -o "$T/eo/o.csv"
fails 2 "--frame without --query" "--frame applies to --query only$" \
	similarity axial --preset hunyuan-video --grid 3x2x2 --frame 1 -o "$T/eo/o.csv"
fails 2 "--prefix-tokens beside a kind's grid" "--prefix-tokens: a generated sincos2d table has its own grid and tokens$" \
	similarity sincos2d --grid 3x4 -d 8 --prefix-tokens 1 -o "$T/eo/o.csv"
