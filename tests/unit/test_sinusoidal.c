/*
 * Sinusoidal tables against the research notes' golden values (section 8),
 * closed forms, and a long-double reference written here from the papers'
 * formulas (tolerance: 1 float32 ulp; the correctly rounded value in
 * practice).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sinusoidal.h"
#include "testutil.h"

/* Fill a whole table; returns malloc'd rows x dim floats. */
static float *table(const struct pe_sinusoidal_params *p, struct pe_sinusoidal *s)
{
	struct pe_error err;
	float *t;

	assert_int_equal(pe_sinusoidal_init(s, p, &err), 0);
	t = malloc((size_t)s->rows * (size_t)p->dim * sizeof *t);
	assert_non_null(t);
	assert_int_equal(pe_sinusoidal_fill(s, 0, (size_t)s->rows, t, &err), 0);
	return t;
}

static struct pe_sinusoidal_params params(enum pe_sin_preset preset, uint64_t n, uint64_t d)
{
	struct pe_sinusoidal_params p;

	pe_sinusoidal_defaults(&p, preset);
	p.positions = n;
	p.dim = d;
	return p;
}

static void expect_row(const float *row, const double *want, size_t d)
{
	size_t k;

	for (k = 0; k < d; k++)
		assert_close(row[k], want[k], 1e-7, 1e-7);
}

static void test_golden_d4(void **state)
{
	/* section 8: d = 4, p = 1 */
	const struct {
		enum pe_sin_preset preset;
		double row1[4];
	} golden[] = {
		{ PE_SIN_VASWANI, { 0.841470985, 0.540302306, 0.009999833, 0.99995 } },
		{ PE_SIN_MARIAN, { 0.841470985, 0.009999833, 0.540302306, 0.99995 } },
		{ PE_SIN_T2T, { 0.841470985, 0.0001, 0.540302306, 0.999999995 } },
		{ PE_SIN_FAIRSEQ, { 0.841470985, 0.0001, 0.540302306, 0.999999995 } },
	};
	const float row0_half[4] = { 0, 0, 1, 1 }, row0_inter[4] = { 0, 1, 0, 1 };
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal s;
	size_t i;
	float *t;

	(void)state;
	for (i = 0; i < sizeof golden / sizeof golden[0]; i++) {
		p = params(golden[i].preset, 2, 4);
		t = table(&p, &s);
		/* row 0: sin 0 = 0, cos 0 = 1 */
		assert_memory_equal(t, golden[i].preset == PE_SIN_VASWANI ? row0_inter : row0_half,
				    sizeof row0_half);
		expect_row(t + 4, golden[i].row1, 4);
		free(t);
		pe_sinusoidal_free(&s);
	}
}

/* The reference: frequency k of a preset, written from the formulas. */
static long double ref_freq(const struct pe_sinusoidal_params *p, size_t k)
{
	long double h = (long double)(p->dim / 2);

	switch (p->preset) {
	case PE_SIN_T2T:
		return (long double)p->min_timescale *
		       expl(-(long double)k * logl((long double)p->max_timescale / p->min_timescale) /
			    fmaxl(h - 1, 1));
	case PE_SIN_FAIRSEQ:
		return expl(-(long double)k * logl((long double)p->base) / (h - 1));
	default:
		return powl((long double)p->base, -2.0L * (long double)k / (long double)p->dim);
	}
}

/* Compare a whole table with sinl/cosl of the long-double angle, column by
 * column as the preset lays it out; returns how many values were not the
 * correctly rounded float (all must be within max_ulp). */
static size_t check_against_reference(const struct pe_sinusoidal_params *p, int64_t max_ulp)
{
	struct pe_sinusoidal s;
	float *t = table(p, &s);
	size_t d = (size_t)p->dim, nsin, ncos, r, c, inexact = 0;
	int interleaved = s.layout == PE_LAYOUT_INTERLEAVED;

	nsin = (p->preset == PE_SIN_VASWANI || p->preset == PE_SIN_MARIAN) ? (d + 1) / 2 : d / 2;
	ncos = d / 2;
	for (r = 0; r < s.rows; r++) {
		int64_t pos = p->padding_idx >= 0 ? (int64_t)r : p->offset + (int64_t)r;

		for (c = 0; c < d; c++) {
			long double want;
			size_t k;
			int is_sin;
			int64_t ulp;

			if (p->padding_idx >= 0 && (int64_t)r == p->padding_idx) {
				want = 0;
			} else if (interleaved) {
				k = c / 2;
				is_sin = c % 2 == 0;
				if ((is_sin && k >= nsin) || (!is_sin && k >= ncos))
					want = 0;
				else
					want = is_sin ? sinl((long double)pos * ref_freq(p, k))
						      : cosl((long double)pos * ref_freq(p, k));
			} else if (c < nsin) {
				want = sinl((long double)pos * ref_freq(p, c));
			} else if (c < nsin + ncos) {
				want = cosl((long double)pos * ref_freq(p, c - nsin));
			} else {
				want = 0;
			}
			ulp = pe_ulp_diff(t[r * d + c], (float)want);
			if (ulp > max_ulp)
				fail_msg("preset %d D=%zu row %zu col %zu: got %.9g want %.12Lg (%lld ulp)",
					 (int)p->preset, d, r, c, (double)t[r * d + c], want, (long long)ulp);
			if (ulp)
				inexact++;
		}
	}
	free(t);
	pe_sinusoidal_free(&s);
	return inexact;
}

static void test_reference_all_presets(void **state)
{
	const struct {
		enum pe_sin_preset preset;
		uint64_t n, d;
		int64_t offset;
	} cases[] = {
		{ PE_SIN_VASWANI, 600, 64, 0 },   { PE_SIN_VASWANI, 300, 65, 0 },
		{ PE_SIN_VASWANI, 50, 2, 0 },     { PE_SIN_VASWANI, 50, 1, 0 },
		{ PE_SIN_VASWANI, 200, 32, -100 }, { PE_SIN_VASWANI, 64, 16, 1000000 },
		{ PE_SIN_MARIAN, 300, 33, 0 },    { PE_SIN_MARIAN, 300, 32, 7 },
		{ PE_SIN_T2T, 300, 65, 0 },       { PE_SIN_T2T, 50, 2, 0 },
		{ PE_SIN_T2T, 50, 3, 0 },         { PE_SIN_FAIRSEQ, 300, 31, 0 },
		{ PE_SIN_FAIRSEQ, 300, 4, 5 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pe_sinusoidal_params p = params(cases[i].preset, cases[i].n, cases[i].d);

		p.offset = cases[i].offset;
		/* within 1 ulp always; correctly rounded in these ranges */
		assert_int_equal(check_against_reference(&p, 1), 0);
	}
}

static void test_t2t_timescales(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_T2T, 100, 16);
	struct pe_sinusoidal s;

	(void)state;
	p.min_timescale = 2.0;
	p.max_timescale = 500.0;
	assert_int_equal(check_against_reference(&p, 1), 0);
	/* first frequency is min_ts (tensor2tensor multiplies), last min_ts/(max/min) */
	assert_int_equal(pe_sinusoidal_init(&s, &p, NULL), 0);
	assert_close((double)pe_sinusoidal_freq(&s, 0), 2.0, 0, 1e-15);
	assert_close((double)pe_sinusoidal_freq(&s, 7), 2.0 * 2.0 / 500.0, 0, 1e-15);
	pe_sinusoidal_free(&s);
}

/* Across a long table (positions to 65535, the benchmark's range) every
 * value is the correctly rounded float. */
static void test_long_table_correctly_rounded(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 1, 128);
	int64_t starts[] = { 0, 4093, 30011, 65000, 1048000 };
	size_t i;

	(void)state;
	PE_NEED_EXTENDED_LONG_DOUBLE();	/* the reference is long double */
	for (i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		p.positions = 512;
		p.offset = starts[i];
		assert_int_equal(check_against_reference(&p, 0), 0);
	}
}

/* Beyond 2^26 the exact split no longer applies and Dekker's product takes
 * over: at p = 2^40 a double angle is off by up to 6e-5, this one by the
 * long-double frequency's error (~3e-8), about the reference's own. */
static void test_huge_positions(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 16, 32);
	struct pe_sinusoidal s;
	float *t;
	size_t r, k;

	(void)state;
	PE_NEED_EXTENDED_LONG_DOUBLE();	/* the reference is long double */
	p.offset = (int64_t)1 << 40;
	t = table(&p, &s);
	for (r = 0; r < 16; r++) {
		for (k = 0; k < 16; k++) {
			long double a = (long double)(p.offset + (int64_t)r) * ref_freq(&p, k);

			assert_close((double)t[r * 32 + 2 * k], (double)sinl(a), 2.5e-7, 0);
			assert_close((double)t[r * 32 + 2 * k + 1], (double)cosl(a), 2.5e-7, 0);
		}
	}
	free(t);
	pe_sinusoidal_free(&s);
}

/* Out to |p| = 2^53 (--offset's reach): p times the frequency's residual
 * is no longer small there, and a first-order correction once gave values
 * up to 1.005.  Every value stays in [-1, 1] and within the long-double
 * frequency's own error (|p| f 2^-63) of the reference. */
static void test_far_positions(void **state)
{
	static const int64_t offsets[] = { -((int64_t)1 << 53), ((int64_t)1 << 53) - 64,
					   -((int64_t)1 << 45) - 7, ((int64_t)1 << 30) + 5 };
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 64, 8);
	struct pe_sinusoidal s;
	float *t;
	size_t r, k, o;

	(void)state;
	PE_NEED_EXTENDED_LONG_DOUBLE();	/* the reference is long double */
	for (o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
		p.offset = offsets[o];
		t = table(&p, &s);
		for (r = 0; r < 64; r++) {
			for (k = 0; k < 4; k++) {
				long double f = ref_freq(&p, k);
				long double a = (long double)(p.offset + (int64_t)r) * f;
				double tol = fabs((double)a) * 0x1p-62 + 2.5e-7;

				assert_true(fabsf(t[r * 8 + 2 * k]) <= 1.0f);
				assert_true(fabsf(t[r * 8 + 2 * k + 1]) <= 1.0f);
				assert_close((double)t[r * 8 + 2 * k], (double)sinl(a), tol, 0);
				assert_close((double)t[r * 8 + 2 * k + 1], (double)cosl(a), tol, 0);
			}
		}
		free(t);
		pe_sinusoidal_free(&s);
	}
}

static void test_norm_and_first_row(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 1000, 128);
	struct pe_sinusoidal s;
	float *t = table(&p, &s);
	size_t r, c;

	(void)state;
	for (r = 0; r < 1000; r++) {
		double sq = 0;

		for (c = 0; c < 128; c++)
			sq += (double)t[r * 128 + c] * (double)t[r * 128 + c];
		/* sin^2 + cos^2 = 1 per pair: D/2, up to float rounding */
		assert_close(sq, 64.0, 128 * 1.2e-7, 0);
	}
	for (c = 0; c < 128; c++)
		assert_true(t[c] == (c % 2 ? 1.0f : 0.0f));
	free(t);
	pe_sinusoidal_free(&s);
}

/* half and interleaved hold the same values, permuted */
static void test_layout_permutation(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 77, 21);
	struct pe_sinusoidal s1, s2;
	float *a, *b;
	size_t r, k;

	(void)state;
	p.layout = PE_LAYOUT_INTERLEAVED;
	a = table(&p, &s1);
	p.layout = PE_LAYOUT_HALF;
	b = table(&p, &s2);
	for (r = 0; r < 77; r++) {
		for (k = 0; k < 11; k++)
			assert_true(a[r * 21 + 2 * k] == b[r * 21 + k]);
		for (k = 0; k < 10; k++)
			assert_true(a[r * 21 + 2 * k + 1] == b[r * 21 + 11 + k]);
	}
	free(a);
	free(b);
	pe_sinusoidal_free(&s1);
	pe_sinusoidal_free(&s2);
}

static void test_odd_dims(void **state)
{
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal s;
	float *t;
	size_t r;

	(void)state;
	/* vaswani: last column of odd D is a sin, exponent 2*((D-1)/2)/D */
	p = params(PE_SIN_VASWANI, 10, 5);
	t = table(&p, &s);
	for (r = 0; r < 10; r++)
		assert_close((double)t[r * 5 + 4], sin((double)r * pow(10000.0, -4.0 / 5.0)), 1e-7, 0);
	free(t);
	pe_sinusoidal_free(&s);
	/* t2t and fairseq: a zero last column */
	p = params(PE_SIN_T2T, 10, 7);
	t = table(&p, &s);
	for (r = 0; r < 10; r++)
		assert_true(t[r * 7 + 6] == 0.0f);
	free(t);
	pe_sinusoidal_free(&s);
	p = params(PE_SIN_FAIRSEQ, 10, 7);
	t = table(&p, &s);
	for (r = 0; r < 10; r++)
		assert_true(t[r * 7 + 6] == 0.0f);
	free(t);
	pe_sinusoidal_free(&s);
}

static void test_fairseq_padding(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_FAIRSEQ, 6, 8);
	struct pe_sinusoidal s;
	struct pe_tensor t;
	float *v;
	size_t c;

	(void)state;
	p.padding_idx = 1;
	v = table(&p, &s);
	assert_int_equal(s.rows, 6 + 1 + 1);
	assert_int_equal(pe_sinusoidal_tensor(&s, &t, NULL), 0);
	assert_int_equal(t.rows, 8);
	assert_int_equal(t.shape[0], 8);
	assert_int_equal(t.shape[1], 8);
	assert_string_equal(t.name, "sinusoidal");
	for (c = 0; c < 8; c++)
		assert_true(v[8 + c] == 0.0f);
	/* the first real token reads row 2 = position 2 */
	assert_close(v[16], sin(2.0), 1e-7, 0);
	free(v);
	pe_sinusoidal_free(&s);
	assert_int_equal(check_against_reference(&p, 0), 0);
}

static void test_rejects(void **state)
{
	struct pe_sinusoidal s;
	struct pe_sinusoidal_params p;
	struct pe_error err;

	(void)state;
	p = params(PE_SIN_FAIRSEQ, 4, 2);
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{dim} 4 or more"));
	p = params(PE_SIN_FAIRSEQ, 4, 3);
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	p = params(PE_SIN_VASWANI, 4, 4);
	p.base = 0;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	p.base = NAN;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	p = params(PE_SIN_T2T, 4, 4);
	p.min_timescale = -1;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	p = params(PE_SIN_FAIRSEQ, 4, 4);
	p.padding_idx = 1;
	p.offset = 2;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	p = params(PE_SIN_VASWANI, 4, 4);
	p.offset = INT64_MAX - 1;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	/* issue 9: frequencies whose angles pass 2^53 or overflow double */
	p = params(PE_SIN_VASWANI, 1000, 64);
	p.base = 1e-14;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{base} 1e-14 gives frequencies"));
	pe_sinusoidal_free(&s);
	p.base = 4.9e-324;
	p.positions = 1;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	pe_sinusoidal_free(&s);
	p = params(PE_SIN_VASWANI, 4, 4);
	p.float32 = 1;
	p.base = 1e-40;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	pe_sinusoidal_free(&s);
	p = params(PE_SIN_T2T, 3, 4);
	p.min_timescale = 1e20;
	assert_int_equal(pe_sinusoidal_init(&s, &p, &err), -1);
	pe_sinusoidal_free(&s);
}

/* A base below 1 (frequencies above 1) is accepted while the angles stay
 * within 2^53, and every value is within 1 ulp of the long-double
 * reference, in [-1, 1]. */
static void test_small_base_in_range(void **state)
{
	struct pe_sinusoidal_params p = params(PE_SIN_VASWANI, 200, 16);

	(void)state;
	p.base = 1e-3;
	(void)check_against_reference(&p, 1);	/* fails past 1 ulp */
}

static void test_preset_names(void **state)
{
	(void)state;
	assert_int_equal(pe_sin_preset_by_name("vaswani"), PE_SIN_VASWANI);
	assert_int_equal(pe_sin_preset_by_name("t2t"), PE_SIN_T2T);
	assert_int_equal(pe_sin_preset_by_name("fairseq"), PE_SIN_FAIRSEQ);
	assert_int_equal(pe_sin_preset_by_name("marian"), PE_SIN_MARIAN);
	assert_int_equal(pe_sin_preset_by_name("Vaswani"), -1);
	assert_string_equal(pe_sin_preset_name(PE_SIN_T2T), "t2t");
}

/* The step kernel (one exact angle per PE_STEP rows, core/angle.h) and the
 * one-sincos-per-value path it replaces give the same bytes: every preset
 * and layout, a padding row, odd D, blocks that start mid-step, positions
 * near 2^53 and below zero.  (Both are correctly rounded; make
 * check-exhaustive checks whole tables against MPFR.) */
static void test_step_kernel_same_bytes(void **state)
{
	static const struct {
		enum pe_sin_preset preset;
		uint64_t n, d;
		int64_t offset, pad;
		enum pe_layout layout;
	} c[] = {
		{ PE_SIN_VASWANI, 300, 64, 0, -1, PE_LAYOUT_DEFAULT },
		{ PE_SIN_VASWANI, 200, 33, -100, -1, PE_LAYOUT_HALF },
		{ PE_SIN_T2T, 150, 67, 5, -1, PE_LAYOUT_DEFAULT },
		{ PE_SIN_FAIRSEQ, 130, 66, 0, 1, PE_LAYOUT_DEFAULT },
		{ PE_SIN_MARIAN, 100, 40, 0, -1, PE_LAYOUT_INTERLEAVED },
		{ PE_SIN_VASWANI, 140, 16, ((int64_t)1 << 53) - 140, -1, PE_LAYOUT_DEFAULT },
		{ PE_SIN_VASWANI, 140, 16, -((int64_t)1 << 40), -1, PE_LAYOUT_DEFAULT },
	};
	static const size_t starts[] = { 0, 1, 63, 64, 77 };
	struct pe_sinusoidal s;
	struct pe_error err;
	double *step;
	float *a, *b;
	size_t i, j, dim;

	(void)state;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct pe_sinusoidal_params p = params(c[i].preset, c[i].n, c[i].d);

		p.offset = c[i].offset;
		p.padding_idx = c[i].pad;
		p.layout = c[i].layout;
		a = table(&p, &s);
		assert_non_null(s.steps.t);
		dim = (size_t)p.dim;
		b = malloc((size_t)s.rows * dim * sizeof *b);
		assert_non_null(b);
		/* the step kernel from rows that start mid-step */
		for (j = 0; j < sizeof starts / sizeof starts[0]; j++) {
			memset(b, 0xff, (size_t)s.rows * dim * sizeof *b);
			assert_int_equal(pe_sinusoidal_fill(&s, starts[j], (size_t)s.rows - starts[j],
							    b + starts[j] * dim, &err), 0);
			assert_memory_equal(a + starts[j] * dim, b + starts[j] * dim,
					    ((size_t)s.rows - starts[j]) * dim * sizeof *b);
		}
		/* the per-value path */
		step = s.steps.t;
		s.steps.t = NULL;
		memset(b, 0xff, (size_t)s.rows * dim * sizeof *b);
		assert_int_equal(pe_sinusoidal_fill(&s, 0, (size_t)s.rows, b, &err), 0);
		s.steps.t = step;
		assert_memory_equal(a, b, (size_t)s.rows * dim * sizeof *b);
		free(a);
		free(b);
		pe_sinusoidal_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_d4),
		cmocka_unit_test(test_reference_all_presets),
		cmocka_unit_test(test_t2t_timescales),
		cmocka_unit_test(test_long_table_correctly_rounded),
		cmocka_unit_test(test_huge_positions),
		cmocka_unit_test(test_far_positions),
		cmocka_unit_test(test_norm_and_first_row),
		cmocka_unit_test(test_layout_permutation),
		cmocka_unit_test(test_odd_dims),
		cmocka_unit_test(test_fairseq_padding),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_small_base_in_range),
		cmocka_unit_test(test_preset_names),
		cmocka_unit_test(test_step_kernel_same_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
