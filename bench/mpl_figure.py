"""What a user writes for a figure without posenc: matplotlib with its
defaults at 100 dpi.  Usage:
  mpl_figure.py heatmap MATRIX.npy OUT FORMAT   imshow + colorbar + labels, savefig
  mpl_figure.py line CURVE.csv OUT FORMAT       plot of each column against the first
                                                (pandas reads the csv), legend, savefig"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

what, src, out, fmt = sys.argv[1:5]
fig, ax = plt.subplots()
if what == "heatmap":
    m = np.load(src)
    im = ax.imshow(m, cmap="magma", interpolation="nearest")
    fig.colorbar(im, ax=ax)
    ax.set_xlabel("position")
    ax.set_ylabel("position")
    ax.set_title("cosine similarity")
else:
    import pandas as pd
    d = pd.read_csv(src)
    x = d.columns[0]
    for c in d.columns[1:]:
        ax.plot(d[x].to_numpy(), d[c].to_numpy(), label=c)
    ax.set_xlabel(x)
    ax.legend()
    ax.set_title("a curve")
fig.savefig(out, format=fmt)
