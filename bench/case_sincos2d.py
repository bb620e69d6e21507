import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_ulp  # noqa: E402

CASES = [
    dict(name="generate sincos2d --grid 256x256 -d 1024 -f raw (MAE)",
         posenc=["generate", "sincos2d", "--grid", "256x256", "-d", "1024", "-f", "raw",
                 "-o", "{out}"],
         ref=["np_sincos2d.py", "256", "256", "1024", "{out}"],
         compare=f32_ulp),
]
