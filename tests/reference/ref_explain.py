"""posenc explain rope: its report (-f json) against transformers' own
functions.

For every case of rope_cases.py (each ROPE_INIT_FUNCTIONS type, each
family's default, both layouts; configs written by the config classes'
save_pretrained) and run (offset, n):
  inv_freq f32    explain's inv_freq_f32 with --precision float32 against the
                  rotary module's inv_freq buffer after its forward over the
                  run's positions: bit-identical;
  inv_freq exact  explain's inv_freq (the exact value) against the same
                  buffer, within relative 2^-23 (ln theta + 8) (ref_rope.py
                  says why);
  attention       explain's attention_factor against the module's
                  attention_scaling: equal as doubles.
For the dynamic cases, at several sequence lengths L (below, at and beyond
max_position_embeddings), against ROPE_INIT_FUNCTIONS["dynamic"](config,
seq_len=L):
  dynamic base    explain's dynamic_theta (--seq-len L) and its
                  dynamic_theta_at schedule against the base the library's
                  inverse frequencies imply, theta' = inv_j^(-R/(2j)) at
                  j = R/2 - 1, within relative 2^-23 (ln theta' + 8) R/(R-2)
                  (inv_j's bound, raised to R/(2j));
  inv_freq        explain's inv_freq at L within the inv_freq bound.
For the real configs of tests/data/hf/ (loaded with AutoConfig, the text
config of a multimodal one), per layer type the report lists, against the
family's init function for that type (ROPE_INIT_FUNCTIONS, or its rotary
module's compute_default_rope_parameters) called with the layer type and
explain's sequence length:
  inv_freq f32 (bit-identical), inv_freq exact (bound above), attention
  (equal), for Ministral 3 the query scale at explain's sample positions
  against modeling_ministral3.get_llama_4_attn_scale (float32: within 4
  ulp of its value; explain computes in double), and for DeepSeek-V3 the
  softmax scale against its modeling's yarn_apply_mscale(rope_parameters,
  qk_head_dim^-0.5) (equal as doubles).
"""

import importlib
import json
import math
import os
import shutil

import numpy as np

import common
from common import both, equal, np32, posenc, same_bits, within
from rope_cases import effective_theta, library, log_theta, run_cases

HERE = os.path.dirname(os.path.abspath(__file__))
HF = os.path.join(HERE, "..", "data", "hf")


def inv_bound(theta):
    return 2.0 ** -23 * (log_theta(theta) + 8)


def explain(*args):
    """posenc explain rope ARGS -f json, parsed."""
    return json.loads(posenc("explain", "rope", *args, "-f", "json"))


def entry(rep, layer_type=None):
    for r in rep["rope"]:
        if layer_type is None or r["layer_type"] == layer_type:
            return r
    raise KeyError("no layer type %r in the report" % layer_type)


def value(r, name):
    return r["parameters"][name]["value"]


def inv_f32(r):
    return np.array([np.float32(p["inv_freq_f32"]) for p in r["pairs"]], dtype=np.float32)


def inv_exact(r):
    return np.array([p["inv_freq"] for p in r["pairs"]], dtype=np.float64)


def inv_checks(r32, rex, lib_inv, lib_att, theta):
    e = inv_bound(theta)
    lib = np32(lib_inv)
    return both(
        same_bits("inv_freq f32", inv_f32(r32), lib),
        within("inv_freq exact", inv_exact(rex), lib, e * np.abs(lib.astype(np.float64)),
               "relative 2^-23 (ln theta + 8) = %.3g" % e),
        equal("attention", float(value(rex, "attention_factor")), float(lib_att)))


def implied_base(inv):
    """The base theta' of inv_j = theta'^(-2j/R), from its last element."""
    inv = np.asarray(inv, dtype=np.float64)
    R = 2 * inv.size
    j = inv.size - 1
    return float(inv[j] ** (-R / (2.0 * j)))


def base_check(what, got, lib_inv):
    R = 2 * len(lib_inv)
    want = implied_base(np32(lib_inv))
    rel = inv_bound(want) * R / (R - 2)
    return within(what, np.array([got]), np.array([want]), rel * want,
                  "relative 2^-23 (ln theta' + 8) R/(R-2) = %.3g" % rel)


def run(g):
    import torch
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    torch.set_grad_enabled(False)

    def body(name, case, cfg, cj, offset, n):
        if case.style == "gptj":
            return  # GPT-J keeps no inv_freq, only its tables
        lib = {}

        def get_lib():
            if not lib:
                lib.update(library(case, cfg, offset, n))
            return lib

        def checks():
            args = ("--from-config", cj, "--offset", offset, "-n", n)
            r32 = entry(explain(*args, "--precision", "float32"))
            rex = entry(explain(*args))
            ref = get_lib()
            return inv_checks(r32, rex, ref["inv"], ref["att"], effective_theta(case, cfg, offset, n))

        g.check(name + " inv_freq, attention", checks)

        rp = getattr(cfg, "rope_parameters", None) or {}
        if rp.get("rope_type") != "dynamic" or offset or n != case.runs[0][1]:
            return
        L0 = cfg.max_position_embeddings
        fn = ROPE_INIT_FUNCTIONS["dynamic"]
        for L in (L0 // 2, L0, 2 * L0, 4 * L0 + 3):
            def dyn(L=L):
                rex = entry(explain("--from-config", cj, "--seq-len", L))
                lib_inv, _ = fn(cfg, "cpu", seq_len=L)
                theta = implied_base(np32(lib_inv))
                e = inv_bound(theta)
                lib32 = np32(lib_inv)
                return both(
                    base_check("dynamic_theta", value(rex, "dynamic_theta"), lib_inv),
                    within("inv_freq exact", inv_exact(rex), lib32, e * np.abs(lib32.astype(np.float64)),
                           "relative 2^-23 (ln theta' + 8) = %.3g" % e))
            g.check("%s dynamic base at seq_len %d" % (case.name, L), dyn)

        def schedule():
            rex = entry(explain("--from-config", cj))
            out = []
            for s in rex["dynamic_theta_at"]:
                lib_inv, _ = fn(cfg, "cpu", seq_len=s["seq_len"])
                out.append(base_check("dynamic_theta_at %d" % s["seq_len"], s["dynamic_theta"], lib_inv))
            if len(out) != 5:
                return False, "%d entries in dynamic_theta_at, expected 5 (1 to 16 L0)" % len(out)
            return both(*out)
        g.check(case.name + " dynamic_theta_at (1, 2, 4, 8, 16 L0)", schedule)

    run_cases(g, body)
    real_configs(g, ROPE_INIT_FUNCTIONS)


def text_config(path, tmp):
    """The config transformers builds from path (its text config)."""
    from transformers import AutoConfig
    os.makedirs(tmp, exist_ok=True)
    shutil.copy(path, os.path.join(tmp, "config.json"))
    with open(path) as f:
        raw = json.load(f)
    if isinstance(raw.get("text_config"), dict):
        tc = dict(raw["text_config"])
        return AutoConfig.for_model(tc.pop("model_type"), **tc)
    return AutoConfig.from_pretrained(tmp).get_text_config()


def default_fn(cfg):
    """The family's compute_default_rope_parameters (its text rotary module's)."""
    mod = importlib.import_module(type(cfg).__module__.replace(".configuration_", ".modeling_"))
    found = [c for k, c in sorted(vars(mod).items())
             if k.endswith("RotaryEmbedding") and "Vision" not in k
             and hasattr(c, "compute_default_rope_parameters")]
    found.sort(key=lambda c: "Text" not in c.__name__)
    return found[0].compute_default_rope_parameters


def real_configs(g, inits):
    import torch
    for f in sorted(os.listdir(HF)):
        if not f.endswith(".json"):
            continue
        path = os.path.join(HF, f)
        try:
            cfg = text_config(path, g.path(f))
        except Exception as e:
            g.check(f, lambda e=e: (False, "transformers could not build the config: %s: %s"
                                    % (type(e).__name__, e)))
            continue
        try:
            rep = explain("--from-config", path)
        except common.PosencError as e:
            g.check(f, lambda e=e: (False, "posenc failed: %s" % e))
            continue
        for r in rep["rope"]:
            t = r["layer_type"] or None

            def checks(t=t, r=r):
                rp = cfg.rope_parameters[t] if t else cfg.rope_parameters
                kind = rp.get("rope_type", "default")
                fn = default_fn(cfg) if kind == "default" else inits[kind]
                seq = r["parameters"].get("seq_len", {}).get("value")
                sel = ("--layer-type", t) if t else ()
                r32 = entry(explain("--from-config", path, "--precision", "float32", *sel))
                rex = entry(explain("--from-config", path, *sel))
                lib_inv, lib_att = fn(cfg, "cpu", seq_len=seq, layer_type=t)
                return inv_checks(r32, rex, lib_inv, lib_att, rp.get("rope_theta", 10000.0))

            g.check("%s %s inv_freq, attention" % (f, t or "(every layer)"), checks)
        sm = rep.get("softmax_scale")
        if sm is not None:
            def scheck(sm=sm):
                m = importlib.import_module(type(cfg).__module__.replace(".configuration_", ".modeling_"))
                lib = m.yarn_apply_mscale(cfg.rope_parameters, cfg.qk_head_dim ** (-0.5))
                return equal("softmax scale", sm["scale"]["value"], lib)
            g.check(f + " softmax scale (yarn_apply_mscale)", scheck)
        qs = rep.get("query_scale")
        if isinstance(qs, dict) and qs["rule"] == "llama_4_scaling_beta":
            def qcheck(qs=qs):
                m = importlib.import_module("transformers.models.ministral3.modeling_ministral3")
                pos = torch.tensor([[s["position"] for s in qs["samples"]]], dtype=torch.int64)
                lib = m.get_llama_4_attn_scale(pos, cfg.rope_parameters["llama_4_scaling_beta"],
                                               cfg.rope_parameters["original_max_position_embeddings"])
                lib = np32(lib.reshape(-1))
                got = np.array([s["scale"] for s in qs["samples"]])
                return within("query scale", got, lib, 4 * np.spacing(np.abs(lib)).astype(np.float64),
                              "4 float32 ulp")
            g.check(f + " query scale (llama_4_scaling_beta)", qcheck)


if __name__ == "__main__":
    common.main(run)
