"""What a user runs for a multimodal RoPE table today: transformers'
Qwen2.5-VL position ids (the model's get_rope_index) and its text rotary
module's forward, the cos written as raw float32.

    tf_mrope.py CONFIG.json ITEMS_JSON OUT

ITEMS_JSON: the sequence as a JSON list of ["text", n], ["image", t, h, w]
and ["video", t, h, w, seconds].  The model is built from the config with
one small layer and a one-block vision tower (what get_rope_index reads is
the config's merge and tokens per second, not the weights).
"""
import json
import sys

import torch
from transformers import Qwen2_5_VLConfig
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import (Qwen2_5_VLModel,
                                                                Qwen2_5_VLRotaryEmbedding)

torch.set_grad_enabled(False)
with open(sys.argv[1]) as f:
    d = json.load(f)
d.update(num_hidden_layers=1, intermediate_size=64, vocab_size=256, bos_token_id=0, eos_token_id=1)
d["vision_config"].update(depth=1, hidden_size=32, intermediate_size=64, num_heads=2,
                          fullatt_block_indexes=[0])
cfg = Qwen2_5_VLConfig(**d)
merge = cfg.vision_config.spatial_merge_size
types, images, videos, seconds = [], [], [], []
for it in json.loads(sys.argv[2]):
    if it[0] == "text":
        types += [0] * it[1]
        continue
    t, h, w = it[1:4]
    types += [1 if it[0] == "image" else 2] * (t * (h // merge) * (w // merge))
    (images if it[0] == "image" else videos).append([t, h, w])
    if it[0] == "video":
        seconds.append(it[4])
model = Qwen2_5_VLModel(cfg).eval()
pos, _ = model.get_rope_index(torch.zeros(1, len(types), dtype=torch.long),
                              torch.tensor([types], dtype=torch.int32),
                              image_grid_thw=torch.tensor(images) if images else None,
                              video_grid_thw=torch.tensor(videos) if videos else None,
                              second_per_grid_ts=torch.tensor(seconds, dtype=torch.float32))
cos, _ = Qwen2_5_VLRotaryEmbedding(cfg.text_config)(torch.zeros(1, dtype=torch.float32), pos)
cos[0].numpy().tofile(sys.argv[3])
