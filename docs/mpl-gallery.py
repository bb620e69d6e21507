#!/usr/bin/env python3
"""Draw matplotlib's rendering of the gallery's data, for the side-by-side
pairs in docs/gallery.md: the same values (read from posenc's npy and csv
output), matplotlib's defaults, at 100 dpi.

    python3 docs/mpl-gallery.py [POSENC [OUT]]      (OUT: docs/img/mpl)

Run from the repository root after `make`."""
import os
import subprocess
import sys
import tempfile

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

posenc = sys.argv[1] if len(sys.argv) > 1 else "./posenc"
out = sys.argv[2] if len(sys.argv) > 2 else "docs/img/mpl"
os.makedirs(out, exist_ok=True)
tmp = tempfile.mkdtemp()


def npy(name, *args):
    path = os.path.join(tmp, name)
    subprocess.run([posenc, *args, "-f", "npy", "-o", path], check=True)
    return np.load(path)


def heatmap(data, path, cmap="viridis", xlabel=None, ylabel=None, title=None):
    fig, ax = plt.subplots()
    im = ax.imshow(data, cmap=cmap, interpolation="nearest", aspect="equal")
    fig.colorbar(im, ax=ax)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    fig.savefig(path)
    plt.close(fig)


heatmap(npy("sin.npy", "generate", "sinusoidal", "-n", "256", "-d", "128"),
        os.path.join(out, "sinusoidal.png"), xlabel="dimension", ylabel="position")
heatmap(npy("wc.npy", "similarity", "sinusoidal", "--preset", "wang-chen"),
        os.path.join(out, "wang-chen.png"), cmap="magma", xlabel="position", ylabel="position")

# three similarity matrices side by side, each its own scale
mats = [npy("p1.npy", "similarity", "sinusoidal"),
        npy("p2.npy", "similarity", "rope", "-n", "512", "-d", "64", "--table", "cos"),
        npy("p3.npy", "similarity", "learned", "--preset", "gpt2", "-n", "512", "-d", "768")]
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for ax, m, t in zip(axes, mats, ["sinusoid", "RoPE cos table", "GPT-2 initialisation"]):
    im = ax.imshow(m, cmap="magma", interpolation="nearest")
    fig.colorbar(im, ax=ax)
    ax.set_title(t)
fig.savefig(os.path.join(out, "three-tables.png"))
plt.close(fig)

# the profile of the sinusoid's similarity
prof = os.path.join(tmp, "prof.csv")
subprocess.run([posenc, "similarity", "sinusoidal", "--profile", "-o", prof], check=True)
d = np.loadtxt(prof, delimiter=",", skiprows=1)
fig, ax = plt.subplots()
ax.plot(d[:, 0], d[:, 1], label="mean")
ax.fill_between(d[:, 0], d[:, 1] - d[:, 2], d[:, 1] + d[:, 2], alpha=0.25, label="\u00b1 std")
ax.set_xlabel("offset (positions)")
ax.set_ylabel("cosine similarity")
ax.legend()
fig.suptitle("cosine similarity by offset, 512 positions")
fig.savefig(os.path.join(out, "profile.png"))
plt.close(fig)

# T5's buckets against the distance, as steps
bd = os.path.join(tmp, "bd.csv")
subprocess.run([posenc, "bucket", "--distances", "-150:150", "-o", bd], check=True)
d = np.loadtxt(bd, delimiter=",")
fig, ax = plt.subplots()
ax.step(d[:, 0], d[:, 1], where="post")
ax.set_xlabel("distance (key - query)")
ax.set_ylabel("bucket")
fig.suptitle("t5 buckets by relative distance, -150 to 149")
fig.savefig(os.path.join(out, "bucket-distances.png"))
plt.close(fig)
