import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_ulp  # noqa: E402

CASES = [
    dict(name="generate sinusoidal -n 65536 -d 1024 -f raw",
         posenc=["generate", "sinusoidal", "-n", "65536", "-d", "1024", "-f", "raw", "-o", "{out}"],
         ref=["np_sinusoidal.py", "65536", "1024", "{out}"],
         compare=f32_ulp),
]
