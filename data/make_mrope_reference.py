#!/usr/bin/env python3
"""Regenerate data/mrope-*.csv: the float32 cos and sin that transformers'
Qwen2-VL text rotary module (Qwen2VLRotaryEmbedding, 5.18) computes, as
PyTorch without MKL runs it on AVX2 (SLEEF's vector cos/sin): the reference
for `posenc generate mrope --precision float32 --torch-cpu avx2 --torch-vml
sleef`, where which vector lanes share a SLEEF call decides some values.

Debian has no transformers, so the module's forward is written out here with
the same tensor operations in the same order: inv_freq = 1 / (base **
(arange(0, dim, 2).float() / dim)); freqs = (inv_freq[None, None, :, None]
expanded to (3, 1, dim/2, 1)) @ (position_ids[:, :, None, :].float()), then
transposed; cos() and sin() of that (3, 1, N, dim/2) view; the frequencies
split by mrope_section, chunk i from stream i % 3, concatenated, then
cat((f, f)).  The position ids are seeded random integers in [0, 4096): the
module takes any.  Head dim 16, mrope_section [2, 3, 3], theta 10000, 200
tokens, one torch thread (two give the same bytes: 4,800 elements, two
chunks of at::parallel_for).

Run once with Debian's python3-torch (1.13): /usr/bin/python3
data/make_mrope_reference.py.  Not needed to build or test posenc.
"""
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
N, DIM, BASE, SECTION = 200, 16, 10000.0, [2, 3, 3]

ids = np.random.default_rng(1).integers(0, 4096, size=(3, N))
with open(os.path.join(HERE, "mrope-ids-n200.csv"), "w") as f:
    for row in ids:
        f.write(",".join(str(int(v)) for v in row) + "\n")
position_ids = torch.from_numpy(ids.astype(np.int64))[:, None, :]

torch.set_num_threads(1)
inv_freq = 1.0 / (BASE ** (torch.arange(0, DIM, 2, dtype=torch.float) / DIM))
inv_expanded = inv_freq[None, None, :, None].float().expand(3, 1, -1, 1)
freqs = (inv_expanded @ position_ids[:, :, None, :].float()).transpose(2, 3)
for name, fn in (("cos", torch.cos), ("sin", torch.sin)):
    v = fn(freqs) * 1.0
    v = torch.cat([m[i % 3] for i, m in enumerate(v.split(SECTION, dim=-1))], dim=-1)
    v = torch.cat((v, v), dim=-1)[0]
    assert v.dtype == torch.float32
    with open(os.path.join(HERE, "mrope-qwen2-vl-sleef-avx2-%s.csv" % name), "w") as f:
        for row in v.numpy():
            f.write(",".join(str(x) for x in row) + "\n")
