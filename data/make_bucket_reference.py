#!/usr/bin/env python3
"""Reference bucket ids from PyTorch, for tests/unit/test_bucket.c.

Writes data/buckets-t5.txt and data/buckets-deberta.txt: for each parameter
set, the distances d in [-DMAX, DMAX] where the id changes (and the first),
as "d:id" pairs, one parameter set per line:
    t5 BIDIRECTIONAL NUM_BUCKETS MAX_DISTANCE: d:id d:id ...
    deberta BUCKET_SIZE MAX_POSITION: d:id d:id ...
The ids are computed with PyTorch float32 tensors, operation by operation
as transformers' T5Attention._relative_position_bucket and DeBERTa-v2's
make_log_bucket_position do (written here from those functions'
formulas).  Run with /usr/bin/python3 (PyTorch 1.13,
Debian's python3-torch).
"""
import math
import os

import torch

DMAX = 300000
HERE = os.path.dirname(os.path.abspath(__file__))


def t5(rel, bidirectional, num_buckets, max_distance):
    ret = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        ret += (rel > 0).to(torch.long) * num_buckets
        n = torch.abs(rel)
    else:
        n = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    # the log branch in float32; a Python float constant; truncation to long
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return ret + torch.where(n < max_exact, n, large)


def deberta(rel, bucket_size, max_position):
    mid = bucket_size // 2
    sign = torch.sign(rel)
    a = torch.where((rel < mid) & (rel > -mid), torch.tensor(mid - 1).type_as(rel), torch.abs(rel))
    den = torch.log(torch.tensor((max_position - 1) / mid))   # a float32 0-d tensor
    logpos = torch.ceil(torch.log(a / mid) / den * (mid - 1)) + mid
    return torch.where(a <= mid, rel.type_as(logpos), logpos * sign).to(torch.long)


def changes(ids):
    d = torch.arange(-DMAX, DMAX + 1)
    keep = torch.ones_like(ids, dtype=torch.bool)
    keep[1:] = ids[1:] != ids[:-1]
    return " ".join(f"{a}:{b}" for a, b in zip(d[keep].tolist(), ids[keep].tolist()))


def main():
    rel = torch.arange(-DMAX, DMAX + 1)
    with open(os.path.join(HERE, "buckets-t5.txt"), "w") as f:
        for bidir in (1, 0):
            for nb in (2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 30, 32, 33, 48, 64, 100, 128, 256):
                for md in (2, 3, 5, 8, 16, 20, 50, 100, 128, 200, 256, 500, 1000, 4096, 100000):
                    me = (nb // 2 if bidir else nb) // 2
                    if (bidir and nb % 2) or me < 1 or md <= me:
                        continue
                    f.write(f"t5 {bidir} {nb} {md}: {changes(t5(rel, bidir, nb, md))}\n")
    with open(os.path.join(HERE, "buckets-deberta.txt"), "w") as f:
        for bs in (2, 3, 4, 6, 8, 16, 32, 64, 100, 128, 256):
            for mp in (4, 8, 64, 256, 512, 513, 1000, 4096, 100000):
                if mp - 1 <= bs // 2 or mp < bs:
                    continue
                f.write(f"deberta {bs} {mp}: {changes(deberta(rel, bs, mp))}\n")


if __name__ == "__main__":
    main()
