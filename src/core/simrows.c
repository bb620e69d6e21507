/*
 * Preparing the similarity's rows in threads of its own (see simrows.h):
 * at 4096 x 1024 the set-up was a third of the float32 run on one thread
 * (0.124 s, 0.079 s on two: perf stat, --rows 0:1).
 */
#include "core/simrows.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"

#define PREP_MIN_ROWS 256	/* rows per preparing thread at least */

/* The exponent of the lowest set bit of a nonzero finite float, from its
 * bits: value = m 2^(e - 150), m the 24-bit significand. */
static int lowest_bit(float f)
{
	uint32_t u, m;
	int e;

	memcpy(&u, &f, sizeof u);
	e = (int)((u >> 23) & 0xff);
	m = u & 0x7fffff;
	if (e)
		m |= 0x800000;
	else
		e = 1;		/* subnormal: m 2^-149 */
	return e - 150 + __builtin_ctz(m);	/* m != 0: f is nonzero */
}

int pe_simrows_check(const struct pe_matrix_view *w, struct pe_error *err)
{
	uint64_t i, k;
	const float *r;

	for (i = 0; i < w->rows; i++) {
		r = pe_view_row(w, i);
		for (k = 0; k < w->cols; k++)
			if (!isfinite(r[k]))
				return pe_fail(err, PE_ERR_DATA,
					       "row %llu, column %llu of the table is %s: similarity needs finite values",
					       (unsigned long long)(w->first + i * w->stride),
					       (unsigned long long)k, isnan(r[k]) ? "nan" : "infinite");
	}
	return 0;
}

/* Column means: double-double sums in row order, rounded to double. */
static int column_means(const struct pe_matrix_view *w, double **out, struct pe_error *err)
{
	struct pe_dd *sum = calloc(w->cols, sizeof *sum);
	double *mu = malloc(w->cols * sizeof *mu);
	uint64_t i, k;

	if (!sum || !mu) {
		free(sum);
		free(mu);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < w->rows; i++) {
		const float *r = pe_view_row(w, i);

		for (k = 0; k < w->cols; k++) {
			struct pe_dd v = { (double)r[k], 0 };

			sum[k] = pe_dd_add(sum[k], v);
		}
	}
	for (k = 0; k < w->cols; k++)
		mu[k] = (sum[k].hi + sum[k].lo) / (double)w->rows;
	free(sum);
	*out = mu;
	return 0;
}

static void row_info(struct pe_similarity *s, uint64_t i, const float *orig, double *tmp)
{
	struct pe_sim_row *r = &s->row[i];
	const double *x = s->x ? s->x + i * s->d : tmp;
	uint64_t k;
	int lsb = 0, any = 0, b;

	for (k = 0; k < s->d; k++) {
		if (!s->x)
			tmp[k] = (double)s->xf[i * s->d + k];
		if (s->exact_inputs && orig[k] != 0) {
			b = lowest_bit(orig[k]);
			lsb = any && lsb < b ? lsb : b;
			any = 1;
		}
	}
	r->n2dd = pe_dd_dot(x, x, (size_t)s->d, s->exact_inputs, &r->n2abs);
	r->n2err = pe_dd_dot_error((size_t)s->d) * r->n2abs;
	r->n2 = r->n2dd.hi;
	r->nrm = sqrt(r->n2);
	r->zero = r->n2 == 0;
	r->rn = r->zero ? 0 : 1 / r->nrm;
	r->lsb = lsb;
	/* |x| < 2^lg with room for the norm's own rounding */
	r->lg = r->zero ? -2000 : (int)ceil(log2(r->nrm)) + 1;
	r->n2_exact = s->exact_inputs && 2 * r->lg <= 53 + 2 * lsb;
}

/* Rows [r0, r1): stored (centred: minus mu), their norms and bounds, and
 * for float32 cosine the unit rows.  tmp: d doubles. */
static void prep_rows(struct pe_similarity *s, const struct pe_matrix_view *w, const double *mu,
		      uint64_t r0, uint64_t r1, double *tmp)
{
	uint64_t i, k, d = s->d;
	int unit = s->p.precision == PE_SIM_FLOAT32 && s->p.metric == PE_METRIC_COSINE;

	for (i = r0; i < r1; i++) {
		const float *r = pe_view_row(w, i);

		for (k = 0; k < d; k++) {
			double v = mu ? (double)r[k] - mu[k] : (double)r[k];

			if (s->x)
				s->x[i * d + k] = v;
			else
				s->xf[i * d + k] = (float)v;
		}
		row_info(s, i, r, tmp);
		for (k = 0; unit && k < d; k++)
			s->xf[i * d + k] = (float)((double)s->xf[i * d + k] * s->row[i].rn);
	}
}

struct prep_part {
	struct pe_similarity *s;
	const struct pe_matrix_view *w;
	const double *mu;
	uint64_t r0, r1;
	double *tmp;
};

static void *prep_main(void *arg)
{
	struct prep_part *q = arg;

	prep_rows(q->s, q->w, q->mu, q->r0, q->r1, q->tmp);
	return NULL;
}

/* prep_rows over every row, in up to p.threads threads (the calling one
 * included; a thread that cannot start leaves its rows to it). */
static int prep_all(struct pe_similarity *s, const struct pe_matrix_view *w, const double *mu,
		    struct pe_error *err)
{
	struct prep_part part[PE_MAX_THREADS];
	pthread_t th[PE_MAX_THREADS];
	int started[PE_MAX_THREADS] = { 0 };
	size_t nt = s->p.threads > 1 ? (size_t)s->p.threads : 1, t;
	double *tmp;

	if (nt > PE_MAX_THREADS)
		nt = PE_MAX_THREADS;
	if (nt > s->n / PREP_MIN_ROWS)
		nt = s->n / PREP_MIN_ROWS ? (size_t)(s->n / PREP_MIN_ROWS) : 1;
	tmp = malloc(nt * (size_t)s->d * sizeof *tmp);
	if (!tmp)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (t = 0; t < nt; t++) {
		part[t].s = s;
		part[t].w = w;
		part[t].mu = mu;
		part[t].r0 = s->n * t / nt;
		part[t].r1 = s->n * (t + 1) / nt;
		part[t].tmp = tmp + t * (size_t)s->d;
		if (t > 0)
			started[t] = pthread_create(&th[t], NULL, prep_main, &part[t]) == 0;
	}
	for (t = 0; t < nt; t++)
		if (!started[t])
			prep_main(&part[t]);
	for (t = 1; t < nt; t++)
		if (started[t])
			pthread_join(th[t], NULL);
	free(tmp);
	return 0;
}

int pe_simrows_prepare(struct pe_similarity *s, const struct pe_matrix_view *w,
		       struct pe_error *err)
{
	double *mu = NULL;
	uint64_t i;
	int rc;

	if (s->p.center && column_means(w, &mu, err) != 0)
		return -1;
	rc = prep_all(s, w, mu, err);
	free(mu);
	if (rc != 0)
		return -1;
	for (i = 0; i < s->n; i++) {
		s->zero_rows += s->row[i].zero;
		if (s->row[i].nrm > s->max_norm)
			s->max_norm = s->row[i].nrm;
	}
	return 0;
}
