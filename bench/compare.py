"""Output comparisons shared by the bench cases."""
import numpy as np


def f32_ulp(a_path, b_path, offset_a=0, offset_b=0):
    """Largest distance in float32 ulps between two raw little-endian files."""
    a = np.fromfile(a_path, dtype="<f4", offset=offset_a)
    b = np.fromfile(b_path, dtype="<f4", offset=offset_b)
    if a.shape != b.shape:
        return f"SHAPE MISMATCH {a.shape} vs {b.shape}"
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    d = np.abs(ia - ib)
    return f"max {int(d.max())} ulp, {int((d > 0).sum())} of {d.size} differ"


def f32_absdiff(a_path, b_path):
    """Largest absolute difference between two raw little-endian float32 files."""
    a = np.fromfile(a_path, dtype="<f4").astype(np.float64)
    b = np.fromfile(b_path, dtype="<f4").astype(np.float64)
    if a.shape != b.shape:
        return f"SHAPE MISMATCH {a.shape} vs {b.shape}"
    return f"largest difference {np.nanmax(np.abs(a - b)):.2g}"  # no "|": a table cell
