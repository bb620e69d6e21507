"""The pandas way to write a csv table: the Vaswani table in float64, cast
to float32 (as np_csv.py), DataFrame.to_csv without header or index.
Usage: pd_csv.py N D OUT"""
import sys

import numpy as np
from vaswani import table
import pandas as pd

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pe = table(n, d)
pd.DataFrame(pe.astype(np.float32)).to_csv(out, header=False, index=False)
