/*
 * Comparing two tables a block at a time (diff.h).  Most pairs of a
 * parity check are equal, so the loop takes a == b first: such a pair adds
 * nothing but its squares to the scale sums; the errors are worked out
 * only for the others.
 */
#include "core/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ulp.h"

void pe_diff_pair(float a, float b, struct pe_diff_err *e)
{
	e->incomparable = 0;
	if (a == b || (isnan(a) && isnan(b))) {
		e->abs = e->rel = 0;
		e->ulp = 0;
		return;
	}
	e->ulp = pe_ulp_dist(a, b);
	if (e->ulp == PE_ULP_INF) {
		e->incomparable = 1;
		e->abs = e->rel = INFINITY;
		return;
	}
	e->abs = fabs((double)a - (double)b);
	e->rel = b == 0 ? (double)INFINITY : e->abs / fabs((double)b);
}

int pe_diff_equal(const struct pe_diff_err *e, float b, const struct pe_diff_tol *t)
{
	if (e->incomparable)
		return 0;
	if (e->abs == 0)
		return 1;
	if ((t->atol > 0 || t->rtol > 0) && e->abs <= t->atol + t->rtol * fabs((double)b))
		return 1;
	return t->ulps > 0 && e->ulp <= t->ulps;
}

int pe_diff_init(struct pe_diff_stats *s, uint64_t rows, uint64_t cols, int per_row,
		 struct pe_error *err)
{
	size_t k;

	memset(s, 0, sizeof *s);
	s->rows = rows;
	s->cols = cols;
	s->abs.v = s->rel.v = s->ulp.v = -1;
	for (k = 0; k < PE_DIFF_NEAR; k++) {
		s->a0_in_b[k].row = s->b0_in_a[k].row = UINT64_MAX;
		s->a0_in_b[k].d = s->b0_in_a[k].d = INFINITY;
	}
	if (rows == 0 || cols == 0 || cols > SIZE_MAX / sizeof *s->col / 2 ||
	    (per_row && rows > SIZE_MAX / sizeof *s->row))
		return pe_fail(err, PE_ERR_NOMEM, "a %llu x %llu comparison is too large",
			       (unsigned long long)rows, (unsigned long long)cols);
	s->col = calloc((size_t)cols, sizeof *s->col);
	s->a0 = malloc((size_t)cols * sizeof *s->a0);
	s->b0 = malloc((size_t)cols * sizeof *s->b0);
	if (per_row)
		s->row = calloc((size_t)rows, sizeof *s->row);
	if (!s->col || !s->a0 || !s->b0 || (per_row && !s->row)) {
		pe_diff_free(s);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for the statistics of %llu x %llu values",
			       (unsigned long long)rows, (unsigned long long)cols);
	}
	return 0;
}

void pe_diff_free(struct pe_diff_stats *s)
{
	free(s->col);
	free(s->row);
	free(s->a0);
	free(s->b0);
	s->col = s->row = NULL;
	s->a0 = s->b0 = NULL;
}

static void line_add(struct pe_diff_line *l, const struct pe_diff_err *e, int differs)
{
	if (e->abs > l->max_abs)
		l->max_abs = e->abs;
	if (!e->incomparable)
		l->sum_abs += e->abs;
	if (e->rel > l->max_rel)
		l->max_rel = e->rel;
	if (e->ulp > l->max_ulp)
		l->max_ulp = e->ulp;
	l->differ += (uint64_t)differs;
}

static void max_at(struct pe_diff_max *m, double v, uint64_t r, uint64_t c)
{
	if (v > m->v) {
		m->v = v;
		m->row = r;
		m->col = c;
	}
}

/* the pair (a, b) at (r, c), which is not a == b */
static void unequal(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r, uint64_t c,
		    float a, float b)
{
	struct pe_diff_err e;
	int differs;

	pe_diff_pair(a, b, &e);
	s->inexact += e.abs != 0;
	differs = !pe_diff_equal(&e, b, t);
	if (differs && s->differ++ == 0) {
		s->first_row = r;
		s->first_col = c;
	}
	s->incomparable += (uint64_t)e.incomparable;
	if (!e.incomparable) {
		s->sum_abs += e.abs;
		s->sum_sq += e.abs * e.abs;
	}
	max_at(&s->abs, e.abs, r, c);
	max_at(&s->rel, e.rel, r, c);
	max_at(&s->ulp, e.ulp == PE_ULP_INF ? (double)INFINITY : (double)e.ulp, r, c);
	if (e.ulp > s->max_ulp)
		s->max_ulp = e.ulp;
	line_add(&s->col[c], &e, differs);
	if (s->row)
		line_add(&s->row[r], &e, differs);
}

/* sum of squared differences of n values */
static double dist2(const float *x, const float *y, size_t n)
{
	double d = 0;
	size_t j;

	for (j = 0; j < n; j++) {
		double t = (double)x[j] - (double)y[j];

		d += t * t;
	}
	return d;
}

static void near_add(struct pe_diff_near *nb, uint64_t row, double d)
{
	int k;

	if (!(d < nb[PE_DIFF_NEAR - 1].d))
		return;
	for (k = PE_DIFF_NEAR - 1; k > 0 && d < nb[k - 1].d; k--)
		nb[k] = nb[k - 1];
	nb[k].row = row;
	nb[k].d = d;
}

void pe_diff_add(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r0, size_t n,
		 const float *a, const float *b)
{
	size_t cols = (size_t)s->cols, i, j;

	for (i = 0; i < n; i++) {
		const float *ar = a + i * cols, *br = b + i * cols;
		uint64_t r = r0 + i;
		double ab = 0, aa = 0, bb = 0;

		for (j = 0; j < cols; j++) {
			double x = ar[j], y = br[j];

			ab += x * y;
			aa += x * x;
			bb += y * y;
		}
		s->sum_ab += ab;
		s->sum_aa += aa;
		s->sum_bb += bb;
		for (j = 0; j < cols; j++)
			if (!(ar[j] == br[j]))
				unequal(s, t, r, j, ar[j], br[j]);
		if (r == 0) {
			memcpy(s->a0, ar, cols * sizeof *ar);
			memcpy(s->b0, br, cols * sizeof *br);
		} else {
			near_add(s->a0_in_b, r, dist2(br, s->a0, cols));
			near_add(s->b0_in_a, r, dist2(ar, s->b0, cols));
		}
	}
	s->values += (uint64_t)n * s->cols;
	s->comparable = s->values - s->incomparable;
}

void pe_diff_metric(enum pe_diff_metric m, const float *a, const float *b, size_t n, float *out)
{
	struct pe_diff_err e;
	size_t i;

	for (i = 0; i < n; i++) {
		pe_diff_pair(a[i], b[i], &e);
		switch (m) {
		case PE_DIFF_ABS:
			out[i] = (float)e.abs;
			break;
		case PE_DIFF_REL:
			out[i] = (float)e.rel;
			break;
		case PE_DIFF_ULP:
			out[i] = e.ulp == PE_ULP_INF ? INFINITY : (float)e.ulp;
			break;
		}
	}
}
