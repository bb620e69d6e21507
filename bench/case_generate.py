import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_ulp  # noqa: E402

CASES = [
    dict(name="generate sinusoidal -n 65536 -d 1024 -f raw",
         goal=0.3,
         posenc=["generate", "sinusoidal", "-n", "65536", "-d", "1024", "-f", "raw", "-o", "{out}"],
         ref=["np_sinusoidal.py", "65536", "1024", "{out}"],
         compare=f32_ulp),
    # the same work without the disk: the computation alone
    dict(name="generate sinusoidal -n 65536 -d 1024 -f raw -o /dev/null",
         goal=0.1,
         posenc=["generate", "sinusoidal", "-n", "65536", "-d", "1024", "-f", "raw", "-o", "/dev/null"],
         ref=["np_sinusoidal.py", "65536", "1024", "/dev/null"]),
    # the disk's floor: dd writing the same 256 MiB in 1 MiB blocks (a
    # speed-up below 1 is posenc's time over dd's)
    dict(name="generate sinusoidal -n 65536 -d 1024 -f raw vs dd (256 MiB)",
         goal=1.5,
         posenc=["generate", "sinusoidal", "-n", "65536", "-d", "1024", "-f", "raw", "-o", "{out}"],
         ref=["dd", "if=/dev/zero", "of={out}", "bs=1M", "count=256", "status=none"]),
]
