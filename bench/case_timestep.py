import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_absdiff  # noqa: E402

CASES = [
    dict(name="generate timestep --preset sd (1000 x 320) -f raw, exact",
         posenc=["generate", "timestep", "--preset", "sd", "-f", "raw", "-o", "{out}"],
         ref=["torch_timestep.py", "1000", "320", "1", "0", "{out}"],
         compare=f32_absdiff),
    dict(name="generate timestep --preset sd -n 200000 -f raw, exact",
         posenc=["generate", "timestep", "--preset", "sd", "-n", "200000", "-f", "raw", "-o", "{out}"],
         ref=["torch_timestep.py", "200000", "320", "1", "0", "{out}"],
         compare=f32_absdiff),
    dict(name="generate timestep --preset sd -n 200000 -f raw --precision float32",
         posenc=["generate", "timestep", "--preset", "sd", "-n", "200000", "-f", "raw",
                 "--precision", "float32", "-o", "{out}"],
         ref=["torch_timestep.py", "200000", "320", "1", "0", "{out}"],
         compare=f32_absdiff),
]
