/*
 * core/similarity: every value the correctly rounded float32 of the exact
 * similarity (checked element by element against MPFR, which shares
 * nothing with posenc), the sinusoid's closed form, and bytes that do not
 * depend on threads, the order rows are asked for, or the cache.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"
#include "core/similarity.h"
#include "testutil.h"

static uint64_t rng = 0x243f6a8885a308d3u;

static uint64_t next_u64(void)
{
	return pe_test_rand(&rng);
}

/* uniform in (-1, 1) scaled by 2^e, e in [lo, hi] */
static float rand_f32(int lo, int hi)
{
	uint64_t r = next_u64();
	double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;

	return (float)ldexp(u, lo + (int)((r >> 3) % (uint64_t)(hi - lo + 1)));
}

static struct pe_matrix random_table(uint64_t n, uint64_t d, int lo, int hi)
{
	struct pe_matrix m;
	uint64_t i;

	assert_int_equal(pe_matrix_alloc(&m, n, d, NULL), 0);
	for (i = 0; i < n * d; i++)
		m.v[i] = rand_f32(lo, hi);
	return m;
}

/* The whole n x n similarity through the pump with threads workers. */
static float *similarity(const struct pe_matrix *m, enum pe_metric metric, int center,
			 enum pe_sim_precision prec, int threads, struct pe_similarity *keep)
{
	struct pe_similarity s;
	struct pe_similarity_params p = { metric, center, prec, threads, 0 };
	struct pe_matrix_view w;
	struct pe_tensor t;
	struct pe_pump_opts po = { threads, NULL, NULL };
	struct pe_error err;
	float *out;

	assert_int_equal(pe_matrix_select(m, 0, m->rows, 1, &w, &err), 0);
	if (pe_similarity_init(&s, &w, &p, &err) != 0)
		fail_msg("init: %s", err.msg);
	assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
	out = malloc((size_t)(m->rows * m->rows) * sizeof *out);
	assert_non_null(out);
	if (pe_tensor_materialize(&t, out, &po, &err) != 0)
		fail_msg("materialize: %s", err.msg);
	if (keep)
		*keep = s;
	else
		pe_similarity_free(&s);
	return out;
}

/* ---- the MPFR oracle ---- */

/* sim(a, b) of double rows, exactly, rounded once to float32. */
static float oracle(const double *a, const double *b, size_t d, enum pe_metric metric)
{
	mpfr_t s, x, y, p, q;
	size_t k;
	float f;

	mpfr_inits2(2400, s, x, y, p, q, (mpfr_ptr)0);	/* exact for double products */
	mpfr_set_zero(s, 1);
	mpfr_set_zero(x, 1);
	mpfr_set_zero(y, 1);
	for (k = 0; k < d; k++) {
		mpfr_set_d(p, a[k], MPFR_RNDN);
		mpfr_mul_d(p, p, b[k], MPFR_RNDN);
		mpfr_add(s, s, p, MPFR_RNDN);
		mpfr_set_d(p, a[k], MPFR_RNDN);
		mpfr_sqr(p, p, MPFR_RNDN);
		mpfr_add(x, x, p, MPFR_RNDN);
		mpfr_set_d(p, b[k], MPFR_RNDN);
		mpfr_sqr(p, p, MPFR_RNDN);
		mpfr_add(y, y, p, MPFR_RNDN);
	}
	if (metric == PE_METRIC_DOT) {
		f = pe_mpfr_to_f32(s);
	} else if (metric == PE_METRIC_COSINE) {
		if (mpfr_zero_p(x) || mpfr_zero_p(y)) {
			f = NAN;
		} else {
			mpfr_mul(q, x, y, MPFR_RNDN);
			mpfr_sqrt(q, q, MPFR_RNDN);
			mpfr_div(q, s, q, MPFR_RNDN);
			f = pe_mpfr_to_f32(q);
		}
	} else {
		mpfr_add(q, x, y, MPFR_RNDN);
		mpfr_mul_2ui(s, s, 1, MPFR_RNDN);
		mpfr_sub(q, q, s, MPFR_RNDN);
		mpfr_sqrt(q, q, MPFR_RNDN);
		f = pe_mpfr_to_f32(q);
	}
	mpfr_clears(s, x, y, p, q, (mpfr_ptr)0);
	return f;
}

static int same(float a, float b)
{
	uint32_t x, y;

	if (isnan(a) && isnan(b))
		return 1;
	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	return x == y;
}

/* rows as doubles; centred (mean from an exact MPFR column sum rounded to
 * double, then x - mean rounded) when center */
static double *rows_of(const struct pe_matrix *m, int center)
{
	size_t n = (size_t)m->rows, d = (size_t)m->cols, i, k;
	double *x = malloc(n * d * sizeof *x), mean;
	mpfr_t acc;

	assert_non_null(x);
	mpfr_init2(acc, 2400);
	for (k = 0; k < d; k++) {
		mean = 0;
		if (center) {
			mpfr_set_zero(acc, 1);
			for (i = 0; i < n; i++)
				mpfr_add_d(acc, acc, (double)m->v[i * d + k], MPFR_RNDN);
			mpfr_div_ui(acc, acc, (unsigned long)n, MPFR_RNDN);
			mean = mpfr_get_d(acc, MPFR_RNDN);
		}
		for (i = 0; i < n; i++)
			x[i * d + k] = (double)m->v[i * d + k] - mean;
	}
	mpfr_clear(acc);
	return x;
}

static void expect_oracle(const struct pe_matrix *m, enum pe_metric metric, int center,
			  const char *what)
{
	size_t n = (size_t)m->rows, d = (size_t)m->cols, i, j, bad = 0;
	float *got = similarity(m, metric, center, PE_SIM_EXACT, 2, NULL), want;
	double *x = rows_of(m, center);

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			want = oracle(x + i * d, x + j * d, d, metric);
			if (!same(got[i * n + j], want) && bad++ < 5)
				print_error("%s %s (%zu,%zu): %a, MPFR %a\n", what,
					    pe_metric_name(metric), i, j, (double)got[i * n + j],
					    (double)want);
		}
	}
	free(got);
	free(x);
	if (bad)
		fail_msg("%s: %zu of %zu values are not MPFR's", what, bad, n * n);
}

static void test_correctly_rounded(void **state)
{
	static const int ranges[][2] = { { 0, 0 }, { -30, 30 }, { -140, -100 }, { 90, 120 } };
	struct pe_matrix m;
	size_t r;
	int metric;
	char what[64];

	(void)state;
	for (r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
		m = random_table(37, 29, ranges[r][0], ranges[r][1]);
		m.v[5 * 29 + 3] = 0;		/* some exact zeros */
		for (metric = 0; metric < 3; metric++) {
			snprintf(what, sizeof what, "range %zu", r);
			expect_oracle(&m, (enum pe_metric)metric, 0, what);
		}
		expect_oracle(&m, PE_METRIC_COSINE, 1, "centred");
		pe_matrix_free(&m);
	}
}

/* Rows built to need the exact path: near-duplicates (distance by
 * cancellation), orthogonal pairs, tiny cosines. */
static void test_hard_rows(void **state)
{
	struct pe_matrix m;
	size_t d = 24, i, k;
	struct pe_similarity s;
	float *out;

	(void)state;
	assert_int_equal(pe_matrix_alloc(&m, 12, d, NULL), 0);
	for (k = 0; k < d; k++) {
		float v = rand_f32(-2, 2), u = rand_f32(-2, 2);

		m.v[0 * d + k] = v;
		m.v[1 * d + k] = nextafterf(v, 10);		/* nearly row 0 */
		m.v[2 * d + k] = k % 2 ? v : -v;
		m.v[3 * d + k] = u;
		m.v[4 * d + k] = (k < d / 2) ? u : -u;		/* cos(3,4) = 0 for paired halves? */
		m.v[5 * d + k] = (float)(k + 1);
		m.v[6 * d + k] = (k % 2 ? 1.0f : -1.0f) * (float)(k / 2 + 1);	/* . row 5 small */
		m.v[7 * d + k] = ldexpf(v, 100);
		m.v[8 * d + k] = ldexpf(v, -100);
		m.v[9 * d + k] = (k == 0) ? 1.0f : ldexpf(u, -60);
		m.v[10 * d + k] = (k == 1) ? 1.0f : ldexpf(v, -60);
		m.v[11 * d + k] = 0;				/* a zero row */
	}
	for (i = 0; i < 3; i++)
		expect_oracle(&m, (enum pe_metric)i, 0, "hard rows");
	expect_oracle(&m, PE_METRIC_EUCLIDEAN, 1, "hard rows centred");
	out = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_EXACT, 1, &s);
	assert_int_equal(s.zero_rows, 1);
	assert_true(isnan(out[11 * 12 + 3]) && isnan(out[3 * 12 + 11]) && isnan(out[11 * 12 + 11]));
	assert_true(pe_similarity_exact_count(&s) > 0);	/* the exact path ran */
	pe_similarity_free(&s);
	free(out);
	pe_matrix_free(&m);
}

/* A +-1 table (Sylvester-Hadamard rows): every pair exactly orthogonal;
 * the GEMM is exact there, so no element needs the slow path. */
static void test_hadamard(void **state)
{
	struct pe_matrix m;
	size_t n = 64, i, j;
	struct pe_similarity s;
	float *out;

	(void)state;
	assert_int_equal(pe_matrix_alloc(&m, n, n, NULL), 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			m.v[i * n + j] = __builtin_popcountll(i & j) % 2 ? -1.0f : 1.0f;
	out = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_EXACT, 2, &s);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (!same(out[i * n + j], i == j ? 1.0f : 0.0f))
				fail_msg("(%zu,%zu) = %a", i, j, (double)out[i * n + j]);
	assert_int_equal(pe_similarity_exact_count(&s), 0);
	pe_similarity_free(&s);
	free(out);
	pe_matrix_free(&m);
}

/* The vaswani sinusoid: cos(p_i, p_j) = (2/D) sum_k cos((i-j) w_k) up to
 * the table's own float32 rounding (< 1e-6), so Toeplitz and symmetric;
 * exactly 1 on the diagonal, exactly symmetric. */
static void test_sinusoid_closed_form(void **state)
{
	/* PE_TEST_QUICK (make valgrind): 120 rows */
	size_t n = pe_test_quick() ? 120 : 300, d = 64, i, j, k;
	struct pe_matrix m;
	float *out;
	long double w[32], want;

	(void)state;
	for (k = 0; k < d / 2; k++)
		w[k] = powl(10000.0L, -2.0L * (long double)k / (long double)d);
	assert_int_equal(pe_matrix_alloc(&m, n, d, NULL), 0);
	for (i = 0; i < n; i++)
		for (k = 0; k < d / 2; k++) {
			m.v[i * d + 2 * k] = (float)sinl((long double)i * w[k]);
			m.v[i * d + 2 * k + 1] = (float)cosl((long double)i * w[k]);
		}
	out = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_EXACT, 3, NULL);
	for (i = 0; i < n; i++) {
		assert_true(out[i * n + i] == 1.0f);
		for (j = 0; j < n; j++) {
			want = 0;
			for (k = 0; k < d / 2; k++)
				want += cosl(((long double)i - (long double)j) * w[k]);
			want *= 2.0L / (long double)d;
			assert_close(out[i * n + j], (double)want, 1e-6, 0);
			assert_true(same(out[i * n + j], out[j * n + i]));
		}
	}
	free(out);
	pe_matrix_free(&m);
}

/* Same bytes with 1..4 threads, with rows asked for backwards (no cache
 * hits), and row by row in random order; blocks of the grid straddled. */
static void test_invariance(void **state)
{
	/* PE_TEST_QUICK (make valgrind): fewer rows, still several blocks */
	size_t n = pe_test_quick() ? 300 : 700, r, len;
	struct pe_matrix m = random_table(n, 48, -3, 3);
	struct pe_similarity s;
	struct pe_matrix_view w;
	struct pe_tensor t;
	struct pe_error err;
	float *ref, *o;
	int th, metric, prec;

	(void)state;
	for (prec = 0; prec < 2; prec++) {
		struct pe_similarity_params p = { PE_METRIC_COSINE, 0, (enum pe_sim_precision)prec, 1,
						  0 };

		ref = similarity(&m, PE_METRIC_COSINE, 0, p.precision, 1, NULL);
		for (th = 2; th <= 4; th++) {
			o = similarity(&m, PE_METRIC_COSINE, 0, p.precision, th, NULL);
			assert_memory_equal(o, ref, n * n * sizeof *o);
			free(o);
		}
		assert_int_equal(pe_matrix_select(&m, 0, n, 1, &w, &err), 0);
		assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
		assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
		o = malloc(n * n * sizeof *o);
		/* backwards in runs that straddle blocks: no cache hits */
		for (r = n; r > 0; r -= len) {
			len = r < 97 ? r : 97;
			assert_int_equal(t.fill(t.ctx, r - len, len, o + (r - len) * n, &err), 0);
		}
		assert_memory_equal(o, ref, n * n * sizeof *o);
		/* then every row again, one at a time, in a scrambled order */
		memset(o, 0, n * n * sizeof *o);
		for (r = 0; r < n; r++) {
			size_t row = (r * 311) % n;

			assert_int_equal(t.fill(t.ctx, row, 1, o + row * n, &err), 0);
		}
		assert_memory_equal(o, ref, n * n * sizeof *o);
		pe_similarity_free(&s);
		free(o);
		free(ref);
	}
	for (metric = 1; metric < 3; metric++) {
		for (prec = 0; prec < 2; prec++) {
			ref = similarity(&m, (enum pe_metric)metric, 1, (enum pe_sim_precision)prec, 1, NULL);
			o = similarity(&m, (enum pe_metric)metric, 1, (enum pe_sim_precision)prec, 3, NULL);
			assert_memory_equal(o, ref, n * n * sizeof *o);
			free(o);
			free(ref);
		}
	}
	pe_matrix_free(&m);
}

/* Tiny cache budgets (blocks kept only near the diagonal, or none) give
 * the same bytes as the default, in both precisions. */
static void test_cache_budget(void **state)
{
	/* none; 3 MiB: a band of 2 of the 5 exact blocks, 3 of the 9 float32
	 * ones; the default (all of them).  PE_TEST_QUICK: 900 rows, the middle
	 * budget scaled with n^2. */
	int quick = pe_test_quick();
	size_t n = quick ? 900 : 2100, k;
	size_t budgets[3] = { 1, quick ? (size_t)600 << 10 : (size_t)3 << 20, 0 };
	struct pe_matrix m = random_table(n, 24, -2, 2);
	struct pe_matrix_view w;
	struct pe_error err;
	float *out[3];
	int prec;

	(void)state;
	assert_int_equal(pe_matrix_select(&m, 0, n, 1, &w, &err), 0);
	for (prec = 0; prec < 2; prec++) {
		for (k = 0; k < 3; k++) {
			struct pe_similarity s;
			struct pe_similarity_params p = { PE_METRIC_COSINE, 0,
							  (enum pe_sim_precision)prec, 2, budgets[k] };
			struct pe_tensor t;
			struct pe_pump_opts po = { 2, NULL, NULL };

			assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
			assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
			out[k] = malloc(n * n * sizeof(float));
			assert_int_equal(pe_tensor_materialize(&t, out[k], &po, &err), 0);
			pe_similarity_free(&s);
		}
		assert_memory_equal(out[0], out[2], n * n * sizeof(float));
		assert_memory_equal(out[1], out[2], n * n * sizeof(float));
		for (k = 0; k < 3; k++)
			free(out[k]);
	}
	pe_matrix_free(&m);
}

/* A strided view is the similarity of the rows it selects. */
static void test_view(void **state)
{
	struct pe_matrix m = random_table(90, 16, -2, 2), sub;
	struct pe_similarity s;
	struct pe_similarity_params p = { PE_METRIC_DOT, 0, PE_SIM_EXACT, 1, 0 };
	struct pe_matrix_view w;
	struct pe_tensor t;
	struct pe_error err;
	float *full, *o;
	size_t i, j, n;

	(void)state;
	assert_int_equal(pe_matrix_select(&m, 10, 80, 7, &w, &err), 0);
	n = (size_t)w.rows;
	assert_int_equal(n, 10);
	assert_int_equal(pe_matrix_alloc(&sub, n, 16, NULL), 0);
	for (i = 0; i < n; i++)
		memcpy(sub.v + i * 16, pe_view_row(&w, i), 16 * sizeof(float));
	full = similarity(&sub, PE_METRIC_DOT, 0, PE_SIM_EXACT, 1, NULL);
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
	assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
	o = malloc(n * n * sizeof *o);
	assert_int_equal(pe_tensor_materialize(&t, o, NULL, &err), 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			assert_true(same(o[i * n + j], full[i * n + j]));
	pe_similarity_free(&s);
	free(o);
	free(full);
	pe_matrix_free(&sub);
	pe_matrix_free(&m);
}

/* float32 precision: NumPy's pipeline, within 1e-6 of the exact cosine,
 * and the same bytes for any number of threads. */
static void test_float32(void **state)
{
	struct pe_matrix m = random_table(500, 64, -2, 2);
	float *ex = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_EXACT, 2, NULL);
	float *f1 = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_FLOAT32, 1, NULL);
	float *f3 = similarity(&m, PE_METRIC_COSINE, 0, PE_SIM_FLOAT32, 3, NULL);
	size_t i, n = 500;
	double worst = 0;

	struct pe_similarity s;
	struct pe_similarity_params p = { PE_METRIC_COSINE, 0, PE_SIM_FLOAT32, 1, 0 };
	struct pe_matrix_view w;
	struct pe_tensor t;
	struct pe_error err;
	float *part = malloc(77 * n * sizeof *part);

	(void)state;
	assert_memory_equal(f1, f3, n * n * sizeof *f1);
	/* a shard that starts and ends inside tiles */
	assert_int_equal(pe_matrix_select(&m, 0, n, 1, &w, &err), 0);
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
	assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
	assert_int_equal(t.fill(t.ctx, 101, 77, part, &err), 0);
	assert_memory_equal(part, f1 + 101 * n, 77 * n * sizeof *part);
	pe_similarity_free(&s);
	free(part);
	for (i = 0; i < n * n; i++)
		if (fabs((double)f1[i] - (double)ex[i]) > worst)
			worst = fabs((double)f1[i] - (double)ex[i]);
	assert_true(worst < 1e-6);
	assert_true(worst > 0);	/* it is a float32 pipeline, not the exact one */
	free(ex);
	free(f1);
	free(f3);
	pe_matrix_free(&m);
}

/* float32, every metric, a zero row, 600 rows (blocks of 256: a short last
 * one): the same bits for 1 and 3 threads, S[i][j] == S[j][i] bit for bit
 * (each value is one element of one BLAS call, read transposed below the
 * diagonal), and each value within float32 pipeline error of the exact one
 * (a block written to the wrong place is off by the size of the rows). */
static void test_float32_metrics(void **state)
{
	struct pe_matrix m = random_table(600, 40, -2, 2);
	size_t n = 600, d = 40, i, j, k;
	double *nrm = calloc(n, sizeof *nrm), tol;
	enum pe_metric metric;

	(void)state;
	assert_non_null(nrm);
	memset(m.v + 7 * d, 0, d * sizeof *m.v);
	for (i = 0; i < n; i++) {
		for (k = 0; k < d; k++)
			nrm[i] += (double)m.v[i * d + k] * (double)m.v[i * d + k];
		nrm[i] = sqrt(nrm[i]);
	}
	for (metric = PE_METRIC_COSINE; metric <= PE_METRIC_EUCLIDEAN; metric++) {
		float *ex = similarity(&m, metric, 0, PE_SIM_EXACT, 2, NULL);
		float *f1 = similarity(&m, metric, 0, PE_SIM_FLOAT32, 1, NULL);
		float *f3 = similarity(&m, metric, 0, PE_SIM_FLOAT32, 3, NULL);

		assert_memory_equal(f1, f3, n * n * sizeof *f1);
		for (i = 0; i < n; i++) {
			for (j = 0; j < n; j++) {
				float a = f1[i * n + j], b = f1[j * n + i], e = ex[i * n + j];

				assert_memory_equal(&a, &b, sizeof a);
				if (metric == PE_METRIC_COSINE && (i == 7 || j == 7)) {
					assert_true(isnan(a));
					continue;
				}
				tol = metric == PE_METRIC_COSINE ? 1e-6
				    : metric == PE_METRIC_DOT ? 1e-5 * nrm[i] * nrm[j]
							      : 1e-3 * (nrm[i] + nrm[j]);
				if (fabs((double)a - (double)e) > tol)
					fail_msg("metric %d, S[%zu][%zu] = %.9g, exact %.9g", (int)metric, i,
						 j, (double)a, (double)e);
			}
		}
		free(ex);
		free(f1);
		free(f3);
	}
	free(nrm);
	pe_matrix_free(&m);
}

/* The first non-finite cell of rows [r0, r1) of the n x n matrix out, row
 * major: 1 with *row, *col, or 0. */
static int first_nonfinite(const float *out, size_t n, size_t r0, size_t r1, uint64_t *row,
			   uint64_t *col)
{
	size_t i, j;

	for (i = r0; i < r1; i++)
		for (j = 0; j < n; j++)
			if (!isfinite(out[i * n + j])) {
				*row = i;
				*col = j;
				return 1;
			}
	return 0;
}

/* What pe_similarity_known_nonfinite names before anything is computed is
 * what the computed matrix holds: for cosine with a zero row the first nan
 * of the rows asked for (where json would meet it), for dot the diagonal
 * of a row beyond float32; nothing for a table without either. */
static void test_known_nonfinite(void **state)
{
	static const int zeros[] = { -1, 0, 4, 8 };
	size_t n = 9, d = 6, r0, r1, z, k;
	uint64_t row, col, wrow = 0, wcol = 0;
	int prec, got, want;
	float v;

	(void)state;
	for (prec = PE_SIM_EXACT; prec <= PE_SIM_FLOAT32; prec++) {
		for (z = 0; z < sizeof zeros / sizeof zeros[0]; z++) {
			struct pe_matrix m = random_table(n, d, -2, 2);
			struct pe_similarity s;
			float *out;

			if (zeros[z] >= 0)
				memset(m.v + (size_t)zeros[z] * d, 0, d * sizeof *m.v);
			out = similarity(&m, PE_METRIC_COSINE, 0, (enum pe_sim_precision)prec, 1, &s);
			for (r0 = 0; r0 < n; r0++)
				for (r1 = r0 + 1; r1 <= n; r1++) {
					got = pe_similarity_known_nonfinite(&s, r0, r1, &row, &col, &v);
					want = first_nonfinite(out, n, r0, r1, &wrow, &wcol);
					assert_int_equal(got, zeros[z] >= 0);
					assert_int_equal(want, zeros[z] >= 0);
					if (got)
						assert_true(row == wrow && col == wcol && isnan(v));
				}
			free(out);
			pe_similarity_free(&s);
			pe_matrix_free(&m);
		}
		{
			/* row 3: |x|^2 = 6 * 2^126 = 1.5 * 2^128; row 5: 0.375 * 2^128 */
			struct pe_matrix m = random_table(n, d, -2, 2);
			struct pe_similarity s;
			float *out;

			for (k = 0; k < d; k++) {
				m.v[3 * d + k] = 0x1p63f;
				m.v[5 * d + k] = 0x1p62f;
			}
			out = similarity(&m, PE_METRIC_DOT, 0, (enum pe_sim_precision)prec, 1, &s);
			for (r0 = 0; r0 < n; r0++)
				for (r1 = r0 + 1; r1 <= n; r1++) {
					got = pe_similarity_known_nonfinite(&s, r0, r1, &row, &col, &v);
					want = first_nonfinite(out, n, r0, r1, &wrow, &wcol);
					assert_int_equal(got, r0 <= 3 && 3 < r1);
					assert_int_equal(want, got);
					if (got)
						assert_true(row == 3 && col == 3 && wrow == 3 && wcol == 3 &&
							    isinf(v) && isinf(out[3 * n + 3]));
				}
			free(out);
			pe_similarity_free(&s);
			pe_matrix_free(&m);
		}
	}
}

static void test_refusals(void **state)
{
	struct pe_matrix m = random_table(5, 3, 0, 0);
	struct pe_similarity s;
	struct pe_similarity_params p = { PE_METRIC_COSINE, 0, PE_SIM_EXACT, 1, 0 };
	struct pe_matrix_view w;
	struct pe_error err;

	(void)state;
	m.v[3 * 3 + 2] = NAN;
	assert_int_equal(pe_matrix_select(&m, 1, 5, 2, &w, &err), 0);
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "row 3, column 2 of the table is nan: similarity needs finite values");
	pe_similarity_free(&s);
	m.v[3 * 3 + 2] = INFINITY;
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), -1);
	assert_string_equal(err.msg, "row 3, column 2 of the table is infinite: similarity needs finite values");
	pe_similarity_free(&s);
	assert_int_equal(pe_matrix_select(&m, 0, 3, 1, &w, &err), 0);	/* rows 0..2 are fine */
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
	pe_similarity_free(&s);
	/* the names the CLI looks --metric up in, in enum order ("l2" and the
	 * like are refused there: t_similarity.sh) */
	assert_string_equal(pe_metric_names[PE_METRIC_EUCLIDEAN], "euclidean");
	assert_string_equal(pe_metric_name(PE_METRIC_DOT), "dot");
	assert_null(pe_metric_names[3]);
	pe_matrix_free(&m);
}

/* Every cached block is let go once every row has been written, with the
 * workers on neighbouring blocks at once (float32) or on slices of one
 * (exact), the cache budget small or not. */
static void test_cache_let_go(void **state)
{
	/* PE_TEST_QUICK: 1000 rows, the budget scaled with n^2 */
	int quick = pe_test_quick();
	size_t n = quick ? 1000 : 3000, k;
	size_t budgets[2] = { quick ? (size_t)230 << 10 : (size_t)2 << 20, 0 };
	struct pe_matrix m = random_table(n, 8, -2, 2);
	struct pe_matrix_view w;
	struct pe_error err;
	float *out = malloc(n * n * sizeof *out), *ref = NULL;
	int prec, th;

	(void)state;
	assert_non_null(out);
	assert_int_equal(pe_matrix_select(&m, 0, n, 1, &w, &err), 0);
	for (prec = 0; prec < 2; prec++) {
		for (k = 0; k < 2; k++) {
			for (th = 1; th <= 4; th++) {
				struct pe_similarity s;
				struct pe_similarity_params p = { PE_METRIC_COSINE, 0,
								  (enum pe_sim_precision)prec, th,
								  budgets[k] };
				struct pe_tensor t;
				struct pe_pump_opts po = { th, NULL, NULL };

				assert_int_equal(pe_similarity_init(&s, &w, &p, &err), 0);
				assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
				assert_int_equal(pe_tensor_materialize(&t, out, &po, &err), 0);
				assert_int_equal(pe_similarity_cache_held(&s), 0);
				if (!ref) {
					ref = malloc(n * n * sizeof *ref);
					assert_non_null(ref);
					memcpy(ref, out, n * n * sizeof *ref);
				} else if (prec == 0) {
					assert_memory_equal(out, ref, n * n * sizeof *out);
				}
				pe_similarity_free(&s);
			}
		}
		free(ref);
		ref = NULL;
	}
	free(out);
	pe_matrix_free(&m);
}

/* The cache's index grows with n and its band, not with n^2: a million
 * rows of 2 set up in a few MiB; one row more than a result can have
 * columns is refused before any work. */
static void test_many_rows(void **state)
{
	struct pe_matrix m;
	struct pe_matrix_view w;
	struct pe_similarity s;
	struct pe_similarity_params p = { PE_METRIC_COSINE, 0, PE_SIM_EXACT, 1, 0 };
	struct pe_error err;
	struct pe_tensor t;
	size_t i;

	(void)state;
	assert_int_equal(pe_matrix_alloc(&m, 1000000, 2, NULL), 0);
	for (i = 0; i < 2000000; i++)
		m.v[i] = (float)(i % 7) - 3;
	assert_int_equal(pe_matrix_select(&m, 0, m.rows, 1, &w, &err), 0);
	if (pe_similarity_init(&s, &w, &p, &err) != 0)
		fail_msg("init: %s", err.msg);
	assert_int_equal(pe_similarity_tensor(&s, &t, &err), 0);
	assert_int_equal(t.shape[0], 1000000);
	pe_similarity_free(&s);
	pe_matrix_free(&m);
	/* 2^24 + 1 rows of one value */
	assert_int_equal(pe_matrix_alloc(&m, ((size_t)1 << 24) + 1, 1, NULL), 0);
	memset(m.v, 0, (size_t)m.rows * sizeof *m.v);
	assert_int_equal(pe_matrix_select(&m, 0, m.rows, 1, &w, &err), 0);
	assert_int_equal(pe_similarity_init(&s, &w, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "a similarity of 16777217 rows has as many columns: at most 16777216");
	pe_similarity_free(&s);
	pe_matrix_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correctly_rounded),
		cmocka_unit_test(test_hard_rows),
		cmocka_unit_test(test_hadamard),
		cmocka_unit_test(test_sinusoid_closed_form),
		cmocka_unit_test(test_invariance),
		cmocka_unit_test(test_cache_budget),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_float32),
		cmocka_unit_test(test_float32_metrics),
		cmocka_unit_test(test_known_nonfinite),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cache_let_go),
		cmocka_unit_test(test_many_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
