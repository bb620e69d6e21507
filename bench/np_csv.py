"""What a user writes without posenc for a csv table: the Vaswani table in
float64, cast to float32, written with np.savetxt('%.9g', the precision that
always reads back).  Usage: np_csv.py N D OUT"""
import sys

import numpy as np
from vaswani import table

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pe = table(n, d)
np.savetxt(out, pe.astype(np.float32), fmt="%.9g", delimiter=",")
