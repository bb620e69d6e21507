"""2-D sin-cos tables: ViT-MAE in transformers against `posenc generate
sincos2d --preset mae`.

ViT-MAE builds its frozen position_embeddings (and the decoder's
decoder_pos_embed) with build_2d_sinusoidal_position_embedding in torch
float64 ([sin_h | cos_h | sin_w | cos_w], omega = 1 / 10000^(k / (D/4)), a
zero row for the class token) and then swaps the two halves to the layout
of the original MAE code (the column block first), casting to float32.
Checked: the parameters ViTMAEEmbeddings.initialize_weights() and
ViTMAEDecoder(config, num_patches) write, for several grids and widths (not
a whole ViTMAEForPreTraining(config): in transformers 5.18 its post_init
leaves both tables zero -- _init_weights zeros decoder_pos_embed and skips
the encoder's once the patch projection is marked initialised -- while a
checkpoint's own values replace them on loading), and the function
itself on non-square grids (the model only builds square ones), its row
block against posenc's last D/2 columns and its column block against the
first D/2.  Also diffusers' get_2d_sincos_pos_embed (its patch embeddings'
table; float64 sin/cos of float32 positions, the same layout), square grids
with base_size = the grid, cast to float32 as a model stores it.
Rule common.float64_pipeline: identical except float64
rounding-boundary cases, each confirmed at 60 digits from the formula.
"""

import numpy as np

import common
from common import both, float64_pipeline, np32


def truth_fn(H, W, D, cls):
    """The exact value of posenc's MAE layout at (row, column) of the table."""
    import mpmath
    q = D // 4

    def angle(i, j):
        t = i - 1 if cls else i
        r, c = divmod(t, W)
        k = j % (D // 2) % q
        pos = c if j < D // 2 else r
        return pos / mpmath.power(10000, mpmath.mpf(k) / q)

    def value(idx):
        i, j = idx
        a = angle(i, j)
        return mpmath.sin(a) if j % (D // 2) < q else mpmath.cos(a)

    def eps(idx):
        return 2.0 ** -49 * (1 + abs(float(angle(*idx))))
    return value, eps


def check_table(what, got, lib, H, W, D, cls):
    value, eps = truth_fn(H, W, D, cls)
    return float64_pipeline(what, got, lib, value, eps)


def run(g):
    import torch
    torch.set_grad_enabled(False)
    from transformers import ViTMAEConfig
    from transformers.models.vit_mae.modeling_vit_mae import (ViTMAEDecoder, ViTMAEEmbeddings,
                                                              build_2d_sinusoidal_position_embedding)

    # (image size, patch size, hidden, decoder hidden): grids 14x14, 2x2, 1x1, 7x7
    for image, patch, hidden, dec in ((224, 16, 64, 32), (32, 16, 768, 512), (16, 16, 8, 4), (56, 8, 128, 16)):
        def model(image=image, patch=patch, hidden=hidden, dec=dec):
            cfg = ViTMAEConfig(image_size=image, patch_size=patch, hidden_size=hidden, num_hidden_layers=1,
                               num_attention_heads=4, intermediate_size=32, decoder_hidden_size=dec,
                               decoder_num_hidden_layers=1, decoder_num_attention_heads=4,
                               decoder_intermediate_size=32)
            n = image // patch
            emb = ViTMAEEmbeddings(cfg)
            emb.initialize_weights()
            enc = np32(emb.position_embeddings[0])
            de = np32(ViTMAEDecoder(cfg, num_patches=n * n).decoder_pos_embed[0])
            got_e = g.npy("generate", "sincos2d", "--grid", "%dx%d" % (n, n), "-d", hidden, "--cls-token")
            got_d = g.npy("generate", "sincos2d", "--grid", "%dx%d" % (n, n), "-d", dec, "--cls-token")
            return both(check_table("position_embeddings", got_e, enc, n, n, hidden, True),
                        check_table("decoder_pos_embed", got_d, de, n, n, dec, True))
        g.check("ViTMAEEmbeddings, ViTMAEDecoder image=%d patch=%d hidden=%d decoder=%d"
                % (image, patch, hidden, dec), model)

    for H, W, D, cls in ((3, 5, 16, False), (5, 3, 8, True), (1, 7, 4, False), (16, 9, 256, True), (40, 40, 32, False)):
        def fn(H=H, W=W, D=D, cls=cls):
            lib = np32(build_2d_sinusoidal_position_embedding(H, W, D, cls_token=cls))
            got = g.npy("generate", "sincos2d", "--grid", "%dx%d" % (H, W), "-d", D, *(["--cls-token"] if cls else []))
            if got.shape != lib.shape:
                return False, "shape %s, library %s" % (got.shape, lib.shape)
            half = D // 2
            # the function's row block is posenc's second half, its column block the first
            swapped = np.ascontiguousarray(np.concatenate([lib[:, half:], lib[:, :half]], axis=1))
            return check_table("row and column blocks", got, swapped, H, W, D, cls)
        g.check("build_2d_sinusoidal_position_embedding %dx%d D=%d%s" % (H, W, D, " cls" if cls else ""), fn)

    from diffusers.models.embeddings import get_2d_sincos_pos_embed
    for n, D in ((16, 64), (1, 4), (32, 1152), (7, 8)):
        def diff(n=n, D=D):
            lib = get_2d_sincos_pos_embed(D, n, base_size=n, output_type="pt")
            lib = np32(lib.to(torch.float32))
            got = g.npy("generate", "sincos2d", "--grid", "%dx%d" % (n, n), "-d", D)
            return check_table("table", got, lib, n, n, D, False)
        g.check("diffusers get_2d_sincos_pos_embed grid=%d D=%d" % (n, D), diff)


if __name__ == "__main__":
    common.main(run)
