/*
 * core/diff: the pair arithmetic and the tolerance rule against their
 * definitions written out here (numpy.isclose's |a - b| <= atol + rtol |b|,
 * the ulp steps of nextafterf), every non-finite pairing, and the streamed
 * statistics of small tables whose answers are known by construction: the
 * first differing value, the largest errors and where (the first in
 * row-major order among ties), counts per row and column, the scale sums,
 * the rows nearest each table's first row -- the same whatever the block
 * sizes the rows come in.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diff.h"
#include "core/ulp.h"
#include "testutil.h"

static void test_pairs(void **state)
{
	struct pe_diff_err e;

	(void)state;
	pe_diff_pair(1.0f, 1.0f, &e);
	assert_true(e.abs == 0 && e.rel == 0 && e.ulp == 0 && !e.incomparable);
	pe_diff_pair(0.0f, -0.0f, &e);
	assert_true(e.abs == 0 && e.rel == 0 && e.ulp == 0);
	pe_diff_pair(NAN, NAN, &e);
	assert_true(e.abs == 0 && e.rel == 0 && e.ulp == 0 && !e.incomparable);
	pe_diff_pair(NAN, 1.0f, &e);
	assert_true(e.incomparable && isinf(e.abs) && isinf(e.rel) && e.ulp == PE_ULP_INF);
	pe_diff_pair(INFINITY, FLT_MAX, &e);
	assert_true(e.incomparable);
	pe_diff_pair(-INFINITY, -INFINITY, &e);
	assert_true(!e.incomparable && e.abs == 0);
	pe_diff_pair(1.0f, 0.0f, &e);
	assert_true(e.abs == 1 && isinf(e.rel) && !e.incomparable);
	pe_diff_pair(0.0f, 2.0f, &e);
	assert_close(e.rel, 1, 0, 0);
	pe_diff_pair(nextafterf(1.0f, 2.0f), 1.0f, &e);
	assert_close(e.abs, 0x1p-23, 0, 0);
	assert_close(e.rel, 0x1p-23, 0, 0);
	assert_int_equal(e.ulp, 1);
	/* far exponents: the double difference of the floats */
	pe_diff_pair(1e30f, 1e-30f, &e);
	assert_close(e.abs, (double)1e30f - (double)1e-30f, 0, 0);
}

/* numpy.isclose(a, b, rtol, atol) or within ulps, written out */
static int want_equal(float a, float b, const struct pe_diff_tol *t)
{
	double d;

	if (a == b || (isnan(a) && isnan(b)))
		return 1;
	if (!isfinite(a) || !isfinite(b))
		return 0;
	d = fabs((double)a - (double)b);
	if ((t->atol > 0 || t->rtol > 0) && d <= t->atol + t->rtol * fabs((double)b))
		return 1;
	if (t->ulps > 0) {
		float x = a;
		uint64_t n = 0;

		while (x != b && n <= t->ulps) {
			x = nextafterf(x, b);
			n++;
		}
		return x == b && n <= t->ulps;
	}
	return 0;
}

static void test_tolerance(void **state)
{
	static const struct pe_diff_tol tols[] = {
		{ 0, 0, 0 }, { 1e-6, 0, 0 }, { 0, 1e-5, 0 }, { 1e-8, 1e-5, 0 }, { 0, 0, 1 }, { 0, 0, 4 },
		{ 1e-7, 0, 2 },
	};
	uint64_t s = 7;
	size_t t, k;

	(void)state;
	for (t = 0; t < sizeof tols / sizeof tols[0]; t++) {
		for (k = 0; k < 20000; k++) {
			float b = (float)((double)(pe_test_rand(&s) % 2000000) / 1e6 - 1.0);
			float a = b;
			int steps = (int)(pe_test_rand(&s) % 9) - 4, i;
			struct pe_diff_err e;

			if (k % 5 == 0)
				a = (float)((double)a + ((double)(pe_test_rand(&s) % 2001) - 1000) * 1e-9);
			for (i = 0; i < abs(steps); i++)
				a = nextafterf(a, steps > 0 ? 2.0f : -2.0f);
			if (k % 97 == 0)
				b = 0;
			pe_diff_pair(a, b, &e);
			if (pe_diff_equal(&e, b, &tols[t]) != want_equal(a, b, &tols[t]))
				fail_msg("tol %zu: a %a b %a: got %d", t, (double)a, (double)b,
					 pe_diff_equal(&e, b, &tols[t]));
		}
	}
}

/* a small A, B pair whose answers are known */
#define R 6
#define C 5

static void tables(float *a, float *b)
{
	size_t i;

	for (i = 0; i < R * C; i++)
		a[i] = b[i] = (float)i * 0.25f + 1.0f;
	a[1 * C + 3] += 0.5f;		/* the first difference, and the largest abs */
	a[4 * C + 0] = NAN;		/* incomparable */
	a[4 * C + 2] += 0.5f;		/* ties the largest abs later: not reported */
	a[5 * C + 4] = nextafterf(b[5 * C + 4], 100.0f);	/* 1 ulp */
	b[2 * C + 1] = 0.0f;		/* rel inf where a is not 0 */
	a[3 * C + 3] = NAN;
	b[3 * C + 3] = NAN;		/* NaN against NaN: equal */
}

static void check_stats(const struct pe_diff_stats *s)
{
	assert_int_equal(s->values, R * C);
	assert_int_equal(s->differ, 5);
	assert_int_equal(s->incomparable, 1);
	assert_int_equal(s->first_row, 1);
	assert_int_equal(s->first_col, 3);
	assert_true(isinf(s->abs.v));	/* the NaN pair */
	assert_int_equal(s->abs.row, 4);
	assert_int_equal(s->abs.col, 0);
	assert_true(isinf(s->rel.v));
	assert_int_equal(s->rel.row, 2);	/* b = 0: rel inf, before the NaN in row 4 */
	assert_int_equal(s->rel.col, 1);
	assert_true(s->max_ulp == PE_ULP_INF);
	assert_int_equal(s->col[0].differ, 1);
	assert_int_equal(s->col[3].differ, 1);
	assert_int_equal(s->col[4].differ, 1);
	assert_close(s->col[3].max_abs, 0.5, 0, 0);
	assert_int_equal(s->col[4].max_ulp, 1);
	assert_int_equal(s->row[4].differ, 2);
	assert_int_equal(s->row[3].differ, 0);
	assert_int_equal(s->comparable, R * C - 1);
}

static void test_stats_blocks(void **state)
{
	float a[R * C], b[R * C];
	struct pe_diff_tol tol = { 0, 0, 0 };
	struct pe_error err = { PE_OK, "" };
	size_t blk, r0;

	(void)state;
	tables(a, b);
	for (blk = 1; blk <= R; blk++) {
		struct pe_diff_stats s;

		assert_int_equal(pe_diff_init(&s, R, C, 1, &err), 0);
		for (r0 = 0; r0 < R; r0 += blk) {
			size_t n = R - r0 < blk ? R - r0 : blk;

			pe_diff_add(&s, &tol, r0, n, a + r0 * C, b + r0 * C);
		}
		check_stats(&s);
		pe_diff_free(&s);
	}
}

static void test_largest_ties_and_tolerance(void **state)
{
	float a[R * C], b[R * C];
	struct pe_diff_tol tol = { 0.6, 0, 0 };
	struct pe_error err = { PE_OK, "" };
	struct pe_diff_stats s;

	(void)state;
	tables(a, b);
	a[4 * C + 0] = b[4 * C + 0];	/* no NaN now */
	b[2 * C + 1] = a[2 * C + 1];
	assert_int_equal(pe_diff_init(&s, R, C, 0, &err), 0);
	pe_diff_add(&s, &tol, 0, R, a, b);
	/* 0.5 at (1,3) and (4,2): the first is reported */
	assert_close(s.abs.v, 0.5, 0, 0);
	assert_int_equal(s.abs.row, 1);
	assert_int_equal(s.abs.col, 3);
	/* within atol 0.6 nothing differs, the errors are still measured */
	assert_int_equal(s.differ, 0);
	assert_null(s.row);
	pe_diff_free(&s);
}

static void test_scale_and_near(void **state)
{
	enum { N = 40, W = 8 };
	float a[N * W], b[N * W];
	struct pe_diff_tol tol = { 0, 0, 0 };
	struct pe_error err = { PE_OK, "" };
	struct pe_diff_stats s;
	size_t i, j;
	double ab = 0, bb = 0;

	(void)state;
	/* B's rows are distinct; A is B shifted by 3 rows (A's row i is B's
	 * row i + 3), and scaled */
	for (i = 0; i < N; i++)
		for (j = 0; j < W; j++)
			b[i * W + j] = (float)sin(0.37 * (double)i * (double)(j + 1) + (double)j);
	for (i = 0; i < N; i++)
		for (j = 0; j < W; j++)
			a[i * W + j] = b[((i + 3) % N) * W + j];
	assert_int_equal(pe_diff_init(&s, N, W, 0, &err), 0);
	pe_diff_add(&s, &tol, 0, 17, a, b);
	pe_diff_add(&s, &tol, 17, N - 17, a + 17 * W, b + 17 * W);
	assert_int_equal(s.a0_in_b[0].row, 3);
	assert_close(s.a0_in_b[0].d, 0, 0, 0);
	assert_int_equal(s.b0_in_a[0].row, N - 3);
	for (i = 0; i < N * W; i++) {
		ab += (double)a[i] * (double)b[i];
		bb += (double)b[i] * (double)b[i];
	}
	assert_close(s.sum_ab, ab, 0, 1e-12);
	assert_close(s.sum_bb, bb, 0, 1e-12);
	pe_diff_free(&s);
}

static void test_metric(void **state)
{
	const float a[4] = { 1.0f, 2.0f, NAN, 0.5f }, b[4] = { 1.0f, 1.5f, 1.0f, 0.0f };
	float out[4];

	(void)state;
	pe_diff_metric(PE_DIFF_ABS, a, b, 4, out);
	assert_true(out[0] == 0 && out[1] == 0.5f && isinf(out[2]) && out[3] == 0.5f);
	pe_diff_metric(PE_DIFF_REL, a, b, 4, out);
	assert_true(out[0] == 0 && out[1] == (float)(0.5 / 1.5) && isinf(out[2]) && isinf(out[3]));
	pe_diff_metric(PE_DIFF_ULP, a, b, 4, out);
	assert_true(out[0] == 0 && out[1] == (float)(1u << 22) && isinf(out[2]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_stats_blocks),
		cmocka_unit_test(test_largest_ties_and_tolerance),
		cmocka_unit_test(test_scale_and_near),
		cmocka_unit_test(test_metric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
