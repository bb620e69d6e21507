"""The Vaswani table as a NumPy user computes it: float64, sin in the even
columns and cos in the odd ones (the reference scripts' shared part)."""
import numpy as np


def table(n, d):
    pos = np.arange(n, dtype=np.float64)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    angle = pos * freq
    pe = np.empty((n, d), dtype=np.float64)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe
