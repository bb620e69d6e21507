/*
 * core/ulp: distances on the float32 line against their definition -- the
 * number of nextafterf steps from a to b, counted step by step -- at the
 * edges (both zeros, the subnormals, across zero, the largest finite
 * values) and at random; the conventions at inf and NaN; the spacing
 * against nextafterf; the first integers each type cannot hold against
 * the types' own conversions (GCC's _Float16, the bfloat16 integer formula
 * on float32's bits, a float cast).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/ulp.h"
#include "testutil.h"

/* nextafterf steps from a to b (a, b finite, at most max of them) */
static uint64_t steps(float a, float b, uint64_t max)
{
	uint64_t n = 0;
	float x = a;

	while (x != b && n <= max) {
		x = nextafterf(x, b);
		n++;
	}
	/* nextafterf treats -0 and +0 as equal: no step between them */
	return n;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static void test_edges(void **state)
{
	const float tiny = 0x1p-149f, minnorm = 0x1p-126f;

	(void)state;
	assert_int_equal(pe_ulp_dist(0.0f, -0.0f), 0);
	assert_int_equal(pe_ulp_dist(0.0f, tiny), 1);
	assert_int_equal(pe_ulp_dist(-0.0f, tiny), 1);
	assert_int_equal(pe_ulp_dist(-tiny, tiny), 2);
	assert_int_equal(pe_ulp_dist(minnorm, nextafterf(minnorm, 0)), 1);
	assert_int_equal(pe_ulp_dist(minnorm, 0.0f), steps(minnorm, 0.0f, 1u << 24));
	assert_int_equal(pe_ulp_dist(1.0f, nextafterf(1.0f, 2.0f)), 1);
	assert_int_equal(pe_ulp_dist(1.0f, nextafterf(1.0f, 0.0f)), 1);
	assert_int_equal(pe_ulp_dist(1.0f, 2.0f), 1u << 23);
	assert_int_equal(pe_ulp_dist(-1.0f, 1.0f), 2 * (uint64_t)0x3f800000u);
	assert_int_equal(pe_ulp_dist(FLT_MAX, -FLT_MAX), 4278190078u);
	assert_int_equal(pe_ulp_dist(FLT_MAX, nextafterf(FLT_MAX, 0)), 1);
	/* the conventions */
	assert_true(pe_ulp_dist(FLT_MAX, INFINITY) == PE_ULP_INF);
	assert_true(pe_ulp_dist(INFINITY, INFINITY) == 0);
	assert_true(pe_ulp_dist(-INFINITY, -INFINITY) == 0);
	assert_true(pe_ulp_dist(-INFINITY, INFINITY) == PE_ULP_INF);
	assert_true(pe_ulp_dist(NAN, NAN) == 0);
	assert_true(pe_ulp_dist(NAN, -NAN) == 0);
	assert_true(pe_ulp_dist(bits_float(0x7fc00001u), bits_float(0xffa00000u)) == 0);
	assert_true(pe_ulp_dist(NAN, 1.0f) == PE_ULP_INF);
	assert_true(pe_ulp_dist(0.0f, NAN) == PE_ULP_INF);
	assert_true(pe_ulp_dist(NAN, INFINITY) == PE_ULP_INF);
	assert_true(pe_ulp_key(-0.0f) == 0 && pe_ulp_key(0.0f) == 0);
	assert_true(pe_ulp_key(-tiny) == -1);
}

/* random pairs within a few thousand steps of each other, across zero
 * and the subnormals too: the distance is the steps counted */
static void test_random_against_steps(void **state)
{
	uint64_t s = 2213, k;

	(void)state;
	for (k = 0; k < 3000; k++) {
		uint32_t u = (uint32_t)pe_test_rand(&s);
		float a = bits_float(u & 0xff7fffffu), b;	/* finite */
		uint64_t want = pe_test_rand(&s) % 3000, got;

		if (k % 3 == 0)
			a = bits_float((uint32_t)(pe_test_rand(&s) % 2000) | (k % 2 ? 0x80000000u : 0));
		b = a;
		for (got = 0; got < want; got++)
			b = nextafterf(b, k % 4 < 2 ? INFINITY : -INFINITY);
		if (isinf(b))
			continue;
		got = pe_ulp_dist(a, b);
		/* a step from -0 or +0 onto the other zero is no step */
		if (got != steps(a, b, 1u << 20))
			fail_msg("%a to %a: %llu, want %llu", (double)a, (double)b,
				 (unsigned long long)got, (unsigned long long)steps(a, b, 1u << 20));
		assert_true(pe_ulp_dist(b, a) == got);
	}
}

static void test_ulp_of(void **state)
{
	static const float xs[] = { 1.0f, 1.5f, 0.75f, 3.0e-39f, 0x1p-126f, 1e30f, -2.0f, -1e-10f,
				    0.0f, -0.0f, FLT_MAX, 0x1p-149f };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		float x = fabsf(xs[i]);
		double want = x == FLT_MAX ? 0x1p104 : (double)nextafterf(x, INFINITY) - (double)x;

		assert_close(pe_ulp_of(xs[i]), want, 0, 0);
	}
	assert_true(isnan(pe_ulp_of(INFINITY)) && isnan(pe_ulp_of(NAN)));
}

__extension__ typedef _Float16 half;

static uint16_t bf16_formula(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static int held(enum pe_store d, uint64_t n)
{
	float f = (float)n;
	uint32_t u;

	switch (d) {
	case PE_STORE_FLOAT16:
		return n <= 65504 && (double)(half)f == (double)n;
	case PE_STORE_BFLOAT16:
		u = (uint32_t)bf16_formula(f) << 16;
		return (double)bits_float(u) == (double)n;
	case PE_STORE_FLOAT32:
		return (double)f == (double)n;
	default:
		return (double)(double)n == (double)n;
	}
}

static void test_first_unrepresentable(void **state)
{
	static const enum pe_store ds[] = { PE_STORE_FLOAT16, PE_STORE_BFLOAT16, PE_STORE_FLOAT32 };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		uint64_t first = pe_store_first_unrepresentable(ds[i]), n;

		assert_false(held(ds[i], first));
		for (n = 0; n < first; n += ds[i] == PE_STORE_FLOAT32 ? 4099 : 1)
			assert_true(held(ds[i], n));
		assert_true(held(ds[i], first - 1));
		/* and the rounding of each type agrees with the conversion */
		assert_true(pe_store_round(ds[i], (double)first) != (double)first);
	}
	assert_int_equal(pe_store_first_unrepresentable(PE_STORE_FLOAT16), 2049);
	assert_int_equal(pe_store_first_unrepresentable(PE_STORE_BFLOAT16), 257);
	/* bfloat16 holds 15962 as 15936 (rope-2026 G #7) */
	assert_close(pe_store_round(PE_STORE_BFLOAT16, 15962), 15936, 0, 0);
	assert_close(pe_store_round(PE_STORE_FLOAT16, 1044.5625), 1045, 0, 0);
	assert_close(pe_store_eps(PE_STORE_BFLOAT16), 0x1p-7, 0, 0);
	assert_close(pe_store_eps(PE_STORE_FLOAT16), 0x1p-10, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_against_steps),
		cmocka_unit_test(test_ulp_of),
		cmocka_unit_test(test_first_unrepresentable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
