"""ALiBi: BLOOM's and Falcon's build_alibi_tensor and MPT's
build_mpt_alibi_tensor against `posenc generate alibi`.

BLOOM (+m j per key, the same for every query) is posenc's --form bloom;
MPT's row m (j - (L-1)) is the last query row of posenc's --form causal
(-m (i - j)); both libraries' slopes are posenc's --table slopes (MPT's
with --alibi-bias-max).

Rules.  The libraries compute the slopes in float32 (BLOOM: pow(2^(-8/c)
rounded to float32, k); MPT: 1 / pow(2, k B/N)) and multiply by the key
index in float32; posenc rounds the exact m and m j once.  Where every
slope is a power of two with an integer exponent (heads a power of two
dividing 8 for BLOOM, dividing B for MPT) both pipelines are exact:
bit-identical.  Otherwise within relative 2^-24 (k + 4): the float32 base
carries relative error 2^-24, raised to the power k it becomes k 2^-24;
pow, the reciprocal, the product with j and posenc's rounding add at most an
ulp each (4 2^-24 together, a float32 ulp being at most 2^-23 relative).
Falcon's copy multiplies in bfloat16 (`slopes.bfloat16() * arange`): two
more roundings to 8 significant bits, 2^-8 relative each, so its bound is
relative 2^-7 + 2^-24 (k + 4) (bit-identical still where the slopes are
powers of two and the key indices below 256).
"""

import numpy as np

import common
from common import both, np32, same_bits, within


def pow2_exact(heads, bias_max):
    return heads & (heads - 1) == 0 and bias_max % heads == 0


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor as bloom_alibi
    from transformers.models.falcon.modeling_falcon import build_alibi_tensor as falcon_alibi
    from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

    def rel_rule(heads, k, extra=0.0):
        return "relative %s2^-24 (k + 4), k up to %d" % ("2^-7 + " if extra else "", k)

    for lib_name, fn, extra in (("bloom", bloom_alibi, 0.0), ("falcon", falcon_alibi, 2.0 ** -7)):
        for heads, L in ((8, 64), (1, 16), (4, 100), (16, 64), (12, 48), (5, 33), (32, 16), (71, 24)):
            def check(fn=fn, heads=heads, L=L, extra=extra):
                lib = np32(fn(torch.ones(1, L, dtype=torch.long), heads, torch.float32))  # (heads, 1, L)
                got = g.npy("generate", "alibi", "--form", "bloom", "--heads", heads, "-n", L)
                slopes = g.npy("generate", "alibi", "--table", "slopes", "--heads", heads)
                lib_slopes = lib[:, 0, 1]  # m * 1
                want = np.broadcast_to(lib, (heads, L, L))
                if pow2_exact(heads, 8):
                    return both(same_bits("slopes", slopes, lib_slopes), same_bits("bias", got, want))
                # k: the power each head's slope is of its float32 base
                c = 1 << (heads.bit_length() - 1)
                k = np.concatenate([np.arange(1, c + 1), np.arange(1, 2 * (heads - c), 2)])[:heads]
                rel = 2.0 ** -24 * (k + 4) + extra
                return both(
                    within("slopes", slopes, lib_slopes, rel * np.abs(lib_slopes.astype(np.float64)),
                           rel_rule(heads, k.max(), extra)),
                    within("bias", got, want, rel[:, None, None] * np.abs(want.astype(np.float64)),
                           rel_rule(heads, k.max(), extra)))
            g.check("%s build_alibi_tensor heads=%d L=%d" % (lib_name, heads, L), check)

    # left padding: BLOOM counts keys over the real tokens only
    def padded():
        heads, L, pad = 8, 40, 7
        mask = torch.ones(1, L, dtype=torch.long)
        mask[0, :pad] = 0
        lib = np32(bloom_alibi(mask, heads, torch.float32))[:, 0, :]
        got = g.npy("generate", "alibi", "--form", "bloom", "--heads", heads, "-n", L - pad)[:, 0, :]
        return both(same_bits("padding keys", lib[:, :pad], np.zeros((heads, pad), np.float32)),
                    same_bits("real keys", got, lib[:, pad:]))
    g.check("bloom build_alibi_tensor left padding = -n L-pad", padded)

    for heads, L, bias_max in ((8, 64, 8), (16, 32, 8), (12, 40, 8), (6, 20, 16), (4, 10, 4), (3, 128, 8), (1, 5, 8)):
        def check(heads=heads, L=L, bias_max=bias_max):
            lib = np32(build_mpt_alibi_tensor(heads, L, alibi_bias_max=bias_max))[:, 0, :]  # (heads, L)
            got = g.npy("generate", "alibi", "--form", "causal", "--heads", heads, "-n", L,
                        "--alibi-bias-max", bias_max)[:, L - 1, :]
            slopes = g.npy("generate", "alibi", "--table", "slopes", "--heads", heads, "--alibi-bias-max", bias_max)
            lib_slopes = -lib[:, L - 2] if L > 1 else None
            if pow2_exact(heads, bias_max):
                return both(same_bits("slopes", slopes, lib_slopes), same_bits("last query row", got, lib))
            rel = 2.0 ** -24 * 5  # k = 1: MPT raises 2 to k B/N exactly, then pow, 1/x, the product, posenc
            return both(
                within("slopes", slopes, lib_slopes, rel * np.abs(lib_slopes.astype(np.float64)),
                       "relative 5 2^-24"),
                within("last query row", got, lib, rel * np.abs(lib.astype(np.float64)), "relative 5 2^-24"))
        g.check("mpt build_mpt_alibi_tensor heads=%d L=%d alibi_bias_max=%d" % (heads, L, bias_max), check)


if __name__ == "__main__":
    common.main(run)
