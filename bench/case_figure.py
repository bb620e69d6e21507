"""Figures: posenc plot against the matplotlib script that draws the same
figure (bench/mpl_figure.py, matplotlib's defaults): a 1024 x 1024
similarity matrix read from npy as a heatmap with axes, labels and a colour
bar, to PNG and to PDF; a 100,000-point line chart of two series read from
a csv with a header, to PNG.  Both sides read the same file."""
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
N_POINTS = 100000


def setup(tmp):
    posenc = os.path.join(HERE, "..", "posenc")
    sim = os.path.join(tmp, "sim-1024.npy")
    if not os.path.exists(sim):
        subprocess.run([posenc, "similarity", "sinusoidal", "-n", "1024", "-d", "768",
                        "-f", "npy", "-o", sim], check=True)
    curve = os.path.join(tmp, "curve.csv")
    if not os.path.exists(curve):
        with open(curve, "w") as f:
            f.write("position,decay,wave\n")
            for i in range(N_POINTS):
                f.write(f"{i},{math.exp(-i / 20000):.6g},{math.sin(i / 300):.6g}\n")


def sizes(posenc_out, ref_out):
    return f"{os.path.getsize(posenc_out)} vs {os.path.getsize(ref_out)} bytes"


CASES = [
    dict(name=f"plot 1024 x 1024 similarity heatmap + colour bar to {fmt} vs imshow + colorbar + savefig",
         setup=setup,
         posenc=["plot", "{tmp}/sim-1024.npy", "--cmap", "magma", "--xlabel", "position",
                 "--ylabel", "position", "--title", "cosine similarity", "-f", fmt, "-o", "{out}"],
         ref=["mpl_figure.py", "heatmap", "{tmp}/sim-1024.npy", "{out}", fmt],
         compare=sizes, goal=0.2)
    for fmt in ("png", "pdf")
] + [
    dict(name=f"plot {N_POINTS:,}-point line chart (2 series, csv) to png vs pandas + plot + savefig",
         setup=setup,
         posenc=["plot", "{tmp}/curve.csv", "--title", "a curve", "-f", "png", "-o", "{out}"],
         ref=["mpl_figure.py", "line", "{tmp}/curve.csv", "{out}", "png"],
         compare=sizes, goal=0.2),
]
