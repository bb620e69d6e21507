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
  of the logarithm (math.log here, posenc's own log there).
"""
import io
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

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


def main():
    for test in (test_sinusoidal, test_formats_agree, test_learned):
        try:
            test()
        except Exception as e:  # a crash counts as a failure, with its reason
            check(test.__name__, False, repr(e))
    print(f"numpy: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
