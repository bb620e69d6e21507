"""Axial RoPE of image and video grids: the models' own rotary modules
against `posenc generate axial --preset ...`.

  float32, bit-identical (--precision float32, --torch-cpu as PyTorch runs
  here, --torch-vml mkl where PyTorch has MKL):
    transformers 5.18.0  PixtralVisionRotaryEmbedding (cos, sin of the
                         row-major patch ids the vision model builds),
                         Qwen2VLVisionRotaryEmbedding with
                         vision_utils.get_vision_position_ids (cos, sin, and
                         the ids: merge blocks, videos), the freqs_ci buffer of
                         Llama4VisionRotaryEmbedding (view_as_real: cis)
    diffusers            HunyuanVideoRotaryPosEmbed (cos, sin)
    BFL FLUX, RoPE-ViT   not installable here (no package): their rope()
                         (flux/math.py) and compute_axial_cis
                         (naver-ai/rope-vit models/vit_rope.py) are a few
                         float32 torch operations, run below in that order
                         with torch itself (pow, reciprocal, product,
                         cos/sin, or torch.polar): BFL's pe and RoPE-ViT's
                         freqs_cis
  float64 pipelines (exact, the default): diffusers' FluxPosEmbed and
    WanRotaryPosEmbed compute angles, cos and sin in float64 and cast to
    float32, so rule common.float64_pipeline: identical except where their
    float64 value straddles a float32 rounding boundary, each such value
    confirmed at 60 digits from the formula (coordinate * theta^(-2k/d)).

Grids include angles beyond SLEEF's 125 (sides of 130 and more), non-square
and video grids, text tokens before FLUX's image, Llama 4's class token.
Models are built from small configs; nothing is downloaded.
"""

import os

import numpy as np

import common
from common import both, float64_pipeline, np32, same_bits


def run(g):
    import torch
    torch.set_grad_enabled(False)
    cap = torch.backends.cpu.get_cpu_capability().lower()
    vml = "mkl" if torch.backends.mkl.is_available() else "sleef"
    f32 = ["--precision", "float32", "--torch-cpu", cap, "--torch-vml", vml]
    dispatch = (cap in ("avx2", "avx512"), "PyTorch %s runs its %s kernels, %s cos/sin" % (
        torch.__version__, cap, vml))
    x = torch.zeros(1, dtype=torch.float32)

    def axial(*args):
        return g.npy("generate", "axial", *args)

    # ---- transformers ----
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding

    for D, H, W in ((64, 16, 16), (32, 7, 5), (128, 64, 48), (64, 130, 140)):
        def pixtral(D=D, H=H, W=W):
            cfg = PixtralVisionConfig(hidden_size=2 * D, num_attention_heads=2, image_size=16 * max(H, W),
                                      patch_size=16)
            m = PixtralVisionRotaryEmbedding(cfg)
            # the vision model's ids: meshgrid over the image's patch grid
            hp, wp = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
            cos, sin = m(x, torch.stack([hp.flatten(), wp.flatten()], dim=-1))
            a = ["--preset", "pixtral", "-d", D, "--grid", "%dx%d" % (H, W), *f32]
            return both(dispatch, same_bits("cos", axial(*a), np32(cos)),
                        same_bits("sin", axial(*a, "--table", "sin"), np32(sin)))
        g.check("PixtralVisionRotaryEmbedding D=%d grid %dx%d float32" % (D, H, W), pixtral)

    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding
    from transformers.vision_utils import get_vision_position_ids

    for D, T, H, W in ((80, 1, 16, 16), (32, 3, 4, 6), (64, 2, 64, 32), (80, 1, 200, 130)):
        def qwen(D=D, T=T, H=H, W=W):
            m = Qwen2VLVisionRotaryEmbedding(Qwen2VLVisionConfig(embed_dim=2 * D, num_heads=2))
            ids = get_vision_position_ids(torch.tensor([[T, H, W]]), 2)
            cos, sin = m(x, ids)
            a = ["--preset", "qwen2-vl-vision", "-d", D, "--grid", "%dx%dx%d" % (T, H, W)]
            return both(dispatch, same_bits("ids", axial(*a, "--table", "ids"), ids.numpy().astype(np.int32)),
                        same_bits("cos", axial(*a, *f32), np32(cos)),
                        same_bits("sin", axial(*a, *f32, "--table", "sin"), np32(sin)))
        g.check("Qwen2VLVisionRotaryEmbedding + get_vision_position_ids D=%d grid %dx%dx%d float32"
                % (D, T, H, W), qwen)

    from transformers.models.llama4.configuration_llama4 import Llama4VisionConfig
    from transformers.models.llama4.modeling_llama4 import Llama4VisionRotaryEmbedding

    for D, image, patch in ((88, 336, 14), (32, 64, 16), (16, 70, 14), (64, 2240, 16)):
        def llama4(D=D, image=image, patch=patch):
            cfg = Llama4VisionConfig(hidden_size=2 * D, num_attention_heads=2, image_size=image,
                                     patch_size=patch)
            fc = Llama4VisionRotaryEmbedding(cfg).freqs_ci
            cis = torch.view_as_real(fc).reshape(fc.shape[0], -1)
            n = image // patch
            got = axial("--preset", "llama4-vision", "-d", D, "--grid", "%dx%d" % (n, n), "--table", "cis", *f32)
            return both(dispatch, same_bits("freqs_ci (cis, with the class token)", got, np32(cis)))
        g.check("Llama4VisionRotaryEmbedding D=%d image %d patch %d float32" % (D, image, patch), llama4)

    # ---- diffusers ----
    from diffusers.models.transformers.transformer_flux import FluxPosEmbed
    from diffusers.models.transformers.transformer_hunyuan_video import HunyuanVideoRotaryPosEmbed
    from diffusers.models.transformers.transformer_wan import WanRotaryPosEmbed

    def truth(ids, dims, theta, interleaved=True):
        """The exact cos or sin at (row, column) of a table whose row r has
        coordinates ids[r] (one per block of width dims[b])."""
        import mpmath
        edges = np.cumsum([0] + list(dims))

        def angle(r, col):
            pair = col // 2 if interleaved else col % (edges[-1] // 2)
            j = 2 * pair
            b = int(np.searchsorted(edges, j, side="right")) - 1
            k = (j - edges[b]) // 2
            return int(ids[r][b]) * mpmath.power(theta, -mpmath.mpf(2 * k) / dims[b])

        def fn(which):
            def value(idx):
                a = angle(*idx)
                return mpmath.cos(a) if which == "cos" else mpmath.sin(a)

            def eps(idx):
                return 2.0 ** -49 * (1 + abs(float(angle(*idx))))
            return value, eps
        return fn

    for H, W, txt in ((16, 16, 0), (64, 64, 7), (128, 96, 0)):
        def flux(H=H, W=W, txt=txt):
            img = torch.zeros(H, W, 3)
            img[..., 1] += torch.arange(H)[:, None]
            img[..., 2] += torch.arange(W)[None, :]
            ids = torch.cat([torch.zeros(txt, 3), img.reshape(-1, 3)])
            cos, sin = FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids)
            a = ["--preset", "flux", "--grid", "%dx%d" % (H, W), "--prefix-tokens", txt]
            t = truth(ids.numpy(), [16, 56, 56], 10000)
            return both(float64_pipeline("cos", axial(*a), np32(cos), *t("cos")),
                        float64_pipeline("sin", axial(*a, "--table", "sin"), np32(sin), *t("sin")))
        g.check("FluxPosEmbed grid %dx%d text %d (float64) exact" % (H, W, txt), flux)

    def bfl_pe(ids, dims, theta):
        # BFL's flux.math.rope, axis by axis, in float32 as it runs:
        # omega = 1 / theta ** (arange(0, d, 2) / d); out = pos x omega;
        # the 2 x 2 matrices [[cos, -sin], [sin, cos]], axes concatenated
        blocks = []
        for i, d in enumerate(dims):
            omega = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
            ang = ids[:, i:i + 1] * omega[None, :]
            c, s = torch.cos(ang), torch.sin(ang)
            blocks.append(torch.stack([c, -s, s, c], dim=-1))
        return torch.cat(blocks, dim=1).reshape(ids.shape[0], -1)

    for H, W, txt in ((16, 16, 3), (128, 128, 0)):
        def bfl(H=H, W=W, txt=txt):
            img = torch.zeros(H, W, 3)
            img[..., 1] += torch.arange(H)[:, None]
            img[..., 2] += torch.arange(W)[None, :]
            ids = torch.cat([torch.zeros(txt, 3), img.reshape(-1, 3)])
            got = axial("--preset", "flux", "--grid", "%dx%d" % (H, W), "--prefix-tokens", txt, "--table", "rot", *f32)
            return both(dispatch, same_bits("pe", got, np32(bfl_pe(ids, [16, 56, 56], 10000))))
        g.check("BFL FLUX rope() pe grid %dx%d text %d float32" % (H, W, txt), bfl)

    for D, T, H, W in ((128, 4, 8, 8), (64, 3, 5, 7), (96, 2, 3, 3), (128, 64, 64, 64)):
        def wan(D=D, T=T, H=H, W=W):
            cos, sin = WanRotaryPosEmbed(D, (1, 2, 2), 1024)(torch.zeros(1, 1, T, 2 * H, 2 * W))
            a = ["--preset", "wan", "-d", D, "--grid", "%dx%dx%d" % (T, H, W)]
            t, h, w = np.meshgrid(np.arange(T), np.arange(H), np.arange(W), indexing="ij")
            ids = np.stack([t.ravel(), h.ravel(), w.ravel()], axis=1)
            hd = 2 * (D // 6)
            tr = truth(ids, [D - 2 * hd, hd, hd], 10000)
            return both(float64_pipeline("cos", axial(*a), np32(cos[0, :, 0]), *tr("cos")),
                        float64_pipeline("sin", axial(*a, "--table", "sin"), np32(sin[0, :, 0]), *tr("sin")))
        g.check("WanRotaryPosEmbed D=%d grid %dx%dx%d (float64) exact" % (D, T, H, W), wan)

    for T, H, W in ((4, 8, 8), (3, 5, 7), (16, 32, 32), (130, 2, 3)):
        def hunyuan(T=T, H=H, W=W):
            cos, sin = HunyuanVideoRotaryPosEmbed(2, 1, [16, 56, 56], 256.0)(torch.zeros(1, 1, T, 2 * H, 2 * W))
            a = ["--preset", "hunyuan-video", "--grid", "%dx%dx%d" % (T, H, W), *f32]
            return both(dispatch, same_bits("cos", axial(*a), np32(cos)),
                        same_bits("sin", axial(*a, "--table", "sin"), np32(sin)))
        g.check("HunyuanVideoRotaryPosEmbed grid %dx%dx%d float32" % (T, H, W), hunyuan)

    # ---- RoPE-ViT ----
    def rope_vit_cis(D, H, W, theta=100.0):
        # compute_axial_cis in float32: f = 1 / theta ** (arange(0, D, 4) / D)
        # for both axes, t = arange(W H); x = t mod W, y = t div W; freqs_cis =
        # cat(polar(1, x f), polar(1, y f)), kept complex
        f = 1.0 / (theta ** (torch.arange(0, D, 4)[:D // 4].float() / D))
        t = torch.arange(W * H, dtype=torch.float32)
        fx = torch.outer(t % W, f)
        fy = torch.outer(torch.div(t, W, rounding_mode="floor"), f)
        c = torch.cat([torch.polar(torch.ones_like(fx), fx), torch.polar(torch.ones_like(fy), fy)], dim=-1)
        return torch.view_as_real(c).reshape(c.shape[0], -1)

    for D, H, W in ((64, 14, 14), (32, 7, 9), (64, 200, 200)):
        def ropevit(D=D, H=H, W=W):
            got = axial("--preset", "rope-vit", "-d", D, "--grid", "%dx%d" % (H, W), "--table", "cis", *f32)
            return both(dispatch, same_bits("freqs_cis (cis)", got, np32(rope_vit_cis(D, H, W))))
        g.check("RoPE-ViT compute_axial_cis D=%d grid %dx%d float32" % (D, H, W), ropevit)


if __name__ == "__main__":
    common.main(run)
