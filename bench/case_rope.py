import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_ulp  # noqa: E402

CASES = [
    dict(name="generate rope --table cos -n 131072 -d 128 -f raw",
         goal=0.15,
         posenc=["generate", "rope", "--table", "cos", "-n", "131072", "-d", "128", "-f", "raw",
                 "-o", "{out}"],
         ref=["np_rope.py", "131072", "128", "1.0", "{out}"],
         compare=f32_ulp),
    dict(name="generate rope --table cos -n 131072 -d 128 --partial-rotary-factor 0.5 -f raw",
         posenc=["generate", "rope", "--table", "cos", "-n", "131072", "-d", "128",
                 "--partial-rotary-factor", "0.5", "-f", "raw", "-o", "{out}"],
         ref=["np_rope.py", "131072", "128", "0.5", "{out}"],
         compare=f32_ulp),
]
