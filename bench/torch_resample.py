"""What a ViT user runs without posenc: timm's resample_abs_pos_embed
(its steps, as tests/reference/ref_resample.py follows them: timm itself
needs torchvision) on a pos_embed from an npy file, written with tofile.
Usage: torch_resample.py IN.npy H W H2 W2 K MODE ANTIALIAS OUT"""
import sys

import numpy as np
import torch
import torch.nn.functional as F

src, h, w, h2, w2, k, mode, aa, out = sys.argv[1:10]
h, w, h2, w2, k, aa = int(h), int(w), int(h2), int(w2), int(k), aa == "1"
torch.set_grad_enabled(False)
posemb = torch.from_numpy(np.load(src)).reshape(1, -1, np.load(src, mmap_mode="r").shape[-1])
prefix, grid = posemb[:, :k], posemb[:, k:]
d = grid.shape[-1]
grid = grid.float().reshape(1, h, w, d).permute(0, 3, 1, 2)
grid = F.interpolate(grid, size=(h2, w2), mode=mode, antialias=aa,
                     align_corners=None if mode == "nearest" else False)
grid = grid.permute(0, 2, 3, 1).reshape(1, -1, d)
torch.cat([prefix, grid], dim=1).numpy().tofile(out)
