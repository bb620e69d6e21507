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


def name(n, d, precision):
    return f"similarity cosine {n}x{d} -f raw ({precision})"


# issue 19 section 3: each precision against the script a user writes for
# it (exact: float64, bench/np_similarity64.py; float32: the float32 one),
# time <= 0.5 at both sizes; at 16384 rows peak memory <= 1/4 of the
# float32 script's, for both precisions (the 4096 peak goal was dropped:
# NumPy's import alone is 32 MiB)
def case(n, d, precision):
    return dict(name=name(n, d, precision),
                setup=table(n, d),
                posenc=["similarity", "-i", f"{{tmp}}/table-{n}x{d}.npy", "--precision",
                        precision, "-f", "raw", "-o", "{out}"],
                ref=["np_similarity64.py" if precision == "exact" else "np_similarity.py",
                     f"{{tmp}}/table-{n}x{d}.npy", "{out}"],
                compare=f32_absdiff, goal=0.5,
                peak_goal=0.25 if n == 16384 else None,
                peak_base=name(n, d, "float32"))


# float32 first: the exact case's peak goal is measured against its script
CASES = [case(4096, 1024, "float32"), case(4096, 1024, "exact"),
         case(16384, 1024, "float32"), case(16384, 1024, "exact")]
