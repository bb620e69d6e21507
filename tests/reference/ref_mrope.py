"""Multimodal RoPE: Qwen2-VL's, Qwen2.5-VL's, Qwen3-VL's and Qwen3.5's own
get_rope_index and text rotary modules (tiny random models built from
configs transformers writes) against `posenc generate mrope`.

Per model, for B.4's worked sequences and seeded random ones (text runs,
images, videos; Qwen2.5-VL's at several seconds per grid and tokens per
second; Qwen3-VL's frames with timestamp text between them):
  ids        --sequence ... --table ids against get_rope_index's
             position_ids (input_ids, mm_token_type_ids, the grids,
             second_per_grid_ts as the processor's float32 tensor):
             bit-identical, and rope_delta against mrope_position_deltas;
             the config read both as save_pretrained writes it (nested) and
             flat, as the Hub's Qwen2/2.5-VL files are;
  float32    --precision float32 cos and sin against the rotary module's
             forward on those position_ids: bit-identical (PyTorch's CPU
             dispatch and MKL or SLEEF as this torch has them), from
             --sequence and from the library's own ids saved with np.save
             (int64) as --position-ids;
  exact      the default cos and sin: each value the float32 nearest to the
             float64 computation cos(p theta^(-2j/R)) (NumPy), except where
             that float64 value and the true one straddle a float32 rounding
             boundary, each such value confirmed at 60 digits (mpmath) to be
             posenc's;
  lanes      --table lanes against the module itself: the columns its
             forward changes when only one stream's ids change.
transformers 5.18 has only its own rule (`--rule hf`); for Qwen's reference
rule the check is the worked example of research/rope-2026.md B.4 (a
Qwen2.5-VL video whose trailing text starts at 10, not 6).

run.py runs the group again with ATEN_CPU_CAPABILITY=avx2 (REF_TORCH_CPU
avx2): then only the float32 checks, against --torch-cpu avx2.
"""

import json
import os
import random
import zlib

import numpy as np

import common
from common import both, equal, float64_pipeline, np32, same_bits

# (text, rope) per model: head dim 128 as the released models have it
TEXT = dict(vocab_size=256, hidden_size=256, intermediate_size=64, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=1, bos_token_id=0, eos_token_id=1)


def models():
    """(name, config, Model class, rotary class) of the three families."""
    import transformers as tf
    from transformers.models.qwen2_vl import modeling_qwen2_vl as q2
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as q25
    from transformers.models.qwen3_vl import modeling_qwen3_vl as q3
    from transformers.models.qwen3_5 import modeling_qwen3_5 as q35

    out = []
    t = dict(TEXT, rope_scaling={"type": "mrope", "mrope_section": [16, 24, 24]}, rope_theta=1e6)
    c = tf.Qwen2VLConfig(text_config=t, vision_config=dict(
        depth=1, embed_dim=32, num_heads=2, hidden_size=256, mlp_ratio=1, spatial_merge_size=2))
    out.append(("qwen2-vl", c, q2.Qwen2VLModel, q2.Qwen2VLRotaryEmbedding))
    for tps in (2, 25):
        c = tf.Qwen2_5_VLConfig(text_config=dict(t), vision_config=dict(
            depth=1, hidden_size=32, out_hidden_size=256, intermediate_size=64, num_heads=2,
            spatial_merge_size=2, tokens_per_second=tps, fullatt_block_indexes=[0]))
        out.append(("qwen2.5-vl-tps%d" % tps, c, q25.Qwen2_5_VLModel, q25.Qwen2_5_VLRotaryEmbedding))
    t3 = dict(TEXT, head_dim=128, rope_theta=5e6, rope_scaling={
        "rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True})
    c = tf.Qwen3VLConfig(text_config=t3, vision_config=dict(
        depth=1, hidden_size=32, out_hidden_size=256, intermediate_size=64, num_heads=2,
        spatial_merge_size=2, deepstack_visual_indexes=[]))
    out.append(("qwen3-vl", c, q3.Qwen3VLModel, q3.Qwen3VLTextRotaryEmbedding))
    # Qwen3.5: a quarter of a 256-wide head rotates, sections 11, 11, 10
    t35 = dict(TEXT, head_dim=256, layer_types=["full_attention"], rope_parameters={
        "rope_type": "default", "mrope_section": [11, 11, 10], "mrope_interleaved": True,
        "rope_theta": 1e7, "partial_rotary_factor": 0.25})
    c = tf.Qwen3_5Config(text_config=t35, vision_config=dict(
        depth=1, hidden_size=32, out_hidden_size=256, intermediate_size=64, num_heads=2,
        spatial_merge_size=2))
    out.append(("qwen3.5", c, q35.Qwen3_5Model, q35.Qwen3_5TextRotaryEmbedding))
    return out


def flat_config(cfg, path):
    """The Hub's flat form of a Qwen2/2.5-VL config: the text model's keys at
    the top level, its rope_parameters as the legacy rope_scaling."""
    d = cfg.to_dict()
    text = d.pop("text_config")
    rope = dict(text.pop("rope_parameters"))
    theta = rope.pop("rope_theta")
    rope.pop("rope_type", None)
    text.pop("model_type", None)
    d.update(text)
    d["rope_theta"] = theta
    d["rope_scaling"] = rope
    with open(path, "w") as f:
        json.dump(d, f)
    return path


# a sequence: items (kind, n) for text, (kind, t, h, w, seconds) for vision

B4 = [
    ("B.4 image", [("text", 3), ("image", 1, 4, 6, None), ("text", 2)]),
    ("B.4 video", [("text", 3), ("video", 4, 4, 6, 1.0), ("text", 2)]),
    ("transformers' test (merge 2)", [("text", 1), ("image", 1, 8, 6, None), ("text", 1)]),
]


def random_sequence(rng, video_seconds, frames):
    """Text runs between images and videos (Qwen3-VL: each video as its
    frames with timestamp text between them), a long text run for large
    positions; grids multiples of the merge 2."""
    items = [("text", rng.randint(1, 30))]
    for _ in range(rng.randint(2, 6)):
        h, w = 2 * rng.randint(1, 20), 2 * rng.randint(1, 20)
        if rng.random() < 0.5:
            items.append(("image", 1, h, w, None))
        else:
            t = rng.randint(1, 8)
            s = rng.choice(video_seconds) if video_seconds else None
            if frames:
                for k in range(t):
                    if k:
                        items.append(("text", rng.randint(1, 6)))
                    items.append(("frame", 1, h, w, None, t, k == 0))
            else:
                items.append(("video", t, h, w, s))
        items.append(("text", rng.randint(1, 40)))
    if rng.random() < 0.5:
        items.append(("text", rng.randint(1000, 20000)))
    return items


def describe(items, timed):
    """--sequence's text (an untimed model's videos without their seconds:
    posenc refuses @S there, transformers ignores second_per_grid_ts)."""
    out = []
    for it in items:
        if it[0] == "text":
            out.append("text:%d" % it[1])
        else:
            kind = "video" if it[0] in ("video", "frame") else "image"
            s = "" if it[4] is None or not timed else "@%r" % it[4]
            out.append("%s:%dx%dx%d%s" % (kind, it[1], it[2], it[3], s))
    return ",".join(out)


def library_inputs(items, merge=2):
    """input_ids, mm_token_type_ids, image_grid_thw, video_grid_thw and
    second_per_grid_ts as the processor gives them (Qwen3-VL: one grid row
    per video, its frames separate runs)."""
    import torch
    types, images, videos, seconds = [], [], [], []
    for it in items:
        if it[0] == "text":
            types += [0] * it[1]
            continue
        _, t, h, w, s = it[:5]
        n = t * (h // merge) * (w // merge)
        types += [1 if it[0] == "image" else 2] * n
        if it[0] == "image":
            images.append([t, h, w])
        elif it[0] == "video":
            videos.append([t, h, w])
            seconds.append(1.0 if s is None else s)
        elif it[6]:	# a video's first frame: the video's grid row
            videos.append([it[5], h, w])
    kw = {}
    if images:
        kw["image_grid_thw"] = torch.tensor(images)
    if videos:
        kw["video_grid_thw"] = torch.tensor(videos)
    if seconds:
        kw["second_per_grid_ts"] = torch.tensor(seconds, dtype=torch.float32)
    ids = torch.zeros(1, len(types), dtype=torch.long)
    return ids, torch.tensor([types], dtype=torch.int32), kw


def run(g):
    import torch
    torch.set_grad_enabled(False)
    variant = os.environ.get("REF_TORCH_CPU")
    got_cpu = torch.backends.cpu.get_cpu_capability()
    cpu = variant or {"AVX512": "avx512", "AVX2": "avx2"}.get(got_cpu, "auto")
    vml = "mkl" if torch.backends.mkl.is_available() else "sleef"
    dispatch = (variant is None or got_cpu == variant.upper(),
                "PyTorch %s runs its %s kernels" % (torch.__version__, got_cpu))
    f32 = ("--precision", "float32", "--torch-cpu", cpu, "--torch-vml", vml)

    for name, cfg, Model, Rotary in models():
        model = Model(cfg).eval()
        rot = Rotary(cfg.text_config)
        nested = common.save_config(cfg, g.path(name))
        configs = [("nested", nested)]
        if not name.startswith("qwen3"):
            configs.append(("flat", flat_config(cfg, g.path(name + "-flat.json"))))
        qwen3 = name.startswith("qwen3")
        timed = name.startswith("qwen2.5")
        rng = random.Random(zlib.crc32(name.encode()))
        seqs = [] if qwen3 else list(B4)
        if qwen3:
            seqs.append(("B.4 Qwen3-VL frames", [("text", 3), ("frame", 1, 4, 6, None, 2, True),
                                                 ("text", 2), ("frame", 1, 4, 6, None, 2, False),
                                                 ("text", 2)]))
        secs = [1.0, 0.5, 2.0, 1.0 / 3, 0.25, 2.0 / 3, 0.1, 1.5] if timed else None
        for k in range(6):
            seqs.append(("random %d" % k, random_sequence(rng, secs, qwen3)))

        def lib_ids(items):
            ids, types, kw = library_inputs(items)
            if not timed:
                kw.pop("second_per_grid_ts", None)
            pos, delta = model.get_rope_index(ids, types, **kw)
            return pos, int(delta.item())

        for sname, items in seqs:
            seq = describe(items, timed)
            base = ("generate", "mrope", "--sequence", seq)
            label = "%s %s (%d tokens)" % (name, sname, library_inputs(items)[1].shape[1])
            if not variant:
                for form, path in configs:
                    def ids_check(path=path, items=items, base=base):
                        pos, delta = lib_ids(items)
                        t, meta = g.tensors(*base, "--from-config", path, "--table", "ids")
                        want = pos[:, 0, :].numpy().astype(np.int32)
                        return both(same_bits("ids", t.get("mrope_ids"), want),
                                    equal("rope_delta", int(meta.get("rope_delta", "nan")), delta))
                    g.check("%s ids, %s config" % (label, form), ids_check)

            def f32_check(items=items, base=base):
                pos, _ = lib_ids(items)
                cos, sin = rot(torch.zeros(1, dtype=torch.float32), pos)
                t, _ = g.tensors(*base, "--from-config", nested, "--table", "all", *f32)
                npy = g.path("ids.npy")
                np.save(npy, pos[:, 0, :].numpy())
                c2 = g.npy("generate", "mrope", "--from-config", nested, "--position-ids", npy, *f32)
                return both(dispatch,
                            same_bits("cos", t.get("mrope_cos"), np32(cos[0])),
                            same_bits("sin", t.get("mrope_sin"), np32(sin[0])),
                            same_bits("cos from --position-ids", c2, np32(cos[0])))
            g.check("%s float32 --torch-cpu %s --torch-vml %s" % (label, cpu, vml), f32_check)
            if variant:
                continue

            def exact_check(items=items, base=base):
                import mpmath
                pos, _ = lib_ids(items)
                p = pos[:, 0, :].numpy().astype(np.float64)
                t, _ = g.tensors(*base, "--from-config", nested, "--table", "all")
                lanes = t["mrope_lanes"].astype(np.int64)
                R = lanes.size
                theta = float(cfg.text_config.rope_parameters["rope_theta"])
                j = np.arange(R) % (R // 2)
                inv = theta ** (-2.0 * j / R)
                ang = p[lanes, :].T * inv
                eps = lambda idx: np.abs(ang[idx]) * 2.0 ** -50 + 2.0 ** -52  # noqa: E731

                def truth(fn):
                    def at(idx):
                        n, c = idx
                        x = mpmath.mpf(int(p[lanes[c], n])) * mpmath.power(
                            mpmath.mpf(theta), -mpmath.mpf(2 * int(j[c])) / R)
                        return fn(x)
                    return at
                return both(float64_pipeline("cos", t["mrope_cos"], np.cos(ang).astype(np.float32),
                                             truth(mpmath.cos), eps),
                            float64_pipeline("sin", t["mrope_sin"], np.sin(ang).astype(np.float32),
                                             truth(mpmath.sin), eps))
            g.check("%s exact" % label, exact_check)

        if variant:
            continue

        def lanes_check():
            """the module's own stream per column: change one stream's id"""
            t, _ = g.tensors("generate", "mrope", "--from-config", nested, "--table", "all",
                             "--sequence", "text:1")
            base_ids = torch.full((3, 1, 1), 7, dtype=torch.long)
            _, sin0 = rot(torch.zeros(1), base_ids)
            want = np.full(sin0.shape[-1], -1, dtype=np.int32)
            for s in range(3):
                ids = base_ids.clone()
                ids[s] = 1000 + s
                _, sin1 = rot(torch.zeros(1), ids)	# sin: the smallest angles move too
                want[(sin1 != sin0)[0, 0].numpy()] = s
            return same_bits("lanes", t["mrope_lanes"], want)
        g.check("%s lanes" % name, lanes_check)

    if not variant:
        # Qwen's reference rule: research/rope-2026.md B.4's worked example
        def reference_rule():
            t, meta = g.tensors("generate", "mrope", "--sequence", "text:3,video:4x4x6@1,text:2",
                                "--tokens-per-second", "2", "--rule", "reference", "--table", "ids")
            want = np.array([[0, 1, 2] + [3] * 6 + [5] * 6 + [7] * 6 + [9] * 6 + [10, 11],
                             [0, 1, 2] + [3, 3, 3, 4, 4, 4] * 4 + [10, 11],
                             [0, 1, 2] + [3, 4, 5] * 8 + [10, 11]], dtype=np.int32)
            return both(same_bits("ids", t["mrope_ids"], want),
                        equal("rope_delta", meta.get("rope_delta"), "-17"))
        g.check("reference rule: B.4's video (text after it at 10, delta -17)", reference_rule)


if __name__ == "__main__":
    common.main(run)
