/*
 * grid2d.h - fixed 2-D sin/cos tables for image patches (ViT family).
 *
 * Tokens are the cells of an H x W grid in row-major order (token
 * r W + c for row r, column c); D channels, D divisible by 4; q = D/4
 * frequencies w_k = base^(-k/q), k = 0 .. q-1 (He et al. 2022, MAE, and
 * timm's 2-D sin-cos embedding, as their code below computes them):
 *
 *   mae   [sin(c w) | cos(c w) | sin(r w) | cos(r w)]   column first
 *         (facebookresearch/mae get_2d_sincos_pos_embed: its "emb_h" holds
 *         the column); with a cls token, row 0 is all zeros
 *   timm  [sin(r w) | sin(c w) | cos(r w) | cos(c w)]   row first
 *         (timm build_sincos2d_pos_embed, interleave_sin_cos=False)
 *
 * Each block is q wide.  Values are the correctly rounded float32 of the
 * exact sin and cos (core/angle.h) -- MAE itself computes in float64 and
 * rounds once, so the tables agree to the last bit wherever float64 does.
 */
#ifndef PE_GRID2D_H
#define PE_GRID2D_H

#include <stddef.h>
#include <stdint.h>

#include "core/angle.h"
#include "core/err.h"
#include "core/tensor.h"

enum pe_grid2d_preset { PE_GRID2D_MAE, PE_GRID2D_TIMM };

struct pe_grid2d_params {
	enum pe_grid2d_preset preset;
	uint64_t height, width;	/* grid rows and columns, >= 1 */
	uint64_t dim;		/* D, divisible by 4 */
	double base;		/* 10000 */
	int cls_token;		/* prepend an all-zero row */
};

struct pe_grid2d {
	struct pe_grid2d_params p;
	uint64_t rows;		/* H W (+1) */
	size_t nfreq;		/* D / 4 */
	struct pe_freq *freq;
	/* sin and cos of every coordinate: position c's q sines at
	 * axis[2 q c], its q cosines after them; NULL: computed per value */
	float *axis;
};

void pe_grid2d_defaults(struct pe_grid2d_params *p);

/* Validate and prepare; PE_ERR_PARAM for bad parameters (D not divisible
 * by 4 says so). */
int pe_grid2d_init(struct pe_grid2d *g, const struct pe_grid2d_params *p, struct pe_error *err);
void pe_grid2d_free(struct pe_grid2d *g);

/* A tensor "sincos2d", rows x D, parallel. */
int pe_grid2d_tensor(const struct pe_grid2d *g, struct pe_tensor *t, struct pe_error *err);

int pe_grid2d_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

#endif
