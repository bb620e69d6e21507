"""Sinusoidal tables: transformers' and diffusers' own functions and modules
against `posenc generate sinusoidal`.

float64 pipelines (DistilBERT/XLM create_sinusoidal_embeddings, Marian and
Pegasus create_weight: NumPy float64 angles and sin/cos, cast to float32)
against posenc's default exact table, rule common.float64_pipeline:
identical, except where the float64 result and the true value straddle a
float32 rounding boundary (the documented near-zero cases among them); each
such value is confirmed at 60 digits with mpmath from the published formula
sin or cos of p / 10000^(2k/d), the float64 error taken as 2^-49 (1 + |a|)
(the angle a with a few roundings, relative error below 16 2^-53, and sin or
cos within a few double ulps).

float32 pipelines (M2M100 and Speech2Text get_embedding, the fairseq
convention with its padding row; diffusers get_timestep_embedding: float32
exp, products and sin/cos): posenc's exact table is compared within
|a| 2^-23 (ln 10000 + 8) + 2^-22: the float32 frequency exp(-i c) carries
relative error up to 2^-23 (ln 10000 + 8) (its float32 exponent i c, exp,
the product), the angle fl(p inv) adds 2^-24 relative, sin/cos at most 1
ulp, posenc half an ulp.  Zero rows and zero padding columns are compared bit
for bit (all +0.0).  And the fairseq tables bit for bit against posenc's
float32 emulation of that recipe, `--precision float32 --torch-vml mkl`
(sleef for a PyTorch without MKL: ATen/cpu/vml.h computes float32 exp, sin
and cos with MKL where it has it).  diffusers orders its float32 steps
differently (-ln T times i, then a division), a recipe posenc does not
emulate: no float32 check there.
"""

import numpy as np

import common
from common import both, float64_pipeline, np32, same_bits, within

LN1E4 = float(np.log(10000.0))


def f64_check(what, got, lib, angle_of, fn_of):
    """float64_pipeline with the truth fn(angle) at 60 digits; angle_of(i, j)
    gives (an mpmath angle), fn_of(j) sin or cos."""
    import mpmath

    def truth(idx):
        i, j = idx
        return fn_of(j)(angle_of(i, j))

    def eps(idx):
        return 2.0 ** -49 * (1 + abs(float(angle_of(*idx))))
    return float64_pipeline(what, got, lib, truth, eps)


def vaswani_truth(d, offset=0):
    import mpmath
    return (lambda i, j: (offset + i) / mpmath.power(10000, mpmath.mpf(2 * (j // 2)) / d),
            lambda j: mpmath.sin if j % 2 == 0 else mpmath.cos)


def marian_truth(d):
    import mpmath
    s = (d + 1) // 2
    return (lambda i, j: i / mpmath.power(10000, mpmath.mpf(2 * (j if j < s else j - s)) / d),
            lambda j: mpmath.sin if j < s else mpmath.cos)


F32_RULE = "|a| 2^-23 (ln 10000 + 8) + 2^-22"


def f32_bound(angle):
    return np.abs(angle) * (2.0 ** -23 * (LN1E4 + 8)) + 2.0 ** -22


def half_angles(n, d, denom_shift, offset=0):
    """[sin | cos] halves of exp(-i ln(1e4) / (h - shift)), h = d // 2 (a
    magnitude for the bound), zero column for odd d."""
    h = d // 2
    inv = np.exp(-np.arange(h) * LN1E4 / (h - denom_shift))
    a = np.arange(offset, offset + n, dtype=np.float64)[:, None] * inv[None, :]
    out = np.concatenate([a, a], axis=1)
    if d % 2:
        out = np.concatenate([out, np.zeros((n, 1))], axis=1)
    return out


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from transformers.models.distilbert import modeling_distilbert as distilbert
    from transformers.models.xlm import modeling_xlm as xlm

    # DistilBERT / XLM: interleaved, divide by d, odd d: the last column a sin
    for fn_name, mod in (("distilbert", distilbert), ("xlm", xlm)):
        for n, d in ((512, 768), (64, 9), (33, 1), (40, 2), (16384, 128)):
            def check(mod=mod, n=n, d=d):
                got = g.npy("generate", "sinusoidal", "-n", n, "-d", d)
                out = torch.empty(n, d)
                mod.create_sinusoidal_embeddings(n, d, out)
                lib = np32(out)
                return f64_check("table", got, lib, *vaswani_truth(d))
            g.check("%s create_sinusoidal_embeddings n=%d d=%d" % (fn_name, n, d), check)

    # the buffer a DistilBERT model really holds (post_init writes it)
    def distil_model():
        from transformers import DistilBertConfig, DistilBertModel
        cfg = DistilBertConfig(vocab_size=64, dim=64, n_layers=1, n_heads=2, hidden_dim=64,
                               max_position_embeddings=300, sinusoidal_pos_embds=True)
        lib = np32(DistilBertModel(cfg).embeddings.position_embeddings.weight)
        got = g.npy("generate", "sinusoidal", "-n", 300, "-d", 64)
        return f64_check("position_embeddings.weight", got, lib, *vaswani_truth(64))
    g.check("DistilBertModel(sinusoidal_pos_embds) position_embeddings", distil_model)

    # Marian / Pegasus: half layout, the sin block ceil(d/2) wide
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding
    from transformers.models.pegasus.modeling_pegasus import PegasusSinusoidalPositionalEmbedding
    for cls in (MarianSinusoidalPositionalEmbedding, PegasusSinusoidalPositionalEmbedding):
        for n, d in ((512, 512), (64, 9), (16, 1), (1024, 64)):
            def check(cls=cls, n=n, d=d):
                lib = np32(cls(n, d).create_weight())
                got = g.npy("generate", "sinusoidal", "--preset", "marian", "-n", n, "-d", d)
                return f64_check("table", got, lib, *marian_truth(d))
            g.check("%s n=%d d=%d" % (cls.__name__, n, d), check)

    def marian_model():
        from transformers import MarianConfig, MarianModel
        cfg = MarianConfig(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                           decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                           max_position_embeddings=256, pad_token_id=1, decoder_start_token_id=1)
        lib = np32(MarianModel(cfg).encoder.embed_positions.weight)
        got = g.npy("generate", "sinusoidal", "--preset", "marian", "-n", 256, "-d", 32)
        return f64_check("encoder.embed_positions.weight", got, lib, *marian_truth(32))
    g.check("MarianModel encoder.embed_positions", marian_model)

    # fairseq convention with a padding row: M2M100 / NLLB, Speech2Text
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding
    from transformers.models.speech_to_text.modeling_speech_to_text import Speech2TextSinusoidalPositionalEmbedding
    for cls in (M2M100SinusoidalPositionalEmbedding, Speech2TextSinusoidalPositionalEmbedding):
        for n, d, pad in ((1024, 512, 1), (100, 9, 1), (64, 4, 0), (200, 64, 5)):
            def check(cls=cls, n=n, d=d, pad=pad):
                lib = np32(cls(n, d, pad).weights)  # n + 2 rows (its offset), row pad zero
                rows = lib.shape[0]
                got = g.npy("generate", "sinusoidal", "--preset", "fairseq", "--padding-idx", pad,
                            "-n", rows - pad - 1, "-d", d)
                if got.shape != lib.shape:
                    return False, "shape %s, library %s" % (got.shape, lib.shape)
                keep = np.ones(rows, bool)
                keep[pad] = False
                return both(same_bits("padding row %d" % pad, got[pad], lib[pad]),
                            within("other rows", got[keep], lib[keep],
                                   f32_bound(half_angles(rows, d, 1)[keep]), F32_RULE))
            g.check("%s n=%d d=%d padding_idx=%d" % (cls.__name__, n, d, pad), check)

            def check_f32(cls=cls, n=n, d=d, pad=pad):
                vml = "mkl" if torch.backends.mkl.is_available() else "sleef"
                got = g.npy("generate", "sinusoidal", "--preset", "fairseq", "--padding-idx", pad,
                            "-n", n + 2 - pad - 1, "-d", d, "--precision", "float32", "--torch-vml", vml)
                return same_bits("float32 --torch-vml %s" % vml, got, np32(cls(n, d, pad).weights))
            g.check("%s n=%d d=%d padding_idx=%d, float32" % (cls.__name__, n, d, pad), check_f32)

    # the rows a M2M100 model reads for a sentence without padding: positions
    # padding_idx+1 ... (its create_position_ids_from_input_ids)
    def m2m_forward():
        pad, L, d = 1, 40, 16
        mod = M2M100SinusoidalPositionalEmbedding(64, d, pad)
        ids = torch.full((1, L), 5)
        lib = np32(mod(ids)[0])
        got = g.npy("generate", "sinusoidal", "--preset", "fairseq", "--offset", pad + 1, "-n", L, "-d", d)
        return within("rows read", got, lib, f32_bound(half_angles(L, d, 1, pad + 1)), F32_RULE)
    g.check("M2M100SinusoidalPositionalEmbedding forward = --offset padding_idx+1", m2m_forward)

    # diffusers get_timestep_embedding where it coincides with a preset:
    # downscale_freq_shift=1 -> t2t (exp(-i ln T/(h-1)), [sin|cos], zero column
    # for odd d); downscale_freq_shift=0 and even d -> marian (T^(-2i/d))
    from diffusers.models.embeddings import get_timestep_embedding
    for shift, preset, dims in ((1, "t2t", (320, 9, 4)), (0, "marian", (320, 64, 2))):
        for d in dims:
            n = 1000

            def check(shift=shift, preset=preset, d=d, n=n):
                lib = np32(get_timestep_embedding(torch.arange(n), d, flip_sin_to_cos=False,
                                                  downscale_freq_shift=shift))
                got = g.npy("generate", "sinusoidal", "--preset", preset, "-n", n, "-d", d)
                return within("table", got, lib, f32_bound(half_angles(n, d, shift)), F32_RULE)
            g.check("diffusers get_timestep_embedding shift=%d d=%d = --preset %s" % (shift, d, preset), check)


if __name__ == "__main__":
    common.main(run)
