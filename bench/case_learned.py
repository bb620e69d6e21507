import numpy as np


def moments(a_path, b_path):
    """Both files as float32: the sample mean and standard deviation of each."""
    a = np.fromfile(a_path, dtype="<f4")
    b = np.fromfile(b_path, dtype="<f4")
    return (f"mean {a.mean():.2e} / {b.mean():.2e}, std {a.std():.6f} / {b.std():.6f} "
            f"({a.size} / {b.size} values)")


CASES = [
    dict(name="generate learned --preset gpt2 -n 65536 -d 1024 -f raw vs NumPy standard_normal",
         posenc=["generate", "learned", "--preset", "gpt2", "-n", "65536", "-d", "1024", "-f", "raw",
                 "-o", "{out}"],
         ref=["np_learned.py", "65536", "1024", "{out}"],
         compare=moments),
]
