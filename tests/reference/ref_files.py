"""Files: checkpoints transformers writes read by posenc, and posenc's outputs
read by the libraries and dropped into models.

Checkpoints: GPT-2, BERT and T5 models built from small configs (random
weights), saved by save_pretrained (model.safetensors) in float32, float16
and bfloat16.  For each, posenc must read exactly the tensor torch loads
(safetensors.torch.load_file, widened to float32, which is exact):
  --list         every tensor's name, dtype and shape as safetensors reports
                 them;
  read exactly   `posenc skew --inverse` of the square position table (the
                 configs make it square: positions = width) moves every value
                 read, unchanged, into its output (R[i][j - i + L - 1] =
                 A[i][j]); rule bit-identical;
  similarity     `posenc similarity -i model.safetensors --metric dot`, the
                 tensor chosen as posenc chooses it for GPT-2 and BERT (T5:
                 --tensor, its relative_attention_bias), against the
                 correctly rounded float32 of the exact dot products of the
                 rows torch loads (integer arithmetic, rounded once); rule
                 bit-identical;
  T5 bias        `posenc bucket --bias model.safetensors --tensor ...` against
                 the loaded model's own compute_bias (widened); bit-identical.
Outputs: posenc's npy and safetensors load with numpy.load and
safetensors.torch.load_file / safetensors.numpy.load_file, with the dtype
and shape of the buffer or parameter they replace (GPT-2 wpe, BERT
position_embeddings, a rotary module's inv_freq, ViT-MAE position_embeddings,
T5 bucket ids as indices), load_state_dict accepts them and the model holds
the same bits afterwards.
"""

import os
from fractions import Fraction

import numpy as np

import common
from common import both, equal, np32, same_bits

DTYPES = ("float32", "float16", "bfloat16")


def exact_dot32(x):
    """The correctly rounded float32 of every exact row-by-row dot product of
    the float32 matrix x (integer arithmetic)."""
    x = np.asarray(x, dtype=np.float64)
    m, e = np.frexp(x)                        # x = m 2^e, |m| in [0.5, 1)
    ints = (m * 2.0 ** 24).astype(np.int64)   # exact: float32 has 24 bits
    e = e - 24
    base = int(e.min())
    xi = np.empty(x.shape, dtype=object)
    for idx, v in np.ndenumerate(ints):
        xi[idx] = int(v) << int(e[idx] - base)
    s = xi.dot(xi.T)
    out = np.empty(s.shape, dtype=np.float32)
    scale = Fraction(1, 2 ** (-2 * base)) if base < 0 else Fraction(2 ** (2 * base))
    for idx, v in np.ndenumerate(s):
        out[idx] = round32_fraction(Fraction(int(v)) * scale)
    return out


def round32_fraction(q):
    c = np.float32(float(q))
    best = c
    for cand in (np.nextafter(c, np.float32(-np.inf)), np.nextafter(c, np.float32(np.inf))):
        dc, db = abs(Fraction(float(cand)) - q), abs(Fraction(float(best)) - q)
        if dc < db or (dc == db and int(np.float32(cand).view(np.uint32)) % 2 == 0):
            best = cand
    return best


def models():
    """(family, model, the position-like tensor's name, its module path)"""
    from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, T5Config, T5Model
    import torch
    torch.manual_seed(0)
    gpt2 = GPT2LMHeadModel(GPT2Config(n_positions=64, n_embd=64, n_layer=1, n_head=4, vocab_size=64))
    bert = BertModel(BertConfig(vocab_size=64, hidden_size=48, num_hidden_layers=1, num_attention_heads=4,
                                intermediate_size=32, max_position_embeddings=48))
    t5 = T5Model(T5Config(vocab_size=64, d_model=64, d_kv=2, d_ff=32, num_layers=1, num_decoder_layers=1,
                          num_heads=32, relative_attention_num_buckets=32))
    return [("gpt2", gpt2, "transformer.wpe.weight", None),
            ("bert", bert, "embeddings.position_embeddings.weight", None),
            ("t5", t5, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
             "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight")]


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from safetensors import safe_open
    from safetensors.torch import load_file

    for family, model, name, explicit in models():
        for dt in DTYPES:
            d = g.path("%s-%s" % (family, dt))
            model.to(getattr(torch, dt)).save_pretrained(d)
            st = os.path.join(d, "model.safetensors")
            tag = "%s %s" % (family, dt)

            def listing(st=st):
                with safe_open(st, "pt") as f:
                    want = sorted("%s\t%s\t[%s]" % (k, f.get_slice(k).get_dtype(),
                                                    ",".join(map(str, f.get_slice(k).get_shape())))
                                  for k in f.keys())
                got = sorted(common.posenc("similarity", "-i", st, "--list").decode().splitlines())
                return equal("--list (%d tensors)" % len(want), got, want)
            g.check("%s --list" % tag, listing)

            def exact_read(st=st, name=name):
                a = np32(load_file(st)[name].float())
                L = a.shape[0]
                r = g.npy("skew", "-i", st, "--tensor", name, "--inverse")
                if r.shape != (L, 2 * L - 1):
                    return False, "skew --inverse gave shape %s for %s" % (r.shape, a.shape)
                want = np.zeros((L, 2 * L - 1), np.float32)  # --fill 0 where no value lands
                i, j = np.indices((L, L))
                want[i, j - i + L - 1] = a
                return same_bits("%s %s, every value (skewed, zeros around)" % (name, a.shape), r, want)
            g.check("%s read exactly (skew --inverse)" % tag, exact_read)

            def similarity(st=st, name=name, explicit=explicit):
                a = np32(load_file(st)[name].float())
                args = ["similarity", "-i", st, "--metric", "dot"]
                if explicit:
                    args += ["--tensor", explicit]
                return same_bits("dot similarity of %s" % name, g.npy(*args), exact_dot32(a))
            g.check("%s similarity -i (dot, exact)" % tag, similarity)

            if family == "t5":
                def t5_bias(d=d, st=st, name=name, dt=dt):
                    from transformers import T5Model
                    m = T5Model.from_pretrained(d, dtype=getattr(torch, dt))
                    L = 100
                    lib = np32(m.encoder.block[0].layer[0].SelfAttention.compute_bias(L, L)[0].float())
                    got = g.npy("bucket", "--scheme", "t5", "-n", L, "--bias", st, "--tensor", name)
                    return same_bits("gathered bias", got, lib)
                g.check("%s bucket --bias = compute_bias of the loaded model" % tag, t5_bias)
        model.to(torch.float32)

    # posenc's outputs into models
    from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel

    def into_gpt2():
        m = GPT2LMHeadModel(GPT2Config(n_positions=128, n_embd=64, n_layer=1, n_head=4, vocab_size=64))
        out = g.path("wpe.safetensors")
        common.posenc("generate", "learned", "--preset", "gpt2", "-n", 128, "-d", 64, "-o", out)
        t = load_file(out)
        (key, val), = t.items()
        cur = m.transformer.wpe.weight
        if val.shape != cur.shape or val.dtype != cur.dtype:
            return False, "tensor %r %s %s, wpe.weight %s %s" % (key, val.dtype, tuple(val.shape), cur.dtype,
                                                                  tuple(cur.shape))
        m.load_state_dict({"transformer.wpe.weight": val}, strict=False)
        m(torch.arange(10)[None])
        return same_bits("load_file -> transformer.wpe.weight (%s %s)" % (val.dtype, tuple(val.shape)),
                         np32(m.transformer.wpe.weight), np32(val))
    g.check("safetensors.torch.load_file -> GPT-2 wpe", into_gpt2)

    def into_bert():
        m = BertModel(BertConfig(vocab_size=64, hidden_size=48, num_hidden_layers=1, num_attention_heads=4,
                                 intermediate_size=32, max_position_embeddings=512))
        a = g.npy("generate", "learned", "--preset", "bert", "-n", 512, "-d", 48)
        t = torch.from_numpy(a)
        cur = m.embeddings.position_embeddings.weight
        if t.shape != cur.shape or t.dtype != cur.dtype:
            return False, "npy %s %s, position_embeddings %s %s" % (t.dtype, tuple(t.shape), cur.dtype, tuple(cur.shape))
        m.load_state_dict({"embeddings.position_embeddings.weight": t}, strict=False)
        m(torch.arange(10)[None])
        return same_bits("numpy.load -> embeddings.position_embeddings.weight (%s %s)" % (a.dtype, a.shape),
                         np32(m.embeddings.position_embeddings.weight), a)
    g.check("numpy.load -> BERT position_embeddings", into_bert)

    def into_rope():
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
        cfg = LlamaConfig(hidden_size=256, num_attention_heads=4, num_hidden_layers=1, intermediate_size=64,
                          vocab_size=64, rope_parameters=dict(rope_type="llama3", rope_theta=500000.0, factor=8.0,
                                                              low_freq_factor=1.0, high_freq_factor=4.0,
                                                              original_max_position_embeddings=8192))
        d = g.path("llama")
        cfg.save_pretrained(d)
        rot = LlamaRotaryEmbedding(cfg)
        npy = g.npy("generate", "rope", "--from-config", os.path.join(d, "config.json"), "--table", "inv-freq",
                    "--precision", "float32")
        st, meta = g.tensors("generate", "rope", "--from-config", os.path.join(d, "config.json"), "--table", "all",
                             "--precision", "float32", "-n", 16)
        t = torch.from_numpy(npy)
        if t.shape != rot.inv_freq.shape or t.dtype != rot.inv_freq.dtype:
            return False, "inv_freq npy %s %s, buffer %s %s" % (t.dtype, tuple(t.shape), rot.inv_freq.dtype,
                                                               tuple(rot.inv_freq.shape))
        rot.inv_freq.copy_(t)
        cos, _ = rot(torch.zeros(1), torch.arange(16)[None])
        return both(equal("safetensors tensors", sorted(st), ["rope_cos", "rope_inv_freq", "rope_sin"]),
                    equal("rope_cos shape, dtype", (st["rope_cos"].shape, str(st["rope_cos"].dtype)),
                          (tuple(cos.shape[1:]), "float32")),
                    same_bits("inv_freq buffer after copy_", np32(rot.inv_freq), npy))
    g.check("numpy.load -> LlamaRotaryEmbedding.inv_freq; safetensors tables", into_rope)

    def into_mae():
        from transformers import ViTMAEConfig, ViTMAEModel
        cfg = ViTMAEConfig(image_size=64, patch_size=16, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                           intermediate_size=32)
        m = ViTMAEModel(cfg)
        a = g.npy("generate", "sincos2d", "--grid", "4x4", "-d", 32, "--cls-token")
        t = torch.from_numpy(a).unsqueeze(0)
        cur = m.embeddings.position_embeddings
        if t.shape != cur.shape or t.dtype != cur.dtype:
            return False, "npy %s %s, position_embeddings %s %s" % (t.dtype, tuple(t.shape), cur.dtype, tuple(cur.shape))
        m.load_state_dict({"embeddings.position_embeddings": t}, strict=False)
        m(torch.zeros(1, 3, 64, 64))
        return same_bits("numpy.load -> embeddings.position_embeddings (1, %d, %d)" % a.shape,
                         np32(m.embeddings.position_embeddings[0]), a)
    g.check("numpy.load -> ViT-MAE position_embeddings", into_mae)

    def ids_as_index():
        from safetensors.numpy import load_file as np_load_file
        from transformers import T5Config
        from transformers.models.t5.modeling_t5 import T5Attention
        att = T5Attention(T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=32, num_layers=1, num_heads=4),
                          has_relative_attention_bias=True, layer_idx=0)
        ids = g.npy("bucket", "--scheme", "t5", "-n", 64)
        out = g.path("ids.safetensors")
        common.posenc("bucket", "--scheme", "t5", "-n", 64, "-o", out)
        sid = np_load_file(out)
        (key, val), = sid.items()
        bias = att.relative_attention_bias(torch.from_numpy(ids).long()).permute(2, 0, 1)
        return both(equal("npy dtype, shape", (str(ids.dtype), ids.shape), ("int32", (64, 64))),
                    same_bits("safetensors.numpy %r" % key, val, ids),
                    same_bits("embedding looked up by the ids", np32(bias), np32(att.compute_bias(64, 64)[0])))
    g.check("bucket ids (npy, safetensors) as T5's embedding indices", ids_as_index)


if __name__ == "__main__":
    common.main(run)
