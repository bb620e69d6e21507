"""What a user writes without posenc: cosine similarity of a table's rows
with NumPy (float32 in, float32 out), written with tofile.
Usage: np_similarity.py TABLE.npy OUT"""
import sys

import numpy as np

x = np.load(sys.argv[1])
x = x / np.linalg.norm(x, axis=1, keepdims=True)
(x @ x.T).tofile(sys.argv[2])
