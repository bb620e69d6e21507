#!/usr/bin/env python3
"""Regenerate data/sinusoidal-pytorch-tutorial-*.csv: the PositionalEncoding
buffer of the PyTorch tutorial (beginner_source/transformer_tutorial.py), a
float32 pipeline, as PyTorch itself computes it: the reference for
`posenc generate sinusoidal --precision float32`.

Run once with Debian's python3-torch (1.13): /usr/bin/python3
data/make_torch_reference.py.  Not needed to build or test posenc.
"""
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
D_MODEL, MAX_LEN = 64, 5000

# the tutorial's own lines (sequence-first buffer of shape (max_len, 1, d))
position = torch.arange(MAX_LEN).unsqueeze(1)
div_term = torch.exp(torch.arange(0, D_MODEL, 2) * (-math.log(10000.0) / D_MODEL))
pe = torch.zeros(MAX_LEN, 1, D_MODEL)
pe[:, 0, 0::2] = torch.sin(position * div_term)
pe[:, 0, 1::2] = torch.cos(position * div_term)
assert pe.dtype == torch.float32

for first in (0, 4000):
    rows = pe[first:first + 32, 0, :].numpy()
    with open(os.path.join(HERE, f"sinusoidal-pytorch-tutorial-p{first}-n32-d64.csv"), "w") as f:
        for row in rows:
            f.write(",".join(str(v) for v in row) + "\n")
