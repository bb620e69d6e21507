/*
 * simrows.h - core/similarity's rows, prepared once before any block: the
 * rows stored as the similarity computes with them, and per row its norm
 * and the bounds finish() needs.  Private to core/similarity.c.
 *
 * Threads: pe_simrows_prepare runs in up to s->p.threads threads (the
 * calling one included, at least 256 rows each) that it starts itself,
 * beside the pump's workers and before they run, and joins before it
 * returns; a thread that cannot start leaves its rows to the calling one.
 * Every row is prepared by one thread alone, so the bytes do not depend on
 * how many run.
 */
#ifndef PE_SIMROWS_H
#define PE_SIMROWS_H

#include "core/exact.h"
#include "core/similarity.h"

struct pe_sim_row {
	struct pe_dd n2dd;	/* |x|^2 in double-double, within n2err */
	double n2err, n2abs;
	double n2, nrm, rn;	/* |x|^2 (within an ulp), |x|, 1 / |x| */
	int lsb, lg;		/* exact inputs: lowest bit, bound on log2 |x| */
	int n2_exact;		/* n2 is exactly |x|^2 */
	int zero;
};

/* 0, or -1 (PE_ERR_DATA naming the row of w's matrix and the column) when
 * a value of w is not finite. */
int pe_simrows_check(const struct pe_matrix_view *w, struct pe_error *err);

/*
 * Fill s->x (centred rows in double: x - mu, mu the column means summed in
 * double-double in row order and rounded to double) or s->xf (the float32
 * rows; for float32 cosine the unit rows NumPy's x / norm(x) gives, zero
 * rows left 0), s->row, s->zero_rows and s->max_norm from w.  s->p, n, d,
 * exact_inputs and the arrays must be set.  Returns 0 or -1 (PE_ERR_NOMEM).
 */
int pe_simrows_prepare(struct pe_similarity *s, const struct pe_matrix_view *w,
		       struct pe_error *err);

#endif
