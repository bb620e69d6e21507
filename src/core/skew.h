/*
 * skew.h - relative logits to absolute positions ("skewing", Music
 * Transformer), its inverse, the 2-D sum of BoTNet / Attention-Augmented
 * Convolution, and the map of which input column each cell reads.
 *
 * Conventions (Huang et al. 2018, section 3.4.1; Shaw et al. 2018): query i, key j,
 * distance r = j - i (key minus query, as Shaw et al. and tensor2tensor).
 * Relative logits R have one column per distance: column c is distance
 * c - (L - 1), so c = L - 1 is the query itself.
 *
 *   bidir forward   R: L x (2L-1)  ->  A: L x L,  A[i][j] = R[i][j - i + L - 1]
 *   causal forward  R: L x L       ->  A: L x L,  the same for j <= i; j > i
 *                   is fill, or with raw what pad/reshape/slice leaves there:
 *                   A[i][i+1] = 0 (the pad), A[i][j] = R[i+1][j - i - 2]
 *   bidir inverse   A: L x L -> R: L x (2L-1), R[i][c] = A[i][c + i - L + 1]
 *                   where 0 <= c + i - L + 1 < L, else fill
 *   causal inverse  A: L x L -> R: L x L, the same for c >= L - 1 - i, else
 *                   fill, or with raw what tensor2tensor's masked inverse
 *                   (prepend a zero row, view L x (L+1), drop column 0)
 *                   leaves: 0 in row 0, A[i-1][i + c + 1] below it
 *   broadcast       the input is one row b used for every query: A[i][j] =
 *                   b[j - i + L - 1] (a Toeplitz matrix)
 *   2-D (H x W grid, token n = x W + y)
 *                   R_w: HW x (2W-1), R_h: HW x (2H-1) -> A: HW x HW,
 *                   A[n][m] = R_w[n][y_m - y_n + W - 1] + R_h[n][x_m - x_n + H - 1]
 *                   (one float32 addition, correctly rounded)
 *
 * Every value is computed by that index formula, never by emulating the
 * buffer trick; the bidir trick never reads its pads, so raw changes
 * nothing there except that the inverse's empty cells are the pads' zeros.
 * The index map is the same as an int32 matrix: the column of the input
 * each output cell reads, fill (e.g. -1) where it reads none.
 *
 * The result is a tensor whose fill function computes any block of rows
 * from the input (whole rows are slices of input rows: memcpy), parallel.
 * Nothing here prints, exits or names a command-line option.
 */
#ifndef PE_SKEW_H
#define PE_SKEW_H

#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"
#include "core/tensor.h"

enum pe_skew_mode { PE_SKEW_BIDIR, PE_SKEW_CAUSAL };

/* "bidir", "causal", NULL (indexed by enum pe_skew_mode). */
extern const char *const pe_skew_mode_names[];

struct pe_skew_params {
	enum pe_skew_mode mode;
	int inverse;		/* absolute -> relative */
	int raw;		/* causal: what the buffer trick leaves, not fill */
	int broadcast;		/* the input is one row (b), used for every query */
	float fill;		/* the cells no input reaches (any value, NaN, inf) */
	int32_t index_fill;	/* the same for the index map */
};

struct pe_skew {
	struct pe_skew_params p;
	int kind;		/* file-local: 1-D values, 2-D values or index map */
	uint64_t L;		/* queries (1-D); H * W for 2-D */
	uint64_t H, W;
	uint64_t out_rows, out_cols;
	const float *in;	/* 1-D input, in_cols per row (row 0 only: broadcast) */
	uint64_t in_cols;
	const float *rh, *rw;	/* 2-D inputs */
	uint64_t rh_stride, rw_stride;	/* elements from one row to the next (0: broadcast) */
};

/*
 * A 1-D skew (forward or inverse, per p) of the table in (which must
 * outlive s and its tensor).  L is the input's rows (with broadcast: taken
 * from the row's length; a one-column table counts as that column); a
 * shape that does not fit is PE_ERR_DATA naming the expected shape
 * ("bidir skew needs L x (2L-1) relative logits; got 3 x 4 (for L = 3:
 * 3 x 5)").  Returns 0 or -1.
 */
int pe_skew_init(struct pe_skew *s, const struct pe_skew_params *p, const struct pe_matrix *in,
		 struct pe_error *err);

enum pe_skew_axis { PE_SKEW_ROWS, PE_SKEW_COLS };

/*
 * Does m fit as R_h (axis PE_SKEW_ROWS: HW x (2H-1)) or R_w (PE_SKEW_COLS:
 * HW x (2W-1)) of an h x w grid?  With p->broadcast it is one row of
 * 2H-1 (2W-1) values, or that many in one column.  Else PE_ERR_DATA
 * ("R_h of a 2 x 3 grid needs 6 x 3 (...); got 6 x 4").  Returns 0 or -1.
 */
int pe_skew_check_rel(const struct pe_skew_params *p, uint64_t h, uint64_t w,
		      enum pe_skew_axis axis, const struct pe_matrix *m, struct pe_error *err);

/*
 * A 2-D skew of an h x w grid (bidir, forward only, not raw: else
 * PE_ERR_PARAM; p->broadcast: each input is one row), the inputs checked
 * as pe_skew_check_rel.  rh and rw must outlive s.  Returns 0 or -1.
 */
int pe_skew_init_2d(struct pe_skew *s, const struct pe_skew_params *p, uint64_t h, uint64_t w,
		    const struct pe_matrix *rh, const struct pe_matrix *rw, struct pe_error *err);

/* The index map of a 1-D skew of L queries (p: mode, inverse, index_fill;
 * raw and broadcast must be 0).  L from 1 to 2^23.  Returns 0 or -1. */
int pe_skew_init_index(struct pe_skew *s, const struct pe_skew_params *p, uint64_t L,
		       struct pe_error *err);

/* The input's expected shape for L queries (1-D) as p says: rows x cols,
 * or 1 x cols with broadcast. */
void pe_skew_input_shape(const struct pe_skew_params *p, uint64_t L, uint64_t *rows,
			 uint64_t *cols);

/* The rows [*r0, *r1) of the result that hold p.fill (each at least one
 * cell no input reaches; the others none): causal forward and causal
 * inverse rows 0 .. L-2, bidir inverse every row (for L >= 2); none
 * (*r0 == *r1) for bidir forward, raw, 2-D and index maps. */
void pe_skew_fill_rows(const struct pe_skew *s, uint64_t *r0, uint64_t *r1);

/* The result as a tensor named name (F32, or I32 for an index map),
 * parallel; s must outlive it.  Returns 0 or -1. */
int pe_skew_tensor(const struct pe_skew *s, const char *name, struct pe_tensor *t,
		   struct pe_error *err);

#endif
