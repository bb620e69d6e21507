/*
 * Similarity in row blocks.  The rows come as a grid of blocks of s->block
 * rows (the tensor's block_rows, so the pump hands out blocks on it; its
 * workers split a block into slices).  Rows [a, a+m) of block b are:
 *   columns of earlier blocks b' < b: copied from the cache when block b'
 *     stored its upper triangle there, else computed;
 *   columns from b's own first row on: computed, and (exact precision,
 *     when the budget allows) stored transposed for the blocks below.
 * "Computed" is a GEMM over column chunks, then finish() per element.  The
 * cache and its protocol are core/simcache.h; the rows are prepared once,
 * in threads of their own, by core/simrows.h.
 *
 * Why the bound in finish() holds: products of float32 values are exact in
 * double, and any order of summing d terms errs by at most gamma_d sum |p|
 * <= gamma_d |x| |y| (Cauchy-Schwarz), whatever BLAS does.  Centred rows
 * are doubles, their products round, and the same bound still holds.
 */
#include "core/similarity.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/exact.h"
#include "core/gemm.h"
#include "core/mem.h"
#include "core/simcache.h"
#include "core/simd.h"
#include "core/simrows.h"

#define U 0x1p-53
#define CHUNK_COLS 1024		/* columns per GEMM call: bounds the scratch */
#define WIDE_BYTES ((size_t)2 << 20)	/* float32 columns widened per call */
#define MIN_BLOCK 16
#define MAX_BLOCK 512
/* exact: rows per GEMM call (a block) at least, where memory allows.  Each
 * call packs, and widens to double, its columns once for its rows, a cost
 * of 1/rows of the products: at 16384 x 1024, 32-row calls spent a fifth
 * of the run packing and widening, 128-row calls a tenth (perf) */
#define GEMM_ROWS 128
/* float32: one BLAS call per pair of blocks; large enough that packing
 * the operands stays a few per cent of the work */
#define F32_MIN_BLOCK 64
#define F32_MAX_BLOCK 256
/* float32: the grid (so the bytes, see similarity.h) follows from this */
#define F32_BLOCK_BYTES ((size_t)32 << 20)

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

static size_t blocks(const struct pe_similarity *s)
{
	return (size_t)((s->n + s->block - 1) / s->block);
}

/*
 * A worker's buffers for one block, kept for the next: allocated per block,
 * they were fresh memory every time, and a first touch costs a page fault
 * per 4 KiB here (4,900 faults at 4096 x 1024, two thirds of them in the
 * widened rows and columns: perf record -e page-faults).  As many sets as
 * blocks are computed at once, each back on the list when its block is
 * done.
 */
struct pe_sim_scratch {
	struct pe_sim_scratch *next;
	double *rows;		/* exact, float32 inputs: a block's rows in double */
	double *cols;		/* exact, float32 inputs: a chunk of columns in double */
	double *g;		/* exact: products of a block's rows and a chunk */
	float *gf;		/* float32: products of two blocks */
	const float **from;	/* the cache's blocks (simcache.h) */
	float **to;
};

struct pe_sim_spares {
	pthread_mutex_t mu;
	struct pe_sim_scratch *list;
};

static void scratch_free(struct pe_sim_scratch *sc)
{
	if (sc) {
		free(sc->rows);
		free(sc->cols);
		free(sc->g);
		free(sc->gf);
		free(sc->from);
		free(sc->to);
		free(sc);
	}
}

static size_t chunk_cols(const struct pe_similarity *s, uint64_t cols);

/* A set of buffers from the list, or a new one; NULL when out of memory. */
static struct pe_sim_scratch *scratch_get(const struct pe_similarity *s)
{
	struct pe_sim_scratch *sc;
	size_t band = pe_simcache_band(s->cache), d = (size_t)s->d, w = chunk_cols(s, s->n);
	int exact = s->p.precision == PE_SIM_EXACT;

	pthread_mutex_lock(&s->spares->mu);
	sc = s->spares->list;
	if (sc)
		s->spares->list = sc->next;
	pthread_mutex_unlock(&s->spares->mu);
	if (sc)
		return sc;
	sc = calloc(1, sizeof *sc);
	if (!sc)
		return NULL;
	sc->from = calloc(band, sizeof *sc->from);
	sc->to = calloc(band, sizeof *sc->to);
	if (exact && !s->x) {
		sc->rows = pe_alloc_big(s->block * d * sizeof *sc->rows);
		sc->cols = pe_alloc_big(w * d * sizeof *sc->cols);
	}
	if (exact)
		sc->g = pe_alloc_big(s->block * w * sizeof *sc->g);
	else
		sc->gf = pe_alloc_big(s->block * s->block * sizeof *sc->gf);
	if (!sc->from || !sc->to || (exact && (!sc->g || (!s->x && (!sc->rows || !sc->cols)))) ||
	    (!exact && !sc->gf)) {
		scratch_free(sc);
		return NULL;
	}
	return sc;
}

static void scratch_put(const struct pe_similarity *s, struct pe_sim_scratch *sc)
{
	pthread_mutex_lock(&s->spares->mu);
	sc->next = s->spares->list;
	s->spares->list = sc;
	pthread_mutex_unlock(&s->spares->mu);
}

int pe_similarity_init(struct pe_similarity *s, const struct pe_matrix_view *w,
		       const struct pe_similarity_params *p, struct pe_error *err)
{
	size_t nd, budget;

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
	if (pe_simrows_check(w, err) != 0)
		return -1;
	nd = (size_t)(s->n * s->d);
	if (p->precision == PE_SIM_FLOAT32) {
		s->block = F32_BLOCK_BYTES / ((size_t)s->n * sizeof(float));
		s->block = s->block < F32_MIN_BLOCK ? F32_MIN_BLOCK
			 : s->block > F32_MAX_BLOCK ? F32_MAX_BLOCK : s->block;
	} else {
		/* 4 MiB blocks, but GEMM_ROWS rows while that stays within 8 MiB */
		s->block = PE_SIM_BLOCK_BYTES / ((size_t)s->n * sizeof(float));
		if (s->block < GEMM_ROWS)
			s->block = 2 * PE_SIM_BLOCK_BYTES / ((size_t)s->n * sizeof(float)) < GEMM_ROWS
					   ? 2 * PE_SIM_BLOCK_BYTES / ((size_t)s->n * sizeof(float))
					   : GEMM_ROWS;
		s->block = s->block < MIN_BLOCK ? MIN_BLOCK : s->block > MAX_BLOCK ? MAX_BLOCK : s->block;
	}
	if (s->block > s->n)
		s->block = (size_t)s->n;
	s->row = calloc((size_t)s->n, sizeof *s->row);
	s->exact_count = calloc(1, sizeof *s->exact_count);
	s->spares = calloc(1, sizeof *s->spares);
	if (s->spares && pthread_mutex_init(&s->spares->mu, NULL) != 0) {
		free(s->spares);
		s->spares = NULL;
	}
	/* exact: double rows only when centred (float32 inputs stay float32
	 * and are widened a panel at a time, see rows_d()) */
	if (p->precision == PE_SIM_EXACT && p->center)
		s->x = pe_alloc_big(nd * sizeof *s->x);
	else
		s->xf = pe_alloc_big(nd * sizeof *s->xf);
	if (!s->row || !s->exact_count || !s->spares || (!s->x && !s->xf))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for %llu rows of %llu values",
			       (unsigned long long)s->n, (unsigned long long)s->d);
	s->exact_inputs = p->precision == PE_SIM_EXACT && !p->center;
	if (pe_simrows_prepare(s, w, err) != 0)
		return -1;
	/* see finish() */
	s->e_cos = ((double)s->d + 12) * U * 1.001;
	s->e_dot = ((double)s->d + 10) * U * 1.0001;
	s->e_euc = ((double)s->d + 10) * U * 1.0001;
	if (pe_gemm_init(p->threads > 1 ? p->threads : 1, err) != 0)
		return -1;
	/* exact: 10 n d (its pump blocks are small); float32: 8 n d (a block
	 * of the grid per worker in each pump block).  4 n d bytes were
	 * allocated already, so 10 n d does not overflow. */
	budget = p->precision == PE_SIM_EXACT ? 4 * nd / 2 * 5 : 8 * nd;
	if (budget < PE_SIM_CACHE_MIN)
		budget = PE_SIM_CACHE_MIN;
	s->cache = pe_simcache_new(s->n, s->block, p->cache_bytes ? p->cache_bytes : budget, err);
	return s->cache ? 0 : -1;
}

void pe_similarity_free(struct pe_similarity *s)
{
	struct pe_sim_scratch *sc;

	if (s->spares) {
		while ((sc = s->spares->list) != NULL) {
			s->spares->list = sc->next;
			scratch_free(sc);
		}
		pthread_mutex_destroy(&s->spares->mu);
		free(s->spares);
	}
	pe_simcache_free(s->cache);
	free(s->x);
	free(s->xf);
	free(s->row);
	free(s->exact_count);
	memset(s, 0, sizeof *s);
}

size_t pe_similarity_cache_held(const struct pe_similarity *s)
{
	return s->cache ? pe_simcache_held(s->cache) : 0;
}

uint64_t pe_similarity_exact_count(const struct pe_similarity *s)
{
	return s->exact_count ? atomic_load(s->exact_count) : 0;
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

/* out[k] = in[k] for k < n: exact.  Every column a slice computes is widened
 * for its GEMM, so at 16384 x 1024 this was a seventh of the run as a
 * scalar loop (perf). */
PE_VECTOR_KERNEL
static void widen(const float *restrict in, size_t n, double *restrict out)
{
	size_t k;

	for (k = 0; k < n; k++)
		out[k] = (double)in[k];
}

/* Rows [r0, r0+m) in double: the centred rows themselves, or the float32
 * rows widened (exactly) into buf, m d doubles. */
static const double *rows_d(const struct pe_similarity *s, uint64_t r0, size_t m, double *buf)
{
	if (s->x)
		return s->x + (size_t)r0 * (size_t)s->d;
	widen(s->xf + (size_t)r0 * (size_t)s->d, m * (size_t)s->d, buf);
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
 * double), columns [c0, c1): exact precision, in sc's buffers. */
static void compute(const struct pe_similarity *s, uint64_t a, size_t m, const double *xa,
		    uint64_t c0, uint64_t c1, float *out, size_t ldo, struct pe_sim_scratch *sc,
		    uint64_t *nexact)
{
	size_t d = (size_t)s->d, w, r, c;
	double *g = sc->g;
	const double *xb;
	uint64_t j0;

	if (c1 == c0)
		return;
	w = chunk_cols(s, c1 - c0);
	for (j0 = c0; j0 < c1; j0 += w) {
		size_t nc = (size_t)(c1 - j0) < w ? (size_t)(c1 - j0) : w;

		xb = rows_d(s, j0, nc, sc->cols);
		pe_gemm_d(m, nc, d, xa, d, xb, d, g, nc);
		for (r = 0; r < m; r++)
			for (c = 0; c < nc; c++)
				out[r * ldo + (size_t)(j0 - c0) + c] =
					finish(s, a + r, j0 + c, g[r * nc + c], xa + r * d,
					       xb + c * d, nexact);
	}
}

/* Rows [a, a+m) inside block b into out (rows of n). */
static int block_rows(const struct pe_similarity *s, size_t b, uint64_t a, size_t m, float *out,
		      struct pe_error *err)
{
	size_t n = (size_t)s->n, k, t, i, band = pe_simcache_band(s->cache), nb = blocks(s);
	uint64_t start = (uint64_t)b * s->block, bb = block_rows_of(s, b), run0, nexact = 0;
	struct pe_sim_scratch *sc = scratch_get(s);
	const float **from;
	float **to;
	const double *xa;
	int storing;

	if (!sc)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a block of %zu rows", s->block);
	from = sc->from;
	to = sc->to;
	xa = rows_d(s, a, m, sc->rows);
	storing = pe_simcache_take(s->cache, b, from, to);
	/* earlier columns: cached blocks (within the band) copied, runs of the
	 * others computed */
	run0 = 0;
	for (k = b > band ? b - band : 0; k <= b; k++) {
		uint64_t kc = (uint64_t)k * s->block;
		const float *f = k < b ? from[b - 1 - k] : NULL;

		if (k < b && !f)
			continue;
		compute(s, a, m, xa, run0, kc, out + run0, n, sc, &nexact);
		if (k < b) {
			uint64_t kr = block_rows_of(s, k);

			for (i = 0; i < m; i++)
				memcpy(out + i * n + kc, f + (a + i - start) * kr,
				       (size_t)kr * sizeof(float));
			run0 = kc + kr;
		}
	}
	/* this block's column onwards */
	compute(s, a, m, xa, start, s->n, out + start, n, sc, &nexact);
	for (t = 0; storing && t < band && b + 1 + t < nb; t++) {
		uint64_t kc = (uint64_t)(b + 1 + t) * s->block, kr = block_rows_of(s, b + 1 + t);

		if (!to[t])
			continue;	/* begun already: let go */
		transpose(out + kc, m, (size_t)kr, n, to[t] + (a - start), (size_t)bb);
	}
	pe_simcache_done(s->cache, b, a, m, storing, a, m);
	atomic_fetch_add(s->exact_count, nexact);
	scratch_put(s, sc);
	return 0;
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
	size_t n = (size_t)s->n, nb = blocks(s), band = pe_simcache_band(s->cache), k, i, j, lds;
	uint64_t start = (uint64_t)b * s->block, bb = block_rows_of(s, b), kr, kc;
	size_t lo = (size_t)(a - start);
	struct pe_sim_scratch *sc = scratch_get(s);
	const float **from, *f, *src;
	float **to, *g, *tk;
	int storing, whole = lo == 0 && m == bb;

	if (!sc)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a block of %zu rows", s->block);
	from = sc->from;
	to = sc->to;
	g = sc->gf;
	storing = pe_simcache_take(s->cache, b, from, to);
	for (k = 0; k < b; k++) {
		kc = (uint64_t)k * s->block;
		kr = block_rows_of(s, k);
		f = b - k <= band ? from[b - 1 - k] : NULL;
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
		tk = k - b <= band ? to[k - b - 1] : NULL;
		if (tk)
			transpose(src, bb, kr, lds, tk, bb);
	}
	pe_simcache_done(s->cache, b, start, (size_t)bb, storing, a, m);
	scratch_put(s, sc);
	return 0;
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

int pe_similarity_row(const struct pe_similarity *s, uint64_t i, float *out, struct pe_error *err)
{
	return sim_fill(s, i, 1, out, err);
}

int pe_similarity_tensor(struct pe_similarity *s, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { s->n, s->n };

	if (pe_tensor_init(t, "similarity", PE_F32, sim_fill, s, 1, 2, shape, err) != 0)
		return -1;
	/* each worker a whole block of the grid: float32's values are defined
	 * by it, and exact's GEMM calls keep all of a block's rows */
	t->block_rows = s->block * (size_t)(s->p.threads > 1 ? s->p.threads : 1);
	t->slice_grain = s->block;
	/* float32: the pipeline's values are the result; exact: roundings of
	 * values not kept, which --dtype cannot round again */
	t->f32_exact = s->p.precision == PE_SIM_FLOAT32;
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
