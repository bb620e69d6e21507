/*
 * core/diagnose: each cause on tables built here with libm in double (no
 * posenc generator involved) -- a rotary cos table B and A the same with
 * one mistake -- must come first with a residual of at most PE_DIAG_FIT and
 * the evidence that names it; unrelated tables get no cause.  The
 * frequency estimator recovers known frequencies of float32 sinusoids of
 * any amplitude and phase, and refuses noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diagnose.h"
#include "core/dtype.h"
#include "testutil.h"

#define N 512
#define D 64

static double inv_of(double theta, size_t k)
{
	return pow(theta, -2.0 * (double)k / D);
}

/* a rotary table: half layout (col j: frequency j mod D/2) or interleaved
 * (col j: j / 2); value amp * f(mul * (p + off) * inv) */
static void rope(float *t, size_t rows, double theta, int inter, int use_sin, double amp,
		 double mul, int off)
{
	size_t p, j;

	for (p = 0; p < rows; p++)
		for (j = 0; j < D; j++) {
			size_t k = inter ? j / 2 : j % (D / 2);
			double a = mul * (double)((int)p + off) * inv_of(theta, k);

			t[p * D + j] = (float)(amp * (use_sin ? sin(a) : cos(a)));
		}
}

static const struct pe_diag_finding *diagnose(const float *a, const float *b, size_t rows,
					      size_t cols, struct pe_diag *d)
{
	struct pe_test_src sa = { a, cols }, sb = { b, cols };
	struct pe_tensor ta, tb;
	uint64_t shape[2] = { rows, cols };
	struct pe_diff_stats st;
	struct pe_diff_tol tol = { 0, 0, 0 };
	struct pe_error err = { PE_OK, "" };
	struct pe_diag_in in;

	assert_int_equal(pe_tensor_init(&ta, "a", PE_F32, pe_test_fill_from, &sa, 1, 2, shape, &err), 0);
	assert_int_equal(pe_tensor_init(&tb, "b", PE_F32, pe_test_fill_from, &sb, 1, 2, shape, &err), 0);
	assert_int_equal(pe_diff_init(&st, rows, cols, 0, &err), 0);
	pe_diff_add(&st, &tol, 0, rows, a, b);
	memset(&in, 0, sizeof in);
	in.a = &ta;
	in.b = &tb;
	in.st = &st;
	in.threads = 1;
	if (pe_diagnose(&in, d, &err) != 0)
		fail_msg("%s", err.msg);
	pe_diff_free(&st);
	return d->n ? &d->f[0] : NULL;
}

static const char *ev_str(const struct pe_diag_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->ev.n; i++)
		if (strcmp(f->ev.item[i].key, key) == 0 && f->ev.item[i].kind == PE_META_STR)
			return f->ev.item[i].str;
	return "";
}

static double ev_num(const struct pe_diag_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->ev.n; i++)
		if (strcmp(f->ev.item[i].key, key) == 0)
			return f->ev.item[i].kind == PE_META_INT ? (double)f->ev.item[i].i
								 : f->ev.item[i].num;
	return NAN;
}

static float *table(void)
{
	float *t = malloc((size_t)N * D * sizeof *t);

	assert_non_null(t);
	return t;
}

/* A built by make(A) against the plain B: cause first, fitting */
static void expect(enum pe_cause cause, void (*make)(float *a, const float *b),
		   void (*more)(const struct pe_diag_finding *f))
{
	float *a = table(), *b = table();
	struct pe_diag d;
	const struct pe_diag_finding *f;

	rope(b, N, 10000.0, 0, 0, 1.0, 1.0, 0);
	make(a, b);
	f = diagnose(a, b, N, D, &d);
	if (!f || f->cause != cause || !(f->residual <= PE_DIAG_FIT))
		fail_msg("want %s first, got %s (residual %g: %s)", pe_cause_names[cause],
			 f ? pe_cause_names[f->cause] : "none", f ? f->residual : (double)NAN, f ? f->text : "");
	if (more)
		more(f);
	pe_diag_free(&d);
	free(a);
	free(b);
}

static void mk_inter(float *a, const float *b)
{
	(void)b;
	rope(a, N, 10000.0, 1, 0, 1.0, 1.0, 0);
}

static void ck_inter(const struct pe_diag_finding *f)
{
	assert_string_equal(ev_str(f, "permutation"), "half-to-interleaved");
}

static void mk_scale(float *a, const float *b)
{
	size_t k;

	for (k = 0; k < (size_t)N * D; k++)
		a[k] = (float)((double)b[k] * (0.1 * log(16.0) + 1));
}

static void ck_scale(const struct pe_diag_finding *f)
{
	assert_close(ev_num(f, "scale"), 0.1 * log(16.0) + 1, 0, 1e-6);
	assert_non_null(strstr(ev_str(f, "matches"), "YaRN's attention factor for factor 16"));
}

static void mk_offset(float *a, const float *b)
{
	(void)b;
	rope(a, N, 10000.0, 0, 0, 1.0, 1.0, 5);
}

static void ck_offset(const struct pe_diag_finding *f)
{
	assert_close(ev_num(f, "k"), 5, 0, 0);
}

static void mk_bf16(float *a, const float *b)
{
	size_t k;

	for (k = 0; k < (size_t)N * D; k++)
		a[k] = (float)pe_round_bf16((double)b[k]);
}

static void ck_bf16(const struct pe_diag_finding *f)
{
	assert_string_equal(ev_str(f, "dtype"), "bfloat16");
	assert_string_equal(ev_str(f, "rounded"), "A");
}

static void mk_theta(float *a, const float *b)
{
	(void)b;
	rope(a, N, 500000.0, 0, 0, 1.0, 1.0, 0);
}

static void ck_theta(const struct pe_diag_finding *f)
{
	assert_close(ev_num(f, "theta_a"), 500000.0, 0, 1e-2);
	assert_close(ev_num(f, "theta_b"), 10000.0, 0, 1e-2);
}

static void mk_double(float *a, const float *b)
{
	(void)b;
	rope(a, N, 10000.0, 0, 0, 1.0, 2.0, 0);
}

static void mk_sin(float *a, const float *b)
{
	(void)b;
	rope(a, N, 10000.0, 0, 1, 1.0, 1.0, 0);
}

/* inv_freq, positions and the angle in float16 (GPT-NeoX #1003) */
static void mk_f16(float *a, const float *b)
{
	size_t p, j;

	(void)b;
	for (p = 0; p < N; p++)
		for (j = 0; j < D; j++) {
			double inv = pe_round_f16((double)(float)inv_of(10000.0, j % (D / 2)));
			double ang = pe_round_f16(pe_round_f16((double)p) * inv);

			a[p * D + j] = (float)cos(ang);
		}
}

static void ck_f16(const struct pe_diag_finding *f)
{
	assert_string_equal(ev_str(f, "dtype"), "float16");
}

static void test_causes(void **state)
{
	(void)state;
	expect(PE_CAUSE_PERMUTED_COLUMNS, mk_inter, ck_inter);
	expect(PE_CAUSE_CONSTANT_SCALE, mk_scale, ck_scale);
	expect(PE_CAUSE_ROW_OFFSET, mk_offset, ck_offset);
	expect(PE_CAUSE_STORAGE_DTYPE, mk_bf16, ck_bf16);
	expect(PE_CAUSE_THETA, mk_theta, ck_theta);
	expect(PE_CAUSE_DOUBLE_ROTATION, mk_double, NULL);
	expect(PE_CAUSE_SWAPPED_SIN_COS, mk_sin, NULL);
	expect(PE_CAUSE_PRECISION, mk_f16, ck_f16);
}

static void test_transposed(void **state)
{
	float a[D * D], b[D * D];
	struct pe_diag d;
	const struct pe_diag_finding *f;
	size_t i, j;

	(void)state;
	rope(b, D, 100.0, 0, 0, 1.0, 1.0, 0);
	for (i = 0; i < D; i++)
		for (j = 0; j < D; j++)
			a[i * D + j] = b[j * D + i];
	f = diagnose(a, b, D, D, &d);
	assert_non_null(f);
	assert_int_equal(f->cause, PE_CAUSE_TRANSPOSED);
	pe_diag_free(&d);
}

/* unrelated tables: no cause */
static void test_unrelated(void **state)
{
	float *a = table(), *b = table();
	struct pe_diag d;
	uint64_t s = 99;
	size_t k;
	int trial;

	(void)state;
	for (trial = 0; trial < 3; trial++) {
		for (k = 0; k < (size_t)N * D; k++) {
			double u1 = ((double)(pe_test_rand(&s) >> 11) + 0.5) / 9007199254740992.0;
			double u2 = ((double)(pe_test_rand(&s) >> 11) + 0.5) / 9007199254740992.0;

			a[k] = (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2) * (trial == 1 ? 0.02 : 1));
		}
		if (trial == 2)
			for (k = 0; k < (size_t)N * D; k++)
				b[k] = (float)(((double)(pe_test_rand(&s) >> 11)) / 4503599627370496.0 - 1);
		else
			rope(b, N, 10000.0, 0, 0, 1.0, 1.0, 0);
		diagnose(a, b, N, D, &d);
		if (d.n)
			fail_msg("trial %d: %s (residual %g): %s", trial, pe_cause_names[d.f[0].cause],
				 d.f[0].residual, d.f[0].text);
		pe_diag_free(&d);
	}
	free(a);
	free(b);
}

/* the estimator on one column: rows m 2^k for m < 9 */
static double freq_of(double w, double u, double v, int rows, int noise)
{
	double lad[12][9];
	const double *lp[12];
	size_t nm[12], nk = 0, m;
	uint64_t s = 5;

	for (nk = 0; nk < 12 && (2u << nk) < (unsigned)rows; nk++) {
		size_t L = (size_t)1 << nk;

		nm[nk] = 0;
		for (m = 0; m < 9 && m * L < (size_t)rows; m++) {
			double p = (double)(m * L);

			lad[nk][m] = noise ? (double)(pe_test_rand(&s) % 1000) / 500.0 - 1
					   : (double)(float)(u * cos(w * p) + v * sin(w * p));
			nm[nk]++;
		}
		lp[nk] = lad[nk];
	}
	return pe_diag_freq(lp, nm, nk, 0.05);
}

static void test_freq(void **state)
{
	static const double ws[] = { 1.0, 0.75, 0.3, 0.1, 0.01, 1e-3, 2.5, 3.0 };
	size_t i;
	double zero[1][9] = { { 0, 0, 0, 0, 0, 0, 0, 0, 0 } };
	const double *lz[1] = { zero[0] };
	size_t nz[1] = { 9 };

	(void)state;
	for (i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		/* cos, sin, a phase, an amplitude */
		assert_close(freq_of(ws[i], 1, 0, 4096, 0), ws[i], 0, 1e-5);
		assert_close(freq_of(ws[i], 0, 1, 4096, 0), ws[i], 0, 1e-5);
		assert_close(freq_of(ws[i], 0.3, -1.7, 4096, 0), ws[i], 0, 1e-5);
	}
	/* a slow column over few rows: still within a percent */
	assert_close(freq_of(2e-4, 1, 0, 512, 0), 2e-4, 0, 1e-2);
	/* a constant column has frequency 0 */
	assert_close(freq_of(0, 0.5, 0, 512, 0), 0, 1e-6, 0);
	/* noise is no sinusoid; zeros have no frequency */
	assert_true(freq_of(0.5, 1, 0, 4096, 1) < 0);
	assert_true(pe_diag_freq(lz, nz, 1, 0.05) == -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_transposed),
		cmocka_unit_test(test_unrelated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
