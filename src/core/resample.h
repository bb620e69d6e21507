/*
 * resample.h - a learned 2-D position table resampled to another grid, as
 * timm's resample_abs_pos_embed does it: the K prefix rows (cls, register
 * tokens) kept as they are, the H x W grid rows (row-major: cell (y, x) is
 * row K + y W + x) seen as a D-channel image and resized to H2 x W2 with
 * torch.nn.functional.interpolate(mode, antialias, align_corners=False).
 *
 * Each output cell is a separable weighted sum of input cells:
 *     out[y][x] = sum_a wy[y][a] sum_b wx[x][b] in[iy[y][a]][ix[x][b]]
 * with one tap set per axis (struct pe_taps).  The taps follow PyTorch's
 * CPU kernels (ATen UpSampleKernel.cpp, torch 2.13):
 *   nearest   one tap, index min(floor(fl(i * fl(in/out))), in-1) in
 *             float32 (the 'nearest' rule, not 'nearest-exact')
 *   bilinear  source x = (i + 1/2) in/out - 1/2, below 0 taken as 0; taps
 *             floor(x) and the next (the last repeated), weights 1 - f, f
 *   bicubic   the same x (not clamped), taps floor(x) - 1 .. + 2 clamped
 *             to the edge, Keys' cubic with A = -0.75
 *   antialias (bilinear, bicubic) Pillow's filters, triangle or Keys with
 *             a = -0.5, stretched by in/out when shrinking (support 1 or 2
 *             times in/out), over the cells within the support of the
 *             centre (i + 1/2) in/out, normalised to sum 1; no clamping
 * Coordinates and weights are computed either as ATen computes them for a
 * float32 image (PE_COORDS_PYTORCH: its float32 operations, fused where
 * the pinned wheel's compiler fused them) or exactly (PE_COORDS_EXACT: the
 * rationals above, weights rounded once to double).  The sums are in
 * double and rounded once to float32, whatever the coordinates.
 */
#ifndef PE_RESAMPLE_H
#define PE_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"
#include "core/tensor.h"

enum pe_interp { PE_INTERP_BICUBIC, PE_INTERP_BILINEAR, PE_INTERP_NEAREST };
enum pe_coords { PE_COORDS_PYTORCH, PE_COORDS_EXACT };

/* Names in enum order, NULL-terminated. */
extern const char *const pe_interp_names[];
extern const char *const pe_coords_names[];

/* The largest grid side: weights are computed for every output index of an
 * axis, and ATen's float32 coordinates hold integers exactly below 2^24. */
#define PE_RESAMPLE_MAX_SIDE ((uint64_t)1 << 24)

/* The taps of one axis: output o reads n[o] input indices idx[o * max + k]
 * with weights w[o * max + k]. */
struct pe_taps {
	uint64_t in, out;
	size_t max;
	uint32_t *n;
	uint32_t *idx;
	double *w;
};

/* The taps for in -> out (both >= 1, at most PE_RESAMPLE_MAX_SIDE).
 * antialias with nearest is PE_ERR_PARAM.  Returns 0 or -1 (free t
 * either way). */
int pe_taps_init(struct pe_taps *t, uint64_t in, uint64_t out, enum pe_interp interp,
		 int antialias, enum pe_coords coords, struct pe_error *err);
void pe_taps_free(struct pe_taps *t);

struct pe_resample_params {
	uint64_t h, w;		/* the input grid */
	uint64_t h2, w2;	/* the output grid */
	uint64_t prefix;	/* K rows kept */
	enum pe_interp interp;
	int antialias;
	enum pe_coords coords;
};

struct pe_resample {
	struct pe_resample_params p;
	const struct pe_matrix *in;	/* K + H W rows of D; outlives r */
	struct pe_taps ty, tx;
};

/*
 * Check the table against the grid (PE_ERR_DATA: its rows must be K + H W,
 * the message naming the shape expected and a square grid that would fit)
 * and make the taps.  Returns 0 or -1; free r in either case.
 */
int pe_resample_init(struct pe_resample *r, const struct pe_resample_params *p,
		     const struct pe_matrix *in, struct pe_error *err);
void pe_resample_free(struct pe_resample *r);

/* The result: K + H2 W2 rows of D, float32, parallel (name given). */
int pe_resample_tensor(const struct pe_resample *r, const char *name, struct pe_tensor *t,
		       struct pe_error *err);

int pe_resample_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

#endif
