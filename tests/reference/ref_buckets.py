"""Relative-position buckets: T5's, DeBERTa-v2's and Swin's (and BEiT's)
own code against `posenc bucket`.  Rule: bit-identical ids (int32), and
bit-identical gathered biases (a gather moves float32 values unchanged).

T5: the ids come out of T5Attention.compute_bias itself, its bias table
set to weight[b, h] = b, so the sign convention (key - query), the encoder's
bidirectional and the decoder's causal buckets are the module's own; the
distances form calls T5Attention._relative_position_bucket (float32 torch
log) on -300000..300000.  DeBERTa-v2: build_relative_position and
make_log_bucket_position.  Swin: the relative_position_index buffer of
SwinRelativePositionBias and Swinv2SelfAttention; BEiT (--cls-token):
BeitRelativePositionBias.generate_relative_position_index.
"""

import numpy as np

import common
from common import both, np32, same_bits

DMAX = 300000


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    def t5_attention(decoder, nb, md, heads=4):
        cfg = T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=32, num_layers=1, num_heads=heads,
                       relative_attention_num_buckets=nb, relative_attention_max_distance=md,
                       is_decoder=decoder)
        return T5Attention(cfg, has_relative_attention_bias=True, layer_idx=0)

    t5_sets = [(False, 32, 128, 512), (True, 32, 128, 300), (False, 64, 256, 400), (True, 16, 64, 200),
               (False, 4, 5, 64), (True, 3, 4, 50), (False, 100, 1000, 300), (True, 128, 100000, 256)]
    for decoder, nb, md, L in t5_sets:
        mode = "--causal" if decoder else "--bidirectional"

        def ids(decoder=decoder, nb=nb, md=md, L=L, mode=mode):
            att = t5_attention(decoder, nb, md)
            w = att.relative_attention_bias.weight
            w.copy_(torch.arange(nb, dtype=torch.float32)[:, None].expand_as(w))
            lib = att.compute_bias(L, L)[0, 0].numpy().astype(np.int32)
            got = g.npy("bucket", "--scheme", "t5", mode, "--num-buckets", nb, "--max-distance", md, "-n", L)
            return same_bits("ids", got, lib)
        g.check("t5 compute_bias ids %s buckets=%d max_distance=%d L=%d" % (mode[2:], nb, md, L), ids)

        def dist(decoder=decoder, nb=nb, md=md, mode=mode):
            rel = torch.arange(-DMAX, DMAX + 1)
            lib = T5Attention._relative_position_bucket(rel, bidirectional=not decoder, num_buckets=nb,
                                                        max_distance=md).numpy().astype(np.int32)
            got = g.npy("bucket", "--scheme", "t5", mode, "--num-buckets", nb, "--max-distance", md,
                        "--distances", "%d:%d" % (-DMAX, DMAX + 1))
            return both(same_bits("distances", got[:, 0], rel.numpy().astype(np.int32)),
                        same_bits("buckets", got[:, 1], lib))
        g.check("t5 _relative_position_bucket %s buckets=%d max_distance=%d, distances +-%d"
                % (mode[2:], nb, md, DMAX), dist)

    # the bias gathered by the ids: posenc bucket --bias against compute_bias
    for decoder, nb, md, L, heads in ((False, 32, 128, 200, 8), (True, 32, 128, 100, 6)):
        def bias(decoder=decoder, nb=nb, md=md, L=L, heads=heads):
            att = t5_attention(decoder, nb, md, heads)
            torch.manual_seed(0)
            att.relative_attention_bias.weight.normal_()
            table = g.path("bias.npy")
            np.save(table, np32(att.relative_attention_bias.weight))
            lib = np32(att.compute_bias(L, L)[0])
            mode = "--causal" if decoder else "--bidirectional"
            got = g.npy("bucket", "--scheme", "t5", mode, "--num-buckets", nb, "--max-distance", md,
                        "-n", L, "--bias", table)
            one = g.npy("bucket", "--scheme", "t5", mode, "--num-buckets", nb, "--max-distance", md,
                        "-n", L, "--bias", table, "--head", heads - 1)
            return both(same_bits("bias", got, lib), same_bits("head %d" % (heads - 1), one, lib[heads - 1]))
        g.check("t5 compute_bias = bucket --bias (%s, %d heads)" % ("decoder" if decoder else "encoder", heads), bias)

    # DeBERTa-v2/v3: query - key, signed log buckets
    from transformers.models.deberta_v2.modeling_deberta_v2 import build_relative_position, make_log_bucket_position
    for bs, mp, L in ((256, 512, 600), (128, 4096, 64), (64, 128, 300), (32, 1000, 200), (4, 8, 40), (2, 4, 20)):
        def ids(bs=bs, mp=mp, L=L):
            q = torch.zeros(L, 1)
            lib = build_relative_position(q, q, bucket_size=bs, max_position=mp)[0].numpy().astype(np.int32)
            got = g.npy("bucket", "--scheme", "deberta", "--bucket-size", bs, "--max-position", mp, "-n", L)
            return same_bits("ids", got, lib)
        g.check("deberta build_relative_position bucket_size=%d max_position=%d L=%d" % (bs, mp, L), ids)

        def dist(bs=bs, mp=mp):
            rel = torch.arange(-DMAX, DMAX + 1)
            lib = make_log_bucket_position(rel, bs, mp).numpy().astype(np.int32)
            got = g.npy("bucket", "--scheme", "deberta", "--bucket-size", bs, "--max-position", mp,
                        "--distances", "%d:%d" % (-DMAX, DMAX + 1))
            return both(same_bits("distances", got[:, 0], rel.numpy().astype(np.int32)),
                        same_bits("buckets", got[:, 1], lib))
        g.check("deberta make_log_bucket_position bucket_size=%d max_position=%d, distances +-%d" % (bs, mp, DMAX), dist)

    # Swin, Swin v2, BEiT
    from transformers import Swinv2Config
    from transformers.models.beit.modeling_beit import BeitRelativePositionBias
    from transformers.models.swin.modeling_swin import SwinRelativePositionBias
    from transformers.models.swinv2.modeling_swinv2 import Swinv2SelfAttention
    for h, w in ((7, 7), (1, 1), (2, 2), (3, 5), (12, 12), (8, 3)):
        N = h * w

        def swin(h=h, w=w, N=N):
            lib = SwinRelativePositionBias(2, (h, w)).relative_position_index.view(N, N).numpy().astype(np.int32)
            return same_bits("ids", g.npy("bucket", "--scheme", "swin", "--window", "%dx%d" % (h, w)), lib)
        g.check("swin relative_position_index %dx%d" % (h, w), swin)

        def swinv2(h=h, w=w, N=N):
            att = Swinv2SelfAttention(Swinv2Config(), 32, 2, [h, w])
            lib = att.relative_position_index.view(N, N).numpy().astype(np.int32)
            return same_bits("ids", g.npy("bucket", "--scheme", "swin", "--window", "%dx%d" % (h, w)), lib)
        g.check("swinv2 relative_position_index %dx%d" % (h, w), swinv2)

        def beit(h=h, w=w):
            lib = BeitRelativePositionBias.generate_relative_position_index((h, w)).numpy().astype(np.int32)
            got = g.npy("bucket", "--scheme", "swin", "--window", "%dx%d" % (h, w), "--cls-token")
            return same_bits("ids", got, lib)
        g.check("beit generate_relative_position_index %dx%d = --cls-token" % (h, w), beit)


if __name__ == "__main__":
    common.main(run)
