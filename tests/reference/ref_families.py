"""Model families as transformers 5.18.0 builds them, against `posenc generate
rope --from-config`: every config copied in tests/reference/configs/ (real
models' config.json, or their RoPE fields; configs/SOURCES.md) and a config
of each family made with its own config class and save_pretrained (Gemma
2/3/3n/4, ModernBERT, OLMo 3, gpt-oss, Cohere 2, Qwen3, Llama 4, SmolLM3,
Phi-3, DeepSeek V2/V3, GPT-NeoX, Ministral 3, Mistral 4; Gemma 4's goes
through the per_layer_config save_pretrained writes for its full layers'
head dim), and one written by hand (Gemma 4 with global_head_dim).  transformers
reads the same config.json (AutoConfig), and its rotary module -- the
family's *RotaryEmbedding, built from the config, nothing downloaded -- is
run for every layer type with RoPE, as the model runs it.

Per config and layer type T (posenc's --layer-type T):
  inv_freq f32    --precision float32 against the module's inv_freq buffer
                  of T: bit-identical;
  attention       posenc's attention_factor (metadata) equal to the module's
                  attention_scaling;
  cos/sin f32     the float32 cos and sin of the module's forward, one value
                  per frequency (half or interleaved columns, gpt-oss's half
                  width, Llama 4's and DeepSeek-V2's complex torch.polar:
                  real and imaginary parts), against posenc's --precision
                  float32 tables in all four layouts posenc writes them:
                  rope_cos/rope_sin, ONNX Runtime's cos_cache and sin_cache
                  (--table ort-cos/ort-sin) and vLLM's cos_sin_cache
                  (--table vllm-cache): bit-identical;
  cos/sin exact   the exact tables against torch's float64 cos/sin of p
                  times posenc's own float64 inv_freq (--dtype float64, itself
                  within relative 2^-23 (ln theta + 8) of the float32 buffer):
                  within half a float32 ulp plus the float64 pipeline's
                  2^-52 (|p inv| + 1) A;
  --dtype         the float64 tables against the same torch float64 tables
                  (within 2^-52 (|p inv| + 1) A); the bfloat16 and float16
                  tables bit-identical to the nearest values of posenc's
                  float64 table: torch's .to(torch.bfloat16 / float16),
                  which rounds through float32, corrected where that rounds
                  twice (common.narrow_bits: a few values in 10^5, each
                  decided in exact arithmetic and counted in the line), and
                  float16 also NumPy's astype(float16), which rounds once;
                  the float32 pipeline's bfloat16 table bit-identical to
                  .to(torch.bfloat16) of the module's float32 forward
                  (vLLM's cache, one rounding from float32).
Per config:
  gguf-freqs      llama3 and longrope configs: llama.cpp's rope_freqs.weight
                  and rope_factors_long/short.weight as convert_hf_to_gguf.py
                  makes them (its torch steps, written out here) against
                  --precision float32: bit-identical; exact within 4 ulp;
  layers          posenc --layer K for layers across the model: its type
                  (metadata layer_type) is config.layer_types[K], and a NoPE
                  layer (Llama 4 and SmolLM3's no_rope_layers 0, Cohere 2's
                  full layers: read in their modeling code) is refused;
  query scale     Llama 4 (attn_temperature_tuning): the query of a NoPE
                  layer's Llama4TextAttention, captured by an attention
                  function registered with transformers' AttentionInterface
                  (hidden states and q_proj chosen so the projection is 1),
                  against --table attn-scale --precision float32:
                  bit-identical; the exact table against the formula at 60
                  digits (mpmath), correctly rounded.  Ministral 3 and
                  Mistral 4: modeling's get_llama_4_attn_scale of the
                  position ids, the same two ways.
Positions: 0..n-1 and a run further out where the family has one to test
(longrope beyond its switch).
"""

import glob
import importlib
import json
import math
import os
import shutil

import numpy as np

import common
from common import both, equal, np32, same_bits, within

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(glob.glob(os.path.join(HERE, "configs", "*.json")))


def _rp(rope_type, theta, **kw):
    return dict(rope_type=rope_type, rope_theta=theta, **kw)


def _small(**kw):
    d = dict(hidden_size=256, num_attention_heads=4, num_key_value_heads=2, head_dim=64,
             num_hidden_layers=8, intermediate_size=64, vocab_size=64)
    d.update(kw)
    return d


# (name, module, config class, kwargs, runs): small configs of each family,
# its rope as the family ships it
BUILT = [
    ("gemma2", "gemma2", "Gemma2Config", _small(rope_theta=10000.0), [(0, 1024)]),
    ("gemma3", "gemma3", "Gemma3TextConfig",
     _small(num_hidden_layers=12, rope_parameters={
         "full_attention": _rp("linear", 1000000.0, factor=8.0),
         "sliding_attention": _rp("default", 10000.0)}), [(0, 2048)]),
    ("gemma3n", "gemma3n", "Gemma3nTextConfig",
     _small(num_hidden_layers=10, num_kv_shared_layers=0, hidden_size_per_layer_input=8,
            laurel_rank=8, intermediate_size=[64] * 10, activation_sparsity_pattern=[0.0] * 10),
     [(0, 1024)]),
    ("gemma4", "gemma4", "Gemma4TextConfig",
     _small(num_hidden_layers=6, global_head_dim=128, num_global_key_value_heads=1), [(0, 1024)]),
    ("modernbert", "modernbert", "ModernBertConfig",
     dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=6, intermediate_size=64,
          vocab_size=64, global_rope_theta=160000.0, local_rope_theta=10000.0), [(0, 1024)]),
    ("olmo3", "olmo3", "Olmo3Config",
     _small(rope_scaling=dict(rope_type="yarn", factor=8.0, original_max_position_embeddings=8192),
            max_position_embeddings=65536), [(0, 2048)]),
    ("gpt_oss", "gpt_oss", "GptOssConfig",
     _small(num_local_experts=4, num_experts_per_tok=2), [(0, 2048), (130000, 72)]),
    ("cohere2", "cohere2", "Cohere2Config", _small(), [(0, 1024)]),
    ("qwen3-yarn", "qwen3", "Qwen3Config",
     _small(max_position_embeddings=131072, head_dim=128,
            rope_parameters=_rp("yarn", 1000000.0, factor=4.0, original_max_position_embeddings=32768)),
     [(0, 2048)]),
    ("llama4-scout", "llama4", "Llama4TextConfig",
     _small(head_dim=128, intermediate_size_mlp=64, max_position_embeddings=10485760,
            rope_parameters=_rp("llama3", 500000.0, factor=16.0, low_freq_factor=1.0,
                                high_freq_factor=1.0, original_max_position_embeddings=8192),
            floor_scale=100, attn_scale=0.1), [(0, 2048), (300000, 32)]),
    ("smollm3", "smollm3", "SmolLM3Config", _small(), [(0, 1024)]),
    ("phi3-longrope", "phi3", "Phi3Config",
     dict(hidden_size=384, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
          vocab_size=64, max_position_embeddings=131072, original_max_position_embeddings=4096,
          rope_parameters=_rp("longrope", 10000.0,
                              short_factor=[round(1.0 + 0.01 * i, 6) for i in range(48)],
                              long_factor=[round(1.0 + 0.8 * i, 6) for i in range(48)])),
     [(0, 4096), (0, 4200)]),
    ("deepseek_v2", "deepseek_v2", "DeepseekV2Config",
     dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
          moe_intermediate_size=32, vocab_size=64, kv_lora_rank=32, q_lora_rank=64,
          qk_rope_head_dim=32, qk_nope_head_dim=32, v_head_dim=32, n_routed_experts=4,
          num_experts_per_tok=2, max_position_embeddings=163840,
          rope_parameters=_rp("yarn", 10000.0, factor=40.0, mscale=0.707, mscale_all_dim=0.707,
                              beta_fast=32.0, beta_slow=1.0, original_max_position_embeddings=4096)),
     [(0, 2048)]),
    ("deepseek_v3", "deepseek_v3", "DeepseekV3Config",
     dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
          moe_intermediate_size=32, vocab_size=64, kv_lora_rank=32, q_lora_rank=64,
          qk_rope_head_dim=64, qk_nope_head_dim=32, v_head_dim=32, n_routed_experts=4,
          num_experts_per_tok=2, max_position_embeddings=163840,
          rope_parameters=_rp("yarn", 10000.0, factor=40.0, mscale=1.0, mscale_all_dim=1.0,
                              beta_fast=32.0, beta_slow=1.0, original_max_position_embeddings=4096)),
     [(0, 2048)]),
    ("gpt_neox", "gpt_neox", "GPTNeoXConfig",
     dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
          vocab_size=64, rotary_pct=0.25, rotary_emb_base=10000), [(0, 2048)]),
    ("ministral3", "ministral3", "Ministral3Config", _small(head_dim=128), [(0, 1024)]),
    ("mistral4", "mistral4", "Mistral4Config",
     dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
          moe_intermediate_size=32, vocab_size=64, kv_lora_rank=32, q_lora_rank=64,
          qk_rope_head_dim=64, qk_nope_head_dim=64, v_head_dim=64, n_routed_experts=4,
          num_experts_per_tok=2), [(0, 1024)]),
]

# config.json written by hand, as a model's repository may hold it (Gemma 4
# with global_head_dim and no per_layer_config: the class builds that)
RAW = [
    ("gemma4-global_head_dim", dict(model_type="gemma4_text", hidden_size=256, num_attention_heads=4,
                                    num_key_value_heads=2, head_dim=64, num_hidden_layers=6,
                                    intermediate_size=64, vocab_size=64, global_head_dim=256),
     [(0, 1024)]),
]

# runs for the copied configs (longrope on both sides of its switch)
FILE_RUNS = {"phi-3.5-mini-instruct.legacy.json": [(0, 4096), (0, 4097)]}


def modeling_of(cfg):
    return importlib.import_module(type(cfg).__module__.replace(".configuration_", ".modeling_"))


def rotary_class(cfg):
    m = modeling_of(cfg)
    names = [n for n in dir(m) if n.endswith("RotaryEmbedding") and "Vision" not in n]
    if not names:
        raise LookupError("%s has no rotary module" % m.__name__)
    return getattr(m, names[0])


def text_config(cfg):
    """The text model's config (a wrapper's text_config, built as its class
    when the wrapper keeps it as a dict)."""
    from transformers import CONFIG_MAPPING
    get = getattr(cfg, "get_text_config", None)
    t = get() if get else cfg
    if isinstance(t, dict):
        t = CONFIG_MAPPING[t["model_type"]](**t)
    return t if t is not None else cfg


def rope_types(cfg, rot):
    """The layer types with a RoPE of their own (None: one for every layer)."""
    if hasattr(rot, "rope_type") and isinstance(rot.rope_type, dict):
        return sorted(rot.rope_type)
    return [None]


def forward(rot, t, offset, n):
    import torch
    x = torch.zeros(1, dtype=torch.float32)
    pos = torch.arange(offset, offset + n)[None]
    return rot(x, pos, t) if t else rot(x, pos)


def per_freq(out, nf):
    """cos, sin of the module's output, one column per frequency."""
    import torch
    if not isinstance(out, tuple):  # complex freqs_cis (torch.polar)
        fc = out[0]
        return fc.real.contiguous(), fc.imag.contiguous(), "polar"
    cos, sin = out[0][0], out[1][0]
    w = cos.shape[-1]
    if w == nf:
        return cos, sin, "half-width"
    if w != 2 * nf:
        raise ValueError("the module's cos has %d columns for %d frequencies" % (w, nf))
    if torch.equal(cos[:, :nf], cos[:, nf:]) and torch.equal(sin[:, :nf], sin[:, nf:]):
        return cos[:, :nf], sin[:, :nf], "half"
    if torch.equal(cos[:, 0::2], cos[:, 1::2]) and torch.equal(sin[:, 0::2], sin[:, 1::2]):
        return cos[:, 0::2], sin[:, 0::2], "interleaved"
    raise ValueError("the module's cos columns pair neither as halves nor as neighbours")


def posenc_freq(table, layout):
    """posenc's cos/sin table, one column per frequency."""
    nf = table.shape[1] // 2
    return table[:, :nf] if layout == "half" else table[:, 0::2]


def run(g):
    import torch
    from transformers import AutoConfig
    torch.set_grad_enabled(False)
    vml = "mkl" if torch.backends.mkl.is_available() else "sleef"
    f32 = ["--precision", "float32", "--torch-vml", vml]

    def load(name, path):
        d = g.path(name)
        os.makedirs(d)
        shutil.copy(path, os.path.join(d, "config.json"))
        return AutoConfig.from_pretrained(d)

    def check_type(name, cfg, cj, t, offset, n):
        """The per-type checks of the docstring."""
        tname = "%s %s" % (name, t or "")
        where = ["--offset", offset, "-n", n] + (["--layer-type", t] if t else [])
        base = ["generate", "rope", "--from-config", cj] + where
        lib = {}

        def get_lib():
            if not lib:
                rot = rotary_class(cfg)(cfg)
                out = forward(rot, t, offset, n)
                inv = getattr(rot, "%s_inv_freq" % t) if t else rot.inv_freq
                att = getattr(rot, "%s_attention_scaling" % t) if t else rot.attention_scaling
                cos, sin, form = per_freq(out, inv.shape[0])
                lib.update(inv=np32(inv.clone()), att=float(att), cos=np32(cos), sin=np32(sin),
                           form=form)
            return lib

        def inv_and_attention():
            got, meta = g.tensors(*base, "--table", "all", *f32)
            ref = get_lib()
            return both(same_bits("inv_freq float32", got.get("rope_inv_freq"), ref["inv"]),
                        equal("attention factor", float(meta.get("attention_factor", "nan")), ref["att"]))

        def tables_f32():
            got, meta = g.tensors(*base, "--table", "all", *f32)
            ort_c, _ = g.tensors(*base, "--table", "ort-cos", *f32)
            ort_s, _ = g.tensors(*base, "--table", "ort-sin", *f32)
            vllm, _ = g.tensors(*base, "--table", "vllm-cache", *f32)
            ref = get_lib()
            nf = ref["cos"].shape[1]
            layout = meta.get("layout", "?")
            cs = vllm.get("cos_sin_cache")
            return both(
                same_bits("cos (%s, module %s)" % (layout, ref["form"]),
                          posenc_freq(got["rope_cos"], layout), ref["cos"]),
                same_bits("sin", posenc_freq(got["rope_sin"], layout), ref["sin"]),
                same_bits("cos_cache", ort_c.get("cos_cache"), ref["cos"]),
                same_bits("sin_cache", ort_s.get("sin_cache"), ref["sin"]),
                same_bits("cos_sin_cache", cs, np.concatenate([ref["cos"], ref["sin"]], axis=1)
                          if cs is not None and cs.shape[1] == 2 * nf else None))

        def exact_and_dtypes():
            ex, meta = g.tensors(*base, "--table", "all")
            d64, _ = g.tensors(*base, "--table", "all", "--dtype", "float64")
            ref = get_lib()
            layout = meta.get("layout", "?")
            att = float(meta.get("attention_factor", "nan"))
            inv64 = d64["rope_inv_freq"].astype(np.float64)
            theta = float(meta.get("dynamic_theta", meta.get("theta", "10000")))
            e_inv = 2.0 ** -23 * (math.log(max(theta, math.e)) + 8)
            inv32 = ref["inv"].astype(np.float64)
            p = torch.arange(offset, offset + n, dtype=torch.float64)[:, None]
            ang = p * torch.from_numpy(inv64)[None, :]
            c64 = (torch.cos(ang) * att).numpy()
            s64 = (torch.sin(ang) * att).numpy()
            err64 = 2.0 ** -52 * (np.abs(ang.numpy()) + 1) * att
            half32 = np.spacing(np.abs(c64).astype(np.float32)).astype(np.float64) / 2
            half32s = np.spacing(np.abs(s64).astype(np.float32)).astype(np.float64) / 2
            rule = "half a float32 ulp + 2^-52 (|p inv| + 1) A"
            res = [within("inv_freq exact", d64["rope_inv_freq"], inv32, e_inv * np.abs(inv32),
                          "relative 2^-23 (ln theta + 8) = %.3g" % e_inv),
                   within("cos exact", posenc_freq(ex["rope_cos"], layout), c64, half32 + err64, rule),
                   within("sin exact", posenc_freq(ex["rope_sin"], layout), s64, half32s + err64, rule),
                   within("cos float64", posenc_freq(d64["rope_cos"], layout), c64, err64,
                          "2^-52 (|p inv| + 1) A"),
                   within("sin float64", posenc_freq(d64["rope_sin"], layout), s64, err64,
                          "2^-52 (|p inv| + 1) A")]
            for dt in ("bfloat16", "float16"):
                nar = g.torch_tensors(*base, "--table", "all", "--dtype", dt)
                for k in ("rope_cos", "rope_sin", "rope_inv_freq"):
                    want, fixed = common.narrow_bits(d64[k], dt)
                    got = nar.get(k)
                    ok, detail = same_bits("%s %s" % (k, dt),
                                           got.view(torch.int16).numpy() if got is not None else None, want)
                    if fixed:
                        detail += " (torch's .to(%s) of the float64 rounds through float32: %d values " \
                                  "rounded twice onto the other side of a tie)" % (dt, fixed)
                    res.append((ok, detail))
                    if dt == "float16":
                        res.append(same_bits("%s float16 = numpy's astype" % k,
                                             got.view(torch.int16).numpy() if got is not None else None,
                                             d64[k].astype(np.float16).view(np.int16)))
            bf = g.torch_tensors(*base, "--table", "all", "--dtype", "bfloat16", *f32)
            want = torch.from_numpy(ref["cos"]).to(torch.bfloat16).view(torch.int16).numpy()
            got = bf.get("rope_cos")
            res.append(same_bits("float32 cos as bfloat16 (vLLM's cache)",
                                 posenc_freq(got.view(torch.int16).numpy(), layout)
                                 if got is not None else None, want))
            return both(*res)

        g.check(tname + "@%d+%d inv_freq, attention" % (offset, n), inv_and_attention)
        g.check(tname + "@%d+%d cos/sin float32, caches" % (offset, n), tables_f32)
        g.check(tname + "@%d+%d exact, --dtype" % (offset, n), exact_and_dtypes)

    def check_layers(name, cfg, cj):
        lt = getattr(cfg, "layer_types", None)
        if not lt:
            return
        nope = []
        nr = getattr(cfg, "no_rope_layers", None)
        mt = getattr(cfg, "model_type", "")
        for k, t in enumerate(lt):
            if (nr is not None and nr[k] == 0) or (mt == "cohere2" and t != "sliding_attention"):
                nope.append(k)
        ks = sorted(set([0, 1, len(lt) - 1] + [k for k in range(len(lt)) if k % 5 == 4]))

        def layers():
            bad = []
            for k in ks:
                if k >= len(lt):
                    continue
                try:
                    _, meta = g.tensors("generate", "rope", "--from-config", cj, "--layer", k, "-n", 4,
                                        "--table", "inv-freq")
                    if k in nope:
                        bad.append("layer %d: posenc gave it a RoPE, transformers has none" % k)
                    elif meta.get("layer_type", lt[k]) != lt[k]:
                        bad.append("layer %d: posenc %s, transformers %s" % (k, meta.get("layer_type"), lt[k]))
                except common.PosencError as e:
                    if k not in nope or "NoPE" not in str(e):
                        bad.append("layer %d: %s" % (k, e))
            if bad:
                return False, "; ".join(bad[:3])
            return True, "layers %s: types as config.layer_types, NoPE %s refused" % (
                ",".join(map(str, ks)), [k for k in ks if k in nope] or "none")
        g.check(name + " layers", layers)

    def check_gguf(name, cfg, cj):
        """llama.cpp's side tensors: what convert_hf_to_gguf.py's
        generate_extra_tensors computes (its torch steps, written out here:
        llama.cpp is no Python package) for llama3 and longrope configs."""
        rp = getattr(cfg, "rope_parameters", None) or {}
        if "rope_type" not in rp or rp["rope_type"] not in ("llama3", "longrope"):
            return

        def converter():
            if rp["rope_type"] == "longrope":
                return {"rope_factors_long.weight": torch.tensor(rp["long_factor"], dtype=torch.float32),
                        "rope_factors_short.weight": torch.tensor(rp["short_factor"], dtype=torch.float32)}
            base = rp.get("rope_theta", 10000.0)
            dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
            freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
            factor, low, high = rp.get("factor", 8.0), rp.get("low_freq_factor", 1.0), rp.get("high_freq_factor", 4.0)
            old = rp.get("original_max_position_embeddings", 8192)
            out = []
            for freq in freqs:
                wavelen = 2 * math.pi / freq
                if wavelen < old / high:
                    out.append(1)
                elif wavelen > old / low:
                    out.append(factor)
                else:
                    smooth = (old / wavelen - low) / (high - low)
                    out.append(1 / ((1 - smooth) / factor + smooth))
            return {"rope_freqs.weight": torch.tensor(out, dtype=torch.float32)}

        def gguf():
            want = {k: v.numpy() for k, v in converter().items()}
            got, _ = g.tensors("generate", "rope", "--from-config", cj, "--table", "gguf-freqs", *f32)
            ex, _ = g.tensors("generate", "rope", "--from-config", cj, "--table", "gguf-freqs")
            res = [same_bits("%s float32" % k, got.get(k), v) for k, v in want.items()]
            # exact: the divisor of the exact frequencies; where the float32
            # wavelength and the exact one fall in different bands (never for
            # these configs) this would differ by more than a few ulp
            res += [within("%s exact" % k, ex.get(k), v, 4 * np.spacing(np.abs(v)).astype(np.float64),
                           "4 float32 ulp") for k, v in want.items()]
            return both(*res)
        g.check(name + " gguf-freqs", gguf)

    def check_qscale(name, cfg, cj):
        import mpmath
        mt = getattr(cfg, "model_type", "")
        m = modeling_of(cfg)
        rp = getattr(cfg, "rope_parameters", None) or {}
        if mt == "llama4_text" and getattr(cfg, "attn_temperature_tuning", False):
            n = 3000 if cfg.floor_scale < 1000 else 20000
            nope = [k for k, v in enumerate(cfg.no_rope_layers) if v == 0]

            def lib():
                import copy
                from transformers import AttentionInterface
                seen = {}

                def capture(module, query, key, value, attention_mask, **kw):
                    seen["q"] = query
                    return torch.zeros(query.shape[0], query.shape[2], query.shape[1], query.shape[3]), None
                AttentionInterface.register("posenc_capture", capture)
                # the scale depends on none of the sizes: a one-head copy
                small = copy.deepcopy(cfg)
                small.hidden_size, small.head_dim = 64, 64
                small.num_attention_heads = small.num_key_value_heads = 1
                small._attn_implementation = "posenc_capture"
                attn = m.Llama4TextAttention(small, nope[0])
                attn.q_proj.weight.fill_(1.0 / 64)   # every query component exactly 1
                attn(torch.ones(1, n, 64), None, None)
                return seen["q"][0, 0, :, 0].contiguous()

            def exact(p):
                return 1 + mpmath.mpf(cfg.attn_scale) * mpmath.log1p(math.floor((p + 1) / cfg.floor_scale))
            pos = list(range(n))
        elif mt in ("ministral3", "mistral4") and rp.get("llama_4_scaling_beta"):
            beta, L0 = rp["llama_4_scaling_beta"], rp["original_max_position_embeddings"]
            n = 40000
            pos = list(range(n)) + [L0 * k + d for k in (10, 63, 64, 1000) for d in (-1, 0, 1)]

            def lib():
                return m.get_llama_4_attn_scale(torch.tensor([pos]), beta, L0)[0, 0, :, 0]

            def exact(p):
                return 1 + mpmath.mpf(beta) * mpmath.log(1 + math.floor(p / L0))
        else:
            return

        def qscale():
            mpmath.mp.dps = 60
            want = np32(lib())

            def table(*extra):
                head = [g.npy("generate", "rope", "--from-config", cj, "--table", "attn-scale", "-n", n, *extra)]
                far = [g.npy("generate", "rope", "--from-config", cj, "--table", "attn-scale", "--offset", p,
                             "-n", 1, *extra) for p in pos[n:]]
                return np.concatenate(head + far)
            truth = np.array([common.round32(exact(p)) for p in pos], dtype=np.float32)
            return both(same_bits("attn-scale float32 (%d positions)" % len(pos), table(*f32), want),
                        same_bits("attn-scale exact", table(), truth))
        g.check(name + " query scale", qscale)

    cases = [(os.path.basename(f), lambda f=f, n=os.path.basename(f): load(n, f), f,
              FILE_RUNS.get(os.path.basename(f), [(0, 2048)])) for f in FILES]
    for name, d, runs in RAW:
        def raw(name=name, d=d):
            path = g.path(name + ".json")
            with open(path, "w") as f:
                json.dump(d, f)
            return load(name, path), path
        cases.append((name, raw, None, runs))
    for name, module, cls, kwargs, runs in BUILT:
        def build(name=name, module=module, cls=cls, kwargs=kwargs):
            mod = importlib.import_module("transformers.models.%s.configuration_%s" % (module, module))
            d = g.path(name)
            getattr(mod, cls)(**kwargs).save_pretrained(d)
            return AutoConfig.from_pretrained(d), os.path.join(d, "config.json")
        cases.append((name, build, None, runs))
    for name, make, path, runs in cases:
        try:
            got = make()
            cfg, cj = (got, path) if path else got
            cfg = text_config(cfg)
            types = rope_types(cfg, rotary_class(cfg)(cfg))
        except Exception as e:
            g.check(name, lambda e=e: (False, "transformers could not build it: %s: %s" % (type(e).__name__, e)))
            continue
        for t in types:
            for offset, n in runs:
                check_type(name, cfg, cj, t, offset, n)
        check_layers(name, cfg, cj)
        check_gguf(name, cfg, cj)
        check_qscale(name, cfg, cj)


if __name__ == "__main__":
    common.main(run)
