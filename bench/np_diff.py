"""What a user writes without posenc to compare two tables: load both npy
files, then the largest abs, rel and ulp errors, where the largest abs
error is and how many values differ, with NumPy, written as JSON.
Usage: np_diff.py A.npy B.npy OUT.json"""
import json
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
d = np.abs(a - b)
i = int(np.argmax(d))
with np.errstate(divide="ignore", invalid="ignore"):
    r = d / np.abs(b)


def key(x):
    k = x.view(np.int32).astype(np.int64)
    return np.where(k < 0, -(k & 0x7FFFFFFF), k)


u = np.abs(key(a) - key(b))
out = {"max_abs": float(d.flat[i]), "where": [int(v) for v in np.unravel_index(i, d.shape)],
       "max_rel": float(np.nanmax(np.where(d == 0, 0, r))), "max_ulp": int(u.max()),
       "differ": int(np.count_nonzero(a != b))}
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
