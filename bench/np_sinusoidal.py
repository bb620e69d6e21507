"""What a user writes without posenc: the Vaswani table in float64, cast to
float32, written with tofile.  Usage: np_sinusoidal.py N D OUT"""
import sys

import numpy as np
from vaswani import table

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pe = table(n, d)
pe.astype(np.float32).tofile(out)
