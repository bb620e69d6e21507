import os

import numpy as np

L = 4096


def setup(tmp):
    """A seeded standard-normal L x (2L-1) float32 input, written once."""
    path = os.path.join(tmp, f"rel-{L}.npy")
    if not os.path.exists(path):
        np.save(path, np.random.default_rng(11).standard_normal((L, 2 * L - 1), dtype=np.float32))


def identical(a_path, b_path):
    """Both npy files load to the same shape, dtype and bits."""
    a, b = np.load(a_path), np.load(b_path)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"MISMATCH {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    same = np.array_equal(a.view(np.uint32), b.view(np.uint32))
    return "identical bits" if same else f"DIFFER in {int((a.view(np.uint32) != b.view(np.uint32)).sum())} values"


CASES = [dict(name=f"skew bidir {L}x{2 * L - 1} npy -> npy",
              setup=setup,
              posenc=["skew", "-i", f"{{tmp}}/rel-{L}.npy", "-f", "npy", "-o", "{out}"],
              ref=["np_skew.py", f"{{tmp}}/rel-{L}.npy", "{out}"],
              compare=identical)]
