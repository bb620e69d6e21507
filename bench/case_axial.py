import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_ulp  # noqa: E402

# issue 23: a 64 x 64 x 64 video table at most 0.2 of the time of the
# diffusers module computing it on the CPU (both write the cos table raw;
# diffusers computes in float64, posenc's exact default rounds the same
# values, so 0 ulp apart)
CASES = [
    dict(name="generate axial --preset wan --grid 64x64x64 -f raw (cos, 262144 x 128)",
         posenc=["generate", "axial", "--preset", "wan", "--grid", "64x64x64", "-f", "raw",
                 "-o", "{out}"],
         ref=["diffusers_axial.py", "64", "64", "64", "{out}"],
         compare=f32_ulp, goal=0.2),
]
