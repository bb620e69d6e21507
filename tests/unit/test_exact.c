/*
 * core/exact against MPFR: exact sums, and dot products, cosines and
 * distances of float32 vectors rounded once to float32.  MPFR computes each
 * sum exactly (enough bits for every float32 product) and each quotient or
 * root to 2000 bits, then rounds to binary32 (24 bits, the binary32 exponent
 * range with subnormals) itself: an oracle that shares no code or method
 * with posenc.  Cases built so the exact answer is a rounding midpoint check
 * the ties, which no floating-point shortcut can decide.
 */
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/exact.h"
#include "testutil.h"

#define EXACT_PREC 1400	/* float32 products span 2^-298 .. 2^256; sums of 2^20 of them */
#define WIDE_PREC 400

struct ref {
	mpfr_t s, nx, ny;
};

static void ref_sums(struct ref *r, const float *x, const float *y, size_t n)
{
	mpfr_t p;
	size_t k;

	mpfr_inits2(EXACT_PREC, r->s, r->nx, r->ny, p, (mpfr_ptr)0);
	mpfr_set_zero(r->s, 1);
	mpfr_set_zero(r->nx, 1);
	mpfr_set_zero(r->ny, 1);
	for (k = 0; k < n; k++) {
		mpfr_set_flt(p, x[k], MPFR_RNDN);
		mpfr_mul_d(p, p, (double)y[k], MPFR_RNDN);
		mpfr_add(r->s, r->s, p, MPFR_RNDN);
		mpfr_set_flt(p, x[k], MPFR_RNDN);
		mpfr_sqr(p, p, MPFR_RNDN);
		mpfr_add(r->nx, r->nx, p, MPFR_RNDN);
		mpfr_set_flt(p, y[k], MPFR_RNDN);
		mpfr_sqr(p, p, MPFR_RNDN);
		mpfr_add(r->ny, r->ny, p, MPFR_RNDN);
	}
	mpfr_clear(p);
}

static float ref_dot(struct ref *r)
{
	return pe_mpfr_to_f32(r->s);
}

static float ref_cos(struct ref *r)
{
	mpfr_t q, d;
	float f;

	if (mpfr_zero_p(r->nx) || mpfr_zero_p(r->ny))
		return NAN;
	mpfr_inits2(WIDE_PREC, q, d, (mpfr_ptr)0);
	mpfr_mul(d, r->nx, r->ny, MPFR_RNDN);
	mpfr_sqrt(d, d, MPFR_RNDN);
	mpfr_div(q, r->s, d, MPFR_RNDN);
	f = pe_mpfr_to_f32(q);
	mpfr_clears(q, d, (mpfr_ptr)0);
	return f;
}

static float ref_dist(struct ref *r)
{
	mpfr_t e;
	float f;

	mpfr_init2(e, WIDE_PREC);
	mpfr_add(e, r->nx, r->ny, MPFR_RNDN);
	mpfr_mul_2ui(r->s, r->s, 1, MPFR_RNDN);
	mpfr_sub(e, e, r->s, MPFR_RNDN);
	mpfr_div_2ui(r->s, r->s, 1, MPFR_RNDN);
	mpfr_sqrt(e, e, MPFR_RNDN);
	f = pe_mpfr_to_f32(e);
	mpfr_clear(e);
	return f;
}

static void ref_free(struct ref *r)
{
	mpfr_clears(r->s, r->nx, r->ny, (mpfr_ptr)0);
}

struct mine {
	float dot, cos, dist;
};

static struct mine exact_of(const float *x, const float *y, size_t n)
{
	struct pe_acc s, nx, ny, e;
	struct mine m;
	size_t k;

	pe_acc_clear(&s);
	pe_acc_clear(&nx);
	pe_acc_clear(&ny);
	for (k = 0; k < n; k++) {
		pe_acc_add_prod(&s, x[k], y[k]);
		pe_acc_add_prod(&nx, x[k], x[k]);
		pe_acc_add_prod(&ny, y[k], y[k]);
	}
	m.dot = pe_acc_to_float(&s);
	m.cos = pe_exact_cosine(&s, &nx, &ny);
	e = nx;
	pe_acc_add_scaled(&e, &ny, 1);
	pe_acc_add_scaled(&e, &s, -2);
	m.dist = pe_exact_sqrt(&e);
	return m;
}

static int same_f32(float a, float b)
{
	uint32_t ua, ub;

	if (isnan(a) && isnan(b))
		return 1;
	memcpy(&ua, &a, 4);
	memcpy(&ub, &b, 4);
	return ua == ub;
}

static void expect_all(const float *x, const float *y, size_t n, const char *what)
{
	struct ref r;
	struct mine m = exact_of(x, y, n);
	float d, c, e;

	ref_sums(&r, x, y, n);
	d = ref_dot(&r);
	c = ref_cos(&r);
	e = ref_dist(&r);
	ref_free(&r);
	if (!same_f32(m.dot, d))
		fail_msg("%s: dot %a, MPFR %a", what, (double)m.dot, (double)d);
	if (!same_f32(m.cos, c))
		fail_msg("%s: cosine %a, MPFR %a", what, (double)m.cos, (double)c);
	if (!same_f32(m.dist, e))
		fail_msg("%s: distance %a, MPFR %a", what, (double)m.dist, (double)e);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_u64(void)
{
	return pe_test_rand(&rng_state);
}

/* A float32 with a random sign, 24 random bits and an exponent in
 * [lo, hi]. */
static float rand_f32(int lo, int hi)
{
	uint64_t r = next_u64();
	int e = lo + (int)(r % (uint64_t)(hi - lo + 1));
	float m = (float)((r >> 20) & 0xffffff) / 16777216.0f;

	return (r >> 63 ? -1.0f : 1.0f) * ldexpf(0.5f + m / 2, e);
}

static void test_random_vectors(void **state)
{
	static const int ranges[][2] = { { -2, 2 }, { -40, 40 }, { -140, -120 }, { 100, 126 },
					 { -149, 127 } };
	float x[300], y[300];
	char what[64];
	size_t n, k, r, trial;

	(void)state;
	for (r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
		for (trial = 0; trial < 120; trial++) {
			n = 1 + (size_t)(next_u64() % 300);
			for (k = 0; k < n; k++) {
				x[k] = rand_f32(ranges[r][0], ranges[r][1]);
				y[k] = rand_f32(ranges[r][0], ranges[r][1]);
			}
			snprintf(what, sizeof what, "range %zu trial %zu", r, trial);
			expect_all(x, y, n, what);
		}
	}
}

/* Nearly equal and nearly orthogonal vectors: heavy cancellation in the
 * distance and the dot product. */
static void test_cancellation(void **state)
{
	float x[64], y[64];
	char what[64];
	size_t k, trial;

	(void)state;
	for (trial = 0; trial < 200; trial++) {
		/* x first: the even trials' y reads x[k + 1] (reading it before
		 * it was drawn once made this test depend on stack garbage) */
		for (k = 0; k < 64; k++)
			x[k] = rand_f32(-3, 3);
		for (k = 0; k < 64; k++)
			y[k] = trial % 2 ? nextafterf(x[k], (float)(next_u64() % 2) - 0.5f)
					 : (k % 2 ? x[k - 1] : -x[k + 1]);
		snprintf(what, sizeof what, "cancellation trial %zu", trial);
		expect_all(x, y, 64, what);
	}
}

/* Sums that are exactly halfway between floats, and just off it. */
static void test_dot_ties(void **state)
{
	const float x1[] = { 16777216.0f, 1.0f }, y1[] = { 1.0f, 1.0f };	/* 2^24 + 1 */
	const float x2[] = { 16777216.0f, 3.0f }, y2[] = { 1.0f, 1.0f };	/* 2^24 + 3 */
	const float x3[] = { 16777216.0f, 1.0f, 0x1p-60f }, y3[] = { 1.0f, 1.0f, 1.0f };	/* sticky */
	const float x4[] = { 0x1p-75f }, y4[] = { 0x1p-75f };		/* 2^-150: to 0 */
	const float x5[] = { 0x1p-75f }, y5[] = { 0x1.8p-75f };		/* 1.5 2^-150 */
	const float x6[] = { 0x1p100f }, y6[] = { 0x1p100f };		/* overflow */
	const float x7[] = { 1.0f, 1.0f }, y7[] = { 1.0f, -1.0f };		/* exact zero */
	const float x8[] = { 0x1p-75f, 0x1p-76f }, y8[] = { 0x1p-76f, 0x1p-80f };	/* 2^-151 + 2^-156 */
	struct mine m;

	(void)state;
	assert_true(exact_of(x1, y1, 2).dot == 16777216.0f);
	assert_true(exact_of(x2, y2, 2).dot == 16777220.0f);
	assert_true(exact_of(x3, y3, 3).dot == 16777218.0f);
	m = exact_of(x4, y4, 1);
	assert_true(m.dot == 0.0f && !signbit(m.dot));
	assert_true(exact_of(x5, y5, 1).dot == 0x1p-149f);
	assert_true(isinf(exact_of(x6, y6, 1).dot));
	m = exact_of(x8, y8, 2);
	assert_true(m.dot == 0.0f && !signbit(m.dot));
	expect_all(x8, y8, 2, "2^-151 + 2^-156");
	m = exact_of(x7, y7, 2);
	assert_true(m.dot == 0.0f && !signbit(m.dot));
	assert_true(m.cos == 0.0f && !signbit(m.cos));
	expect_all(x1, y1, 2, "2^24+1");
	expect_all(x3, y3, 3, "2^24+1+2^-60");
	expect_all(x5, y5, 1, "1.5 2^-150");
}

/* The float32 nearest p * 2^e for an odd 25-bit p (a midpoint): the
 * neighbour whose 24-bit significand is even. */
static float tie_to_even(uint64_t p, int e)
{
	uint64_t lo = (p - 1) / 2;

	return ldexpf((float)(lo % 2 == 0 ? lo : lo + 1), e + 1);
}

/*
 * cos(x, y) = p / 2^25 exactly, p odd with 25 bits, so halfway between two
 * floats: x = (1, 1, 0, 0, 0, 0), y = ((p+1)/2, (p-1)/2, r0..r3) with
 * |y|^2 = 2^49, so x.y = p and |x| |y| = sqrt(2) 2^24.5 = 2^25.  Moving one
 * r by one puts the cosine just off the midpoint (MPFR decides those).
 */
static void test_cosine_ties(void **state)
{
	/* p, then r0..r3 with sum r^2 = 2^49 - (p^2 + 1)/2, each at most 2^24
	 * (found once by choosing r0, r1 so that the rest is a prime 1 mod 4
	 * and splitting it into two squares; checked below) */
	static const uint64_t cases[][5] = {
		{ 16777217, 10273557, 10273473, 13963233, 4018750 },
		{ 16777219, 10272985, 10273175, 14185109, 3150040 },
		{ 25000001, 7912553, 7912285, 9503806, 5908879 },
		{ 33554431, 2421, 2859, 3610, 2547 },
		{ 30000001, 5313737, 5313241, 6422506, 3903205 },
		{ 20000003, 9524797, 9525419, 11816876, 6469619 },
	};
	float x[7] = { 1, 1, 0, 0, 0, 0, 0 }, y[7] = { 0 };
	uint64_t r[4], p;
	size_t i, k;
	struct mine m;
	char what[64];

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		p = cases[i][0];
		for (k = 0; k < 4; k++)
			r[k] = cases[i][k + 1];
		assert_true(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3] ==
			    ((uint64_t)1 << 49) - (p * p + 1) / 2);
		y[0] = (float)((p + 1) / 2);
		y[1] = (float)((p - 1) / 2);
		for (k = 0; k < 4; k++)
			y[2 + k] = (float)r[k];
		m = exact_of(x, y, 7);
		if (m.cos != tie_to_even(p, -25))
			fail_msg("cos = %llu/2^25: got %a, want %a", (unsigned long long)p,
				 (double)m.cos, (double)tie_to_even(p, -25));
		y[0] = -y[0];
		y[1] = -y[1];
		assert_true(exact_of(x, y, 7).cos == -tie_to_even(p, -25));
		y[0] = -y[0];
		y[1] = -y[1];
		/* |y|^2 = 2^49 + 2^-60: the cosine sits 2^-110 (relative) below the
		 * midpoint, too close for double-double: the integer comparison
		 * must pick the lower float, and for -y the upper one */
		y[6] = 0x1p-30f;
		if (exact_of(x, y, 7).cos != ldexpf((float)((p - 1) / 2), -24))
			fail_msg("cos just below %llu/2^25: got %a", (unsigned long long)p,
				 (double)exact_of(x, y, 7).cos);
		snprintf(what, sizeof what, "2^-110 below cos tie %llu", (unsigned long long)p);
		expect_all(x, y, 7, what);
		y[0] = -y[0];
		y[1] = -y[1];
		assert_true(exact_of(x, y, 7).cos == -ldexpf((float)((p - 1) / 2), -24));
		y[0] = -y[0];
		y[1] = -y[1];
		y[6] = 0;
		y[5] += 1;
		snprintf(what, sizeof what, "near cos tie %llu", (unsigned long long)p);
		expect_all(x, y, 7, what);
		y[5] -= 2;
		expect_all(x, y, 7, what);
		y[5] += 1;
	}
}

/*
 * |x - y| = p exactly, p odd with 25 bits: halfway between p - 1 and p + 1.
 * A Pythagorean quadruple gives three exact floats with a^2 + b^2 + c^2 =
 * p^2 for p = m^2 + n^2 + s^2 + t^2: a = m^2 + n^2 - s^2 - t^2 (odd, kept
 * below 2^24 by taking s^2 + t^2 near p/2), b = 2(mt + ns), c = 2(nt - ms)
 * (even, below 2^25).  y = 0, then y moved by a whole vector.
 */
static void test_sqrt_ties(void **state)
{
	static const int64_t mnst[][4] = { { 2100, 2001, 2100, 2000 }, { 2600, 1500, 2550, 1585 },
					   { 2300, 1801, 2301, 1799 }, { 4000, 1000, 1001, 1500 } };
	float x[4] = { 0 }, y[4] = { 0 };
	int64_t m, n, s2, t;
	uint64_t p;
	size_t i, k;
	char what[64];

	(void)state;
	for (i = 0; i < sizeof mnst / sizeof mnst[0]; i++) {
		m = mnst[i][0];
		n = mnst[i][1];
		s2 = mnst[i][2];
		t = mnst[i][3];
		p = (uint64_t)(m * m + n * n + s2 * s2 + t * t);
		assert_true(p % 2 == 1 && p > (1u << 24) && p < (1u << 25));
		x[0] = (float)(m * m + n * n - s2 * s2 - t * t);
		x[1] = (float)(2 * (m * t + n * s2));
		x[2] = (float)(2 * (n * t - m * s2));
		assert_true((double)x[0] == (double)(m * m + n * n - s2 * s2 - t * t));
		if (exact_of(x, y, 3).dist != tie_to_even(p, 0))
			fail_msg("|x| = %llu: got %a", (unsigned long long)p,
				 (double)exact_of(x, y, 3).dist);
		/* |x|^2 = p^2 + 2^-80: 2^-131 (relative) above the midpoint, so
		 * p + 1 whichever neighbour is even */
		x[3] = 0x1p-40f;
		assert_true(exact_of(x, y, 4).dist == (float)(p + 1));
		expect_all(x, y, 4, "just above a sqrt tie");
		x[3] = 0;
		for (k = 0; k < 3; k++) {
			x[k] += 4096.0f * (float)(k + 1);
			y[k] = 4096.0f * (float)(k + 1);
		}
		assert_true(exact_of(x, y, 3).dist == tie_to_even(p, 0));
		x[0] += 1;
		snprintf(what, sizeof what, "near sqrt tie %llu", (unsigned long long)p);
		expect_all(x, y, 3, what);
		for (k = 0; k < 3; k++)
			y[k] = 0;
	}
	(void)what;
}

/* Zero vectors, equal vectors, opposite vectors, one element. */
static void test_special(void **state)
{
	const float z[3] = { 0, 0, 0 }, a[3] = { 1, 2, 3 }, b[3] = { -1, -2, -3 };
	const float big[2] = { 0x1.fffffep127f, 0x1.fffffep127f };
	const float small[2] = { 0, 0 };
	struct mine m;

	(void)state;
	m = exact_of(z, a, 3);
	assert_true(isnan(m.cos) && m.dot == 0.0f && !signbit(m.dot));
	m = exact_of(a, a, 3);
	assert_true(m.cos == 1.0f && m.dist == 0.0f && !signbit(m.dist) && m.dot == 14.0f);
	m = exact_of(a, b, 3);
	assert_true(m.cos == -1.0f && m.dot == -14.0f);
	expect_all(a, b, 3, "opposite");
	m = exact_of(big, small, 2);	/* sqrt(2) FLT_MAX overflows */
	assert_true(isinf(m.dist));
	expect_all(big, small, 2, "overflowing distance");
}

static void test_acc_combine(void **state)
{
	struct pe_acc a, b;
	int i;

	(void)state;
	pe_acc_clear(&a);
	pe_acc_clear(&b);
	for (i = 0; i < 1000; i++) {
		pe_acc_add(&a, ldexp(1.0, i % 200 - 100));
		pe_acc_add(&b, ldexp(1.0, i % 200 - 100));
	}
	assert_int_equal(pe_acc_sign(&a), 1);
	pe_acc_add_scaled(&a, &b, -2);
	assert_int_equal(pe_acc_sign(&a), -1);
	pe_acc_add_scaled(&a, &b, 1);
	assert_int_equal(pe_acc_sign(&a), 0);
	assert_true(pe_acc_to_float(&a) == 0.0f);
	pe_acc_add(&a, 0x1p-1074);	/* the smallest double */
	pe_acc_add(&a, -0x1p-1074);
	pe_acc_add(&a, DBL_MAX);
	assert_true(isinf(pe_acc_to_float(&a)));
	pe_acc_add(&a, -DBL_MAX);
	pe_acc_add(&a, -0x1p-1074);
	assert_int_equal(pe_acc_sign(&a), -1);
	assert_true(pe_acc_to_float(&a) == 0.0f && signbit(pe_acc_to_float(&a)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_vectors),
		cmocka_unit_test(test_cancellation),
		cmocka_unit_test(test_dot_ties),
		cmocka_unit_test(test_cosine_ties),
		cmocka_unit_test(test_sqrt_ties),
		cmocka_unit_test(test_special),
		cmocka_unit_test(test_acc_combine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
