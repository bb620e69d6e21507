import json
import os
import subprocess
import sys

import numpy as np

N, D = 65536, 1024


def setup(tmp):
    """Two 65536 x 1024 float32 rotary cos tables (256 MiB each), written
    once: A from float64 angles, B from float32 ones (a port's pipeline);
    they differ in most values by a few ulps, more far out."""
    a_path, b_path = os.path.join(tmp, "diff-a.npy"), os.path.join(tmp, "diff-b.npy")
    if os.path.exists(a_path) and os.path.exists(b_path):
        return
    k = np.arange(D) % (D // 2)
    inv = 10000.0 ** (-2.0 * k / D)
    a = np.empty((N, D), np.float32)
    b = np.empty((N, D), np.float32)
    for r0 in range(0, N, 4096):
        p = np.arange(r0, r0 + 4096, dtype=np.float64)[:, None]
        a[r0:r0 + 4096] = np.cos(p * inv[None])
        b[r0:r0 + 4096] = np.cos(p.astype(np.float32) * inv.astype(np.float32)[None])
    np.save(a_path, a)
    np.save(b_path, b)


def same_numbers(posenc_out, ref_out):
    """posenc's JSON report (run once more, untimed) against the script's"""
    tmp = os.path.dirname(ref_out)
    p = subprocess.run([os.path.abspath(sys.argv[1]), "diff", os.path.join(tmp, "diff-a.npy"),
                        os.path.join(tmp, "diff-b.npy"), "-f", "json", "--no-diagnosis"],
                       capture_output=True)
    got, want = json.loads(p.stdout), json.load(open(ref_out))
    keys = ("max_abs", "where", "max_rel", "max_ulp", "differ")
    # the script's errors are float32 arithmetic, posenc's exact doubles
    got["max_abs"], got["max_rel"] = (float(np.float32(got["max_abs"])),
                                      float(np.float32(got["max_rel"])))
    bad = [k for k in keys if got[k] != want[k]]
    return "same " + ", ".join(keys) if not bad else "DIFFER in " + ", ".join(
        "%s %r vs %r" % (k, got[k], want[k]) for k in bad)


CASES = [dict(name=f"diff {N}x{D} npy vs npy (max abs/rel/ulp, where, count)",
              setup=setup,
              posenc=["diff", "{tmp}/diff-a.npy", "{tmp}/diff-b.npy", "-f", "json"],
              ref=["np_diff.py", "{tmp}/diff-a.npy", "{tmp}/diff-b.npy", "{out}"],
              exit_ok=(0, 1),
              compare=same_numbers,
              goal=0.5)]
