#!/usr/bin/env python3
"""Cross-checks of posenc against NumPy, an independent reference.

Usage: check.py PATH/TO/posenc.  Prints "numpy: N passed, N failed".

- sinusoidal tables (every preset, odd widths, offsets, padding) agree with
  the float64 formulas written here with NumPy, within 1 float32 ulp of the
  float64 value;
- numpy.load reads posenc's npy, and the file is byte-identical to np.save;
- raw, csv, json and safetensors hold exactly the npy's values (csv parsed
  by numpy.loadtxt, json by the json module, safetensors by hand with
  struct + json as the format describes);
- learned tables equal an independent Python implementation of the
  documented algorithm (Philox4x32-10, Marsaglia polar), up to the last bit
  of the logarithm (math.log here, posenc's own log there);
- PNG heatmaps (--no-axes, full size) have the pixels of matplotlib's
  imsave of the same table, exactly;
- skew equals NumPy's pad/reshape/slice procedures written here (bidir and
  causal, forward and inverse, the causal --raw garbage), bit for bit.
"""
import decimal
import io
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

POSENC = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="posenc-numpy-")
passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what} {detail}")


def posenc(*args):
    r = subprocess.run([POSENC, *args], capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"posenc {' '.join(args)}: {r.stderr.decode()}")
    return r.stdout


def load(*args):
    path = os.path.join(TMP, "t.npy")
    posenc(*args, "-o", path)
    return np.load(path), path


def within_one_ulp(got, ref64):
    ref32 = ref64.astype(np.float32)
    ulp = np.spacing(np.abs(ref32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref64) <= ulp


def sinusoidal_ref(preset, n, d, offset=0, base=1e4, min_ts=1.0, max_ts=1e4, padding=None,
                   layout=None):
    rows = n + padding + 1 if padding is not None else n
    pos = (np.arange(rows, dtype=np.float64) + (0 if padding is not None else offset))[:, None]
    h = d // 2
    if preset in ("vaswani", "marian"):
        nsin, ncos = (d + 1) // 2, d // 2
        freq = base ** (-2.0 * np.arange(nsin) / d)
    elif preset == "t2t":
        nsin = ncos = h
        freq = min_ts * np.exp(-np.arange(h) * math.log(max_ts / min_ts) / max(h - 1, 1))
    else:  # fairseq
        nsin = ncos = h
        freq = np.exp(-np.arange(h) * math.log(base) / (h - 1))
    s = np.sin(pos * freq[:nsin])
    c = np.cos(pos * freq[:ncos])
    out = np.zeros((rows, d))
    layout = layout or ("interleaved" if preset == "vaswani" else "half")
    if layout == "interleaved":
        out[:, 0:2 * nsin:2] = s
        out[:, 1:2 * ncos:2] = c
    else:
        out[:, :nsin] = s
        out[:, nsin:nsin + ncos] = c
    if padding is not None:
        out[padding] = 0
    return out


def test_sinusoidal():
    cases = [
        (("vaswani", 2048, 512), {}),
        (("vaswani", 100, 7), {}),
        (("vaswani", 300, 64), {"offset": -150}),
        (("vaswani", 300, 64), {"layout": "half"}),
        (("marian", 500, 33), {}),
        (("t2t", 500, 65), {}),
        (("t2t", 200, 16), {"min_ts": 2.0, "max_ts": 300.0}),
        (("t2t", 20, 2), {}),
        (("fairseq", 500, 31), {"padding": 1}),
        (("fairseq", 100, 8), {"base": 500.0}),
        (("vaswani", 64, 32), {"base": 100.0, "layout": "half", "offset": 7}),
    ]
    for (preset, n, d), kw in cases:
        args = ["generate", "sinusoidal", "--preset", preset, "-n", str(n), "-d", str(d)]
        if "offset" in kw:
            args += ["--offset", str(kw["offset"])]
        if "base" in kw:
            args += ["--base", repr(kw["base"])]
        if "min_ts" in kw:
            args += ["--min-timescale", repr(kw["min_ts"]), "--max-timescale", repr(kw["max_ts"])]
        if "padding" in kw:
            args += ["--padding-idx", str(kw["padding"])]
        if "layout" in kw:
            args += ["--layout", kw["layout"]]
        got, _ = load(*args)
        ref = sinusoidal_ref(preset, n, d, **kw)
        what = f"sinusoidal {preset} n={n} d={d} {kw}"
        check(what + " shape", got.shape == ref.shape and got.dtype == np.float32,
              f"{got.shape} {got.dtype} vs {ref.shape}")
        if got.shape == ref.shape:
            ok = within_one_ulp(got, ref)
            check(what + " within 1 ulp of float64", bool(ok.all()),
                  f"{int((~ok).sum())} values off")


def test_formats_agree():
    args = ["generate", "sinusoidal", "-n", "37", "-d", "13", "--preset", "marian"]
    npy, path = load(*args)
    saved = io.BytesIO()
    np.save(saved, npy)
    with open(path, "rb") as f:
        raw_npy = f.read()
    check("npy byte-identical to np.save", raw_npy == saved.getvalue())
    raw = np.frombuffer(posenc(*args, "-f", "raw"), dtype="<f4").reshape(37, 13)
    check("raw == npy", np.array_equal(raw.view(np.uint32), npy.view(np.uint32)))
    csv = np.loadtxt(io.BytesIO(posenc(*args)), delimiter=",", dtype=np.float64).astype(np.float32)
    check("csv == npy bit for bit", np.array_equal(csv.view(np.uint32), npy.view(np.uint32)))
    hdr = posenc(*args, "--header").split(b"\n")[0].decode()
    check("csv header", hdr == ",".join(f"d{k}" for k in range(13)), hdr)
    js = json.loads(posenc(*args, "-f", "json"))
    check("json shape", js["shape"] == [37, 13] and js["dtype"] == "float32")
    check("json data == npy", np.array_equal(np.array(js["data"], dtype=np.float32), npy))
    check("json meta", js["meta"]["preset"] == "marian" and js["meta"]["dim"] == 13, js["meta"])
    st = posenc(*args, "-f", "safetensors")
    (n,) = struct.unpack("<Q", st[:8])
    header = json.loads(st[8:8 + n])
    check("safetensors header 8-aligned", (8 + n) % 8 == 0)
    t = header["sinusoidal"]
    b0, b1 = t["data_offsets"]
    check("safetensors tensor", t["dtype"] == "F32" and t["shape"] == [37, 13] and b1 - b0 == 37 * 13 * 4)
    check("safetensors covers the file", 8 + n + b1 == len(st))
    data = np.frombuffer(st[8 + n + b0:8 + n + b1], dtype="<f4").reshape(37, 13)
    check("safetensors data == npy", np.array_equal(data, npy))
    check("safetensors metadata strings",
          all(isinstance(v, str) for v in header["__metadata__"].values())
          and header["__metadata__"]["kind"] == "sinusoidal")
    part = np.load(io.BytesIO(posenc(*args, "-f", "npy", "--rows", "5:9")))
    check("npy --rows", np.array_equal(part, npy[5:9]))


# --- an independent implementation of the documented learned algorithm ---
M0, M1, W0, W1, MASK = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 0xFFFFFFFF


def philox(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for rnd in range(10):
        if rnd:
            k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & MASK, p1 & MASK, ((p0 >> 32) ^ c3 ^ k1) & MASK, p0 & MASK
    return c0, c1, c2, c3


def uniforms(seed, c0, c1, c2, c3):
    w = philox((c0, c1, c2, c3), (seed & MASK, seed >> 32))
    u = ((w[0] >> 5) * 67108864 + (w[1] >> 6)) / 9007199254740992.0
    v = ((w[2] >> 5) * 67108864 + (w[3] >> 6)) / 9007199254740992.0
    return u, v


def normal(seed, row, col, trunc):
    a = 0
    while True:
        u, v = uniforms(seed, col, row & MASK, row >> 32, a)
        a += 1
        x, y = 2 * u - 1, 2 * v - 1
        s = x * x + y * y
        if s <= 0 or s >= 1:
            continue
        z = x * math.sqrt(-2 * math.log(s) / s)
        if trunc and abs(z) > trunc:
            continue
        return z


def test_learned():
    n, d = 40, 24
    for init, std, seed in (("normal", 0.02, 0), ("trunc-normal", 0.5, 12345678901234567),
                            ("uniform", 0.1, 2**64 - 1)):
        got, _ = load("generate", "learned", "-n", str(n), "-d", str(d), "--init", init,
                      "--std", repr(std), "--seed", str(seed))
        ref = np.empty((n, d), dtype=np.float64)
        for r in range(n):
            for c in range(d):
                if init == "uniform":
                    ref[r, c] = (2 * uniforms(seed, c, r, 0, 0)[0] - 1) * math.sqrt(3.0) * std
                else:
                    ref[r, c] = std * normal(seed, r, c, 2.0 if init == "trunc-normal" else 0)
        ref32 = ref.astype(np.float32)
        exact = np.mean(got.view(np.uint32) == ref32.view(np.uint32))
        check(f"learned {init} seed {seed}: independent implementation",
              exact >= 0.999 and bool(within_one_ulp(got, ref).all()), f"exact {exact}")
        if init == "trunc-normal":
            check("trunc-normal within 2 std", float(np.abs(got).max()) <= 2 * std)
    pad, _ = load("generate", "learned", "--preset", "fairseq", "-n", "10", "-d", "16",
                  "--padding-idx", "1")
    check("learned fairseq padding", pad.shape == (12, 16) and not pad[1].any() and pad[0].any())


# --- posenc similarity ---
def similarity(*args):
    """posenc similarity ARGS as a NumPy array (through npy)"""
    return np.load(io.BytesIO(posenc("similarity", *args, "-f", "npy")))


def sinusoid_profile(n, d):
    """the closed form of the vaswani sinusoid's cosine at offsets 0..n-1"""
    w = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    return (2.0 / d) * np.cos(np.arange(n, dtype=np.float64)[:, None] * w).sum(axis=1)


def cosine64(x):
    g = x @ x.T
    nrm = np.sqrt(np.diag(g))
    return g / np.outer(nrm, nrm)


def euclidean64(x):
    return np.array([np.sqrt(((x[i] - x) ** 2).sum(axis=1)) for i in range(len(x))])


def rounded_check(what, got, ref):
    """posenc's exact mode is correctly rounded; NumPy's float64 is not quite,
    so: at least 99.9% the same float32 as NumPy's, every value within 1 ulp"""
    if got.shape != ref.shape or got.dtype != np.float32:
        check(what + " shape", False, f"{got.shape} {got.dtype} vs {ref.shape}")
        return
    same = float(np.mean(got.view(np.uint32) == ref.astype(np.float32).view(np.uint32)))
    ok = within_one_ulp(got, ref)
    check(what + ": 99.9% identical to NumPy float64, rounded", same >= 0.999, f"identical {same}")
    check(what + ": every value within 1 ulp", bool(ok.all()), f"{int((~ok).sum())} values off")


def random_table(name, shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    path = os.path.join(TMP, name)
    np.save(path, x)
    return x, path


def test_similarity_metrics():
    x, path = random_table("sim300.npy", (300, 64), 2020)
    x64 = x.astype(np.float64)
    cos = similarity("-i", path)
    rounded_check("similarity cosine", cos, cosine64(x64))
    check("similarity cosine symmetric bit for bit", np.array_equal(cos.view(np.uint32), cos.T.view(np.uint32)))
    rounded_check("similarity dot", similarity("-i", path, "--metric", "dot"), x64 @ x64.T)
    rounded_check("similarity euclidean", similarity("-i", path, "--metric", "euclidean"), euclidean64(x64))
    xc = x64 - x64.mean(axis=0)
    rounded_check("similarity --center", similarity("-i", path, "--center"), cosine64(xc))
    rounded_check("similarity --center --metric dot", similarity("-i", path, "--center", "--metric", "dot"),
                  xc @ xc.T)
    # NumPy's own float32 script
    y = x / np.linalg.norm(x, axis=1, keepdims=True)
    f32 = similarity("-i", path, "--precision", "float32")
    diff = float(np.abs(f32.astype(np.float64) - (y @ y.T).astype(np.float64)).max())
    check("similarity --precision float32 = NumPy float32 within 1e-5", f32.dtype == np.float32 and diff < 1e-5,
          f"max diff {diff}")
    # a range and a stride are a sub-block of the full matrix ...
    for metric in ("cosine", "euclidean"):
        full = cos if metric == "cosine" else similarity("-i", path, "--metric", metric)
        part = similarity("-i", path, "--metric", metric, "--positions-range", "10:250", "--stride", "7")
        check(f"similarity {metric} --positions-range 10:250 --stride 7 = sub-block",
              np.array_equal(part.view(np.uint32), full[10:250:7, 10:250:7].view(np.uint32)), str(part.shape))
    # ... and --center subtracts the mean of the rows compared
    sub = x64[10:250:7]
    rounded_check("similarity --center of a range", similarity("-i", path, "--center", "--positions-range",
                                                              "10:250", "--stride", "7"),
                  cosine64(sub - sub.mean(axis=0)))


def test_similarity_query():
    """--query on a grid: row q of the cosine matrix (NumPy, float64) laid
    out as the grid's frames, the prefix token left out; Qwen2-VL's merge
    order undone by the reshape/transpose of transformers' position ids"""
    x, path = random_table("grid61.npy", (1 + 2 * 5 * 6, 16), 7)
    cos = cosine64(x.astype(np.float64))
    q = 1 + (1 * 5 + 2) * 6 + 3
    want = cos[q, 1:].reshape(2, 5, 6)
    rounded_check("similarity --query 1,2,3 --grid 2x5x6 --prefix-tokens 1",
                  similarity("-i", path, "--grid", "2x5x6", "--prefix-tokens", "1", "--query", "1,2,3"), want)
    rounded_check("similarity --query row --frame 1", similarity("-i", path, "--grid", "2x5x6", "--prefix-tokens",
                                                                 "1", "--query", str(q), "--frame", "1"), want[1])
    rounded_check("similarity --query without a grid: the row", similarity("-i", path, "--query", "7"), cos[7])
    # Qwen2-VL's vision tower: tokens in 2x2 merge blocks
    tab = os.path.join(TMP, "qwen.npy")
    posenc("generate", "axial", "--preset", "qwen2-vl-vision", "-d", "16", "--grid", "4x6", "--table", "cis",
           "-o", tab)
    t64 = np.load(tab).astype(np.float64)
    h, w = np.meshgrid(np.arange(4), np.arange(6), indexing="ij")
    order = np.stack([h.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3).ravel(),
                      w.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3).ravel()], 1)
    row_of = {(int(a), int(b)): i for i, (a, b) in enumerate(order)}
    c = cosine64(t64)
    q = row_of[(1, 2)]
    want = np.array([[c[q, row_of[(a, b)]] for b in range(6)] for a in range(4)])
    rounded_check("similarity axial qwen2-vl-vision --query 1,2: the merge order undone",
                  similarity("axial", "--preset", "qwen2-vl-vision", "-d", "16", "--grid", "4x6", "--table", "cis",
                             "--query", "1,2"), want)
    # cis rows: the cosine is the mean of cos(angle difference) over the pairs
    ang = np.load(io.BytesIO(posenc("generate", "axial", "--preset", "qwen2-vl-vision", "-d", "16", "--grid",
                                    "4x6", "--table", "angles", "-f", "npy"))).astype(np.float64)[:, :8]
    d = np.cos(ang[q][None, :] - ang).mean(axis=1)
    check("cis rows: cosine = mean cos(angle difference)", float(np.abs(d - c[q]).max()) < 1e-6,
          str(float(np.abs(d - c[q]).max())))


def average_ranks(v):
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    sv = v[order]
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    return ranks


def spearman_mono(rows):
    """minus the mean Spearman correlation of (k, S) over rows of (k, values)"""
    rho = []
    for k, vals in rows:
        if len(vals) < 3 or np.all(vals == vals[0]):
            continue
        a, b = average_ranks(k.astype(np.float64)), average_ranks(vals)
        a, b = a - a.mean(), b - b.mean()
        rho.append((a * b).sum() / math.sqrt((a * a).sum() * (b * b).sum()))
    return -float(np.mean(rho)) if rho else None


def stats_ref(s, window, tau):
    """the statistics as the man page defines them, from posenc's matrix;
    NaN entries are left out of every sum and count"""
    n = len(s)
    s = s.astype(np.float64)
    i, j = np.indices((n, n))
    off = (i != j) & ~np.isnan(s)
    t = {dd: np.nanmean(s[j - i == dd]) for dd in range(-(n - 1), n) if dd}
    tmat = np.vectorize(lambda dd: t.get(dd, 0.0))(j - i)
    ti = 1 - ((s - tmat)[off] ** 2).sum() / ((s[off] - s[off].mean()) ** 2).sum()

    def rows(sign):
        for r in range(n):
            k = np.arange(1, 1 + min(window, n - 1 - r if sign > 0 else r))
            v = s[r, r + sign * k]
            yield k[~np.isnan(v)], v[~np.isnan(v)]

    diffs = np.array([abs(s[r, r - k] - s[r, r + k]) for r in range(n) for k in range(1, min(r, n - 1 - r) + 1)])
    sym = 1 - np.nanmean(diffs) / (np.nanmax(s) - np.nanmin(s))
    loc = []
    for r in range(n):
        ok = ~np.isnan(s[r])
        if ok.any():
            a = np.exp((s[r, ok] - s[r, ok].max()) / tau)
            loc.append((a / a.sum() * 2.0 ** -np.abs(np.arange(n)[ok] - r)).sum())
    diag = [np.diagonal(s, k) for k in range(n)]
    mean = np.array([np.nanmean(d) for d in diag])
    rises = np.nonzero(np.diff(mean) > 0)[0]
    return {"translation_invariance": ti, "monotonicity_forward": spearman_mono(rows(1)),
            "monotonicity_backward": spearman_mono(rows(-1)), "symmetry_lr": sym, "locality": float(np.mean(loc)),
            "first_increase": int(rises[0] + 1) if len(rises) else 0, "mean": mean,
            "std": np.array([np.nanstd(d) for d in diag]),
            "count": [int((~np.isnan(d)).sum()) for d in diag]}


def stats_agree(what, got, ref):
    for key in ("translation_invariance", "monotonicity_forward", "monotonicity_backward", "symmetry_lr",
                "locality", "first_increase"):
        a, b = got[key], ref[key]
        ok = (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b)))
        check(f"{what} {key} = the man page's formula", ok, f"{a} vs {b}")
    prof = got["profile"]
    n = len(ref["mean"])
    check(f"{what} profile = NumPy's diagonals",
          prof["offset"] == list(range(n)) and prof["count"] == ref["count"]
          and np.allclose(prof["mean"], ref["mean"], rtol=0, atol=1e-12)
          and np.allclose(prof["std"], ref["std"], rtol=0, atol=1e-12))


def test_similarity_stats():
    st = json.loads(posenc("similarity", "sinusoidal", "-n", "512", "-d", "768", "--stats", "--window", "32"))
    check("sinusoid stats: translation_invariance > 0.999999", st["translation_invariance"] > 0.999999,
          st["translation_invariance"])
    check("sinusoid stats: symmetry_lr > 0.999999", st["symmetry_lr"] > 0.999999, st["symmetry_lr"])
    check("sinusoid stats: monotonicity_forward == 1", st["monotonicity_forward"] == 1, st["monotonicity_forward"])
    check("sinusoid stats: first_increase == 44", st["first_increase"] == 44, st["first_increase"])
    check("sinusoid stats: profile mean = closed form within 1e-6",
          np.abs(np.array(st["profile"]["mean"]) - sinusoid_profile(512, 768)).max() <= 1e-6)
    x, path = random_table("gauss.npy", (400, 64), 7)
    g = json.loads(posenc("similarity", "-i", path, "--stats"))
    check("random Gaussian stats: |translation_invariance| < 0.05", abs(g["translation_invariance"]) < 0.05,
          g["translation_invariance"])
    stats_agree("random Gaussian", g, stats_ref(similarity("-i", path), 32, 1.0))
    g = json.loads(posenc("similarity", "-i", path, "--stats", "--window", "5", "--tau", "0.25", "--metric", "dot",
                          "--positions-range", "0:150"))
    stats_agree("dot, window 5, tau 0.25", g,
                stats_ref(similarity("-i", path, "--metric", "dot", "--positions-range", "0:150"), 5, 0.25))
    # a zero row: its NaN entries are left out
    x[37] = 0
    np.save(path, x)
    r = subprocess.run([POSENC, "similarity", "-i", path, "--stats"], capture_output=True)
    check("zero row: --stats exit 0 with one warning", r.returncode == 0 and r.stderr.count(b"\n") == 1
          and r.stderr.startswith(b"posenc: warning: "), r.stderr)
    stats_agree("a zero row", json.loads(r.stdout), stats_ref(similarity("-i", path), 32, 1.0))
    st = json.loads(posenc("similarity", "sinusoidal", "-n", "200", "-d", "64", "--stats"))
    stats_agree("sinusoid 200 x 64", st, stats_ref(similarity("sinusoidal", "-n", "200", "-d", "64"), 32, 1.0))


def test_similarity_profile():
    text = posenc("similarity", "sinusoidal", "-n", "512", "-d", "768", "--profile").decode()
    lines = text.split("\n")
    check("profile: header offset,mean,std,count", lines[0] == "offset,mean,std,count", lines[0])
    check("profile: 512 lines and a final newline", len(lines) == 514 and lines[-1] == "", len(lines))
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:-1]])
    check("profile: offsets 0..511, counts 512..1",
          np.array_equal(rows[:, 0], np.arange(512)) and np.array_equal(rows[:, 3], 512 - np.arange(512)))
    diff = float(np.abs(rows[:, 1] - sinusoid_profile(512, 768)).max())
    check("profile: mean = the closed form within 1e-6", diff <= 1e-6, f"max diff {diff}")


def png_text(data, key):
    pos = 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"iTXt" and body.split(b"\0", 1)[0] == key.encode():
            rest = body.split(b"\0", 1)[1]
            flag, rest = rest[0], rest[2:].split(b"\0", 2)[2]
            return (zlib.decompress(rest) if flag else rest).decode()
        pos += 12 + n
    return None


def test_similarity_png():
    hm = json.loads(png_text(posenc("similarity", "sinusoidal", "--preset", "wang-chen", "-f", "png"),
                             "posenc:heatmap"))
    low = sinusoid_profile(512, 768)
    check("wang-chen: the closed form's minimum is at offset 510", int(np.argmin(low)) == 510)
    check("wang-chen png: magma, vmin = the minimum (0.2436), vmax 1",
          hm["cmap"] == "magma" and abs(hm["vmin"] - low.min()) < 1e-6 and hm["vmax"] == 1
          and hm["shape"] == [512, 512], hm)
    hm = json.loads(png_text(posenc("similarity", "sinusoidal", "-n", "64", "-d", "16", "-f", "png"),
                             "posenc:heatmap"))
    check("cosine png: coolwarm from -1 to 1", hm["cmap"] == "coolwarm" and hm["vmin"] == -1 and hm["vmax"] == 1,
          hm)


def test_png_pixels():
    """--no-axes at full size draws what matplotlib's imsave draws: every
    pixel the colour map's colour of its value (both decoded by Pillow)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    cases = (
        (("generate", "sinusoidal", "-n", "1024", "-d", "1024"), (), {"cmap": "viridis"}),
        (("generate", "learned", "-n", "512", "-d", "768", "--seed", "7"), ("--cmap", "magma"),
         {"cmap": "magma"}),
        (("similarity", "sinusoidal", "-n", "1024", "-d", "64"),
         ("--cmap", "coolwarm", "--vmin", "-1", "--vmax", "1"),
         {"cmap": "coolwarm", "vmin": -1, "vmax": 1}),
    )
    for args, png_args, mpl in cases:
        table, _ = load(*args, "-f", "npy")
        data = posenc(*args, *png_args, "-f", "png", "--no-axes", "--size", str(max(table.shape)))
        ours = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
        buf = io.BytesIO()
        plt.imsave(buf, table, format="png", **mpl)
        ref = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
        same = ours.shape == ref.shape and np.array_equal(ours, ref)
        check(f"png pixels = imsave's: {' '.join(args[:2])} {table.shape} {mpl['cmap']}", same,
              f"{ours.shape} vs {ref.shape}" if ours.shape != ref.shape
              else f"{int((ours != ref).any(-1).sum())} pixels differ")


def f32_nearest(exact):
    """the float32 nearest to a Decimal, ties to even"""
    f = np.float32(float(exact))
    best = None
    for c in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))):
        key = (abs(decimal.Decimal(float(c)) - exact), int(c.view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, c)
    return best[1]


def test_similarity_exact_hard():
    """rows built for cancellation, ties and exact zeros: every value the
    correctly rounded float32 of the exact one (120 digits, ties to even)"""
    decimal.getcontext().prec = 120
    rng = np.random.default_rng(11)
    rows = []
    for t in range(40):
        big = np.float32(2.0 ** int(rng.integers(10, 60)))
        small = np.float32(2.0 ** -int(rng.integers(0, 40)) * rng.uniform(1, 2))
        last = big * np.float32(rng.uniform(0.5, 1.5)) * (-1 if t % 3 == 0 else 1)
        rows.append([big, small, -big, np.float32(1e-3 * rng.standard_normal()), last])
    for t in range(30):
        rows.append([np.float32(1 + 2.0 ** -23 * int(rng.integers(0, 100))), 1, -1, np.float32(1e-7 * rng.standard_normal()), 0])
    rows += rng.integers(-2, 3, size=(30, 5)).tolist()
    x = np.array(rows, dtype=np.float32)
    x = x[np.abs(x).sum(axis=1) > 0]
    path = os.path.join(TMP, "hard.npy")
    np.save(path, x)
    d = [[decimal.Decimal(float(v)) for v in r] for r in x]
    n = len(x)
    for metric in ("cosine", "dot", "euclidean"):
        got = similarity("-i", path, "--metric", metric)
        off = 0
        for i in range(n):
            for j in range(n):
                dot = sum(a * b for a, b in zip(d[i], d[j]))
                if metric == "dot":
                    ref = dot
                elif metric == "cosine":
                    ref = dot / (sum(a * a for a in d[i]) * sum(b * b for b in d[j])).sqrt()
                else:
                    ref = sum((a - b) * (a - b) for a, b in zip(d[i], d[j])).sqrt()
                want = f32_nearest(ref)
                if got[i, j] != want and not (ref == 0 and got[i, j] == 0):
                    off += 1
        check(f"similarity {metric} of hard rows: correctly rounded", off == 0, f"{off} of {n * n} values off")

def t5_numpy(L, bidirectional, nb, md):
    """The vectorised formula a NumPy user writes (float32 log branch)."""
    q = np.arange(L)[:, None]
    k = np.arange(L)[None, :]
    n = k - q
    ret = np.zeros_like(n)
    if bidirectional:
        nb //= 2
        ret += (n > 0) * nb
        n = np.abs(n)
    else:
        n = np.maximum(-n, 0)
    me = nb // 2
    with np.errstate(divide="ignore"):
        x = np.log((n.astype(np.float32) / np.float32(me)).astype(np.float64)).astype(np.float32)
        x = (x / np.float32(math.log(md / me))).astype(np.float32) * np.float32(nb - me)
    large = np.minimum(me + np.trunc(np.where(n >= me, x, 0)).astype(np.int64), nb - 1)
    return ret + np.where(n < me, n, large)


def test_bucket():
    for bidir, nb, md in ((1, 32, 128), (0, 32, 128), (1, 64, 1000), (0, 20, 50)):
        args = ["bucket", "-n", "257", "--num-buckets", str(nb), "--max-distance", str(md)]
        got, _ = load(*args, *([] if bidir else ["--causal"]))
        ref = t5_numpy(257, bidir, nb, md)
        check(f"bucket t5 {bidir} {nb} {md}: <i4 npy = NumPy's formula",
              got.dtype == np.dtype("<i4") and np.array_equal(got, ref))
    # Swin: the meshgrid construction, query - key per axis
    for wh, ww in ((7, 7), (3, 5), (5, 2)):
        got, _ = load("bucket", "--scheme", "swin", "--window", f"{wh}x{ww}")
        c = np.stack(np.meshgrid(np.arange(wh), np.arange(ww), indexing="ij")).reshape(2, -1)
        rel = c[:, :, None] - c[:, None, :]
        ref = (rel[0] + wh - 1) * (2 * ww - 1) + rel[1] + ww - 1
        check(f"bucket swin {wh}x{ww} = the meshgrid index", np.array_equal(got, ref))
    # the bias gathered as T5's compute_bias does: table[ids] -> (q, k, h) -> (h, q, k)
    rng = np.random.default_rng(5)
    table = rng.standard_normal((32, 6)).astype(np.float32)
    path = os.path.join(TMP, "bias.npy")
    np.save(path, table)
    got, _ = load("bucket", "-n", "100", "--bias", path)
    ref = table[t5_numpy(100, 1, 32, 128)].transpose(2, 0, 1)
    check("bucket --bias = table[ids].permute(2, 0, 1)", got.shape == (6, 100, 100) and np.array_equal(got, ref))
    st = posenc("bucket", "--scheme", "swin", "--window", "3x3", "-f", "safetensors")
    n = struct.unpack("<Q", st[:8])[0]
    head = json.loads(st[8:8 + n])
    t = head["bucket_ids"]
    data = np.frombuffer(st[8 + n + t["data_offsets"][0]:8 + n + t["data_offsets"][1]], dtype="<i4")
    npy, _ = load("bucket", "--scheme", "swin", "--window", "3x3")
    check("bucket safetensors: I32, the npy's ids", t["dtype"] == "I32" and t["shape"] == [9, 9]
          and np.array_equal(data.reshape(9, 9), npy))
    csv = np.loadtxt(io.BytesIO(posenc("bucket", "--scheme", "deberta", "-n", "300")), delimiter=",", dtype=np.int64)
    js = json.loads(posenc("bucket", "--scheme", "deberta", "-n", "300", "-f", "json"))
    check("bucket csv = json (plain integers)", np.array_equal(csv, np.array(js["data"])) and csv[299, 0] == 206)  # PyTorch: data/buckets-deberta.txt


# --- posenc skew: NumPy's pad/reshape/slice procedures, written here ---
def np_bidir_fwd(r):
    """tensor2tensor's unmasked skew: pad a column, flatten, pad L-1, view, slice"""
    L = r.shape[0]
    x = np.pad(r, ((0, 0), (0, 1))).reshape(-1)
    x = np.pad(x, (0, L - 1)).reshape(L + 1, 2 * L - 1)
    return x[:L, L - 1:]


def np_causal_fwd(r):
    """Music Transformer's masked skew: pad a column on the left, view (L+1) x L, drop row 0"""
    L = r.shape[0]
    return np.pad(r, ((0, 0), (1, 0))).reshape(L + 1, L)[1:]


def np_bidir_inv(a):
    """tensor2tensor's unmasked inverse: pad L-1 columns, flatten, prepend L, view L x 2L, drop col 0"""
    L = a.shape[0]
    x = np.pad(a, ((0, 0), (0, L - 1))).reshape(-1)
    return np.pad(x, (L, 0)).reshape(L, 2 * L)[:, 1:]


def np_causal_inv(a):
    """tensor2tensor's masked inverse: prepend a zero row, view L x (L+1), drop col 0"""
    L = a.shape[0]
    return np.pad(a, ((1, 0), (0, 0))).reshape(L, L + 1)[:, 1:]


def skew_npy(*args):
    return np.load(io.BytesIO(posenc("skew", *args, "-f", "npy")))


def same_bits(what, got, want):
    want = np.ascontiguousarray(want, dtype=np.float32)
    ok = got.dtype == np.float32 and got.shape == want.shape and \
        np.array_equal(got.view(np.uint32), want.view(np.uint32))
    check(what, ok, f"{got.dtype} {got.shape} vs {want.shape}")


def test_skew():
    rng = np.random.default_rng(2018)
    for L in (1, 2, 5, 64, 257):
        r = rng.standard_normal((L, 2 * L - 1)).astype(np.float32)
        c = rng.standard_normal((L, L)).astype(np.float32)
        rp = os.path.join(TMP, f"skew_r{L}.npy")
        cp = os.path.join(TMP, f"skew_c{L}.npy")
        np.save(rp, r)
        np.save(cp, c)
        lower = np.tril(np.ones((L, L), bool))
        band = np.add.outer(np.arange(L), np.arange(L)) >= L - 1   # c >= L-1-i
        same_bits(f"skew bidir L={L} = NumPy pad/reshape/slice", skew_npy("-i", rp), np_bidir_fwd(r))
        same_bits(f"skew bidir --raw L={L}", skew_npy("-i", rp, "--raw"), np_bidir_fwd(r))
        same_bits(f"skew causal --raw L={L} = the trick's garbage too", skew_npy("-i", cp, "--mode", "causal", "--raw"),
                  np_causal_fwd(c))
        same_bits(f"skew causal --fill -inf L={L}", skew_npy("-i", cp, "--mode", "causal", "--fill", "-inf"),
                  np.where(lower, np_causal_fwd(c), np.float32(-np.inf)))
        same_bits(f"skew bidir --inverse L={L} = t2t's unmasked inverse", skew_npy("-i", cp, "--inverse"),
                  np_bidir_inv(c))
        same_bits(f"skew causal --inverse --raw L={L} = t2t's masked inverse",
                  skew_npy("-i", cp, "--mode", "causal", "--inverse", "--raw"), np_causal_inv(c))
        same_bits(f"skew causal --inverse --fill nan L={L}",
                  skew_npy("-i", cp, "--mode", "causal", "--inverse", "--fill", "nan"),
                  np.where(band, np_causal_inv(c), np.float32(np.nan)))
        idx = skew_npy("--index-map", "-n", str(L))
        check(f"skew --index-map L={L}: <i4, gathers the bidir skew",
              idx.dtype == np.dtype("<i4") and np.array_equal(np.take_along_axis(r, idx, 1), np_bidir_fwd(r)))


def main():
    for test in (test_sinusoidal, test_formats_agree, test_learned, test_similarity_metrics,
                 test_similarity_stats, test_similarity_profile, test_similarity_png, test_png_pixels,
                 test_similarity_exact_hard, test_skew, test_bucket, test_similarity_query):
        try:
            test()
        except Exception as e:  # a crash counts as a failure, with its reason
            check(test.__name__, False, repr(e))
    print(f"numpy: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
