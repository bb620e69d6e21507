"""RoPE: transformers' rotary modules against `posenc generate rope
--from-config` (rope_cases.py lists the cases).

Per case and run:
  inv_freq f32   --precision float32 inv_freq against the module's inv_freq
                 buffer (after the forward: dynamic and longrope choose it
                 then): bit-identical.  transformers computes it in float32
                 tensor arithmetic; posenc emulates that pipeline.
  inv_freq exact the default (exact) inv_freq against the same buffer, within
                 relative 2^-23 (ln theta + 8): the float32 exponent 2i/d
                 carries relative error 2^-24, which theta^x turns into
                 ln(theta) 2^-24 (theta: the base used, dynamic's scaled one),
                 and each of at most 8 further float32 operations (pow,
                 reciprocal, scaling, blends) adds at most 1 ulp (2^-23
                 relative);
  attention      posenc's attention_factor (the safetensors metadata) equal
                 to the module's attention_scaling, a Python double;
  cos/sin exact  the exact tables against the module's float32 forward, within
                 A (|p inv| (e_inv + 2^-24) + 2^-22): the float32 angle
                 fl(p inv32) is off by |p inv| (e_inv + 2^-24) (e_inv the
                 inv_freq bound above), cos/sin in float32 add at most 1 ulp,
                 scaling by A and posenc's rounding half an ulp each.
The bit-identical float32 cos/sin are ref_rope_f32.py's.
"""

import math

import numpy as np

import common
from common import both, equal, np32, same_bits, within
from rope_cases import effective_theta, library, log_theta, posenc_args, run_cases


def inv_bound(theta):
    return 2.0 ** -23 * (log_theta(theta) + 8)


def run(g):
    import torch
    torch.set_grad_enabled(False)

    def body(name, case, cfg, cj, offset, n):
        lib = {}

        def get_lib():
            if not lib:
                lib.update(library(case, cfg, offset, n))
            return lib

        theta = effective_theta(case, cfg, offset, n)
        e_inv = inv_bound(theta)

        def inv_checks():
            f32, _ = g.tensors(*posenc_args(cj, offset, n), "--precision", "float32")
            ex, meta = g.tensors(*posenc_args(cj, offset, n))
            ref = get_lib()
            inv = np32(ref["inv"])
            return both(
                same_bits("inv_freq float32", f32.get("rope_inv_freq"), inv),
                within("inv_freq exact", ex.get("rope_inv_freq"), inv, e_inv * np.abs(inv.astype(np.float64)),
                       "relative 2^-23 (ln theta + 8) = %.3g" % e_inv),
                equal("attention factor", float(meta.get("attention_factor", "nan")), ref["att"]))

        def table_checks():
            ex, _ = g.tensors(*posenc_args(cj, offset, n))
            ref = get_lib()
            cos, sin = np32(ref["cos"]), np32(ref["sin"])
            A = ref["att"]
            R = cos.shape[-1]
            # |p inv| per element, from the library's inv_freq (GPT-J: its formula)
            if ref["inv"] is not None:
                inv = np32(ref["inv"]).astype(np.float64)
            else:
                inv = 10000.0 ** (-np.arange(0, R, 2) / R)
            if case.style == "module" and case.family != "cohere":
                inv_cols = np.concatenate([inv, inv])
            else:
                inv_cols = np.repeat(inv, 2)
            p = np.arange(offset, offset + n, dtype=np.float64)[:, None]
            bound = A * (np.abs(p * inv_cols[None, :]) * (e_inv + 2.0 ** -24) + 2.0 ** -22)
            rule = "A (|p inv| (e_inv + 2^-24) + 2^-22)"
            return both(within("cos exact", ex.get("rope_cos"), cos, bound, rule),
                        within("sin exact", ex.get("rope_sin"), sin, bound, rule))

        if case.style != "gptj":  # GPT-J keeps no inv_freq, only its tables
            g.check(name + " inv_freq", inv_checks)
        g.check(name + " cos/sin", table_checks)

    run_cases(g, body)


if __name__ == "__main__":
    common.main(run)
