"""What a user writes without posenc: the bidirectional skew of relative
logits with NumPy's pad/reshape/slice (tensor2tensor's procedure), saved
with np.save.  Usage: np_skew.py R.npy OUT.npy"""
import sys

import numpy as np

r = np.load(sys.argv[1])
L = r.shape[0]
x = np.pad(r, ((0, 0), (0, 1))).reshape(-1)
x = np.pad(x, (0, L - 1)).reshape(L + 1, 2 * L - 1)
with open(sys.argv[2], "wb") as f:  # a name without .npy stays as given
    np.save(f, x[:L, L - 1:])
