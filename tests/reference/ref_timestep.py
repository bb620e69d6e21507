"""Diffusion timestep embeddings: diffusers' get_timestep_embedding and the
models' own Timesteps modules against `posenc generate timestep`.

float32 (`--precision float32 --torch-vml mkl`, sleef for a PyTorch without
MKL): bit for bit against
  - get_timestep_embedding itself over its knobs (flip_sin_to_cos,
    downscale_freq_shift 0, 1 and 0.5, scale, max_period, odd and tiny
    widths, integer, fractional and negative timesteps);
  - each preset's model, through the Timesteps module the model holds,
    its output captured by a forward hook while the model (or its
    embedding module) runs its own forward on the timesteps: UNet2D
    (sd, get_time_embed), DiT, PixArt, SD3, Wan, AuraFlow, and the whole
    FLUX and Qwen-Image transformers in bfloat16, whose forward rounds the
    timestep to bfloat16 (FLUX: then times 1000) before the embedding; the
    preset's width is the class's own default (UNet2DConditionModel's
    block_out_channels[0], the modules' 256) where the model is tiny.
exact (posenc's default): against the same formula in float64 (torch
float64 exponent, exp, products, sin and cos, cast to float32), rule
common.float64_pipeline: identical except where the float64 value and the
true one straddle a float32 rounding boundary, each such value confirmed at
60 digits with mpmath from the formula, the float64 error taken as
2^-48 (1 + |a|) (a the angle).  The timesteps enter both as the model holds
them (float32, or bfloat16 times 1000 for FLUX).
"""

import inspect

import numpy as np

import common
from common import both, float64_pipeline, np32, same_bits

# timestep sets: what schedulers give (integers 0..999, flow-matching
# sigmas in [0, 1] and sigma * 1000), and awkward ones
INTS = np.arange(1000, dtype=np.float64)
SIGMAS = np.linspace(1.0, 0.0, 50)
FRACS = np.arange(-5.0, 5.0, 0.37)


def vml():
    import torch
    return "mkl" if torch.backends.mkl.is_available() else "sleef"


def write_ts(g, ts):
    """The timesteps as a text file posenc reads (17 digits: the doubles)."""
    path = g.path("t.txt")
    np.savetxt(path, np.asarray(ts, dtype=np.float64), fmt="%.17g")
    return path


def knobs(d, flip, shift, scale, period):
    return ["-d", d, "--order", "cos-sin" if flip else "sin-cos", "--freq-shift", shift,
            "--angle-scale", scale, "--max-period", period]


def f64_table(t, d, flip, shift, scale, period):
    """get_timestep_embedding's formula in float64, and the angles."""
    import torch
    h = d // 2
    t = torch.as_tensor(np.asarray(t, dtype=np.float64))
    e = -np.log(period) * torch.arange(h, dtype=torch.float64) / (h - shift)
    a = scale * (t[:, None] * torch.exp(e)[None, :])
    s, c = torch.sin(a), torch.cos(a)
    out = torch.cat([c, s] if flip else [s, c], dim=1)
    ang = torch.cat([a, a], dim=1)
    if d % 2:
        out = torch.nn.functional.pad(out, (0, 1))
        ang = torch.nn.functional.pad(ang, (0, 1))
    return out.to(torch.float32).numpy(), ang.numpy()


def exact_check(g, what, t_model, ts_args, d, flip, shift, scale, period, extra=()):
    """posenc's exact table against the float64 formula at t_model (the
    timesteps as the model gives them to the embedding)."""
    import mpmath
    got = g.npy("generate", "timestep", *ts_args, *knobs(d, flip, shift, scale, period), *extra)
    lib, ang = f64_table(t_model, d, flip, shift, scale, period)
    h = d // 2
    mpmath.mp.dps = 60

    def truth(idx):
        i, j = idx
        if j >= 2 * h:
            return mpmath.mpf(0)
        k = j % h
        a = mpmath.mpf(scale) * mpmath.mpf(float(t_model[i])) * mpmath.exp(
            -mpmath.log(mpmath.mpf(period)) * k / (h - mpmath.mpf(shift)))
        first_is_sin = not flip
        return mpmath.sin(a) if (j < h) == first_is_sin else mpmath.cos(a)

    def eps(idx):
        return 2.0 ** -48 * (1 + abs(float(ang[idx])))
    return float64_pipeline(what, got, lib, truth, eps)


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from diffusers.models.embeddings import get_timestep_embedding

    v = vml()
    f32 = ("--precision", "float32", "--torch-vml", v)

    # the function over its knobs
    cases = [
        ("ints d=320 flip shift=0", INTS, 320, True, 0, 1, 10000),
        ("ints d=256 flip shift=1", INTS, 256, True, 1, 1, 10000),
        ("ints d=128 defaults", INTS, 128, False, 1, 1, 10000),
        ("ints d=9 (odd)", INTS[:64], 9, False, 1, 1, 10000),
        ("ints d=1", INTS[:8], 1, False, 1, 1, 10000),
        ("ints d=3 shift=0", INTS[:8], 3, True, 0, 1, 10000),
        ("sigmas d=256 scale=1000", SIGMAS, 256, True, 0, 1000, 10000),
        ("fractions d=257 shift=0.5 scale=3.5", FRACS, 257, True, 0.5, 3.5, 10000),
        ("ints d=64 max_period=100", INTS, 64, False, 1, 1, 100),
    ]
    for name, ts, d, flip, shift, scale, period in cases:
        t32 = torch.tensor(ts, dtype=torch.float32)

        def check(ts=ts, t32=t32, d=d, flip=flip, shift=shift, scale=scale, period=period):
            lib = np32(get_timestep_embedding(t32, d, flip_sin_to_cos=flip, downscale_freq_shift=shift,
                                              scale=scale, max_period=period))
            got = g.npy("generate", "timestep", "--timesteps-file", write_ts(g, ts),
                        *knobs(d, flip, shift, scale, period), *f32)
            return same_bits("float32 --torch-vml %s" % v, got, lib)
        g.check("get_timestep_embedding %s, float32" % name, check)

        def check_exact(ts=ts, t32=t32, d=d, flip=flip, shift=shift, scale=scale, period=period):
            return exact_check(g, "exact", t32.double().numpy(), ["--timesteps-file", write_ts(g, ts)],
                               d, flip, shift, scale, period)
        g.check("get_timestep_embedding %s, exact vs float64" % name, check_exact)

    # --timesteps A:B:S is A + i S in double, as the model then holds it
    def check_range():
        ts = 0.25 + np.arange(40) * 0.125
        lib = np32(get_timestep_embedding(torch.tensor(ts, dtype=torch.float32), 32))
        got = g.npy("generate", "timestep", "--timesteps", "0.25:5.25:0.125", "-d", 32, *f32)
        return same_bits("--timesteps 0.25:5.25:0.125", got, lib)
    g.check("--timesteps A:B:S = the same timesteps, float32", check_range)

    # each preset through its model's own module
    def hooked(module, run_model):
        """Run run_model() and return (input, output) of module's forward."""
        seen = {}

        def hook(mod, args, out):
            seen["in"] = args[0].detach().clone()
            seen["out"] = out.detach().clone()
        hd = module.register_forward_hook(hook)
        try:
            run_model()
        finally:
            hd.remove()
        return seen["in"], seen["out"]

    def preset_check(preset, ts, module, run_model, d):
        t_in, out = hooked(module, run_model)
        path = write_ts(g, ts)
        got = g.npy("generate", "timestep", "--preset", preset, "--timesteps-file", path, *f32)
        bits = same_bits("--preset %s -d %d, float32" % (preset, d), got, np32(out))
        exact = exact_check(g, "exact", t_in.double().numpy(), ["--preset", preset, "--timesteps-file", path],
                            d, module.flip_sin_to_cos, module.downscale_freq_shift, module.scale, 10000)
        width = common.equal("width", got.shape[1], d)
        return both(width, bits, exact)

    from diffusers import UNet2DConditionModel

    def sd():
        d = inspect.signature(UNet2DConditionModel.__init__).parameters["block_out_channels"].default[0]
        unet = UNet2DConditionModel(block_out_channels=(d, d), layers_per_block=1, norm_num_groups=32,
                                    down_block_types=("DownBlock2D", "DownBlock2D"),
                                    up_block_types=("UpBlock2D", "UpBlock2D"), cross_attention_dim=32,
                                    sample_size=8, in_channels=4, out_channels=4)
        ts = INTS[::10]
        t = torch.tensor(ts, dtype=torch.int64)
        sample = torch.zeros(len(ts), 4, 8, 8)
        return preset_check("sd", ts, unet.time_proj, lambda: unet.get_time_embed(sample, t), d)
    g.check("UNet2DConditionModel get_time_embed = --preset sd", sd)

    from diffusers.models.embeddings import (CombinedTimestepLabelEmbeddings, CombinedTimestepTextProjEmbeddings,
                                             PixArtAlphaCombinedTimestepSizeEmbeddings)

    def dit():
        m = CombinedTimestepLabelEmbeddings(num_classes=10, embedding_dim=32)
        ts = INTS[::7]
        t = torch.tensor(ts, dtype=torch.int64)
        return preset_check("dit", ts, m.time_proj,
                            lambda: m(t, torch.zeros(len(ts), dtype=torch.int64), hidden_dtype=torch.float32),
                            256)
    g.check("DiT CombinedTimestepLabelEmbeddings = --preset dit", dit)

    def pixart():
        m = PixArtAlphaCombinedTimestepSizeEmbeddings(embedding_dim=32, size_emb_dim=16)
        ts = INTS[::7]
        t = torch.tensor(ts, dtype=torch.int64)
        return preset_check("pixart", ts, m.time_proj,
                            lambda: m(t, None, None, batch_size=len(ts), hidden_dtype=torch.float32), 256)
    g.check("PixArtAlphaCombinedTimestepSizeEmbeddings = --preset pixart", pixart)

    def sd3():
        m = CombinedTimestepTextProjEmbeddings(embedding_dim=32, pooled_projection_dim=16)
        ts = SIGMAS * 1000
        t = torch.tensor(ts, dtype=torch.float32)
        return preset_check("sd3", ts, m.time_proj, lambda: m(t, torch.zeros(len(ts), 16)), 256)
    g.check("SD3 CombinedTimestepTextProjEmbeddings = --preset sd3", sd3)

    from diffusers.models.transformers.transformer_wan import WanTimeTextImageEmbedding

    def wan():
        m = WanTimeTextImageEmbedding(dim=32, time_freq_dim=256, time_proj_dim=192, text_embed_dim=16)
        ts = SIGMAS * 1000
        t = torch.tensor(ts, dtype=torch.float32)
        return preset_check("wan", ts, m.timesteps_proj, lambda: m(t, torch.zeros(len(ts), 3, 16)), 256)
    g.check("WanTimeTextImageEmbedding = --preset wan", wan)

    from diffusers import AuraFlowTransformer2DModel, FluxTransformer2DModel, QwenImageTransformer2DModel

    def auraflow():
        m = AuraFlowTransformer2DModel(sample_size=8, patch_size=2, in_channels=4, num_mmdit_layers=1,
                                       num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=2,
                                       joint_attention_dim=16, caption_projection_dim=16, out_channels=4,
                                       pos_embed_max_size=16)
        ts = SIGMAS
        t = torch.tensor(ts, dtype=torch.float32)
        n = len(ts)
        return preset_check("auraflow", ts, m.time_step_embed,
                            lambda: m(torch.zeros(n, 4, 8, 8), torch.zeros(n, 3, 16), t), 256)
    g.check("AuraFlowTransformer2DModel forward = --preset auraflow", auraflow)

    def flux():
        m = FluxTransformer2DModel(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
                                   attention_head_dim=16, num_attention_heads=2, joint_attention_dim=16,
                                   pooled_projection_dim=16, axes_dims_rope=(4, 6, 6)).to(torch.bfloat16)
        ts = np.concatenate([SIGMAS, [0.7, 0.333, 0.0625]])
        t = torch.tensor(ts, dtype=torch.float32)
        n = len(ts)
        run = lambda: m(hidden_states=torch.zeros(n, 4, 4, dtype=torch.bfloat16),
                        encoder_hidden_states=torch.zeros(n, 2, 16, dtype=torch.bfloat16),
                        pooled_projections=torch.zeros(n, 16, dtype=torch.bfloat16), timestep=t,
                        img_ids=torch.zeros(4, 3), txt_ids=torch.zeros(2, 3))
        return preset_check("flux", ts, m.time_text_embed.time_proj, run, 256)
    g.check("FluxTransformer2DModel forward in bfloat16 = --preset flux", flux)

    def qwen():
        m = QwenImageTransformer2DModel(patch_size=1, in_channels=4, out_channels=4, num_layers=1,
                                        attention_head_dim=16, num_attention_heads=2, joint_attention_dim=16,
                                        axes_dims_rope=(4, 6, 6)).to(torch.bfloat16)
        ts = np.concatenate([SIGMAS, [0.7, 0.333]])
        t = torch.tensor(ts, dtype=torch.float32)
        n = len(ts)
        run = lambda: m(hidden_states=torch.zeros(n, 4, 4, dtype=torch.bfloat16),
                        encoder_hidden_states=torch.zeros(n, 2, 16, dtype=torch.bfloat16),
                        encoder_hidden_states_mask=torch.ones(n, 2, dtype=torch.int64), timestep=t,
                        img_shapes=[(1, 2, 2)] * n)
        return preset_check("qwen-image", ts, m.time_text_embed.time_proj, run, 256)
    g.check("QwenImageTransformer2DModel forward in bfloat16 = --preset qwen-image", qwen)


if __name__ == "__main__":
    common.main(run)
