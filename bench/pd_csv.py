"""The pandas way to write a csv table: the Vaswani table in float64, cast
to float32 (as np_csv.py), DataFrame.to_csv without header or index.
Usage: pd_csv.py N D OUT"""
import sys

import numpy as np
import pandas as pd

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pos = np.arange(n, dtype=np.float64)[:, None]
freq = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
angle = pos * freq
pe = np.empty((n, d), dtype=np.float64)
pe[:, 0::2] = np.sin(angle)
pe[:, 1::2] = np.cos(angle)
pd.DataFrame(pe.astype(np.float32)).to_csv(out, header=False, index=False)
