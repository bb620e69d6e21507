/*
 * The statistics of stats.h as one pass over the rows.
 *
 * Everything that needs more than one row is a sum: per signed diagonal
 * d = j - i a count and the first and second moments of (S - shift), shift
 * the diagonal's first value, so sum2 - sum1^2/count has no cancellation and
 * is exactly 0 on a diagonal of equal floats (a Toeplitz matrix gives
 * translation_invariance exactly 1); the same for all off-diagonal entries.
 * Monotonicity, symmetry pairs and locality need only the current row.
 * symmetry_lr's range is known only at the end, so the sum of |differences|
 * is kept and divided then.  Memory: 2n - 1 diagonals plus a window.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct diag {
	uint64_t count;
	double shift, sum1, sum2;
};

/* one (value, place) pair of a row segment, sorted for ranks */
struct ranked {
	double v;
	size_t pos;
};

struct stats_sink {
	struct pe_sink base;
	struct pe_stats_params p;
	uint64_t n, row;	/* matrix size, rows seen */
	int done;		/* end() succeeded */
	struct diag *diag;	/* 2n - 1, index j - i + n - 1 */
	struct diag off;	/* every off-diagonal entry */
	double vmax, vmin;
	uint64_t nvalues;	/* non-NaN entries */
	double sym_sum;
	uint64_t sym_count;
	double rho_sum[2];	/* forward, backward */
	uint64_t rho_rows[2];
	double loc_sum;
	uint64_t loc_rows;
	struct ranked *seg;	/* min(window, n - 1) */
	double *rank;
	size_t seg_cap;
	/* finished by end() */
	double ti, mono[2], sym, loc;
};

static const struct pe_sink_ops stats_ops;

static void add(struct diag *d, double v)
{
	double x;

	if (d->count == 0)
		d->shift = v;
	x = v - d->shift;
	d->sum1 += x;
	d->sum2 += x * x;
	d->count++;
}

/* sum of squared deviations from the mean */
static double sq_dev(const struct diag *d)
{
	return d->sum2 - d->sum1 * d->sum1 / (double)d->count;
}

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Spearman's rho of places 1..m against seg[0..m-1].v (in place order): the
 * Pearson correlation of the ranks, ties given their average rank.  Ranks
 * are multiples of 1/2, so every sum is exact and a strictly monotone
 * segment gives exactly -1 or 1 (sqrt of an exact square is exact).
 * Returns 0 when the values are all equal (no correlation defined).
 */
static int spearman(struct ranked *seg, double *rank, size_t m, double *rho)
{
	size_t a, b, t;
	double c = ((double)m + 1.0) / 2.0, num = 0.0, sk = 0.0, sr = 0.0, r, dk;

	for (t = 0; t < m; t++)
		seg[t].pos = t;
	qsort(seg, m, sizeof *seg, cmp_ranked);
	for (a = 0; a < m; a = b) {
		for (b = a + 1; b < m && seg[b].v == seg[a].v; b++)
			;
		r = ((double)a + (double)b + 1.0) / 2.0;	/* ranks a+1..b averaged */
		for (t = a; t < b; t++)
			rank[seg[t].pos] = r;
	}
	for (t = 0; t < m; t++) {
		dk = (double)(t + 1) - c;
		num += dk * (rank[t] - c);
		sk += dk * dk;
		sr += (rank[t] - c) * (rank[t] - c);
	}
	if (sr == 0.0)
		return 0;
	*rho = num / sqrt(sk * sr);
	return 1;
}

/* One direction of monotonicity for row i: dir +1 forward, -1 backward. */
static void monotone_row(struct stats_sink *s, const float *x, uint64_t i, int dir)
{
	uint64_t room = dir > 0 ? s->n - 1 - i : i, m = room < s->p.window ? room : s->p.window;
	uint64_t k;
	size_t valid = 0;
	double rho;
	int slot = dir > 0 ? 0 : 1;

	for (k = 1; k <= m; k++) {
		float v = x[dir > 0 ? i + k : i - k];

		if (!isnan(v))
			s->seg[valid++].v = (double)v;
	}
	if (valid < 3 || !spearman(s->seg, s->rank, valid, &rho))
		return;
	s->rho_sum[slot] += rho;
	s->rho_rows[slot]++;
}

/* Locality of row i: softmax(S[i][.] / tau) weighted by 2^-|i-j|, the
 * row maximum subtracted first so no exp overflows. */
static void locality_row(struct stats_sink *s, const float *x, uint64_t i)
{
	uint64_t j, dist;
	double mx = -INFINITY, z = 0.0, w = 0.0, e;
	int any = 0;

	for (j = 0; j < s->n; j++) {
		if (isnan(x[j]))
			continue;
		any = 1;
		if ((double)x[j] > mx)
			mx = (double)x[j];
	}
	if (!any)
		return;
	for (j = 0; j < s->n; j++) {
		if (isnan(x[j]))
			continue;
		e = exp(((double)x[j] - mx) / s->p.tau);
		dist = j > i ? j - i : i - j;
		z += e;
		if (dist < 1100)	/* 2^-1100 is below the smallest double */
			w += ldexp(e, -(int)dist);
	}
	s->loc_sum += w / z;
	s->loc_rows++;
}

static int row(struct stats_sink *s, const float *x, struct pe_error *err)
{
	uint64_t i = s->row, j, k, half;
	double v;

	for (j = 0; j < s->n; j++) {
		if (isnan(x[j]))
			continue;
		if (isinf(x[j]))
			return pe_fail(err, PE_ERR_DATA,
				       "similarity matrix entry (%llu, %llu) is infinite",
				       (unsigned long long)i, (unsigned long long)j);
		v = (double)x[j];
		add(&s->diag[j + s->n - 1 - i], v);
		if (j != i)
			add(&s->off, v);
		if (s->nvalues == 0 || v > s->vmax)
			s->vmax = v;
		if (s->nvalues == 0 || v < s->vmin)
			s->vmin = v;
		s->nvalues++;
	}
	half = i < s->n - 1 - i ? i : s->n - 1 - i;
	for (k = 1; k <= half; k++) {
		if (isnan(x[i - k]) || isnan(x[i + k]))
			continue;
		s->sym_sum += fabs((double)x[i - k] - (double)x[i + k]);
		s->sym_count++;
	}
	monotone_row(s, x, i, 1);
	monotone_row(s, x, i, -1);
	locality_row(s, x, i);
	s->row++;
	return 0;
}

static void reset(struct stats_sink *s)
{
	struct pe_stats_params p = s->p;

	free(s->diag);
	free(s->seg);
	free(s->rank);
	memset((char *)s + sizeof s->base, 0, sizeof *s - sizeof s->base);
	s->p = p;
}

static int stats_begin(struct pe_sink *sink, const struct pe_tensor *t, size_t nt,
		       const struct pe_meta *meta, struct pe_error *err)
{
	struct stats_sink *s = (struct stats_sink *)sink;
	uint64_t n;

	(void)meta;
	reset(s);
	if (nt != 1)
		return pe_fail(err, PE_ERR_DATA,
			       "similarity statistics take one matrix, this result has %zu tensors", nt);
	if (t->dtype != PE_F32)
		return pe_fail(err, PE_ERR_DATA,
			       "similarity statistics need float32 values, '%s' holds int32", t->name);
	if (t->ndim != 2 || t->rows != t->cols)
		return pe_fail(err, PE_ERR_DATA,
			       "similarity statistics need a square matrix, '%s' is %llu x %llu%s",
			       t->name, (unsigned long long)t->rows, (unsigned long long)t->cols,
			       t->ndim != 2 ? " (not 2-D)" : "");
	n = t->rows;
	/* n <= PE_MAX_COLS (tensor.h), so 2n - 1 diagonals cannot overflow */
	s->n = n;
	s->diag = calloc((size_t)(2 * n - 1), sizeof *s->diag);
	s->seg_cap = (size_t)(n - 1 < s->p.window ? n - 1 : s->p.window);
	s->seg = malloc((s->seg_cap ? s->seg_cap : 1) * sizeof *s->seg);
	s->rank = malloc((s->seg_cap ? s->seg_cap : 1) * sizeof *s->rank);
	if (!s->diag || !s->seg || !s->rank)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for statistics of %llu positions",
			       (unsigned long long)n);
	return 0;
}

static int stats_tensor(struct pe_sink *sink, size_t index, struct pe_error *err)
{
	(void)sink;
	(void)index;
	(void)err;
	return 0;
}

static int stats_rows(struct pe_sink *sink, const void *data, size_t nrows, struct pe_error *err)
{
	struct stats_sink *s = (struct stats_sink *)sink;
	const float *f = data;
	size_t r;

	if (!s->diag || nrows > s->n - s->row)
		return pe_fail(err, PE_ERR_DATA, "more rows than the %llu x %llu matrix has",
			       (unsigned long long)s->n, (unsigned long long)s->n);
	for (r = 0; r < nrows; r++)
		if (row(s, f + r * (size_t)s->n, err) != 0)
			return -1;
	return 0;
}

static double translation_invariance(const struct stats_sink *s)
{
	double num = 0.0, den;
	uint64_t d;

	if (s->off.count == 0)
		return (double)NAN;
	for (d = 0; d < 2 * s->n - 1; d++)
		if (d != s->n - 1 && s->diag[d].count)
			num += sq_dev(&s->diag[d]);
	den = sq_dev(&s->off);
	if (den == 0.0)
		return 1.0;	/* all off-diagonal entries equal: Toeplitz */
	return 1.0 - num / den;
}

static int stats_end(struct pe_sink *sink, struct pe_error *err)
{
	struct stats_sink *s = (struct stats_sink *)sink;
	int k;

	if (!s->diag || s->row != s->n)
		return pe_fail(err, PE_ERR_DATA, "similarity matrix ended after %llu of %llu rows",
			       (unsigned long long)s->row, (unsigned long long)s->n);
	s->ti = translation_invariance(s);
	for (k = 0; k < 2; k++)
		s->mono[k] = s->rho_rows[k] ? -s->rho_sum[k] / (double)s->rho_rows[k] : (double)NAN;
	if (s->sym_count == 0)
		s->sym = (double)NAN;
	else if (s->vmax == s->vmin)
		s->sym = 1.0;
	else
		s->sym = 1.0 - s->sym_sum / (double)s->sym_count / (s->vmax - s->vmin);
	s->loc = s->loc_rows ? s->loc_sum / (double)s->loc_rows : (double)NAN;
	s->done = 1;
	return 0;
}

static void stats_destroy(struct pe_sink *sink)
{
	struct stats_sink *s = (struct stats_sink *)sink;

	if (!s)
		return;
	reset(s);
	free(s);
}

static const struct pe_sink_ops stats_ops = {
	.begin = stats_begin,
	.tensor = stats_tensor,
	.rows = stats_rows,
	.end = stats_end,
	.destroy = stats_destroy,
};

struct pe_sink *pe_stats_sink_new(const struct pe_stats_params *p, struct pe_error *err)
{
	struct stats_sink *s;

	if (!p || p->window < 1) {
		pe_fail(err, PE_ERR_PARAM, "the monotonicity window must be at least 1");
		return NULL;
	}
	if (!(isfinite(p->tau) && p->tau > 0.0)) {
		pe_fail(err, PE_ERR_PARAM, "the softmax temperature must be finite and positive");
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	s->base.ops = &stats_ops;
	s->p = *p;
	return &s->base;
}

int pe_stats_result(struct pe_sink *sink, struct pe_stats *out, struct pe_error *err)
{
	struct stats_sink *s = (struct stats_sink *)sink;
	const struct diag *d;
	uint64_t k;
	double mean, var;

	memset(out, 0, sizeof *out);
	if (!sink || sink->ops != &stats_ops || !s->done)
		return pe_fail(err, PE_ERR_PARAM, "no similarity matrix was pumped into the statistics");
	out->mean = malloc((size_t)s->n * sizeof *out->mean);
	out->std = malloc((size_t)s->n * sizeof *out->std);
	out->count = malloc((size_t)s->n * sizeof *out->count);
	if (!out->mean || !out->std || !out->count) {
		pe_stats_free(out);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a profile of %llu offsets",
			       (unsigned long long)s->n);
	}
	out->n = s->n;
	out->translation_invariance = s->ti;
	out->monotonicity_forward = s->mono[0];
	out->monotonicity_backward = s->mono[1];
	out->monotonicity_rows_forward = s->rho_rows[0];
	out->monotonicity_rows_backward = s->rho_rows[1];
	out->symmetry_lr = s->sym;
	out->locality = s->loc;
	for (k = 0; k < s->n; k++) {
		d = &s->diag[s->n - 1 + k];
		out->count[k] = d->count;
		if (d->count == 0) {
			out->mean[k] = out->std[k] = (double)NAN;
			continue;
		}
		mean = d->sum1 / (double)d->count;
		var = sq_dev(d) / (double)d->count;
		out->mean[k] = d->shift + mean;
		out->std[k] = var > 0.0 ? sqrt(var) : 0.0;	/* rounding can go below 0 */
	}
	out->first_increase = 0;
	for (k = 1; k < s->n; k++)
		if (out->mean[k] > out->mean[k - 1]) {
			out->first_increase = k;
			break;
		}
	return 0;
}

void pe_stats_free(struct pe_stats *st)
{
	if (!st)
		return;
	free(st->mean);
	free(st->std);
	free(st->count);
	st->mean = st->std = NULL;
	st->count = NULL;
}
