"""Diagnosis: `posenc diff` on a catalogue of mismatched tables built with
the real libraries, one per signature of the research notes' parity threads
(rope-2026 G), plus unrelated tables.

Each entry is a pair (A, B): B what transformers (or torch) computes for a
small config -- the reference of a parity test -- and A the same table with
the bug of its thread injected as the thread describes it, computed with
torch.  For every entry:
  files      `posenc diff A.npy B.npy -f json`: the first cause of the
             diagnosis is the entry's, and its residual is at most 0.1;
  generated  where B is a rope table posenc can generate from the config
             (`posenc diff A.npy rope --from-config config.json -n N
             --precision float32`, bit-identical to transformers' forward),
             the same, with B's parameters known to the diagnosis;
  unrelated  random tables against rotary, sinusoidal and each other: the
             diagnosis is empty ("no simple explanation").
Expected causes come from how A was built, never from posenc.  The group
ends with the confusion table (true cause x first diagnosed cause), which
`make check-reference` prints.
"""

import json
import os
import subprocess
import sys

import numpy as np

import common
from rope_cases import rp, small

N = 2048


def hf(family, cls, cfg_cls, kwargs, n=N, positions=None):
    """(cos, sin, inv, att, cfg) of transformers' rotary module for a small
    config, positions 0..n-1 (or the given ones)."""
    import importlib
    import torch
    conf = importlib.import_module("transformers.models.%s.configuration_%s" % (family, family))
    mod = importlib.import_module("transformers.models.%s.modeling_%s" % (family, family))
    cfg = getattr(conf, cfg_cls)(**kwargs)
    rot = getattr(mod, cls)(cfg)
    pos = torch.arange(n)[None] if positions is None else torch.as_tensor(positions)[None]
    cos, sin = rot(torch.zeros(1, dtype=torch.float32), pos)
    return cos[0], sin[0], rot.inv_freq.clone(), float(rot.attention_scaling), cfg


def llama(theta=10000.0, head=64, n=N, positions=None, **rope):
    rope_type = rope.pop("rope_type", "default")
    kw = small(head * 4, 4, rope_parameters=rp(rope_type, theta, **rope))
    if "max_position_embeddings" in rope:
        kw["max_position_embeddings"] = rope.pop("max_position_embeddings")
        kw["rope_parameters"] = rp(rope_type, theta, **rope)
    return hf("llama", "LlamaRotaryEmbedding", "LlamaConfig", kw, n, positions)


def catalogue():
    """[(name, cause, A, B, cfg or None)] -- A, B float32 numpy arrays."""
    import torch
    torch.set_grad_enabled(False)
    out = []
    np32 = common.np32

    # G #1: Meta / GPT-J interleaved pairs against HF's rotate_half
    cos, sin, inv, att, cfg = llama()
    from transformers.models.gptj import configuration_gptj, modeling_gptj
    gcfg = configuration_gptj.GPTJConfig(n_embd=256, n_head=4, n_layer=1, rotary_dim=64, n_positions=N,
                                         vocab_size=64)
    table = modeling_gptj.GPTJAttention(gcfg, layer_idx=0).embed_positions[:N]
    gsin, gcos = torch.split(table, table.shape[-1] // 2, dim=-1)
    out.append(("interleaved-vs-half", "permuted-columns",
                np32(torch.repeat_interleave(gcos, 2, dim=-1)), np32(cos), cfg))

    # G #5: Ministral 3's mscale pair ignored: 0.1 ln 16 + 1 instead of 1.0
    yarn = dict(rope_type="yarn", factor=16.0, original_max_position_embeddings=16384,
                beta_fast=32.0, beta_slow=1.0, max_position_embeddings=262144)
    cos, _, _, att, cfg = llama(1000000.0, 128, mscale=1.0, mscale_all_dim=1.0, **yarn)
    bad, _, _, batt, _ = llama(1000000.0, 128, **dict(yarn))
    assert abs(att - 1.0) < 1e-12 and abs(batt - 1.2772588722239781) < 1e-9, (att, batt)
    out.append(("mscale-ignored", "constant-scale", np32(bad), np32(cos), cfg))

    # G #3: gpt-oss's truncate false honoured by HF, rounded by the engine
    oss = dict(rope_type="yarn", factor=32.0, beta_fast=32.0, beta_slow=1.0,
               original_max_position_embeddings=4096, max_position_embeddings=131072)
    cos, _, _, _, cfg = llama(150000.0, 64, truncate=False, **oss)
    bad, _, _, _, _ = llama(150000.0, 64, truncate=True, **dict(oss))
    out.append(("yarn-truncate", "column-scale", np32(bad), np32(cos), cfg))

    # G #6: LongRoPE's long factors for a sequence within L0
    lr = dict(short_factor=[round(1.0 + 0.02 * i, 6) for i in range(32)],
              long_factor=[round(1.5 + 0.5 * i, 6) for i in range(32)])
    kw = small(256, 4, max_position_embeddings=131072, original_max_position_embeddings=4096,
               rope_parameters=rp("longrope", 10000.0, **lr))
    cos, _, _, _, cfg = hf("phi3", "Phi3RotaryEmbedding", "Phi3Config", kw)
    # the same module asked for one position past L0 takes the long factors
    lcos, _, _, _, _ = hf("phi3", "Phi3RotaryEmbedding", "Phi3Config", kw,
                          positions=list(range(N)) + [5000])
    out.append(("longrope-long-for-short", "column-scale", np32(lcos[:N]), np32(cos), cfg))

    # G #14: YaRN's L0 taken from max_position_embeddings
    y4 = dict(rope_type="yarn", factor=4.0)
    cos, _, _, _, cfg = llama(10000.0, 64, original_max_position_embeddings=1024,
                              max_position_embeddings=4096, **y4)
    bad, _, _, _, _ = llama(10000.0, 64, original_max_position_embeddings=4096,
                            max_position_embeddings=4096, **dict(y4))
    out.append(("yarn-L0-from-max-positions", "column-scale", np32(bad), np32(cos), cfg))

    # G #12: the factor inside the power, 1/(f theta)^(2j/d)
    cos, _, inv, _, cfg = llama(10000.0, 64, rope_type="linear", factor=4.0)
    d = 64
    bad_inv = 1.0 / ((4.0 * 10000.0) ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    freqs = torch.arange(N).float()[:, None] * bad_inv[None]
    out.append(("factor-inside-power", "column-scale", np32(torch.cat([freqs, freqs], -1).cos()),
                np32(cos), cfg))

    # G #4: keras-hub's YaRN: truncate off by default and high clamped to
    # d/2 - 1 instead of d - 1 (visible with a long L0)
    import math
    kcos, _, kinv, katt, kcfg = llama(10000.0, 128, rope_type="yarn", factor=4.0,
                                      original_max_position_embeddings=131072,
                                      max_position_embeddings=524288)
    dk = 128
    pos_freqs = 10000.0 ** (torch.arange(0, dk, 2, dtype=torch.int64).float() / dk)
    extrap, interp = 1.0 / pos_freqs, 1.0 / (4.0 * pos_freqs)
    cd = lambda r: (dk * math.log(131072 / (r * 2 * math.pi))) / (2 * math.log(10000.0))
    low, high = max(cd(32.0), 0), min(cd(1.0), dk // 2 - 1)
    ramp = torch.clamp((torch.arange(dk // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    kbad = interp * ramp + extrap * (1 - ramp)
    fr = torch.arange(N).float()[:, None] * kbad[None]
    out.append(("keras-yarn-clamp", "column-scale",
                np32(torch.cat([fr, fr], -1).cos() * katt), np32(kcos), kcfg))

    # a wrong rope_theta
    cos, _, _, _, cfg = llama(10000.0)
    bad, _, _, _, _ = llama(500000.0)
    out.append(("theta-5e5-for-1e4", "theta", np32(bad), np32(cos), cfg))

    # G #7: GPT-NeoX #1003, inv_freq, positions and angles in float16
    cos, _, inv, _, cfg = llama(10000.0, 64)
    t = torch.arange(N, dtype=torch.float16)
    f16 = torch.einsum("i,j->ij", t, inv.half())
    emb = torch.cat([f16, f16], -1)
    out.append(("angles-in-float16", "precision", np32(emb.cos().float()), np32(cos), cfg))

    # a float32 pipeline against an exact one (a float64 reference)
    inv64 = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    f64 = torch.arange(N, dtype=torch.float64)[:, None] * inv64[None]
    out.append(("float32-vs-float64", "precision", np32(cos),
                np32(torch.cat([f64, f64], -1).cos().float()), None))

    # G #8: the cache stored in bfloat16
    out.append(("cache-in-bfloat16", "storage-dtype", np32(cos.bfloat16().float()), np32(cos), cfg))
    out.append(("cache-in-float16", "storage-dtype", np32(cos.half().float()), np32(cos), cfg))

    # G #11: YaRN applied twice: angles doubled, magnitude attention^2
    ycos, _, yinv, yatt, ycfg = llama(10000.0, 64, rope_type="yarn", factor=4.0,
                                      original_max_position_embeddings=1024, max_position_embeddings=4096)
    fr = torch.arange(N).float()[:, None] * yinv[None]
    emb = torch.cat([fr, fr], -1)
    out.append(("yarn-applied-twice", "double-rotation",
                np32((2 * emb).cos() * (yatt * yatt)), np32(ycos), ycfg))

    # position ids starting at 1
    cos, _, _, _, cfg = llama(10000.0, 64)
    off, _, _, _, _ = llama(10000.0, 64, positions=list(range(1, N + 1)))
    out.append(("positions-from-1", "row-offset", np32(off), np32(cos), cfg))

    # cos and sin swapped
    cos, sin, _, _, cfg = llama(10000.0, 64)
    out.append(("sin-for-cos", "swapped-sin-cos", np32(sin), np32(cos), cfg))

    # the table written with its axes swapped
    out.append(("transposed", "transposed", np32(cos.T.contiguous()), np32(cos), None))

    # unrelated tables
    rng = np.random.default_rng(2213)
    out.append(("random-vs-rope", None, rng.standard_normal(cos.shape).astype(np.float32), np32(cos), None))
    out.append(("random-vs-random", None, rng.standard_normal((N, 64)).astype(np.float32),
                rng.standard_normal((N, 64)).astype(np.float32), None))
    emb_ = torch.nn.Embedding(N, 64)
    torch.nn.init.normal_(emb_.weight, std=0.02)
    out.append(("learned-vs-rope", None, np32(emb_.weight.detach()), np32(cos), None))
    out.append(("uniform-vs-rope", None, rng.uniform(-1, 1, cos.shape).astype(np.float32), np32(cos), None))
    # unrelated to a generated B: random and learned against the config's table
    out.append(("random-vs-config", None, rng.standard_normal(cos.shape).astype(np.float32), np32(cos), cfg))
    out.append(("learned-vs-config", None, np32(emb_.weight.detach()), np32(cos), cfg))
    return out


def diff(g, a_path, *rest):
    cmd = [os.environ["POSENC"], "diff", a_path, *map(str, rest), "-f", "json"]
    p = subprocess.run(cmd, capture_output=True, env=common.POSENC_ENV)
    if p.returncode not in (0, 1):
        raise common.PosencError("%s: exit %d: %s" % (" ".join(cmd[2:]), p.returncode,
                                                     p.stderr.decode(errors="replace").strip()[:300]))
    return json.loads(p.stdout), p.returncode


def verdict(report):
    d = report.get("diagnosis") or []
    return (d[0]["cause"], d[0]["residual"]) if d else (None, None)


def run(g):
    confusion = {}
    rows = []

    for name, cause, a, b, cfg in catalogue():
        pa, pb = g.path(name + "-a.npy"), g.path(name + "-b.npy")
        np.save(pa, a)
        np.save(pb, b)
        forms = [("files", [pb])]
        if cfg is not None:
            d = g.path(name + "-cfg")
            cfg.save_pretrained(d)
            forms.append(("generated", ["rope", "--from-config", os.path.join(d, "config.json"),
                                        "-n", b.shape[0], "--precision", "float32"]))
        for form, args in forms:
            def check(form=form, args=args, cause=cause, name=name):
                rep, status = diff(g, pa, *args)
                got, res = verdict(rep)
                confusion.setdefault(cause or "(none)", {}).setdefault(got or "(none)", 0)
                confusion[cause or "(none)"][got or "(none)"] += 1
                rows.append((name, form, cause, got))
                if status != 1:
                    return False, "exit %d, want 1 (different)" % status
                if cause is None:
                    return got is None, ("no simple explanation" if got is None else
                                         "diagnosed %s (residual %.3g) for unrelated tables" % (got, res))
                text = (rep["diagnosis"][0]["evidence"].get("text", "") if got else
                        "closest %s" % ((rep.get("closest") or {}).get("cause")))
                ok = got == cause and res <= 0.1
                return ok, "%s first (residual %.3g): %s" % (got, res if res is not None else float("nan"),
                                                              text[:160])
            g.check("%s/%s" % (name, form), check)

    causes = sorted(confusion)
    seen = sorted({c for row in confusion.values() for c in row})
    print("confusion (rows: the bug injected; columns: the first cause diagnosed; files and generated):")
    w = max(len(c) for c in causes + seen) + 1
    print(" " * w + "".join("%*s" % (w, c) for c in seen))
    for c in causes:
        print("%-*s" % (w, c) + "".join("%*s" % (w, confusion[c].get(s, "") or ".") for s in seen))


if __name__ == "__main__":
    g = common.Group(sys.argv[1] if len(sys.argv) > 1 else "diagnosis")
    try:
        run(g)
    except Exception as e:  # the catalogue itself failed to build
        g.check("catalogue", lambda: (False, "%s: %s" % (type(e).__name__, e)))
    sys.exit(g.done())
