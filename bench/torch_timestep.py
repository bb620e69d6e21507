"""What a diffusion user runs without posenc: diffusers'
get_timestep_embedding on N timesteps 0..N-1 (PyTorch CPU, float32),
written with tofile.  Usage: torch_timestep.py N D FLIP SHIFT OUT"""
import sys

import torch
from diffusers.models.embeddings import get_timestep_embedding

n, d, flip, shift, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", float(sys.argv[4]), sys.argv[5]
torch.set_grad_enabled(False)
emb = get_timestep_embedding(torch.arange(n), d, flip_sin_to_cos=flip, downscale_freq_shift=shift)
emb.numpy().tofile(out)
