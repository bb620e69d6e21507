import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_absdiff  # noqa: E402


def vit_l(tmp):
    """A ViT-L/14 pos_embed at 224 (cls + 16 x 16, 1024 wide), and a big
    64 x 64 grid (cls + 4096 rows of 768)."""
    rng = np.random.default_rng(0)
    np.save(os.path.join(tmp, "vitl.npy"), (rng.standard_normal((1, 257, 1024)) * 0.02).astype(np.float32))
    np.save(os.path.join(tmp, "big.npy"), (rng.standard_normal((1, 4097, 768)) * 0.02).astype(np.float32))


CASES = [
    dict(name="resample ViT-L/14 16x16+1 -> 37x37 (518 px) bicubic --antialias -f raw",
         setup=vit_l,
         posenc=["resample", "-i", "{tmp}/vitl.npy", "--to", "37x37", "--antialias", "-f", "raw", "-o", "{out}"],
         ref=["torch_resample.py", "{tmp}/vitl.npy", "16", "16", "37", "37", "1", "bicubic", "1", "{out}"],
         compare=f32_absdiff),
    dict(name="resample 64x64+1 -> 256x256 bicubic, D 768 -f raw",
         setup=vit_l,
         posenc=["resample", "-i", "{tmp}/big.npy", "--to", "256x256", "-f", "raw", "-o", "{out}"],
         ref=["torch_resample.py", "{tmp}/big.npy", "64", "64", "256", "256", "1", "bicubic", "0", "{out}"],
         compare=f32_absdiff),
]
