/*
 * The similarity statistics (core/stats.h) and their writers
 * (io/stats_out.h).  Expected values come from outside the sink:
 *   - the sinusoid's closed form cos(p_i, p_j) = (2/d) sum_k cos((i-j) w_k)
 *     (research notes similarity-skew.md §1.1), evaluated here in long
 *     double, and the values the notes checked (offsets 1, 10, 43, 100, 510;
 *     first increase at 44 / 44 / 12 / 6);
 *   - direct formulas evaluated here on the whole matrix (two-pass long
 *     double translation invariance, symmetry, softmax locality);
 *   - a 4 x 4 case worked out by hand in the comments;
 *   - monotonicity past the first increase from an independent pure-Python
 *     evaluation of the definition (float32-rounded profile, math.fsum),
 *     run while writing this test.
 * A row of NaN (a zero row under cosine) is left out of monotonicity,
 * symmetry and locality, and its row and column out of every count.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/matrix.h"
#include "core/meta.h"
#include "core/pipeline.h"
#include "core/stats.h"
#include "io/sink.h"
#include "io/stats_out.h"
#include "testutil.h"

/* ---- running the sink -------------------------------------------------- */

static float *mat_new(size_t n)
{
	float *v = malloc(n * n * sizeof *v);

	assert_non_null(v);
	return v;
}

/* Pump the rows x cols matrix v into a stats sink in blocks of block rows
 * (0: the pump's own size) with threads workers.  Returns pe_pump's result;
 * on success *st holds the statistics (free with pe_stats_free). */
static int run_opts(const float *v, uint64_t rows, uint64_t cols, uint64_t window, double tau,
		    size_t block, int threads, struct pe_stats *st, struct pe_error *err)
{
	struct pe_matrix m;
	struct pe_matrix_view w;
	struct pe_tensor t;
	struct pe_stats_params p;
	struct pe_pump_opts o;
	struct pe_sink *s;
	int rc;

	p.window = window;
	p.tau = tau;
	memset(&o, 0, sizeof o);
	o.threads = threads;
	assert_int_equal(pe_matrix_alloc(&m, rows, cols, err), 0);
	memcpy(m.v, v, (size_t)(rows * cols) * sizeof *v);
	assert_int_equal(pe_matrix_select(&m, 0, rows, 1, &w, err), 0);
	assert_int_equal(pe_matrix_tensor(&w, "sim", &t, err), 0);
	t.block_rows = block;
	s = pe_stats_sink_new(&p, err);
	assert_non_null(s);
	rc = pe_pump(&t, 1, NULL, NULL, s, &o, err);
	if (rc == 0)
		assert_int_equal(pe_stats_result(s, st, err), 0);
	pe_sink_destroy(s);
	pe_matrix_free(&m);
	return rc;
}

static void run(const float *v, uint64_t n, uint64_t window, double tau, struct pe_stats *st)
{
	struct pe_error err;

	if (run_opts(v, n, n, window, tau, 0, 1, st, &err) != 0)
		fail_msg("pump failed: %s", err.msg);
}

/* ---- direct formulas on the whole matrix -------------------------------- */

/* 1 - sum (S - t[j-i])^2 / sum (S - m)^2 over i != j, two passes in long
 * double, NaN entries skipped */
static double direct_ti(const float *s, size_t n)
{
	long double *sum = calloc(2 * n, sizeof *sum), all = 0, m, num = 0, den = 0, x;
	size_t *cnt = calloc(2 * n, sizeof *cnt), i, j, d, total = 0;

	assert_non_null(sum);
	assert_non_null(cnt);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j || isnan(s[i * n + j]))
				continue;
			d = j + n - 1 - i;
			sum[d] += s[i * n + j];
			cnt[d]++;
			all += s[i * n + j];
			total++;
		}
	m = all / (long double)total;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j || isnan(s[i * n + j]))
				continue;
			d = j + n - 1 - i;
			x = s[i * n + j] - sum[d] / (long double)cnt[d];
			num += x * x;
			x = s[i * n + j] - m;
			den += x * x;
		}
	free(sum);
	free(cnt);
	return (double)(1.0L - num / den);
}

/* 1 - mean |S[i][i-k] - S[i][i+k]| / (max S - min S) */
static double direct_symmetry(const float *s, size_t n)
{
	double mx = -(double)INFINITY, mn = (double)INFINITY, sum = 0.0, a, b;
	size_t i, k, cnt = 0;

	for (i = 0; i < n * n; i++)
		if (!isnan(s[i])) {
			mx = fmax(mx, (double)s[i]);
			mn = fmin(mn, (double)s[i]);
		}
	for (i = 0; i < n; i++)
		for (k = 1; k <= i && i + k < n; k++) {
			a = (double)s[i * n + i - k];
			b = (double)s[i * n + i + k];
			if (isnan(a) || isnan(b))
				continue;
			sum += fabs(a - b);
			cnt++;
		}
	return 1.0 - sum / (double)cnt / (mx - mn);
}

/* mean over rows of sum_j softmax(S[i][.] / tau)_j 2^-|i-j| */
static double direct_locality(const float *s, size_t n, double tau)
{
	double total = 0.0, mx, z, w, e;
	size_t i, j, rows = 0;

	for (i = 0; i < n; i++) {
		mx = -(double)INFINITY;
		for (j = 0; j < n; j++)
			if (!isnan(s[i * n + j]))
				mx = fmax(mx, (double)s[i * n + j]);
		if (isinf(mx))	/* a row of NaN */
			continue;
		z = w = 0.0;
		for (j = 0; j < n; j++) {
			if (isnan(s[i * n + j]))
				continue;
			e = exp(((double)s[i * n + j] - mx) / tau);
			z += e;
			w += e * pow(2.0, -fabs((double)i - (double)j));
		}
		total += w / z;
		rows++;
	}
	return total / (double)rows;
}

/* ---- the sinusoid -------------------------------------------------------- */

/* (2/d) sum_{k<d/2} cos(o w_k), w_k = 10000^(-2k/d) */
static long double sinusoid_cos(size_t o, unsigned d)
{
	long double sum = 0;
	unsigned k;

	for (k = 0; k < d / 2; k++)
		sum += cosl((long double)o * powl(10000.0L, -2.0L * (long double)k / (long double)d));
	return 2.0L / (long double)d * sum;
}

/* S[i][j] = closed form at |i - j|, rounded to float; prof gets the
 * unrounded closed form per offset */
static float *sinusoid_matrix(size_t n, unsigned d, long double *prof)
{
	float *s = mat_new(n);
	size_t i, j;

	for (i = 0; i < n; i++)
		prof[i] = sinusoid_cos(i, d);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			s[i * n + j] = (float)prof[i > j ? i - j : j - i];
	return s;
}

static void test_sinusoid(void **state)
{
	static const struct {
		unsigned d;
		uint64_t first_increase;
		uint64_t below, past;	/* windows before / past the first increase */
		double mono_past;	/* Python, see the file comment */
	} cases[] = {
		{ 64, 6, 5, 32, 0.9083858080502571 },
		{ 128, 12, 10, 32, 0.9907802048242815 },
		{ 512, 44, 32, 64, 0.9997517184884991 },
		{ 768, 44, 32, 100, 0.9998509025341975 },
	};
	enum { N = 512 };
	long double prof[N];
	struct pe_stats st, past;
	size_t c, k;
	float *s;

	(void)state;
	for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		s = sinusoid_matrix(N, cases[c].d, prof);
		run(s, N, cases[c].below, 1.0, &st);
		assert_int_equal(st.n, N);
		assert_close(st.translation_invariance, 1.0, 1e-9, 0);
		assert_close(st.symmetry_lr, 1.0, 1e-6, 0);
		for (k = 0; k < N; k++) {
			assert_close(st.mean[k], (double)prof[k], 1e-6, 0);
			assert_true(st.std[k] < 1e-6);
			assert_int_equal(st.count[k], N - k);
		}
		assert_int_equal(st.first_increase, cases[c].first_increase);
		/* strictly falling within the window: every rho is exactly -1 */
		assert_close(st.monotonicity_forward, 1.0, 1e-12, 0);
		assert_close(st.monotonicity_backward, 1.0, 1e-12, 0);
		/* rows with at least 3 offsets inside the matrix on that side */
		assert_int_equal(st.monotonicity_rows_forward, N - 3);
		assert_int_equal(st.monotonicity_rows_backward, N - 3);
		assert_close(st.locality, direct_locality(s, N, 1.0), 1e-12, 0);
		/* the notes' checked values, to their printed digits */
		if (cases[c].d >= 512)
			assert_close(st.mean[43], 0.5264, 5e-5, 0);
		if (cases[c].d == 768) {
			assert_close(st.mean[1], 0.9734, 5e-5, 0);
			assert_close(st.mean[10], 0.680, 5e-4, 0);
			assert_close(st.mean[100], 0.437, 5e-4, 0);
			assert_close(st.mean[510], 0.2436, 5e-5, 0);
		}

		run(s, N, cases[c].past, 1.0, &past);
		assert_close(past.monotonicity_forward, cases[c].mono_past, 1e-9, 0);
		assert_close(past.monotonicity_backward, cases[c].mono_past, 1e-9, 0);
		assert_true(past.monotonicity_forward < 1.0 - 1e-5);
		pe_stats_free(&past);
		pe_stats_free(&st);
		free(s);
	}
}

/* A Toeplitz matrix far from 0: diagonals of equal floats must give
 * translation_invariance 1 and std 0 exactly, which unshifted sums of
 * squares near 1e6 would not. */
static void test_toeplitz_offset(void **state)
{
	enum { N = 256 };
	long double prof[N];
	float *s = sinusoid_matrix(N, 64, prof);
	struct pe_stats st;
	size_t k;

	(void)state;
	for (k = 0; k < N * N; k++)
		s[k] += 1000.0f;
	run(s, N, 5, 1.0, &st);
	assert_close(st.translation_invariance, 1.0, 1e-9, 0);
	assert_close(st.symmetry_lr, 1.0, 1e-6, 0);
	for (k = 0; k < N; k++)
		assert_close(st.std[k], 0.0, 1e-9, 0);
	assert_int_equal(st.first_increase, 6);
	assert_close(st.monotonicity_forward, 1.0, 1e-12, 0);
	pe_stats_free(&st);
	free(s);
}

/* ---- noise --------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

/* Box-Muller; u1 in (0, 1] so the log is finite */
static double gauss(uint64_t *x)
{
	double u1 = (double)((xorshift(x) >> 11) + 1) * 0x1p-53;
	double u2 = (double)(xorshift(x) >> 11) * 0x1p-53;

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* cosine matrix of an n x d Gaussian table */
static float *noise_matrix(size_t n, size_t d, uint64_t seed)
{
	double *x = malloc(n * d * sizeof *x), *norm = malloc(n * sizeof *norm), dot;
	float *s = mat_new(n);
	size_t i, j, k;

	assert_non_null(x);
	assert_non_null(norm);
	for (i = 0; i < n * d; i++)
		x[i] = gauss(&seed);
	for (i = 0; i < n; i++) {
		for (dot = 0.0, k = 0; k < d; k++)
			dot += x[i * d + k] * x[i * d + k];
		norm[i] = sqrt(dot);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			for (dot = 0.0, k = 0; k < d; k++)
				dot += x[i * d + k] * x[j * d + k];
			s[i * n + j] = (float)(dot / (norm[i] * norm[j]));
		}
	free(x);
	free(norm);
	return s;
}

static void test_noise(void **state)
{
	enum { N = 256 };
	float *s = noise_matrix(N, 256, 0x9E3779B97F4A7C15ULL);
	struct pe_stats st;

	(void)state;
	run(s, N, PE_STATS_WINDOW_DEFAULT, 1.0, &st);
	assert_true(fabs(st.translation_invariance) < 0.05);
	assert_true(fabs(st.monotonicity_forward) < 0.1);
	assert_true(fabs(st.monotonicity_backward) < 0.1);
	assert_close(st.translation_invariance, direct_ti(s, N), 1e-9, 0);
	assert_close(st.symmetry_lr, direct_symmetry(s, N), 1e-12, 0);
	assert_close(st.locality, direct_locality(s, N, 1.0), 1e-12, 0);
	pe_stats_free(&st);
	run(s, N, PE_STATS_WINDOW_DEFAULT, 0.05, &st);
	assert_close(st.locality, direct_locality(s, N, 0.05), 1e-12, 0);
	pe_stats_free(&st);
	free(s);
}

/* ---- a case worked out by hand ------------------------------------------ */

/*
 *        j=0 1 2 3
 *   i=0 [ 4  2  1  1 ]
 *   i=1 [ 2  4  2  0 ]
 *   i=2 [ 1  3  4  2 ]
 *   i=3 [ 0  1  2  4 ]
 *
 * Diagonals d = j - i:  0: 4 4 4 4;  1: 2 2 2;  2: 1 0;  3: 1;
 *   -1: 2 3 2 (mean 7/3, squared deviations 1/9 + 4/9 + 1/9 = 2/3);
 *   -2: 1 1;  -3: 0.
 * Profile (upper diagonals): mean 4, 2, 1/2, 1; std 0, 0, 1/2, 0;
 *   count 4, 3, 2, 1; first_increase 3 (1 > 1/2).
 * translation_invariance: numerator 2/3 (d = -1) + 1/2 (d = 2) = 7/6;
 *   the 12 off-diagonal entries sum to 17 with squares summing to 33, so
 *   the denominator is 33 - 17^2/12 = 107/12 and TI = 1 - 14/107 = 93/107.
 * symmetry_lr: pairs (i, k) with k <= min(i, 3 - i): row 1 |2 - 2| = 0,
 *   row 2 |3 - 2| = 1; mean 1/2, range 4 - 0, so 1 - 1/8 = 7/8.
 * monotonicity (window 32): forward only row 0 has 3 offsets: values
 *   2 1 1 get ranks 3, 1.5, 1.5 against k ranks 1 2 3 (centre 2):
 *   sum of products -1 + 0 - 0.5 = -1.5, squares 2 and 1.5, so
 *   rho = -1.5 / sqrt(3) = -sqrt(3)/2 and monotonicity_forward = sqrt(3)/2.
 *   Backward only row 3: 2 1 0, strictly falling, rho = -1, so 1.
 * locality with b = e^(1/tau), weights 2^-|i-j|:
 *   row 0 (b^4 + b^2/2 + b/4 + b/8) / (b^4 + b^2 + 2b)
 *   row 1 (b^2/2 + b^4 + b^2/2 + 1/4) / (2b^2 + b^4 + 1)
 *   row 2 (b/4 + b^3/2 + b^4 + b^2/2) / (b + b^3 + b^4 + b^2)
 *   row 3 (1/8 + b/4 + b^2/2 + b^4) / (1 + b + b^2 + b^4), averaged.
 */
static const float HAND[16] = { 4, 2, 1, 1, 2, 4, 2, 0, 1, 3, 4, 2, 0, 1, 2, 4 };

static double hand_locality(double tau)
{
	double b = exp(1.0 / tau), b2 = b * b, b3 = b2 * b, b4 = b2 * b2;

	return ((b4 + b2 / 2 + b / 4 + b / 8) / (b4 + b2 + 2 * b) +
		(b2 / 2 + b4 + b2 / 2 + 0.25) / (2 * b2 + b4 + 1) +
		(b / 4 + b3 / 2 + b4 + b2 / 2) / (b + b3 + b4 + b2) +
		(0.125 + b / 4 + b2 / 2 + b4) / (1 + b + b2 + b4)) / 4;
}

static void test_hand(void **state)
{
	static const double mean[4] = { 4, 2, 0.5, 1 }, sd[4] = { 0, 0, 0.5, 0 };
	struct pe_stats st;
	size_t k;

	(void)state;
	run(HAND, 4, 32, 1.0, &st);
	assert_int_equal(st.n, 4);
	assert_close(st.translation_invariance, 93.0 / 107.0, 1e-12, 0);
	assert_close(direct_ti(HAND, 4), 93.0 / 107.0, 1e-12, 0);	/* the helper agrees */
	assert_close(st.symmetry_lr, 7.0 / 8.0, 1e-12, 0);
	assert_close(st.monotonicity_forward, sqrt(3.0) / 2.0, 1e-12, 0);
	assert_close(st.monotonicity_backward, 1.0, 1e-12, 0);
	assert_int_equal(st.monotonicity_rows_forward, 1);
	assert_int_equal(st.monotonicity_rows_backward, 1);
	assert_close(st.locality, hand_locality(1.0), 1e-12, 0);
	assert_int_equal(st.first_increase, 3);
	for (k = 0; k < 4; k++) {
		assert_close(st.mean[k], mean[k], 1e-12, 0);
		assert_close(st.std[k], sd[k], 1e-12, 0);
		assert_int_equal(st.count[k], 4 - k);
	}
	pe_stats_free(&st);

	/* tau scales the softmax only; a window of 2 leaves no row with 3 offsets */
	run(HAND, 4, 2, 0.5, &st);
	assert_close(st.locality, hand_locality(0.5), 1e-12, 0);
	assert_close(st.translation_invariance, 93.0 / 107.0, 1e-12, 0);
	assert_true(isnan(st.monotonicity_forward));
	assert_true(isnan(st.monotonicity_backward));
	assert_int_equal(st.monotonicity_rows_forward, 0);
	assert_int_equal(st.monotonicity_rows_backward, 0);
	pe_stats_free(&st);
}

/* Every statistic but the profile ignores a constant added to S; the
 * softmax would overflow exp() at 1000 without the row maximum taken out,
 * and unshifted sums of squares of values near 1e6 would lose the digits of
 * translation_invariance. */
static void test_hand_shifted(void **state)
{
	static const double offset[2] = { 1000.0, 1048576.0 };
	float s[16];
	struct pe_stats st;
	size_t k, c;

	(void)state;
	for (c = 0; c < 2; c++) {
		for (k = 0; k < 16; k++)
			s[k] = (float)((double)HAND[k] + offset[c]);	/* exact in float */
		run(s, 4, 32, 1.0, &st);
		assert_close(st.translation_invariance, 93.0 / 107.0, 1e-12, 0);
		assert_close(st.symmetry_lr, 7.0 / 8.0, 1e-12, 0);
		assert_close(st.monotonicity_forward, sqrt(3.0) / 2.0, 1e-12, 0);
		assert_close(st.monotonicity_backward, 1.0, 1e-12, 0);
		assert_close(st.locality, hand_locality(1.0), 1e-12, 0);
		assert_close(st.mean[2], 0.5 + offset[c], 0, 0);
		assert_close(st.std[2], 0.5, 0, 0);
		assert_int_equal(st.first_increase, 3);
		pe_stats_free(&st);
	}
}

/* ---- small and degenerate matrices --------------------------------------- */

static void test_one(void **state)
{
	static const float one[1] = { 0.5f };
	struct pe_stats st;

	(void)state;
	run(one, 1, 32, 1.0, &st);
	assert_int_equal(st.n, 1);
	assert_true(isnan(st.translation_invariance));
	assert_true(isnan(st.symmetry_lr));
	assert_true(isnan(st.monotonicity_forward));
	assert_true(isnan(st.monotonicity_backward));
	assert_int_equal(st.monotonicity_rows_forward, 0);
	assert_int_equal(st.monotonicity_rows_backward, 0);
	assert_close(st.locality, 1.0, 1e-15, 0);
	assert_int_equal(st.first_increase, 0);
	assert_close(st.mean[0], 0.5, 0, 0);
	assert_close(st.std[0], 0.0, 0, 0);
	assert_int_equal(st.count[0], 1);
	pe_stats_free(&st);
}

static void test_two(void **state)
{
	/* each off-diagonal is one entry: its own mean, so TI is 1 */
	static const float two[4] = { 1, 0.5f, 0.25f, 1 }, rise[4] = { 0, 1, 1, 0 };
	double e = exp(1.0), h = exp(0.5), q = exp(0.25);
	struct pe_stats st;

	(void)state;
	run(two, 2, 32, 1.0, &st);
	assert_close(st.translation_invariance, 1.0, 1e-15, 0);
	assert_true(isnan(st.symmetry_lr));
	assert_true(isnan(st.monotonicity_forward));
	assert_true(isnan(st.monotonicity_backward));
	/* rows: (e + h/2) / (e + h), (q/2 + e) / (q + e) */
	assert_close(st.locality, ((e + h / 2) / (e + h) + (q / 2 + e) / (q + e)) / 2, 1e-12, 0);
	assert_close(st.mean[0], 1.0, 0, 0);
	assert_close(st.mean[1], 0.5, 0, 0);
	assert_close(st.std[0], 0.0, 0, 0);
	assert_close(st.std[1], 0.0, 0, 0);
	assert_int_equal(st.count[0], 2);
	assert_int_equal(st.count[1], 1);
	assert_int_equal(st.first_increase, 0);
	pe_stats_free(&st);

	run(rise, 2, 32, 1.0, &st);
	assert_int_equal(st.first_increase, 1);
	pe_stats_free(&st);
}

static void test_constant(void **state)
{
	enum { N = 5 };
	float s[N * N];
	struct pe_stats st;
	size_t k;

	(void)state;
	for (k = 0; k < N * N; k++)
		s[k] = 0.25f;
	run(s, N, 32, 1.0, &st);
	assert_close(st.translation_invariance, 1.0, 0, 0);
	assert_close(st.symmetry_lr, 1.0, 0, 0);
	/* every row's values are equal: no rank correlation */
	assert_true(isnan(st.monotonicity_forward));
	assert_true(isnan(st.monotonicity_backward));
	assert_int_equal(st.monotonicity_rows_forward, 0);
	assert_int_equal(st.monotonicity_rows_backward, 0);
	/* uniform softmax: row sums of 2^-|i-j| are 31/16, 38/16, 40/16,
	 * 38/16, 31/16; (178/16) / 5 / 5 = 0.445 */
	assert_close(st.locality, 0.445, 1e-15, 0);
	assert_int_equal(st.first_increase, 0);
	for (k = 0; k < N; k++) {
		assert_close(st.mean[k], 0.25, 0, 0);
		assert_close(st.std[k], 0.0, 0, 0);
		assert_int_equal(st.count[k], N - k);
	}
	pe_stats_free(&st);
}

/* Toeplitz S[i][j] = 1 / (1 + |i - j|) with row and column 3 NaN */
static void test_nan_row(void **state)
{
	enum { N = 8, R = 3 };
	static const uint64_t count[N] = { 7, 5, 4, 3, 3, 3, 2, 1 };
	float s[N * N];
	struct pe_stats st;
	size_t i, j, k;

	(void)state;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			s[i * N + j] = (i == R || j == R) ? NAN
				       : (float)(1.0 / (1.0 + (double)(i > j ? i - j : j - i)));
	run(s, N, 4, 1.0, &st);
	/* diagonal k loses (3, 3+k) and (3-k, 3) where they exist */
	for (k = 0; k < N; k++) {
		assert_int_equal(st.count[k], count[k]);
		assert_close(st.mean[k], (double)(float)(1.0 / (1.0 + (double)k)), 0, 0);
		assert_close(st.std[k], 0.0, 0, 0);
	}
	assert_close(st.translation_invariance, 1.0, 0, 0);
	assert_close(st.symmetry_lr, 1.0, 0, 0);
	/* window 4: forward rows 0..4 have >= 3 offsets, backward rows 3..7;
	 * row 3 drops out, the others keep 3 of their values after losing
	 * column 3, still strictly falling */
	assert_int_equal(st.monotonicity_rows_forward, 4);
	assert_int_equal(st.monotonicity_rows_backward, 4);
	assert_close(st.monotonicity_forward, 1.0, 0, 0);
	assert_close(st.monotonicity_backward, 1.0, 0, 0);
	assert_close(st.locality, direct_locality(s, N, 1.0), 1e-12, 0);
	assert_int_equal(st.first_increase, 0);
	pe_stats_free(&st);
}

/* noise with a NaN row and column: the sums skip exactly those entries */
static void test_nan_noise(void **state)
{
	enum { N = 64, R = 17 };
	float *s = noise_matrix(N, 32, 42);
	struct pe_stats st;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++)
		s[R * N + i] = s[i * N + R] = NAN;
	run(s, N, 8, 1.0, &st);
	assert_close(st.translation_invariance, direct_ti(s, N), 1e-9, 0);
	assert_close(st.symmetry_lr, direct_symmetry(s, N), 1e-12, 0);
	assert_close(st.locality, direct_locality(s, N, 1.0), 1e-12, 0);
	assert_int_equal(st.count[0], N - 1);
	assert_int_equal(st.count[1], N - 1 - 2);
	assert_int_equal(st.count[N - 1], 1);
	pe_stats_free(&st);
	free(s);
}

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* the result does not depend on how the rows are cut into blocks */
static void test_blocks(void **state)
{
	enum { N = 37 };
	static const struct {
		size_t block;
		int threads;
	} how[] = { { 1, 1 }, { 7, 1 }, { 5, 2 }, { 0, 3 } };
	float *s = noise_matrix(N, 16, 7);
	struct pe_stats all, st;
	struct pe_error err;
	size_t h, k;

	(void)state;
	s[5 * N + 9] = NAN;
	assert_int_equal(run_opts(s, N, N, 6, 1.0, N, 1, &all, &err), 0);
	for (h = 0; h < sizeof how / sizeof how[0]; h++) {
		assert_int_equal(run_opts(s, N, N, 6, 1.0, how[h].block, how[h].threads, &st, &err),
				 0);
		assert_true(same_double(st.translation_invariance, all.translation_invariance));
		assert_true(same_double(st.monotonicity_forward, all.monotonicity_forward));
		assert_true(same_double(st.monotonicity_backward, all.monotonicity_backward));
		assert_int_equal(st.monotonicity_rows_forward, all.monotonicity_rows_forward);
		assert_int_equal(st.monotonicity_rows_backward, all.monotonicity_rows_backward);
		assert_true(same_double(st.symmetry_lr, all.symmetry_lr));
		assert_true(same_double(st.locality, all.locality));
		assert_int_equal(st.first_increase, all.first_increase);
		for (k = 0; k < N; k++) {
			assert_true(same_double(st.mean[k], all.mean[k]));
			assert_true(same_double(st.std[k], all.std[k]));
			assert_int_equal(st.count[k], all.count[k]);
		}
		pe_stats_free(&st);
	}
	pe_stats_free(&all);
	free(s);
}

/* ---- refusals ------------------------------------------------------------ */

static int fill_i32(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	(void)ctx;
	(void)r0;
	(void)err;
	memset(out, 0, nrows * 3 * sizeof(int32_t));
	return 0;
}

static int fill_f32(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	(void)ctx;
	(void)r0;
	(void)err;
	memset(out, 0, nrows * 3 * sizeof(float));
	return 0;
}

static void expect_refused(const struct pe_tensor *t, size_t nt, const char *msg)
{
	struct pe_stats_params p = { 32, 1.0 };
	struct pe_error err;
	struct pe_stats st;
	struct pe_sink *s = pe_stats_sink_new(&p, &err);

	assert_non_null(s);
	assert_int_equal(pe_pump(t, nt, NULL, NULL, s, NULL, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, msg);
	assert_int_equal(pe_stats_result(s, &st, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	pe_sink_destroy(s);
}

static void test_refused(void **state)
{
	static const float wide[12] = { 0 };
	static const float inf[9] = { 1, 0, 0, 0, 1, INFINITY, 0, 0, 1 };
	uint64_t sq[2] = { 3, 3 };
	struct pe_tensor t[2];
	struct pe_stats_params p;
	struct pe_error err;
	struct pe_stats st;
	struct pe_sink *s;

	(void)state;
	assert_int_equal(run_opts(wide, 3, 4, 32, 1.0, 0, 1, &st, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "similarity statistics need a square matrix, 'sim' is 3 x 4");

	assert_int_equal(pe_tensor_init(&t[0], "ids", PE_I32, fill_i32, NULL, 0, 2, sq, &err), 0);
	expect_refused(t, 1, "similarity statistics need float32 values, 'ids' holds int32");

	assert_int_equal(pe_tensor_init(&t[0], "a", PE_F32, fill_f32, NULL, 0, 2, sq, &err), 0);
	assert_int_equal(pe_tensor_init(&t[1], "b", PE_F32, fill_f32, NULL, 0, 2, sq, &err), 0);
	expect_refused(t, 2, "similarity statistics take one matrix, this result has 2 tensors");

	assert_int_equal(run_opts(inf, 3, 3, 32, 1.0, 0, 1, &st, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "similarity matrix entry (1, 2) is infinite");

	p.window = 0;
	p.tau = 1.0;
	assert_null(pe_stats_sink_new(&p, &err));
	assert_int_equal(err.code, PE_ERR_PARAM);
	p.window = 1;
	for (p.tau = -1.0; p.tau < 2.0; p.tau += 1.0) {	/* -1, 0, 1 */
		s = pe_stats_sink_new(&p, &err);
		if (p.tau > 0.0) {
			assert_non_null(s);
			/* nothing pumped yet */
			assert_int_equal(pe_stats_result(s, &st, &err), -1);
			assert_int_equal(err.code, PE_ERR_PARAM);
			pe_sink_destroy(s);
		} else {
			assert_null(s);
			assert_int_equal(err.code, PE_ERR_PARAM);
		}
	}
	p.tau = (double)NAN;
	assert_null(pe_stats_sink_new(&p, &err));
	p.tau = (double)INFINITY;
	assert_null(pe_stats_sink_new(&p, &err));
	assert_null(pe_stats_sink_new(NULL, &err));
}

/* ---- the writers ---------------------------------------------------------- */

/* What a writer puts into a temporary file (NUL-terminated, malloc'd). */
static char *written(int json, const struct pe_stats *st, const struct pe_stats_params *p,
		     const struct pe_meta *meta, uint64_t step)
{
	FILE *fp = tmpfile();
	struct pe_error err;
	char *buf;
	long len;

	assert_non_null(fp);
	if (json)
		assert_int_equal(pe_stats_write_json(fp, st, p, meta, step, &err), 0);
	else
		assert_int_equal(pe_stats_write_profile(fp, st, step, &err), 0);
	assert_int_equal(fflush(fp), 0);
	len = ftell(fp);
	assert_true(len > 0);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	rewind(fp);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	buf[len] = '\0';
	fclose(fp);
	return buf;
}

static const cJSON *item(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!it)
		fail_msg("no \"%s\" in the json", key);
	return it;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *it = item(o, key);

	assert_true(cJSON_IsNumber(it));
	return it->valuedouble;
}

/* every element of a numeric array, n of them */
static void expect_array(const cJSON *o, const char *key, const double *want, size_t n)
{
	const cJSON *a = item(o, key), *e;
	size_t k = 0;

	assert_true(cJSON_IsArray(a));
	assert_int_equal(cJSON_GetArraySize(a), n);
	cJSON_ArrayForEach(e, a) {
		if (isnan(want[k]))
			assert_true(cJSON_IsNull(e));
		else
			assert_true(cJSON_IsNumber(e) && e->valuedouble == want[k]);
		k++;
	}
}

static void test_json(void **state)
{
	static const double offset[4] = { 0, 4, 8, 12 }, mean[4] = { 4, 2, 0.5, 1 },
			    sd[4] = { 0, 0, 0.5, 0 }, count[4] = { 4, 3, 2, 1 }, step1[2] = { 0, 1 };
	static const float two[4] = { 1, 0.5f, 0.25f, 1 };
	struct pe_stats_params p = { 32, 1.0 };
	struct pe_meta meta;
	struct pe_stats st;
	cJSON *root;
	const cJSON *m, *prof;
	char *text, *nl;

	(void)state;
	pe_meta_init(&meta);
	pe_meta_str(&meta, "metric", "cosine");
	pe_meta_int(&meta, "stride", 4);
	run(HAND, 4, p.window, p.tau, &st);
	text = written(1, &st, &p, &meta, 4);
	/* one line */
	nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0');
	root = cJSON_Parse(text);
	assert_non_null(root);
	m = item(root, "meta");
	assert_string_equal(item(m, "metric")->valuestring, "cosine");
	assert_true(num(m, "stride") == 4);
	assert_true(num(root, "n") == 4);
	assert_true(num(root, "window") == 32);
	assert_true(num(root, "tau") == 1);
	/* shortest round-trip text reads back to the same double */
	assert_true(num(root, "translation_invariance") == st.translation_invariance);
	assert_close(num(root, "translation_invariance"), 93.0 / 107.0, 1e-12, 0);
	assert_true(num(root, "monotonicity_forward") == st.monotonicity_forward);
	assert_close(num(root, "monotonicity_forward"), sqrt(3.0) / 2.0, 1e-12, 0);
	assert_true(num(root, "monotonicity_backward") == 1);
	assert_true(num(root, "symmetry_lr") == 0.875);
	assert_true(num(root, "locality") == st.locality);
	assert_true(num(root, "first_increase") == 12);	/* offset 3, rows 4 positions apart */
	prof = item(root, "profile");
	expect_array(prof, "offset", offset, 4);
	expect_array(prof, "mean", mean, 4);
	expect_array(prof, "std", sd, 4);
	expect_array(prof, "count", count, 4);
	cJSON_Delete(root);
	free(text);
	pe_stats_free(&st);
	pe_meta_free(&meta);

	/* NaN is null; no meta is an empty object; step 1 keeps offsets */
	run(two, 2, p.window, p.tau, &st);
	text = written(1, &st, &p, NULL, 1);
	assert_non_null(strstr(text, "{\"meta\":{},\"n\":2,\"window\":32,\"tau\":1,"));
	root = cJSON_Parse(text);
	assert_non_null(root);
	assert_true(cJSON_IsObject(item(root, "meta")));
	assert_null(item(root, "meta")->child);
	assert_true(num(root, "translation_invariance") == 1);
	assert_true(cJSON_IsNull(item(root, "symmetry_lr")));
	assert_true(cJSON_IsNull(item(root, "monotonicity_forward")));
	assert_true(cJSON_IsNull(item(root, "monotonicity_backward")));
	assert_true(num(root, "first_increase") == 0);
	expect_array(item(root, "profile"), "offset", step1, 2);
	cJSON_Delete(root);
	free(text);
	pe_stats_free(&st);
}

static void test_profile_csv(void **state)
{
	static const float nan2[4] = { NAN, 1, 1, NAN };
	struct pe_stats st;
	char *text;

	(void)state;
	run(HAND, 4, 32, 1.0, &st);
	text = written(0, &st, NULL, NULL, 4);
	assert_string_equal(text, "offset,mean,std,count\n"
				  "0,4,0,4\n"
				  "4,2,0,3\n"
				  "8,0.5,0.5,2\n"
				  "12,1,0,1\n");
	free(text);
	pe_stats_free(&st);

	/* a NaN diagonal: count 0, mean and std nan */
	run(nan2, 2, 32, 1.0, &st);
	text = written(0, &st, NULL, NULL, 1);
	assert_string_equal(text, "offset,mean,std,count\n0,nan,nan,0\n1,1,0,1\n");
	free(text);
	pe_stats_free(&st);
}

static void expect_write_error(FILE *fp, const struct pe_stats *st, enum pe_err code)
{
	struct pe_stats_params p = { 32, 1.0 };
	struct pe_error err;

	/* unbuffered: the writer's own write fails, not a later flush */
	assert_int_equal(setvbuf(fp, NULL, _IONBF, 0), 0);
	err.code = PE_OK;
	assert_int_equal(pe_stats_write_json(fp, st, &p, NULL, 1, &err), -1);
	assert_int_equal(err.code, code);
	clearerr(fp);
	err.code = PE_OK;
	assert_int_equal(pe_stats_write_profile(fp, st, 1, &err), -1);
	assert_int_equal(err.code, code);
}

static void test_write_errors(void **state)
{
	struct pe_stats_params p = { 32, 1.0 };
	struct pe_stats st;
	struct pe_error err;
	void (*old)(int);
	FILE *fp;
	int fd[2];

	(void)state;
	run(HAND, 4, 32, 1.0, &st);
	fp = fopen("/dev/full", "w");
	assert_non_null(fp);
	expect_write_error(fp, &st, PE_ERR_IO);
	fclose(fp);

	old = signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fd), 0);
	close(fd[0]);
	fp = fdopen(fd[1], "w");
	assert_non_null(fp);
	expect_write_error(fp, &st, PE_ERR_PIPE);
	fclose(fp);
	signal(SIGPIPE, old);

	/* offsets need a step, and must fit in 64 bits */
	fp = tmpfile();
	assert_non_null(fp);
	assert_int_equal(pe_stats_write_json(fp, &st, &p, NULL, 0, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_int_equal(pe_stats_write_profile(fp, &st, 0, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_int_equal(pe_stats_write_profile(fp, &st, UINT64_MAX / 3 + 1, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_int_equal(pe_stats_write_profile(fp, &st, UINT64_MAX / 3, &err), 0);
	assert_int_equal(ftell(fp) > 0, 1);
	fclose(fp);
	pe_stats_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sinusoid),
		cmocka_unit_test(test_toeplitz_offset),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_hand_shifted),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_nan_row),
		cmocka_unit_test(test_nan_noise),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_profile_csv),
		cmocka_unit_test(test_write_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
