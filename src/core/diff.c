/*
 * Comparing two tables a block at a time (diff.h).  A row of finite values
 * (nearly every row) goes through one vector kernel that works out every
 * pair's abs, rel and ulp error and folds them into per-column sums and
 * maxima, without a branch; what needs an order -- the first differing
 * value, where the largest errors are (the first in row-major order among
 * equal ones) -- is found afterwards, by scanning a block again only when
 * it holds something new.  A row with a NaN or an infinity takes the
 * scalar path, pair by pair.
 */
#include "core/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd.h"
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
	s->k_max = malloc((size_t)cols * 7 * sizeof(double));
	s->k_ulp = malloc((size_t)cols * 3 * sizeof(int64_t));
	s->k_ua = malloc((size_t)cols * 2 * sizeof(uint32_t));
	if (s->k_max) {
		s->k_sum = s->k_max + cols;
		s->k_sq = s->k_sum + cols;
		s->k_rel = s->k_sq + cols;
		s->k_ab = s->k_rel + cols;
		s->k_aa = s->k_ab + cols;
		s->k_bb = s->k_aa + cols;
	}
	if (s->k_ulp) {
		s->k_dif = s->k_ulp + cols;
		s->k_inexact = s->k_dif + cols;
	}
	if (s->k_ua)
		s->k_ub = s->k_ua + cols;
	if (!s->col || !s->a0 || !s->b0 || (per_row && !s->row) || !s->k_max || !s->k_ulp ||
	    !s->k_ua) {
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
	free(s->k_max);
	free(s->k_ulp);
	free(s->k_ua);
	s->col = s->row = NULL;
	s->a0 = s->b0 = NULL;
	s->k_max = NULL;
	s->k_ulp = NULL;
	s->k_ua = NULL;
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
	if (differs) {
		s->differ++;
		if (!s->have_first) {
			s->first_row = r;
			s->first_col = c;
			s->have_first = 1;
		}
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

/* sum of squared differences of n values, four partial sums (a fixed
 * order: the same on every CPU) */
static double dist2(const float *x, const float *y, size_t n)
{
	double d[4] = { 0, 0, 0, 0 };
	size_t j;

	for (j = 0; j + 4 <= n; j += 4) {
		double t0 = (double)x[j] - (double)y[j], t1 = (double)x[j + 1] - (double)y[j + 1];
		double t2 = (double)x[j + 2] - (double)y[j + 2], t3 = (double)x[j + 3] - (double)y[j + 3];

		d[0] += t0 * t0;
		d[1] += t1 * t1;
		d[2] += t2 * t2;
		d[3] += t3 * t3;
	}
	for (; j < n; j++) {
		double t = (double)x[j] - (double)y[j];

		d[0] += t * t;
	}
	return (d[0] + d[1]) + (d[2] + d[3]);
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

/* how many of n pairs are not both finite (x - x is 0 for a finite x only) */
PE_VECTOR_KERNEL
static size_t count_nonfinite(const float *a, const float *b, size_t n)
{
	size_t j, bad = 0;

	for (j = 0; j < n; j++)
		bad += (a[j] - a[j] != 0) | (b[j] - b[j] != 0);
	return bad;
}

/* the key of a float32's bits on the ulp line (core/ulp.h): the bits for
 * +0 and up, minus the magnitude's bits for -0 and down */
static inline int64_t line_key(uint32_t u)
{
	return (int64_t)(int32_t)(u ^ ((uint32_t)((int32_t)u >> 31) & 0x7fffffffu)) +
	       (int64_t)(u >> 31);
}

/* one row of finite pairs into the block's per-column sums and maxima;
 * returns how many of its pairs differ */
PE_VECTOR_KERNEL
static int64_t row_kernel(struct pe_diff_stats *s, const struct pe_diff_tol *t, const float *a,
			  const float *b, size_t n)
{
	const uint32_t *ua = s->k_ua, *ub = s->k_ub;
	double atol = t->atol, rtol = t->rtol;
	int64_t ulps = (int64_t)t->ulps, dif = 0;
	int use_tol = atol > 0 || rtol > 0, use_ulps = t->ulps > 0;
	size_t j;

	for (j = 0; j < n; j++) {
		double x = a[j], y = b[j], e = fabs(x - y), ay = fabs(y);
		double r = e == 0 ? 0.0 : e / ay;
		int64_t u = line_key(ua[j]) - line_key(ub[j]);
		int64_t d;

		u = u < 0 ? -u : u;
		d = e != 0 && !(use_tol && e <= atol + rtol * ay) && !(use_ulps && u <= ulps);
		s->k_max[j] = e > s->k_max[j] ? e : s->k_max[j];
		s->k_sum[j] += e;
		s->k_sq[j] += e * e;
		s->k_rel[j] = r > s->k_rel[j] ? r : s->k_rel[j];
		s->k_ulp[j] = u > s->k_ulp[j] ? u : s->k_ulp[j];
		s->k_dif[j] += d;
		s->k_inexact[j] += e != 0;
		s->k_ab[j] += x * y;
		s->k_aa[j] += x * x;
		s->k_bb[j] += y * y;
		dif += d;
	}
	return dif;
}

/* the scalar path for a row with a NaN or an infinity */
static void slow_row(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r,
		     const float *a, const float *b)
{
	size_t cols = (size_t)s->cols, j;

	for (j = 0; j < cols; j++) {
		double x = a[j], y = b[j];

		s->sum_ab += x * y;
		s->sum_aa += x * x;
		s->sum_bb += y * y;
		if (!(a[j] == b[j]))
			unequal(s, t, r, j, a[j], b[j]);
	}
}

/* the first pair of row r that differs (the row has one) */
static void first_of_row(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r,
			 const float *a, const float *b)
{
	struct pe_diff_err e;
	size_t j;

	for (j = 0; j < (size_t)s->cols; j++) {
		pe_diff_pair(a[j], b[j], &e);
		if (!pe_diff_equal(&e, b[j], t)) {
			s->first_row = r;
			s->first_col = j;
			return;
		}
	}
}

/* a row's own line (--per row), from its pairs */
static void row_line(struct pe_diff_line *l, const struct pe_diff_tol *t, const float *a,
		     const float *b, size_t n)
{
	struct pe_diff_err e;
	size_t j;

	for (j = 0; j < n; j++) {
		if (a[j] == b[j])
			continue;
		pe_diff_pair(a[j], b[j], &e);
		line_add(l, &e, !pe_diff_equal(&e, b[j], t));
	}
}

/* where in the run's kernel rows the largest of one error, v, is, when it
 * beats the largest so far -- or equals one a slow row of this run set at
 * a later place: the first such pair in row-major order.  Only the columns
 * whose maximum in the run is v (kmax) can hold it. */
static void locate(struct pe_diff_max *m, double v, const double *kmax, const int64_t *kulp,
		   enum pe_diff_metric which, uint64_t r0, size_t n, size_t cols, const float *a,
		   const float *b, const unsigned char *slow)
{
	struct pe_diff_err e;
	size_t i, j, bi = n, bj = 0;

	if (!(v > m->v) && !(v == m->v && m->row >= r0))
		return;
	for (j = 0; j < cols; j++) {
		if ((kmax ? kmax[j] : (double)kulp[j]) != v)
			continue;
		for (i = 0; i < bi; i++) {
			double x;

			if (slow[i])
				continue;
			pe_diff_pair(a[i * cols + j], b[i * cols + j], &e);
			x = which == PE_DIFF_ABS ? e.abs : which == PE_DIFF_REL ? e.rel : (double)e.ulp;
			if (x == v) {
				bi = i;
				bj = j;
				break;
			}
		}
	}
	if (bi == n)
		return;
	if (v == m->v && (m->row < r0 + bi || (m->row == r0 + bi && m->col < bj)))
		return;
	m->v = v;
	m->row = r0 + bi;
	m->col = bj;
}

void pe_diff_add(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r0, size_t n,
		 const float *a, const float *b)
{
	size_t cols = (size_t)s->cols, i, j;
	double bmax = 0, brel = 0;
	int64_t bulp = 0;
	unsigned char slow_rows[256];
	size_t done = 0;

	/* rows in runs of 256: a run's slow rows are marked for locate() */
	while (done < n) {
		size_t m = n - done < sizeof slow_rows ? n - done : sizeof slow_rows;
		const float *ra = a + done * cols, *rb = b + done * cols;
		uint64_t q0 = r0 + done;

		memset(s->k_max, 0, cols * 7 * sizeof(double));
		memset(s->k_ulp, 0, cols * 3 * sizeof(int64_t));
		for (i = 0; i < m; i++) {
			const float *ar = ra + i * cols, *br = rb + i * cols;
			uint64_t r = q0 + i;

			slow_rows[i] = count_nonfinite(ar, br, cols) != 0;
			if (slow_rows[i]) {
				slow_row(s, t, r, ar, br);
			} else {
				memcpy(s->k_ua, ar, cols * sizeof *ar);
				memcpy(s->k_ub, br, cols * sizeof *br);
				if (row_kernel(s, t, ar, br, cols) && !s->have_first) {
					first_of_row(s, t, r, ar, br);
					s->have_first = 1;
				}
				if (s->row)
					row_line(&s->row[r], t, ar, br, cols);
			}
			if (r == 0) {
				memcpy(s->a0, ar, cols * sizeof *ar);
				memcpy(s->b0, br, cols * sizeof *br);
			} else {
				near_add(s->a0_in_b, r, dist2(br, s->a0, cols));
				near_add(s->b0_in_a, r, dist2(ar, s->b0, cols));
			}
		}
		/* the run's kernel sums into the statistics */
		bmax = brel = 0;
		bulp = 0;
		for (j = 0; j < cols; j++) {
			struct pe_diff_line *l = &s->col[j];
			uint64_t dj = (uint64_t)s->k_dif[j];

			if (s->k_max[j] > l->max_abs)
				l->max_abs = s->k_max[j];
			l->sum_abs += s->k_sum[j];
			if (s->k_rel[j] > l->max_rel)
				l->max_rel = s->k_rel[j];
			if ((uint64_t)s->k_ulp[j] > l->max_ulp)
				l->max_ulp = (uint64_t)s->k_ulp[j];
			l->differ += dj;
			s->differ += dj;
			s->inexact += (uint64_t)s->k_inexact[j];
			s->sum_abs += s->k_sum[j];
			s->sum_sq += s->k_sq[j];
			s->sum_ab += s->k_ab[j];
			s->sum_aa += s->k_aa[j];
			s->sum_bb += s->k_bb[j];
			bmax = s->k_max[j] > bmax ? s->k_max[j] : bmax;
			brel = s->k_rel[j] > brel ? s->k_rel[j] : brel;
			bulp = s->k_ulp[j] > bulp ? s->k_ulp[j] : bulp;
		}
		locate(&s->abs, bmax, s->k_max, NULL, PE_DIFF_ABS, q0, m, cols, ra, rb, slow_rows);
		locate(&s->rel, brel, s->k_rel, NULL, PE_DIFF_REL, q0, m, cols, ra, rb, slow_rows);
		locate(&s->ulp, (double)bulp, NULL, s->k_ulp, PE_DIFF_ULP, q0, m, cols, ra, rb,
		       slow_rows);
		if ((uint64_t)bulp > s->max_ulp && s->max_ulp != PE_ULP_INF)
			s->max_ulp = (uint64_t)bulp;
		done += m;
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

void pe_diff_curve(const double *max_abs, const double *sum_abs, size_t stride, uint64_t all,
		   uint64_t len, uint64_t n, double origin, double *x, double *mx, double *mean)
{
	const char *pm = (const char *)max_abs, *ps = (const char *)sum_abs;
	uint64_t k, r;

	for (k = 0; k < n; k++) {
		uint64_t a = k * all / n, b = (k + 1) * all / n;
		double m = 0, sum = 0, v;

		for (r = a; r < b; r++) {
			memcpy(&v, pm + (size_t)r * stride, sizeof v);
			m = fmax(m, v);
			memcpy(&v, ps + (size_t)r * stride, sizeof v);
			sum += v / (double)len;
		}
		x[k] = origin + (double)a;
		mx[k] = m;
		mean[k] = sum / (double)(b - a);
	}
}
