"""What a user writes for accurate values without posenc: cosine similarity
of a table's rows in float64 (the table widened, normalised, multiplied),
rounded to float32 and written with tofile; the peer of posenc's default
--precision exact.
Usage: np_similarity64.py TABLE.npy OUT"""
import sys

import numpy as np

x = np.load(sys.argv[1]).astype(np.float64)
x /= np.linalg.norm(x, axis=1, keepdims=True)
(x @ x.T).astype(np.float32).tofile(sys.argv[2])
