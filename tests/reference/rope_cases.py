"""The RoPE cases of ref_rope.py and ref_rope_f32.py: a transformers config
class and small arguments (transformers writes the config.json posenc
reads), the module that computes the tables from that config, and the
positions each case is run at.

A case runs at (offset, n): position_ids offset..offset+n-1, the module's
forward as a model calls it (so dynamic and longrope choose their
frequencies from max(position_ids) + 1, as in generation), against
`posenc generate rope --from-config config.json --offset offset -n n`.

Every type of transformers' ROPE_INIT_FUNCTIONS is here (linear, dynamic,
yarn, longrope, llama3, proportional), each family's default
(compute_default_rope_parameters of Llama, Mistral, Qwen2, Qwen3, Gemma,
Granite, OLMo 2, Starcoder2, Falcon, Llama 4, Cohere, and the partial-rotary
families GPT-NeoX, Phi, Phi-3, StableLM, Persimmon), both layouts (the
Llama-style cat(freqs, freqs); the interleaved pairs of GPT-J, Llama 4 and
Cohere), and edge cases: an offset far out, a rotary width of 2, dynamic
below, at and beyond max_position_embeddings, longrope on both sides of its
switch, yarn without truncation, with mscale and with an explicit attention
factor, llama3 with low_freq_factor == high_freq_factor (Llama 4 Scout).
"""

import importlib
import math

# small models: head_dim comes from hidden_size / num_attention_heads unless
# head_dim is given
SMALL = dict(num_hidden_layers=1, intermediate_size=64, vocab_size=64)


def small(hidden, heads, **kw):
    return dict(SMALL, hidden_size=hidden, num_attention_heads=heads, **kw)


class Case:
    def __init__(self, name, family, config, kwargs, runs, rotary=None, style="module"):
        self.name = name
        self.family = family          # transformers.models.<family>
        self.config = config          # the config class
        self.kwargs = kwargs
        self.runs = runs              # [(offset, n), ...]
        self.rotary = rotary          # the rotary module class
        self.style = style            # module | gptj | llama4

    def make_config(self):
        mod = importlib.import_module("transformers.models.%s.configuration_%s" % (self.family, self.family))
        return getattr(mod, self.config)(**self.kwargs)

    def modeling(self):
        return importlib.import_module("transformers.models.%s.modeling_%s" % (self.family, self.family))


def _factors(n, lo, step):
    return [round(lo + step * i, 6) for i in range(n)]


def rp(rope_type, theta, **kw):
    return dict(rope_type=rope_type, rope_theta=theta, **kw)


CASES = [
    # each family's default
    Case("llama-default", "llama", "LlamaConfig",
         small(256, 4, rope_parameters=rp("default", 10000.0)),
         [(0, 2048), (100000, 64)], "LlamaRotaryEmbedding"),
    Case("llama-theta5e5-head128", "llama", "LlamaConfig",
         small(512, 4, rope_parameters=rp("default", 500000.0)),
         [(0, 4096)], "LlamaRotaryEmbedding"),
    Case("llama-head2", "llama", "LlamaConfig",
         small(8, 4, rope_parameters=rp("default", 10000.0)),
         [(0, 512)], "LlamaRotaryEmbedding"),
    Case("mistral-default", "mistral", "MistralConfig",
         small(256, 4, rope_parameters=rp("default", 1000000.0)),
         [(0, 1024)], "MistralRotaryEmbedding"),
    Case("qwen2-default", "qwen2", "Qwen2Config",
         small(256, 2, num_key_value_heads=2, rope_parameters=rp("default", 1000000.0)),
         [(0, 1024)], "Qwen2RotaryEmbedding"),
    Case("qwen3-head_dim", "qwen3", "Qwen3Config",
         small(64, 4, head_dim=128, num_key_value_heads=2, rope_parameters=rp("default", 1000000.0)),
         [(0, 1024)], "Qwen3RotaryEmbedding"),
    Case("gemma-default", "gemma", "GemmaConfig",
         small(256, 1, head_dim=256, num_key_value_heads=1),
         [(0, 1024)], "GemmaRotaryEmbedding"),
    Case("granite-default", "granite", "GraniteConfig",
         small(256, 4), [(0, 1024)], "GraniteRotaryEmbedding"),
    Case("olmo2-default", "olmo2", "Olmo2Config",
         small(256, 4), [(0, 1024)], "Olmo2RotaryEmbedding"),
    Case("starcoder2-default", "starcoder2", "Starcoder2Config",
         small(256, 4, num_key_value_heads=2), [(0, 1024)], "Starcoder2RotaryEmbedding"),
    Case("falcon-default", "falcon", "FalconConfig",
         dict(hidden_size=256, num_attention_heads=4, num_hidden_layers=1, vocab_size=64),
         [(0, 1024)], "FalconRotaryEmbedding"),
    # partial rotary
    Case("gpt_neox-default", "gpt_neox", "GPTNeoXConfig",
         small(256, 4), [(0, 2048)], "GPTNeoXRotaryEmbedding"),
    Case("gpt_neox-rotary_pct0.5", "gpt_neox", "GPTNeoXConfig",
         small(256, 4, rotary_pct=0.5, rotary_emb_base=1000000), [(0, 1024)], "GPTNeoXRotaryEmbedding"),
    Case("phi-default", "phi", "PhiConfig",
         small(256, 4), [(0, 2048)], "PhiRotaryEmbedding"),
    Case("stablelm-default", "stablelm", "StableLmConfig",
         small(256, 4), [(0, 1024)], "StableLmRotaryEmbedding"),
    Case("persimmon-default", "persimmon", "PersimmonConfig",
         small(256, 4), [(0, 1024)], "PersimmonRotaryEmbedding"),
    # interleaved pairs
    Case("gptj-rotary64-head256", "gptj", "GPTJConfig",
         dict(n_embd=1024, n_head=4, n_layer=1, rotary_dim=64, n_positions=2048, vocab_size=64),
         [(0, 2048), (1000, 48)], style="gptj"),
    Case("gptj-rotary_dim=head_dim", "gptj", "GPTJConfig",
         dict(n_embd=256, n_head=4, n_layer=1, rotary_dim=64, n_positions=1024, vocab_size=64),
         [(0, 1024)], style="gptj"),
    Case("llama4-default", "llama4", "Llama4TextConfig",
         dict(hidden_size=256, num_attention_heads=4, head_dim=64, num_hidden_layers=1,
              intermediate_size=64, intermediate_size_mlp=64, vocab_size=64,
              rope_parameters=rp("default", 500000.0)),
         [(0, 2048)], "Llama4TextRotaryEmbedding", style="llama4"),
    Case("llama4-scout-llama3", "llama4", "Llama4TextConfig",
         dict(hidden_size=512, num_attention_heads=4, head_dim=128, num_hidden_layers=1,
              intermediate_size=64, intermediate_size_mlp=64, vocab_size=64,
              max_position_embeddings=10485760,
              rope_parameters=rp("llama3", 500000.0, factor=16.0, low_freq_factor=1.0,
                                 high_freq_factor=1.0, original_max_position_embeddings=8192)),
         [(0, 2048), (200000, 32)], "Llama4TextRotaryEmbedding", style="llama4"),
    Case("cohere-default", "cohere", "CohereConfig",
         small(256, 4), [(0, 1024)], "CohereRotaryEmbedding"),
    # ROPE_INIT_FUNCTIONS
    Case("linear-4", "llama", "LlamaConfig",
         small(256, 4, rope_parameters=rp("linear", 10000.0, factor=4.0)),
         [(0, 2048)], "LlamaRotaryEmbedding"),
    Case("linear-0.5", "llama", "LlamaConfig",
         small(256, 4, rope_parameters=rp("linear", 10000.0, factor=0.5)),
         [(0, 512)], "LlamaRotaryEmbedding"),
    Case("dynamic-2", "llama", "LlamaConfig",
         small(256, 4, max_position_embeddings=512, rope_parameters=rp("dynamic", 10000.0, factor=2.0)),
         [(0, 256), (0, 512), (0, 513), (0, 2048), (0, 4016), (0, 5000), (4000, 16)], "LlamaRotaryEmbedding"),
    Case("dynamic-8-partial", "gpt_neox", "GPTNeoXConfig",
         small(256, 4, max_position_embeddings=1024,
               rope_parameters=rp("dynamic", 10000.0, factor=8.0, partial_rotary_factor=0.5)),
         [(0, 1000), (0, 3000)], "GPTNeoXRotaryEmbedding"),
    Case("yarn-4", "llama", "LlamaConfig",
         small(256, 4, max_position_embeddings=4096,
               rope_parameters=rp("yarn", 10000.0, factor=4.0, original_max_position_embeddings=1024)),
         [(0, 4096)], "LlamaRotaryEmbedding"),
    Case("yarn-gpt-oss", "llama", "LlamaConfig",
         small(256, 4, max_position_embeddings=131072,
               rope_parameters=rp("yarn", 150000.0, factor=32.0, beta_fast=32.0, beta_slow=1.0,
                                  truncate=False, original_max_position_embeddings=4096)),
         [(0, 2048), (131000, 72)], "LlamaRotaryEmbedding"),
    Case("yarn-mscale", "llama", "LlamaConfig",
         small(256, 4, max_position_embeddings=163840,
               rope_parameters=rp("yarn", 10000.0, factor=40.0, mscale=1.0, mscale_all_dim=0.8,
                                  beta_fast=32.0, beta_slow=1.0, original_max_position_embeddings=4096)),
         [(0, 2048)], "LlamaRotaryEmbedding"),
    Case("yarn-attention_factor", "llama", "LlamaConfig",
         small(512, 4, max_position_embeddings=65536,
               rope_parameters=rp("yarn", 1000000.0, factor=8.0, attention_factor=1.25, beta_fast=16.0,
                                  beta_slow=2.0, original_max_position_embeddings=8192)),
         [(0, 1024)], "LlamaRotaryEmbedding"),
    Case("llama3-8b", "llama", "LlamaConfig",
         small(512, 4, max_position_embeddings=131072,
               rope_parameters=rp("llama3", 500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                  original_max_position_embeddings=8192)),
         [(0, 4096), (131000, 72)], "LlamaRotaryEmbedding"),
    Case("llama3-3.2", "llama", "LlamaConfig",
         small(256, 4, max_position_embeddings=131072,
               rope_parameters=rp("llama3", 500000.0, factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                  original_max_position_embeddings=8192)),
         [(0, 2048)], "LlamaRotaryEmbedding"),
    Case("longrope-phi3.5", "phi3", "Phi3Config",
         small(384, 4, max_position_embeddings=131072, original_max_position_embeddings=4096,
               rope_parameters=rp("longrope", 10000.0, short_factor=_factors(48, 1.0, 0.01),
                                  long_factor=_factors(48, 1.0, 0.8))),
         [(0, 4096), (0, 4097), (0, 6000), (4090, 16)], "Phi3RotaryEmbedding"),
    Case("longrope-partial0.75", "phi3", "Phi3Config",
         small(512, 4, max_position_embeddings=131072, original_max_position_embeddings=4096,
               partial_rotary_factor=0.75,
               rope_parameters=rp("longrope", 10000.0, short_factor=_factors(48, 1.0, 0.02),
                                  long_factor=_factors(48, 1.5, 0.5))),
         [(0, 2048), (0, 5000)], "Phi3RotaryEmbedding"),
    Case("proportional-gemma4-full", "llama", "LlamaConfig",
         small(512, 1, head_dim=512, num_key_value_heads=1,
               rope_parameters=rp("proportional", 1000000.0, partial_rotary_factor=0.25)),
         [(0, 1024)], "LlamaRotaryEmbedding"),
]


def dynamic_base(cfg, seq_len):
    """The base dynamic scaling uses at seq_len (a magnitude for a bound,
    from the formula of transformers' docstring)."""
    rp_ = cfg.rope_parameters
    head = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    dim = int(head * rp_.get("partial_rotary_factor", 1.0))
    L = max(seq_len, cfg.max_position_embeddings)
    f = rp_["factor"]
    return rp_["rope_theta"] * ((f * L / cfg.max_position_embeddings) - (f - 1)) ** (dim / (dim - 2))


def library(case, cfg, offset, n):
    """What transformers computes for positions offset..offset+n-1:
    {cos, sin (float32, n x R as applied), inv (or None), att}."""
    import torch
    m = case.modeling()
    pos = torch.arange(offset, offset + n)[None]
    if case.style == "gptj":
        # GPT-J's attention keeps a buffer [sin | cos] of every position and
        # repeat_interleaves each half when it applies them
        attn = m.GPTJAttention(cfg, layer_idx=0)
        table = attn.embed_positions[offset:offset + n]
        sin, cos = torch.split(table, table.shape[-1] // 2, dim=-1)
        return dict(cos=torch.repeat_interleave(cos, 2, dim=-1), sin=torch.repeat_interleave(sin, 2, dim=-1),
                    inv=None, att=1.0)
    rot = getattr(m, case.rotary)(cfg)
    x = torch.zeros(1, dtype=torch.float32)
    out = rot(x, pos)
    if case.style == "llama4":
        # complex freqs_cis; apply_rotary_emb multiplies pairs (2k, 2k+1)
        fc = out[0]
        cos = torch.repeat_interleave(fc.real.contiguous(), 2, dim=-1)
        sin = torch.repeat_interleave(fc.imag.contiguous(), 2, dim=-1)
    else:
        cos, sin = out[0][0], out[1][0]
    return dict(cos=cos, sin=sin, inv=rot.inv_freq.clone(), att=float(rot.attention_scaling))


def effective_theta(case, cfg, offset, n):
    rp_ = getattr(cfg, "rope_parameters", None) or {}
    if rp_.get("rope_type") == "dynamic":
        return dynamic_base(cfg, offset + n)
    return rp_.get("rope_theta", 10000.0)


def posenc_args(config_json, offset, n):
    return ["generate", "rope", "--from-config", config_json, "--offset", offset, "-n", n, "--table", "all"]


def run_cases(g, body):
    """For every case and run: body(name, case, cfg, config_json, offset, n)."""
    import os
    for case in CASES:
        try:
            cfg = case.make_config()
            d = g.path(case.name)
            cfg.save_pretrained(d)
            cj = os.path.join(d, "config.json")
            from transformers import AutoConfig
            cfg = AutoConfig.from_pretrained(d)   # as a model would be built from it
        except Exception as e:
            g.check(case.name, lambda: (False, "transformers could not build the config: %s: %s"
                                        % (type(e).__name__, e)))
            continue
        for offset, n in case.runs:
            name = "%s@%d+%d" % (case.name, offset, n) if offset else "%s@%d" % (case.name, n)
            body(name, case, cfg, cj, offset, n)


def log_theta(theta):
    return math.log(max(theta, math.e))
