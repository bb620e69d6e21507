"""A sinusoidal table as a viridis PNG, 1024 x 1024 and 4096 x 4096 (one
pixel per cell, --size N): posenc vs matplotlib.pyplot.imsave of the same
float32 table (bench/mpl_png.py).

The check decodes both PNGs (Pillow, which Debian's python3-matplotlib
depends on), crops posenc's heatmap (its rectangle is in the
posenc:heatmap text chunk; the image also has axis labels), and counts the
pixels that differ from matplotlib's (imsave writes RGBA; alpha is 255)
and how many colour-map steps apart the worst pair is."""
import json

import numpy as np

SIZES = (1024, 4096)


def heatmap_agreement(posenc_png, ref_png):
    from matplotlib import colormaps
    from PIL import Image

    with Image.open(posenc_png) as im:
        x, y, w, h = json.loads(im.info["posenc:heatmap"])["heatmap"]
        ours = np.asarray(im.convert("RGB"))[y:y + h, x:x + w].astype(np.int64)
    with Image.open(ref_png) as im:
        ref = np.asarray(im.convert("RGBA")).astype(np.int64)
    if ours.shape[:2] != ref.shape[:2]:
        return f"SHAPE MISMATCH {ours.shape[:2]} vs {ref.shape[:2]}"
    if (ref[..., 3] != 255).any():
        return "reference has transparent pixels"
    ref = ref[..., :3]
    lut = colormaps["viridis"](np.arange(256), bytes=True)[:, :3].astype(np.int64)
    key = lambda a: (a[..., 0] << 16) | (a[..., 1] << 8) | a[..., 2]  # noqa: E731
    index = {int(k): i for i, k in enumerate(key(lut))}
    differ = (ours != ref).any(axis=-1)
    n = int(differ.sum())
    steps = 0
    if n:
        a = np.array([index.get(int(k), -999) for k in key(ours[differ])])
        b = np.array([index.get(int(k), 999) for k in key(ref[differ])])
        steps = int(np.abs(a - b).max())
    same = 100.0 * (differ.size - n) / differ.size
    return f"{same:.4f}% pixels identical ({n} of {differ.size} differ, at most {steps} colour steps)"


CASES = [
    dict(name=f"generate sinusoidal -n {n} -d {n} -f png (viridis) vs plt.imsave",
         posenc=["generate", "sinusoidal", "-n", str(n), "-d", str(n), "-f", "png",
                 "--no-colorbar", "--size", str(n), "-o", "{out}"],
         ref=["mpl_png.py", str(n), str(n), "{out}"],
         compare=heatmap_agreement,
         # the goal is for 4096 x 4096
         goal=0.25 if n == 4096 else None)
    for n in SIZES
]
