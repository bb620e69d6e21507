"""What a user writes without posenc: T5's bidirectional bucket ids of an
L x L query/key grid, the vectorised formula (transformers' float32 log
branch) in NumPy, written as int32 with tofile.
Usage: np_bucket.py L OUT"""
import math
import sys

import numpy as np

L, out = int(sys.argv[1]), sys.argv[2]
nb, md = 32 // 2, 128
me = nb // 2
n = np.arange(L)[None, :] - np.arange(L)[:, None]   # key - query
ret = (n > 0) * nb
n = np.abs(n)
with np.errstate(divide="ignore"):
    large = me + (np.log(n.astype(np.float32) / me) / np.float32(math.log(md / me))
                  * (nb - me)).astype(np.int64)
ids = ret + np.where(n < me, n, np.minimum(large, nb - 1))
ids.astype(np.int32).tofile(out)
