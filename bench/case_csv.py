import os

import numpy as np


def f32_text(a_path, b_path):
    """Both csv files read as float32: how many values differ, and the sizes."""
    a = np.loadtxt(a_path, delimiter=",", dtype=np.float32)
    b = np.loadtxt(b_path, delimiter=",", dtype=np.float32)
    if a.shape != b.shape:
        return f"SHAPE MISMATCH {a.shape} vs {b.shape}"
    d = int((a.view(np.uint32) != b.view(np.uint32)).sum())
    return (f"{d} of {a.size} values differ (NumPy's angle rounding); "
            f"{os.path.getsize(a_path)} vs {os.path.getsize(b_path)} bytes")


CASES = [
    dict(name="generate sinusoidal -n 4096 -d 1024 -f csv vs np.savetxt('%.9g')",
         goal=0.2,
         posenc=["generate", "sinusoidal", "-n", "4096", "-d", "1024", "-f", "csv", "-o", "{out}"],
         ref=["np_csv.py", "4096", "1024", "{out}"],
         compare=f32_text),
    dict(name="generate sinusoidal -n 4096 -d 1024 -f csv vs pandas to_csv",
         goal=0.15,
         posenc=["generate", "sinusoidal", "-n", "4096", "-d", "1024", "-f", "csv", "-o", "{out}"],
         ref=["pd_csv.py", "4096", "1024", "{out}"],
         compare=f32_text),
]
