"""What a video-diffusion user runs without posenc: diffusers' own
WanRotaryPosEmbed (head dim 128, patch (1, 2, 2), max_seq_len 1024, as Wan
2.1 builds it) on a latent of T x 2H x 2W, so a T x H x W token grid, on the
CPU; its cos table, (T H W) x 128 float32, written with tofile.  It prints
the forward's own time (perf_counter, after the imports) to stderr.
Usage: diffusers_axial.py T H W OUT"""
import sys
import time

import torch
from diffusers.models.transformers.transformer_wan import WanRotaryPosEmbed

t, h, w, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
torch.set_grad_enabled(False)
start = time.perf_counter()
rope = WanRotaryPosEmbed(128, (1, 2, 2), 1024)
cos, sin = rope(torch.empty(1, 1, t, 2 * h, 2 * w))
mid = time.perf_counter()
cos[0, :, 0].numpy().tofile(out)
print("module %.4f s, tofile %.4f s" % (mid - start, time.perf_counter() - mid), file=sys.stderr)
