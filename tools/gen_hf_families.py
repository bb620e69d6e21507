#!/usr/bin/env python3
"""Write src/io/hf_families.h: facts about each model family of the installed
transformers (run with build/venv/bin/python, transformers 5.18.0 pinned in
tests/reference/requirements.txt) that decide how a config.json's RoPE is read:

  model_type      the config class's model_type
  theta, local    its default_theta (RotaryEmbeddingConfigMixin: 10000 unless
                  the class overrides it; a pair for families with a global and a
                  local base, e.g. {"global": 1e6, "local": 1e4})
  partial         the partial_rotary_factor a config of the class gets without one
                  (its __post_init__'s kwargs.setdefault), 0: none
  flags           PARTIAL_IN_DEFAULT: its compute_default_rope_parameters reads
                  partial_rotary_factor (most families' default RoPE ignores it);
                  INTERLEAVED: its rotary module pairs columns 2k, 2k+1
                  (repeat_interleave(freqs, 2) or torch.polar);
                  POLAR: its cos and sin come from torch.polar (a complex
                  freqs_cis: glibc's cosf/sinf on CPU, not Tensor.cos())
                  MROPE_AS_DEFAULT: its config class turns rope_type (or type)
                  "mrope" into "default" (Qwen2-VL, Qwen2.5-VL);
                  MROPE_CHUNKED, MROPE_INTERLEAVED: its rotary module takes three
                  position streams (temporal, height, width) and gives frequency
                  j the stream of mrope_section's chunk j is in (chunk k: stream
                  k mod 3) or, interleaved, height for j = 1 mod 3 below
                  3 mrope_section[1], width for j = 2 mod 3 below
                  3 mrope_section[2], temporal otherwise;
                  MROPE_SPLIT: its get_rope_index splits each video into frames
                  of their own (repeat_interleave(video_grid_thw, t));
                  MROPE_TIMED: its get_rope_index spaces a video's temporal
                  positions by vision_config.tokens_per_second;
                  MSCALE_SOFTMAX: its attention multiplies the softmax scale
                  qk_head_dim^-0.5 by yarn's mscale squared (yarn_apply_mscale:
                  DeepSeek-V2/V3 and the MLA families after them)
  max_positions   its default max_position_embeddings (what L0 falls back to)
  ignore          its ignore_keys_at_rope_validation (keys of its own in the RoPE
                  dict that transformers does not warn about), space-separated
  rope            the RoPE parameters of a config of the class that gives none, as
                  JSON (rope_theta left out when it is default_theta: the file's
                  rope_theta, else that, fills it), when they are not plain
                  {"rope_type": "default"}

A config class that reads a flat file (the text model's keys at the top
level, as Qwen2-VL's Hub configs are) into its text_config gets a row of its
own model_type with the text model's facts.

Only facts are taken: each value is read off a default instance of the class or
off the names in its source; no code of the library is carried over.  The
check-reference suite reruns this and compares (tests/reference/ref_families.py).
"""
import importlib
import json
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import transformers  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES  # noqa: E402

ROOT = os.path.join(os.path.dirname(transformers.__file__), "models")


def module_dir(cls):
    for d in sorted(os.listdir(ROOT)):
        p = os.path.join(ROOT, d, "configuration_%s.py" % d)
        if os.path.exists(p) and re.search(r"class %s\b" % cls, open(p).read()):
            return d
    return None


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(out):
    rows = []
    for mt, cls in sorted(CONFIG_MAPPING_NAMES.items()):
        d = module_dir(cls)
        if d is None:
            continue
        mp = os.path.join(ROOT, d, "modeling_%s.py" % d)
        if not os.path.exists(mp):
            continue
        src = open(mp).read()
        if "RotaryEmbedding" not in src and mt != "gptj":	# GPT-J's is inline
            continue
        try:
            C = getattr(importlib.import_module("transformers.models.%s.configuration_%s" % (d, d)), cls)
            inst = C()
        except Exception:
            continue
        rp = getattr(inst, "rope_parameters", None)
        if not isinstance(rp, dict):
            continue
        dt = getattr(C, "default_theta", 10000.0)
        if isinstance(dt, dict):
            vals = list(dt.values())
            theta = float(dt.get("global", dt.get("full_attention", vals[0])))
            local = float(dt.get("local", dt.get("sliding_attention", vals[-1])))
        else:
            theta, local = float(dt), 0.0
        flat = "rope_type" in rp or "rope_theta" in rp or not rp
        partial = float(rp.get("partial_rotary_factor") or 0.0) if flat else 0.0
        m = re.search(r"def compute_default_rope_parameters\(.*?\n(.*?)\n    (?:def |@)", src, re.S)
        flags = []
        if m and "partial_rotary_factor" in m.group(1):
            flags.append("PE_HF_PARTIAL_IN_DEFAULT")
        if re.search(r"repeat_interleave\(freqs, 2|torch\.polar\(", src) or mt == "gptj":
            flags.append("PE_HF_INTERLEAVED")
        if re.search(r"torch\.polar\(", src):
            flags.append("PE_HF_POLAR")
        if re.search(r"yarn_apply_mscale\(", src):
            flags.append("PE_HF_MSCALE_SOFTMAX")
        rope = None
        ignore = sorted(getattr(C, "ignore_keys_at_rope_validation", None) or [])
        # the M-RoPE facts of a family whose RoPE dict takes an mrope_section
        mrope = "mrope_section" in ignore or (flat and "mrope_section" in rp)
        csrc = open(os.path.join(ROOT, d, "configuration_%s.py" % d)).read()
        if not mrope:
            pass
        elif re.search(r'== "mrope"', csrc):
            flags.append("PE_HF_MROPE_AS_DEFAULT")
        if mrope and re.search(r"i % 3\]", src):
            flags.append("PE_HF_MROPE_CHUNKED")
        if mrope and re.search(r"slice\(offset, length, 3\)|apply_interleaved_mrope", src):
            flags.append("PE_HF_MROPE_INTERLEAVED")
        if mrope and re.search(r"repeat_interleave\(video_grid_thw", src):
            flags.append("PE_HF_MROPE_SPLIT")
        if mrope and re.search(r"vision_config\.tokens_per_second", src):
            flags.append("PE_HF_MROPE_TIMED")
        if flat:
            rest = {k: v for k, v in rp.items() if k != "partial_rotary_factor" and
                    not (k == "rope_theta" and v == theta)}
            if rest.get("rope_type", "default") != "default" or set(rest) - {"rope_type"}:
                rope = json.dumps(rest, sort_keys=True)
        else:
            rope = json.dumps(rp, sort_keys=True)
        maxpos = getattr(inst, "max_position_embeddings", None)
        maxpos = maxpos if isinstance(maxpos, int) else 0
        rows.append((mt, theta, local, partial, flags, rope, " ".join(ignore), maxpos))
    # wrappers that read a flat file into their text_config: the text model's row
    by_type = {r[0]: r for r in rows}
    for mt, cls in sorted(CONFIG_MAPPING_NAMES.items()):
        d = module_dir(cls)
        if d is None or mt in by_type:
            continue
        csrc = open(os.path.join(ROOT, d, "configuration_%s.py" % d)).read()
        if not re.search(r"kwargs\.pop\(key\) for key in", csrc):
            continue
        try:
            C = getattr(importlib.import_module("transformers.models.%s.configuration_%s" % (d, d)), cls)
            text = C.sub_configs["text_config"].model_type
        except Exception:
            continue
        if text in by_type:
            rows.append((mt,) + by_type[text][1:])
    rows.sort(key=lambda r: r[0])
    with open(out, "w") as f:
        f.write("/* Generated by tools/gen_hf_families.py from transformers %s: do not edit.\n"
                " * One row per model family with a rotary module (see the script). */\n"
                % transformers.__version__)
        f.write("#define PE_HF_FAMILIES_VERSION %s\n" % c_str(transformers.__version__))
        for mt, theta, local, partial, flags, rope, ignore, maxpos in rows:
            f.write("\t{ %s, %r, %r, %r, %s, %s, %s, %d },\n" % (
                c_str(mt), theta, local, partial, " | ".join(flags) or "0",
                c_str(rope) if rope else "NULL", c_str(ignore) if ignore else "NULL", maxpos))
    print("%d families written to %s" % (len(rows), out), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "src/io/hf_families.h")
