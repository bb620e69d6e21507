"""What a user writes without posenc: the Hugging Face (half layout) RoPE cos
table in float64, cast to float32, written with tofile.
Usage: np_rope.py N HEAD_DIM PARTIAL_ROTARY_FACTOR OUT"""
import sys

import numpy as np

n, d, frac, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
r = int(d * frac)
inv_freq = 1.0 / (10000.0 ** (np.arange(0, r, 2, dtype=np.float64) / r))
freqs = np.outer(np.arange(n, dtype=np.float64), inv_freq)
emb = np.concatenate([freqs, freqs], axis=1)
np.cos(emb).astype(np.float32).tofile(out)
