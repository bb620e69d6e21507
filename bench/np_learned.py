"""What a user writes without posenc for a GPT-2-style learned table:
N(0, 0.02^2) with NumPy's fastest generator (PCG64 + ziggurat, float32),
saved with tofile.  Different random numbers from posenc's (Philox + the
polar method, in double): the case compares speed, and the check only the
sample's moments.  Usage: np_learned.py N D OUT"""
import sys

import numpy as np

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
(np.random.default_rng(0).standard_normal((n, d), dtype=np.float32) * np.float32(0.02)).tofile(out)
