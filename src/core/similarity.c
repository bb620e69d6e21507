/*
 * Similarity in row blocks.  The rows come as a grid of blocks of s->block
 * rows (the tensor's block_rows, so the pump hands out blocks on it; its
 * workers split a block into slices).  Rows [a, a+m) of block b are:
 *   columns of earlier blocks b' < b: copied from the cache when block b'
 *     stored its upper triangle there, else computed;
 *   columns from b's own first row on: computed, and (exact precision,
 *     when the budget allows) stored transposed for the blocks below.
 * "Computed" is a GEMM over column chunks, then finish() per element.
 *
 * Why the bound in finish() holds: products of float32 values are exact in
 * double, and any order of summing d terms errs by at most gamma_d sum |p|
 * <= gamma_d |x| |y| (Cauchy-Schwarz), whatever BLAS does.  Centred rows
 * are doubles, their products round, and the same bound still holds.
 */
#include "core/similarity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/exact.h"
#include "core/gemm.h"
#include "core/mem.h"
#include "core/pipeline.h"

#define U 0x1p-53
#define CHUNK_COLS 1024		/* columns per GEMM call: bounds the scratch */
#define WIDE_BYTES ((size_t)2 << 20)	/* float32 columns widened per call */
#define MIN_BLOCK 16
#define MAX_BLOCK 512
/* float32: one BLAS call per pair of blocks; large enough that packing
 * the operands stays a few per cent of the work */
#define F32_MIN_BLOCK 64
#define F32_MAX_BLOCK 256
/* float32: the grid (so the bytes, see similarity.h) follows from this */
#define F32_BLOCK_BYTES ((size_t)32 << 20)

struct pe_sim_row {
	struct pe_dd n2dd;	/* |x|^2 in double-double, within n2err */
	double n2err, n2abs;
	double n2, nrm, rn;	/* |x|^2 (within an ulp), |x|, 1 / |x| */
	int lsb, lg;		/* exact inputs: lowest bit, bound on log2 |x| */
	int n2_exact;		/* n2 is exactly |x|^2 */
	int zero;
};

struct pe_sim_cache {
	pthread_mutex_t mu;
	int mu_ok;		/* mu was initialised */
	size_t nb;		/* blocks */
	/* nb x band: the block of rows of c x rows of b (b < c <= b + band) at
	 * blk[b * band + (c - b - 1)]; see slot() */
	float **blk;
	unsigned char *col;	/* per block b: 0 not tried, 1 storing, 2 not stored */
	unsigned char *begun;	/* per block: rows of it have been taken on */
	unsigned char *stored, *read;	/* per row */
	uint64_t *nstored, *nread;	/* per block: distinct rows */
	size_t cap;		/* bytes of blocks at most */
	size_t band;		/* blocks kept for the band rows below their own */
	uint64_t exact_count;
	/* blocks (block x block floats) carved from big chunks and recycled,
	 * so their pages are touched once */
	size_t blk_bytes, pool_bytes, chunk_left;
	unsigned char *chunk_next;
	void **chunks;
	size_t nchunks;
	void *free_list;
	size_t held;		/* blocks out of the pool */
};

#define CHUNK_BYTES ((size_t)8 << 20)

/* A block from the pool, or NULL when the budget is spent. */
static float *blk_get(struct pe_sim_cache *c)
{
	void *p = c->free_list, **grown;
	size_t n;

	if (p) {
		memcpy(&c->free_list, p, sizeof(void *));
		c->held++;
		return p;
	}
	if (c->chunk_left < c->blk_bytes) {
		n = c->blk_bytes > CHUNK_BYTES ? c->blk_bytes : CHUNK_BYTES;
		if (c->pool_bytes + n > c->cap)
			n = c->blk_bytes;
		if (c->pool_bytes + n > c->cap)
			return NULL;
		grown = realloc(c->chunks, (c->nchunks + 1) * sizeof *grown);
		if (!grown)
			return NULL;
		c->chunks = grown;
		if (!(c->chunks[c->nchunks] = pe_alloc_big(n)))
			return NULL;
		c->chunk_next = c->chunks[c->nchunks++];
		c->chunk_left = n;
		c->pool_bytes += n;
	}
	p = c->chunk_next;
	c->chunk_next += c->blk_bytes;
	c->chunk_left -= c->blk_bytes;
	c->held++;
	return p;
}

static void blk_put(struct pe_sim_cache *c, float *b)
{
	memcpy(b, &c->free_list, sizeof(void *));
	c->free_list = b;
	c->held--;
}

/* Where the block of rows of block r x rows of block b (b < r) is kept, or
 * NULL when r is beyond b's band (never kept). */
static float **slot(const struct pe_sim_cache *c, size_t r, size_t b)
{
	return r > b && r - b <= c->band && r < c->nb ? &c->blk[b * c->band + (r - b - 1)] : NULL;
}

/* Let go of the block at slot p, if any. */
static void slot_put(struct pe_sim_cache *c, float **p)
{
	if (p && *p) {
		blk_put(c, *p);
		*p = NULL;
	}
}

const char *const pe_metric_names[] = { "cosine", "dot", "euclidean", NULL };

const char *pe_metric_name(enum pe_metric m)
{
	return pe_metric_names[m];
}

static uint64_t block_rows_of(const struct pe_similarity *s, size_t b)
{
	uint64_t r0 = (uint64_t)b * s->block;

	return s->n - r0 < s->block ? s->n - r0 : s->block;
}

/* ---- set-up ---- */

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

static int check_finite(const struct pe_matrix_view *w, struct pe_error *err)
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

static int cache_init(struct pe_similarity *s, struct pe_error *err)
{
	struct pe_sim_cache *c = calloc(1, sizeof *c);
	size_t nb = (size_t)((s->n + s->block - 1) / s->block), nd4 = 4 * (size_t)(s->n * s->d);
	/* exact: 10 n d (its pump blocks are small); float32: 8 n d (a block
	 * of the grid per worker in each pump block).  nd4 bytes were
	 * allocated already, so 5 nd4 / 2 does not overflow. */
	size_t cap = s->p.precision == PE_SIM_EXACT ? nd4 / 2 * 5 : 2 * nd4;

	s->cache = c;
	if (!c)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	c->nb = nb;
	c->cap = s->p.cache_bytes ? s->p.cache_bytes : cap > PE_SIM_CACHE_MIN ? cap : PE_SIM_CACHE_MIN;
	c->blk_bytes = s->block * s->block * sizeof(float);
	/* Blocks within `band` block-rows of the diagonal are kept: they are
	 * let go soonest, so a budget saves the most work that way.  About
	 * band (band + 1) / 2 of them are held at once; their index, nb band
	 * pointers, is held to an eighth of the budget too. */
	for (c->band = 1; c->band < nb && (c->band + 1) * (c->band + 2) / 2 * c->blk_bytes <= c->cap &&
			  (c->band + 1) * nb * sizeof *c->blk <= c->cap / 8;
	     c->band++)
		;
	c->blk = calloc(nb * c->band, sizeof *c->blk);
	c->col = calloc(nb, 1);
	c->begun = calloc(nb, 1);
	c->stored = calloc(s->n, 1);
	c->read = calloc(s->n, 1);
	c->nstored = calloc(nb, sizeof *c->nstored);
	c->nread = calloc(nb, sizeof *c->nread);
	if (!c->blk || !c->col || !c->begun || !c->stored || !c->read || !c->nstored || !c->nread)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (pthread_mutex_init(&c->mu, NULL) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "cannot create a mutex");
	c->mu_ok = 1;
	return 0;
}

/* Rows [r0, r1): stored (centred: minus mu), their norms and bounds, and
 * for float32 cosine the unit rows NumPy's x / norm(x) gives (zero rows
 * stay 0).  tmp: d doubles. */
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

#define PREP_MIN_ROWS 256	/* rows per preparing thread at least */

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

int pe_similarity_init(struct pe_similarity *s, const struct pe_matrix_view *w,
		       const struct pe_similarity_params *p, struct pe_error *err)
{
	double *mu = NULL;
	uint64_t i;
	size_t nd;
	int rc;

	memset(s, 0, sizeof *s);
	s->p = *p;
	s->n = w->rows;
	s->d = w->cols;
	if (s->n == 0 || s->d == 0 || s->d > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_DATA, "a similarity of %llu rows of %llu values is not possible",
			       (unsigned long long)s->n, (unsigned long long)s->d);
	if (s->n > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_DATA, "a similarity of %llu rows has as many columns: at most %llu",
			       (unsigned long long)s->n, (unsigned long long)PE_MAX_COLS);
	if (s->n > SIZE_MAX / 8 / s->d)
		return pe_fail(err, PE_ERR_NOMEM, "%llu rows of %llu values do not fit in memory",
			       (unsigned long long)s->n, (unsigned long long)s->d);
	if (check_finite(w, err) != 0)
		return -1;
	nd = (size_t)(s->n * s->d);
	if (p->precision == PE_SIM_FLOAT32) {
		s->block = F32_BLOCK_BYTES / ((size_t)s->n * sizeof(float));
		s->block = s->block < F32_MIN_BLOCK ? F32_MIN_BLOCK
			 : s->block > F32_MAX_BLOCK ? F32_MAX_BLOCK : s->block;
	} else {
		s->block = PE_SIM_BLOCK_BYTES / ((size_t)s->n * sizeof(float));
		s->block = s->block < MIN_BLOCK ? MIN_BLOCK : s->block > MAX_BLOCK ? MAX_BLOCK : s->block;
	}
	if (s->block > s->n)
		s->block = (size_t)s->n;
	if (p->center && column_means(w, &mu, err) != 0)
		return -1;
	s->row = calloc((size_t)s->n, sizeof *s->row);
	/* exact: double rows only when centred (float32 inputs stay float32
	 * and are widened a panel at a time, see rows_d()) */
	if (p->precision == PE_SIM_EXACT && p->center)
		s->x = pe_alloc_big(nd * sizeof *s->x);
	else
		s->xf = pe_alloc_big(nd * sizeof *s->xf);
	if (!s->row || (!s->x && !s->xf)) {
		free(mu);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for %llu rows of %llu values",
			       (unsigned long long)s->n, (unsigned long long)s->d);
	}
	s->exact_inputs = p->precision == PE_SIM_EXACT && !p->center;
	rc = prep_all(s, w, mu, err);
	free(mu);
	if (rc != 0)
		return -1;
	for (i = 0; i < s->n; i++) {
		s->zero_rows += s->row[i].zero;
		if (s->row[i].nrm > s->max_norm)
			s->max_norm = s->row[i].nrm;
	}
	/* see finish() */
	s->e_cos = ((double)s->d + 12) * U * 1.001;
	s->e_dot = ((double)s->d + 10) * U * 1.0001;
	s->e_euc = ((double)s->d + 10) * U * 1.0001;
	if (pe_gemm_init(err) != 0)
		return -1;
	return cache_init(s, err);
}

void pe_similarity_free(struct pe_similarity *s)
{
	struct pe_sim_cache *c = s->cache;
	size_t i;

	if (c) {
		if (c->mu_ok)
			pthread_mutex_destroy(&c->mu);
		for (i = 0; i < c->nchunks; i++)
			free(c->chunks[i]);
		free(c->chunks);
		free(c->blk);
		free(c->col);
		free(c->begun);
		free(c->stored);
		free(c->read);
		free(c->nstored);
		free(c->nread);
		free(c);
	}
	free(s->x);
	free(s->xf);
	free(s->row);
	memset(s, 0, sizeof *s);
}

size_t pe_similarity_cache_held(const struct pe_similarity *s)
{
	size_t n = 0;

	if (s->cache && s->cache->mu_ok) {
		pthread_mutex_lock(&s->cache->mu);
		n = s->cache->held;
		pthread_mutex_unlock(&s->cache->mu);
	}
	return n;
}

uint64_t pe_similarity_exact_count(const struct pe_similarity *s)
{
	uint64_t n = 0;

	if (s->cache && s->cache->mu_ok) {
		pthread_mutex_lock(&s->cache->mu);
		n = s->cache->exact_count;
		pthread_mutex_unlock(&s->cache->mu);
	}
	return n;
}

/* ---- one element, exact precision ---- */

/* Double-double first (core/exact.h's middle tier); the fixed-point sums
 * when even that cannot decide (an exact 0, a rounding midpoint). */
static float exact_elem(const struct pe_similarity *s, uint64_t i, uint64_t j, const double *a,
			const double *b)
{
	const struct pe_sim_row *ra = &s->row[i], *rb = &s->row[j];
	struct pe_acc sa, xa, ya;
	struct pe_dd g, e;
	double abs_sum, gerr;
	uint64_t k;
	int norms = s->p.metric != PE_METRIC_DOT;
	float f;

	g = pe_dd_dot(a, b, (size_t)s->d, s->exact_inputs, &abs_sum);
	gerr = pe_dd_dot_error((size_t)s->d) * abs_sum;
	if (s->p.metric == PE_METRIC_DOT && pe_dd_try_float(g, gerr, &f))
		return f;
	if (s->p.metric == PE_METRIC_COSINE &&
	    pe_dd_try_cosine(g, gerr, ra->n2dd, ra->n2err, rb->n2dd, rb->n2err, &f))
		return f;
	if (s->p.metric == PE_METRIC_EUCLIDEAN) {
		/* |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, each known in double-double */
		e.hi = ra->n2dd.hi;
		e.lo = ra->n2dd.lo;
		e = pe_dd_add(e, rb->n2dd);
		e = pe_dd_add(e, pe_dd_scale(g, -2));
		if (pe_dd_try_sqrt(e, ra->n2err + rb->n2err + 2 * gerr +
					 ldexp(ra->n2 + rb->n2 + 2 * abs_sum, -100), &f))
			return f;
	}

	pe_acc_clear(&sa);
	pe_acc_clear(&xa);
	pe_acc_clear(&ya);
	for (k = 0; k < s->d; k++) {
		if (s->exact_inputs) {
			/* float32 products are exact doubles */
			pe_acc_add(&sa, a[k] * b[k]);
			if (norms) {
				pe_acc_add(&xa, a[k] * a[k]);
				pe_acc_add(&ya, b[k] * b[k]);
			}
		} else {
			pe_acc_add_prod(&sa, a[k], b[k]);
			if (norms) {
				pe_acc_add_prod(&xa, a[k], a[k]);
				pe_acc_add_prod(&ya, b[k], b[k]);
			}
		}
	}
	if (s->p.metric == PE_METRIC_DOT)
		return pe_acc_to_float(&sa);
	if (s->p.metric == PE_METRIC_COSINE)
		return pe_exact_cosine(&sa, &xa, &ya);
	pe_acc_add_scaled(&xa, &ya, 1);
	pe_acc_add_scaled(&xa, &sa, -2);
	return pe_exact_sqrt(&xa);
}

static int same_bits(float a, float b)
{
	uint32_t x, y;

	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	return x == y;
}

/*
 * S[i][j] from g, the GEMM's x_i . x_j.  The interval [v - e, v + e]
 * surely holds the exact value; when both ends round to the same float
 * (the same bits: -0 and +0 differ), that is the answer.  When the inputs
 * are float32 and |x_i| |x_j| < 2^(53 + lowest bits), every partial sum
 * of the GEMM was exact, so g is; if the norms were exact too, only the
 * normalisation rounds (three roundings to 1/|x|, 1/|y| and their product,
 * one to v: 8u|v| is a safe bound).
 */
static float finish(const struct pe_similarity *s, uint64_t i, uint64_t j, double g,
		    const double *xi, const double *xj, uint64_t *nexact)
{
	const struct pe_sim_row *a = &s->row[i], *b = &s->row[j];
	int exact = s->exact_inputs && a->lg + b->lg <= 53 + a->lsb + b->lsb;
	double v, e, lo, hi;

	switch (s->p.metric) {
	case PE_METRIC_COSINE:
		if (a->zero || b->zero)
			return NAN;
		if (i == j)
			return 1.0f;
		if (exact && g == 0)
			return 0.0f;
		v = g * (a->rn * b->rn);
		e = exact && a->n2_exact && b->n2_exact ? 8 * U * fabs(v) : s->e_cos;
		lo = v - e;
		hi = v + e;
		break;
	case PE_METRIC_DOT:
		if (exact)
			return (float)g;
		e = s->e_dot * a->nrm * b->nrm;
		lo = g - e;
		hi = g + e;
		break;
	default:
		if (i == j)
			return 0.0f;
		v = a->n2 + b->n2 - 2 * g;
		e = s->e_euc * (a->n2 + b->n2 + 2 * a->nrm * b->nrm);
		lo = v - e > 0 ? sqrt(v - e) * (1 - 4 * U) : 0;
		hi = sqrt(v + e > 0 ? v + e : 0) * (1 + 4 * U);
		break;
	}
	if (same_bits((float)lo, (float)hi))
		return (float)lo;
	(*nexact)++;
	return exact_elem(s, i, j, xi, xj);
}

/* ---- blocks of rows ---- */

/* float32: S[i][j] from the GEMM's g (the same bits for (j, i)). */
static float f32_value(const struct pe_similarity *s, uint64_t i, uint64_t j, float g)
{
	const struct pe_sim_row *ra = &s->row[i], *rb = &s->row[j];

	if (s->p.metric == PE_METRIC_COSINE)
		return ra->zero || rb->zero ? NAN : g;
	if (s->p.metric == PE_METRIC_DOT)
		return g;
	return sqrtf(fmaxf(0.0f, ((float)ra->n2 + (float)rb->n2) - 2.0f * g));
}

/* dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols, in tiles
 * that stay in the first-level cache. */
static void transpose(const float *restrict src, size_t rows, size_t cols, size_t lds,
		      float *restrict dst, size_t ldd)
{
	enum { T = 16 };
	size_t i0, j0, i, j, ie, je;

	for (i0 = 0; i0 < rows; i0 += T) {
		ie = rows - i0 < T ? rows : i0 + T;
		for (j0 = 0; j0 < cols; j0 += T) {
			je = cols - j0 < T ? cols : j0 + T;
			for (j = j0; j < je; j++)
				for (i = i0; i < ie; i++)
					dst[j * ldd + i] = src[i * lds + j];
		}
	}
}

/* Rows [r0, r0+m) in double: the centred rows themselves, or the float32
 * rows widened (exactly) into buf, m d doubles. */
static const double *rows_d(const struct pe_similarity *s, uint64_t r0, size_t m, double *buf)
{
	const float *f;
	size_t k, nd = m * (size_t)s->d;

	if (s->x)
		return s->x + (size_t)r0 * (size_t)s->d;
	f = s->xf + (size_t)r0 * (size_t)s->d;
	for (k = 0; k < nd; k++)
		buf[k] = (double)f[k];
	return buf;
}

/* Columns per GEMM call: bounds the product scratch (and the widened
 * columns, 8 d bytes each, to WIDE_BYTES). */
static size_t chunk_cols(const struct pe_similarity *s, uint64_t cols)
{
	size_t w = CHUNK_COLS;

	if (!s->x && (size_t)s->d * sizeof(double) * w > WIDE_BYTES) {
		w = WIDE_BYTES / ((size_t)s->d * sizeof(double));
		w = w < MIN_BLOCK ? MIN_BLOCK : w;
	}
	return cols < w ? (size_t)cols : w;
}

/* out[(i - a) * ldo + (j - c0)] for rows [a, a+m) (xa: those rows in
 * double), columns [c0, c1): exact precision. */
static int compute(const struct pe_similarity *s, uint64_t a, size_t m, const double *xa,
		   uint64_t c0, uint64_t c1, float *out, size_t ldo, uint64_t *nexact,
		   struct pe_error *err)
{
	size_t d = (size_t)s->d, w, r, c;
	double *g, *wide = NULL;
	const double *xb;
	uint64_t j0;

	if (c1 == c0)
		return 0;
	w = chunk_cols(s, c1 - c0);
	g = malloc(m * w * sizeof *g);
	if (g && !s->x)
		wide = malloc(w * d * sizeof *wide);
	if (!g || (!s->x && !wide)) {
		free(g);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a block of %zu x %zu", m, w);
	}
	for (j0 = c0; j0 < c1; j0 += w) {
		size_t nc = (size_t)(c1 - j0) < w ? (size_t)(c1 - j0) : w;

		xb = rows_d(s, j0, nc, wide);
		pe_gemm_d(m, nc, d, xa, d, xb, d, g, nc);
		for (r = 0; r < m; r++)
			for (c = 0; c < nc; c++)
				out[r * ldo + (size_t)(j0 - c0) + c] =
					finish(s, a + r, j0 + c, g[r * nc + c], xa + r * d,
					       xb + c * d, nexact);
	}
	free(wide);
	free(g);
	return 0;
}

/* Under the lock: make room for block b's upper triangle, once; when the
 * budget does not allow all of it, none (the rows below compute it).
 * Returns 1 on that first call, 0 once it has been decided. */
static int reserve_column(const struct pe_similarity *s, size_t b)
{
	struct pe_sim_cache *c = s->cache;
	size_t k;

	if (c->col[b])
		return 0;
	c->col[b] = 2;
	for (k = b + 1; slot(c, k, b); k++) {
		*slot(c, k, b) = blk_get(c);
		if (!*slot(c, k, b)) {
			while (k-- > b + 1)
				slot_put(c, slot(c, k, b));
			return 1;
		}
	}
	if (b + 1 < c->nb)
		c->col[b] = 1;
	return 1;
}

/* Under the lock: rows [sa, sa+sm) of block b have their upper triangle in
 * the cache (when stored), rows [a, a+m) are written.  A cached block is
 * let go at the later of its two ends: its column (block b) all stored,
 * its rows (block r) all written. */
static void rows_done(const struct pe_similarity *s, size_t b, uint64_t sa, size_t sm,
		      int stored, uint64_t a, size_t m)
{
	struct pe_sim_cache *c = s->cache;
	uint64_t i;
	size_t k;

	for (i = sa; stored && i < sa + sm; i++) {
		if (!c->stored[i]) {
			c->stored[i] = 1;
			c->nstored[b]++;
		}
	}
	for (i = a; i < a + m; i++) {
		if (!c->read[i]) {
			c->read[i] = 1;
			c->nread[b]++;
		}
	}
	if (c->nread[b] == block_rows_of(s, b))
		for (k = b > c->band ? b - c->band : 0; k < b; k++)
			if (c->nstored[k] == block_rows_of(s, k))
				slot_put(c, slot(c, b, k));
	if (c->nstored[b] == block_rows_of(s, b))
		for (k = b + 1; slot(c, k, b); k++)
			if (c->nread[k] == block_rows_of(s, k))
				slot_put(c, slot(c, k, b));
}

/* Before rows of block b are computed: make room for b's column once, and
 * take (under the lock) the complete blocks rows of b can copy (from[t]:
 * column block b - 1 - t) and the blocks they store into (to[t]: row block
 * b + 1 + t, NULL when let go), t < band.  The first rows of b to get here
 * let go the blocks whose rows have been taken on already (by another
 * worker, or by a fill out of order): those rows compute them.  Later
 * slices of b take what is left as it is: with the pump's ring, rows of a
 * later block may begin between two slices of b, and a block let go then
 * could still have a writer among b's earlier slices (it is let go in
 * rows_done() instead, once b's column is stored).  Returns whether b's
 * upper triangle is stored at all. */
static int capture(const struct pe_similarity *s, size_t b, const float **from, float **to)
{
	struct pe_sim_cache *c = s->cache;
	size_t k, t;
	float **p;
	int storing, first;

	pthread_mutex_lock(&c->mu);
	c->begun[b] = 1;
	first = reserve_column(s, b);
	storing = c->col[b] == 1;
	for (t = 0; t < c->band && t < b; t++)
		if (c->nstored[b - 1 - t] == block_rows_of(s, b - 1 - t))
			from[t] = *slot(c, b, b - 1 - t);
	for (k = b + 1, t = 0; storing && (p = slot(c, k, b)) != NULL; k++, t++) {
		if (first && c->begun[k])
			slot_put(c, p);
		else
			to[t] = *p;
	}
	pthread_mutex_unlock(&c->mu);
	return storing;
}

/* Rows [a, a+m) inside block b into out (rows of n). */
static int block_rows(const struct pe_similarity *s, size_t b, uint64_t a, size_t m, float *out,
		      struct pe_error *err)
{
	struct pe_sim_cache *c = s->cache;
	size_t n = (size_t)s->n, k, t, i, band = c->band;
	uint64_t start = (uint64_t)b * s->block, bb = block_rows_of(s, b), run0, nexact = 0;
	const float **from = calloc(band, sizeof *from);
	float **to = calloc(band, sizeof *to);
	double *wide = s->x ? NULL : malloc(m * (size_t)s->d * sizeof *wide);
	const double *xa;
	int storing = 0, rc = -1;

	if (!from || !to || (!s->x && !wide)) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	xa = rows_d(s, a, m, wide);
	storing = capture(s, b, from, to);
	/* earlier columns: cached blocks (within the band) copied, runs of the
	 * others computed */
	run0 = 0;
	for (k = b > band ? b - band : 0; k <= b; k++) {
		uint64_t kc = (uint64_t)k * s->block;
		const float *f = k < b ? from[b - 1 - k] : NULL;

		if (k < b && !f)
			continue;
		if (compute(s, a, m, xa, run0, kc, out + run0, n, &nexact, err) != 0)
			goto out;
		if (k < b) {
			uint64_t kr = block_rows_of(s, k);

			for (i = 0; i < m; i++)
				memcpy(out + i * n + kc, f + (a + i - start) * kr,
				       (size_t)kr * sizeof(float));
			run0 = kc + kr;
		}
	}
	/* this block's column onwards */
	if (compute(s, a, m, xa, start, s->n, out + start, n, &nexact, err) != 0)
		goto out;
	for (t = 0; storing && t < band && b + 1 + t < c->nb; t++) {
		uint64_t kc = (uint64_t)(b + 1 + t) * s->block, kr = block_rows_of(s, b + 1 + t);

		if (!to[t])
			continue;	/* begun already: let go */
		transpose(out + kc, m, (size_t)kr, n, to[t] + (a - start), (size_t)bb);
	}
	rc = 0;
out:
	pthread_mutex_lock(&c->mu);
	if (rc == 0)
		rows_done(s, b, a, m, storing, a, m);
	c->exact_count += nexact;
	pthread_mutex_unlock(&c->mu);
	free(wide);
	free(from);
	free(to);
	return rc;
}

/* float32: the values of block p's rows x block q's columns into g (row
 * stride ldg): X[block p] X[block q]^T, then f32_value() unless that is
 * the product itself (cosine without zero rows, dot). */
static void f32_pair(const struct pe_similarity *s, size_t p, size_t q, float *g, size_t ldg)
{
	size_t d = (size_t)s->d, mp = (size_t)block_rows_of(s, p), mq = (size_t)block_rows_of(s, q);
	uint64_t p0 = (uint64_t)p * s->block, q0 = (uint64_t)q * s->block;
	size_t i, j;

	pe_gemm_s(mp, mq, d, s->xf + (size_t)p0 * d, d, s->xf + (size_t)q0 * d, d, g, ldg);
	if (s->p.metric == PE_METRIC_DOT || (s->p.metric == PE_METRIC_COSINE && !s->zero_rows))
		return;
	for (i = 0; i < mp; i++)
		for (j = 0; j < mq; j++)
			g[i * ldg + j] = f32_value(s, p0 + i, q0 + j, g[i * ldg + j]);
}

/* float32: rows [a, a+m) of block b, every value from its canonical call
 * (see similarity.h); the whole block's upper triangle goes to the cache.
 * A pair's values are symmetric (f32_value is), so the rows below read a
 * call's columns by transposing it. */
static int f32_block(const struct pe_similarity *s, size_t b, uint64_t a, size_t m, float *out,
		     struct pe_error *err)
{
	struct pe_sim_cache *c = s->cache;
	size_t n = (size_t)s->n, nb = c->nb, k, i, j, lds;
	uint64_t start = (uint64_t)b * s->block, bb = block_rows_of(s, b), kr, kc;
	size_t lo = (size_t)(a - start);
	const float **from = calloc(c->band, sizeof *from), *f, *src;
	float **to = calloc(c->band, sizeof *to), *g = malloc(s->block * s->block * sizeof *g), *tk;
	int storing = 0, rc = -1, whole = lo == 0 && m == bb;

	if (!from || !to || !g) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	storing = capture(s, b, from, to);
	for (k = 0; k < b; k++) {
		kc = (uint64_t)k * s->block;
		kr = block_rows_of(s, k);
		f = b - k <= c->band ? from[b - 1 - k] : NULL;
		if (f) {
			for (i = 0; i < m; i++)
				memcpy(out + i * n + kc, f + (lo + i) * kr, (size_t)kr * sizeof(float));
			continue;
		}
		f32_pair(s, k, b, g, bb);	/* the call that defines these values */
		transpose(g + lo, kr, m, bb, out + kc, n);
	}
	f32_pair(s, b, b, g, bb);
	for (i = 0; i < m; i++)
		for (j = 0; j < bb; j++)
			out[i * n + start + j] = lo + i <= j ? g[(lo + i) * bb + j] : g[j * bb + lo + i];
	for (k = b + 1; k < nb; k++) {
		kc = (uint64_t)k * s->block;
		kr = block_rows_of(s, k);
		if (whole) {
			/* straight into the rows written */
			f32_pair(s, b, k, out + kc, n);
			src = out + kc;
			lds = n;
		} else {
			f32_pair(s, b, k, g, kr);
			for (i = 0; i < m; i++)
				memcpy(out + i * n + kc, g + (lo + i) * kr, (size_t)kr * sizeof(float));
			src = g;
			lds = kr;
		}
		tk = k - b <= c->band ? to[k - b - 1] : NULL;
		if (tk)
			transpose(src, bb, kr, lds, tk, bb);
	}
	rc = 0;
out:
	if (rc == 0) {
		pthread_mutex_lock(&c->mu);
		rows_done(s, b, start, (size_t)bb, storing, a, m);
		pthread_mutex_unlock(&c->mu);
	}
	free(from);
	free(to);
	free(g);
	return rc;
}

static int sim_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_similarity *s = ctx;
	float *o = out;
	uint64_t a = r0, end = r0 + nrows, e;
	size_t b;

	while (a < end) {
		b = (size_t)(a / s->block);
		e = (uint64_t)(b + 1) * s->block;
		if (e > end)
			e = end;
		if ((s->p.precision == PE_SIM_EXACT ? block_rows(s, b, a, (size_t)(e - a), o + (size_t)(a - r0) * (size_t)s->n, err)
			  : f32_block(s, b, a, (size_t)(e - a), o + (size_t)(a - r0) * (size_t)s->n,
				      err)) != 0)
			return -1;
		a = e;
	}
	return 0;
}

int pe_similarity_tensor(struct pe_similarity *s, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { s->n, s->n };

	if (pe_tensor_init(t, "similarity", PE_F32, sim_fill, s, 1, 2, shape, err) != 0)
		return -1;
	t->block_rows = s->block;
	if (s->p.precision == PE_SIM_FLOAT32) {
		/* each worker a whole block of the grid */
		t->block_rows = s->block * (size_t)(s->p.threads > 1 ? s->p.threads : 1);
		t->slice_grain = s->block;
	}
	return 0;
}

int pe_similarity_known_nonfinite(const struct pe_similarity *s, uint64_t r0, uint64_t r1,
				  uint64_t *row, uint64_t *col, float *v)
{
	/* n2 is within an ulp of |x|^2.  Exact: the diagonal is |x|^2
	 * correctly rounded, inf from 2^128 - 2^103.  float32: d products of
	 * non-negative values and their sum in any order, each operation
	 * rounded, come to at least (1 - 2^-24)^(d+2) of the exact |x|^2 (one
	 * more rounding for centred rows), so beyond 2^128 (1 - 2^-24)^-(d+3)
	 * the float32 diagonal overflows too */
	double beyond = 0x1p128 * (1 + 0x1p-40);
	uint64_t i;

	if (s->p.precision != PE_SIM_EXACT)
		beyond *= exp(((double)s->d + 3) * 0x1p-24 * (1 + 0x1p-20));

	if (r0 >= r1 || r1 > s->n)
		return 0;
	if (s->p.metric == PE_METRIC_COSINE && s->zero_rows)
		for (i = s->row[r0].zero ? r0 : 0; i < s->n; i++)
			if (s->row[i].zero) {
				*row = r0;
				*col = i == r0 ? 0 : i;
				*v = NAN;
				return 1;
			}
	if (s->p.metric == PE_METRIC_DOT)
		for (i = r0; i < r1; i++)
			if (s->row[i].n2 > beyond) {
				*row = *col = i;
				*v = INFINITY;
				return 1;
			}
	return 0;
}
