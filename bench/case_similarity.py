import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_absdiff  # noqa: E402


def table(n, d):
    """A seeded standard-normal float32 table, as both sides' input."""
    def setup(tmp):
        path = os.path.join(tmp, f"table-{n}x{d}.npy")
        if not os.path.exists(path):
            np.save(path, np.random.default_rng(7).standard_normal((n, d), dtype=np.float32))
    return setup


def case(n, d, precision):
    return dict(name=f"similarity cosine {n}x{d} -f raw ({precision})",
                setup=table(n, d),
                posenc=["similarity", "-i", f"{{tmp}}/table-{n}x{d}.npy", "--precision",
                        precision, "-f", "raw", "-o", "{out}"],
                ref=["np_similarity.py", f"{{tmp}}/table-{n}x{d}.npy", "{out}"],
                compare=f32_absdiff, goal=0.5, peak_goal=0.25)


CASES = [case(4096, 1024, "exact"), case(4096, 1024, "float32"),
         case(16384, 1024, "exact"), case(16384, 1024, "float32")]
