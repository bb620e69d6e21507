"""What a user writes without posenc: the Vaswani table in float64, cast to
float32 (as np_sinusoidal.py), saved as a viridis heatmap with
matplotlib.pyplot.imsave (colour range: the data's min and max, as posenc's
default).  Usage: mpl_png.py N D OUT"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from vaswani import table  # noqa: E402

n, d, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pe = table(n, d)
plt.imsave(out, pe.astype(np.float32), cmap="viridis", format="png")
