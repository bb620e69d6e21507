"""Resampled position grids: `posenc resample` against PyTorch's
torch.nn.functional.interpolate, called as timm's resample_abs_pos_embed
calls it.

timm itself is not in this environment: its wheel imports torchvision
(timm/layers/create_norm.py, at `import timm`), which the pinned torch
cannot have beside it.  So `timm_resample` below follows timm 1.0.31's
function step by step (split off the prefix rows, cast to float32,
reshape [1, H, W, D] and permute to [1, D, H, W] -- a channels-last
tensor, which picks PyTorch's channels-last kernels --, interpolate with
size, mode, antialias and align_corners=False, permute and reshape back,
concatenate the prefix) and the result is PyTorch's own.

Rules, for grids square and not, growing and shrinking, each mode:
  nearest         bit-identical (values are copied; the index rule is
                  PyTorch's float32 one);
  bilinear,       within ulp/2 + (n_h + n_w + 1) 2^-24 S of PyTorch's
  bicubic         float32 result, S = sum |w_y w_x x| over a cell's taps
                  bounded by (sum |w|)^2 max|x| (sum |w| <= 1.4 for the
                  cubics, 1 for the triangle): posenc takes PyTorch's
                  float32 weights (--coords pytorch, the default) and sums
                  in double, PyTorch sums in float32;
  --coords exact  within ulp/2 + 2^-44 S of PyTorch's float64 interpolate
                  of the same table (coordinates and weights in double);
  prefix rows     bit-identical.
The weights themselves are checked bit for bit through one-hot inputs (each
output of F.interpolate of a one-hot row is one weight, exactly).
"""

import math

import numpy as np

import common
from common import both, same_bits, within

U = 2.0 ** -24
GRIDS = [((14, 14), (16, 16)), ((14, 14), (24, 24)), ((16, 16), (12, 12)), ((24, 24), (7, 7)),
         ((7, 10), (9, 13)), ((27, 27), (37, 37)), ((32, 32), (14, 14)), ((3, 8), (11, 2)),
         ((16, 9), (16, 20))]


def timm_resample(posemb, new_size, old_size, num_prefix_tokens, interpolation, antialias, f64=False):
    """timm 1.0.31 layers/pos_embed.py resample_abs_pos_embed, as written
    there (without its early return when nothing changes); f64: the same
    in float64 instead of its float32 cast."""
    import torch
    import torch.nn.functional as F
    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix, posemb = None, posemb
    embed_dim = posemb.shape[-1]
    orig_dtype = posemb.dtype
    posemb = posemb.double() if f64 else posemb.float()
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, antialias=antialias,
                           align_corners=None if interpolation == "nearest" else False)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim)
    posemb = posemb.to(orig_dtype)
    if posemb_prefix is not None:
        posemb = torch.cat([posemb_prefix, posemb], dim=1)
    return posemb


def taps(n_in, n_out, mode, aa):
    """Taps per output index along an axis (the bound's n)."""
    if mode == "nearest":
        return 1
    isz = 4 if mode == "bicubic" else 2
    if not aa or n_in == n_out:
        return isz
    support = isz / 2 * (n_in / n_out if n_in > n_out else 1)
    return 2 * math.ceil(support) + 1


def run(g):
    import torch
    torch.set_grad_enabled(False)
    gen = torch.Generator().manual_seed(23)
    D = 24

    for (h, w), (h2, w2) in GRIDS:
        for K in (1,) if (h, w) != (16, 9) else (0, 5):
            x = torch.randn(1, K + h * w, D, generator=gen) * 0.02
            path = g.path("pos_embed.npy")
            np.save(path, x.numpy())
            xmax = float(x.abs().max())
            for mode in ("nearest", "bilinear", "bicubic"):
                for aa in ((False,) if mode == "nearest" else (False, True)):
                    name = "%dx%d+%d -> %dx%d %s%s" % (h, w, K, h2, w2, mode, " antialias" if aa else "")
                    args = ["resample", "-i", path, "--grid", "%dx%d" % (h, w), "--to", "%dx%d" % (h2, w2),
                            "--prefix-tokens", K, "--interp", mode] + (["--antialias"] if aa else [])

                    def check(x=x, args=args, mode=mode, aa=aa, K=K, h=h, w=w, h2=h2, w2=w2, xmax=xmax):
                        lib = timm_resample(x, [h2, w2], [h, w], K, mode, aa)[0].numpy()
                        got = g.npy(*args)
                        pre = same_bits("prefix rows", got[:K], lib[:K]) if K else (True, "no prefix")
                        if mode == "nearest":
                            return both(pre, same_bits("grid", got[K:], lib[K:]))
                        sw = 1.4 if mode == "bicubic" else 1.0
                        S = sw * sw * xmax
                        n = taps(h, h2, mode, aa) + taps(w, w2, mode, aa)
                        bound = np.spacing(np.abs(lib[K:])) / 2 + (n + 1) * U * S
                        rule = "ulp/2 + %d 2^-24 S" % (n + 1)
                        worst = np.abs(got[K:].astype(np.float64) - lib[K:]).max() / xmax / U
                        ok, detail = within("grid", got[K:], lib[K:], bound, rule)
                        return both(pre, (ok, detail + "; worst %.2f 2^-24 max|x|" % worst))
                    g.check(name, check)

                    if mode == "nearest":
                        continue

                    def check_exact(x=x, args=args, mode=mode, aa=aa, K=K, h=h, w=w, h2=h2, w2=w2, xmax=xmax):
                        lib64 = timm_resample(x.double(), [h2, w2], [h, w], K, mode, aa, f64=True)[0].numpy()
                        got = g.npy(*args, "--coords", "exact")
                        sw = 1.4 if mode == "bicubic" else 1.0
                        bound = np.spacing(np.abs(got[K:])) / 2 + 2.0 ** -44 * sw * sw * xmax
                        return within("grid vs float64", got[K:], lib64[K:], bound, "ulp/2 + 2^-44 S")
                    g.check(name + ", --coords exact", check_exact)

    # the weights, bit for bit: a 1 x N grid of one-hot channels
    import torch.nn.functional as F

    def weights(mode, aa):
        bad = total = 0
        first = ""
        for n_in in range(2, 40, 3):
            for n_out in range(2, 40, 5):
                eye = np.eye(n_in, dtype=np.float32)
                path = g.path("eye.npy")
                np.save(path, eye)
                got = g.npy("resample", "-i", path, "--prefix-tokens", 0, "--grid", "1x%d" % n_in,
                            "--to", "1x%d" % n_out, "--interp", mode, *(["--antialias"] if aa else []))
                lib = F.interpolate(torch.from_numpy(eye).reshape(1, n_in, 1, n_in), size=(1, n_out), mode=mode,
                                    antialias=aa, align_corners=False)[0, :, 0, :].numpy().T
                d = int((got.view(np.uint32) != lib.view(np.uint32)).sum())
                if d and not first:
                    first = "; first at %d -> %d" % (n_in, n_out)
                bad += d
                total += lib.size
        return bad == 0, "%d of %d weights differ%s" % (bad, total, first)
    for mode in ("bilinear", "bicubic"):
        for aa in (False, True):
            g.check("weights %s%s bit for bit (one-hot rows, 2..38 -> 2..37)" % (mode, " antialias" if aa else ""),
                    weights, mode, aa)


if __name__ == "__main__":
    common.main(run)
