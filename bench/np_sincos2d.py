"""What a ViT user writes without posenc: MAE's 2-D sin-cos table
(get_2d_sincos_pos_embed, written out here in its NumPy form: float64, the
column coordinate's half first), cast to float32 and saved with tofile.
Usage: np_sincos2d.py H W D OUT"""
import sys

import numpy as np

h, w, d, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def axis(dim, pos):
    omega = 1.0 / 10000 ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))
    ang = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(ang), np.cos(ang)], axis=1)


cols, rows = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
emb = np.concatenate([axis(d // 2, cols), axis(d // 2, rows)], axis=1)
emb.astype(np.float32).tofile(out)
