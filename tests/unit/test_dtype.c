/*
 * core/dtype: rounding to float16 and bfloat16 against independent
 * references -- GCC's _Float16 conversions (correctly rounded, F16C or
 * libgcc), the well-known integer formula for float32 -> bfloat16, and MPFR
 * with the types' precision and exponent range (subnormals included) for
 * doubles -- at every float16 value, around every tie, at random, and at
 * the edges (zeros, subnormals, the largest finite values, inf, NaN).
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "testutil.h"

static uint32_t bits32(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float float32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

__extension__ typedef _Float16 half;	/* GCC's, correctly rounded conversions */

static uint16_t f16_bits(half h)
{
	uint16_t u;

	memcpy(&u, &h, 2);
	return u;
}

/* float32 -> bfloat16, ties to even, by the integer formula */
static uint16_t bf16_formula(float f)
{
	uint32_t u = bits32(f);

	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* x rounded by MPFR to p bits, exponents emin..emax (normal), subnormals */
static double by_mpfr(double x, int p, int emin, int emax)
{
	mpfr_exp_t oldmin = mpfr_get_emin(), oldmax = mpfr_get_emax();
	mpfr_t m;
	int t;
	double r;

	if (!isfinite(x) || x == 0)
		return x;
	mpfr_set_emin(emin - p + 2);	/* MPFR's exponents are one above IEEE's */
	mpfr_set_emax(emax + 1);
	mpfr_init2(m, p);
	t = mpfr_set_d(m, x, MPFR_RNDN);
	t = mpfr_check_range(m, t, MPFR_RNDN);
	mpfr_subnormalize(m, t, MPFR_RNDN);
	r = mpfr_get_d(m, MPFR_RNDN);
	mpfr_clear(m);
	mpfr_set_emin(oldmin);
	mpfr_set_emax(oldmax);
	return r;
}

static void check_f32(float f)
{
	uint16_t h = pe_to_f16(f), want = f16_bits((half)f), b = pe_to_bf16(f);

	if (isnan(f)) {
		assert_true(isnan(pe_from_f16(h)) && isnan(pe_from_bf16(b)));
		assert_int_equal(h >> 15, bits32(f) >> 31);
		return;
	}
	if (h != want)
		fail_msg("f16 of %a: 0x%04x, want 0x%04x", (double)f, h, want);
	if (b != bf16_formula(f))
		fail_msg("bf16 of %a: 0x%04x, want 0x%04x", (double)f, b, bf16_formula(f));
	assert_true(pe_round_f16(f) == (double)pe_from_f16(h) || isnan(pe_round_f16(f)));
	assert_true(pe_round_bf16(f) == (double)pe_from_bf16(b));
}

static void check_f64(double x)
{
	double r16 = pe_round_f16(x), rb = pe_round_bf16(x);
	double w16 = by_mpfr(x, 11, -14, 15), wb = by_mpfr(x, 8, -126, 127);

	if (!(r16 == w16 || (isnan(r16) && isnan(w16))))
		fail_msg("f16 of %a: %a, want %a", x, r16, w16);
	if (!(rb == wb || (isnan(rb) && isnan(wb))))
		fail_msg("bf16 of %a: %a, want %a", x, rb, wb);
	assert_true(pe_to_f16(x) == f16_bits((half)x) || isnan(x));
	assert_true((double)pe_from_f16(pe_to_f16(x)) == r16 || isnan(x));
	assert_true((double)pe_from_bf16(pe_to_bf16(x)) == rb || isnan(x));
}

/* Every float16 value, and float32s and doubles at and around the ties
 * between neighbours (both types' ties lie on float32's grid). */
static void test_every_f16_and_ties(void **state)
{
	uint32_t h, k;

	(void)state;
	for (h = 0; h < 65536; h++) {
		float v = pe_from_f16((uint16_t)h);

		check_f32(v);
		if ((h & 0x7c00) == 0x7c00)
			continue;
		{
			double next = pe_from_f16((uint16_t)(h + 1)), mid;

			if (!isfinite(next) || (h & 0x7fff) == 0x7bff)
				next = (h & 0x8000) ? -65536.0 : 65536.0;
			mid = ((double)v + next) / 2;	/* exact */
			check_f64(mid);
			check_f64(nextafter(mid, 0));
			check_f64(nextafter(mid, 2 * mid));
			check_f32((float)mid);
			check_f32(nextafterf((float)mid, 0));
			check_f32(nextafterf((float)mid, 2 * (float)mid));
		}
	}
	for (k = 0; k < 65536; k++) {	/* bfloat16's ties, every pattern */
		uint32_t u = (k << 16) | 0x8000u;

		check_f32(float32(u));
		check_f32(float32(u - 1));
		check_f32(float32(u + 1));
		check_f64((double)float32(u));
		check_f64(nextafter((double)float32(u), 0));
	}
}

static void test_random(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	long i, n = pe_test_quick() ? 200000 : 4000000;

	(void)state;
	for (i = 0; i < n; i++) {
		uint64_t u;
		double x;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		check_f32(float32((uint32_t)s));
		u = s;
		memcpy(&x, &u, 8);
		if (i % 4 == 0)	/* doubles near the types' ranges */
			x = ldexp((double)(uint32_t)s / 4294967296.0 + 0.5, (int)(s >> 40) % 300 - 150);
		check_f64(x);
	}
}

static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(pe_to_f16(65504.0), 0x7bff);
	assert_int_equal(pe_to_f16(65519.999), 0x7bff);
	assert_int_equal(pe_to_f16(65520.0), 0x7c00);	/* the tie above max: inf */
	assert_int_equal(pe_to_f16(-1e10), 0xfc00);
	assert_int_equal(pe_to_f16(0x1p-24), 0x0001);
	assert_int_equal(pe_to_f16(0x1p-25), 0x0000);	/* a tie: to even, zero */
	assert_int_equal(pe_to_f16(0x1.8p-25), 0x0001);
	assert_int_equal(pe_to_f16(-0.0), 0x8000);
	assert_int_equal(pe_to_bf16(3.3895313892515355e38), 0x7f7f);	/* bf16 max */
	assert_int_equal(pe_to_bf16(INFINITY), 0x7f80);
	assert_int_equal(pe_to_bf16(1.0), 0x3f80);
	assert_int_equal(pe_to_bf16(15962.0), 0x4679);	/* 15936: rope-2026 G's example */
	assert_true(pe_from_bf16(pe_to_bf16(15962.0)) == 15936.0f);
	assert_true(isnan(pe_from_f16(pe_to_f16(NAN))));
	assert_int_equal(pe_store_size(PE_STORE_BFLOAT16), 2);
	assert_int_equal(pe_store_size(PE_STORE_FLOAT64), 8);
	assert_string_equal(pe_store_names[PE_STORE_BFLOAT16], "bfloat16");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_every_f16_and_ties),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
