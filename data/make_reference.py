#!/usr/bin/env python3
"""Regenerate data/*.csv: sinusoidal reference tables computed with NumPy in
float64 from the published formulas (written here independently of posenc's
C code), cast to float32 and printed with repr (shortest round-trip text).

Run with Debian's python3-numpy: /usr/bin/python3 data/make_reference.py
"""
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N, D = 32, 9


def table(preset):
    pos = np.arange(N + 2 if preset == "fairseq-pad1" else N, dtype=np.float64)[:, None]
    h = D // 2
    out = np.zeros((pos.shape[0], D))
    if preset in ("vaswani", "marian"):
        freq = 10000.0 ** (-2.0 * np.arange((D + 1) // 2) / D)
        s, c = np.sin(pos * freq), np.cos(pos * freq[: D // 2])
        if preset == "vaswani":
            out[:, 0::2], out[:, 1::2] = s, c
        else:
            out[:, : (D + 1) // 2], out[:, (D + 1) // 2:] = s, c
    else:
        if preset == "t2t":
            freq = np.exp(-np.arange(h) * math.log(1e4) / max(h - 1, 1))
        else:
            freq = np.exp(-np.arange(h) * math.log(1e4) / (h - 1))
        out[:, :h], out[:, h:2 * h] = np.sin(pos * freq), np.cos(pos * freq)
        if preset == "fairseq-pad1":
            out[1] = 0
    return out.astype(np.float32)


for preset in ("vaswani", "marian", "t2t", "fairseq-pad1"):
    t = table(preset)
    with open(os.path.join(HERE, f"sinusoidal-{preset}-n{N}-d{D}.csv"), "w") as f:
        for row in t:
            f.write(",".join(str(v) for v in row) + "\n")
