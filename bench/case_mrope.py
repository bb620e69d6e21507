"""generate mrope against transformers itself (bench/tf_mrope.py, under
build/venv's Python: Debian's has no transformers): Qwen2.5-VL-7B's
position ids and cos table for a long multimodal prompt -- 500 text tokens,
a 784 x 1176-pixel image (56 x 84 patches, 1,176 tokens), 100 text tokens,
a 64-grid video of 448 x 448 pixels at 2 fps (16,384 tokens), 2,000 text
tokens: 20,160 tokens x 128 columns.  The float32 table differs from
pip's PyTorch by 1 ulp where its MKL cos differs from SLEEF's (posenc's
default --torch-vml sleef; --torch-vml mkl gives its bytes); the exact one
by what float32 angles cost the module."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import f32_absdiff, f32_ulp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "..", "data", "configs", "qwen2.5-vl-7b.json")
ITEMS = [["text", 500], ["image", 1, 56, 84], ["text", 100], ["video", 64, 32, 32, 1.0],
         ["text", 2000]]
SEQ = "text:500,image:1x56x84,text:100,video:64x32x32@1,text:2000"

CASES = [
    dict(name="generate mrope --precision float32 (Qwen2.5-VL, 20,160 tokens) -f raw",
         goal=0.2,
         posenc=["generate", "mrope", "--from-config", CONFIG, "--sequence", SEQ,
                 "--precision", "float32", "-f", "raw", "-o", "{out}"],
         ref=["tf_mrope.py", CONFIG, json.dumps(ITEMS), "{out}"],
         compare=f32_ulp),
    dict(name="generate mrope (exact, Qwen2.5-VL, 20,160 tokens) -f raw",
         goal=0.2,
         posenc=["generate", "mrope", "--from-config", CONFIG, "--sequence", SEQ,
                 "-f", "raw", "-o", "{out}"],
         ref=["tf_mrope.py", CONFIG, json.dumps(ITEMS), "{out}"],
         compare=f32_absdiff),
]
