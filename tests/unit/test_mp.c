/*
 * core/mp against MPFR at 600 bits: every operation within the error bound
 * its header states, on random operands over a wide exponent range; the
 * constants; and the roundings to double and float32 (subnormals, ties,
 * overflow) equal to MPFR's own.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/mp.h"
#include "testutil.h"

#define REF_PREC 600

/* the exact value of a (256 bits fit REF_PREC) */
static void to_mpfr(mpfr_t r, const struct pe_mp *a)
{
	int k;

	mpfr_set_zero(r, 1);
	if (a->sign == 0)
		return;
	for (k = 0; k < PE_MP_LIMBS; k++) {
		mpfr_t t;

		mpfr_init2(t, 64);
		mpfr_set_ui_2exp(t, a->d[k], (mpfr_exp_t)(a->exp - 32 * (k + 1)), MPFR_RNDN);
		mpfr_add(r, r, t, MPFR_RNDN);
		mpfr_clear(t);
	}
	if (a->sign < 0)
		mpfr_neg(r, r, MPFR_RNDN);
}

/* log2 of |got - want| / |want| (or of |got - want| when want is 0) */
static double err_bits(const struct pe_mp *got, mpfr_t want, int relative)
{
	mpfr_t g, d;
	double e;

	mpfr_inits2(REF_PREC, g, d, (mpfr_ptr)0);
	to_mpfr(g, got);
	mpfr_sub(d, g, want, MPFR_RNDN);
	mpfr_abs(d, d, MPFR_RNDN);
	if (relative && !mpfr_zero_p(want))
		mpfr_div(d, d, want, MPFR_RNDN);
	mpfr_abs(d, d, MPFR_RNDN);
	e = mpfr_zero_p(d) ? -10000.0 : mpfr_get_d(d, MPFR_RNDN) == 0 ? -2000.0
				: log2(mpfr_get_d(d, MPFR_RNDN));
	mpfr_clears(g, d, (mpfr_ptr)0);
	return e;
}

static double rand_double(uint64_t *st, int emin, int emax)
{
	uint64_t r = pe_test_rand(st);
	double m = (double)(r >> 11) * 0x1p-53 + 0.5;

	return ldexp(r & 1 ? -m : m, emin + (int)(pe_test_rand(st) % (uint64_t)(emax - emin + 1)));
}

/* a random 256-bit value, the sum of three doubles spread over 256 bits,
 * with its exponent in [emin, emax] */
static void rand_mp(struct pe_mp *r, uint64_t *st, int emin, int emax)
{
	struct pe_mp t;

	pe_mp_set_d(r, rand_double(st, 0, 0));
	pe_mp_set_d(&t, ldexp(fabs(rand_double(st, 0, 0)), -80));
	pe_mp_add(r, r, &t);
	pe_mp_set_d(&t, ldexp(rand_double(st, 0, 0), -190));
	pe_mp_add(r, r, &t);
	pe_mp_mul_2exp(r, r, emin + (int64_t)(pe_test_rand(st) % (uint64_t)(emax - emin + 1)));
}

static void expect_bits(double e, double bound, const char *what, int i)
{
	if (!(e <= bound))
		fail_msg("%s case %d: error 2^%.1f above the bound 2^%.0f", what, i, e, bound);
}

static void test_arithmetic(void **state)
{
	uint64_t st = 1;
	mpfr_t x, y, w;
	struct pe_mp a, b, r;
	int i, n = pe_test_quick() ? 200 : 3000;

	(void)state;
	mpfr_inits2(REF_PREC, x, y, w, (mpfr_ptr)0);
	for (i = 0; i < n; i++) {
		rand_mp(&a, &st, -1100, 1100);
		rand_mp(&b, &st, -1100, 1100);
		if (i % 7 == 0) {
			/* cancellation: b = a (1 + 2^-30) */
			pe_mp_set_d(&r, 1 + 0x1p-30);
			pe_mp_mul(&b, &a, &r);
		}
		to_mpfr(x, &a);
		to_mpfr(y, &b);
		pe_mp_add(&r, &a, &b);
		mpfr_add(w, x, y, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -255, "add", i);
		pe_mp_sub(&r, &a, &b);
		mpfr_sub(w, x, y, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -255, "sub", i);
		pe_mp_mul(&r, &a, &b);
		mpfr_mul(w, x, y, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -255, "mul", i);
		pe_mp_div(&r, &a, &b);
		mpfr_div(w, x, y, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -252, "div", i);
	}
	/* exact cases */
	pe_mp_set_d(&a, 0.1);
	pe_mp_sub(&r, &a, &a);
	assert_int_equal(r.sign, 0);
	pe_mp_set_i64(&a, INT64_MIN);
	to_mpfr(x, &a);
	assert_true(mpfr_cmp_si_2exp(x, -1, 63) == 0);
	pe_mp_set_u64(&a, UINT64_MAX);
	to_mpfr(x, &a);
	mpfr_set_ui_2exp(y, 1, 64, MPFR_RNDN);
	mpfr_sub_ui(y, y, 1, MPFR_RNDN);
	assert_true(mpfr_equal_p(x, y));
	mpfr_clears(x, y, w, (mpfr_ptr)0);
}

static void test_div_u(void **state)
{
	uint64_t st = 2;
	mpfr_t x, w;
	struct pe_mp a, r;
	int i;

	(void)state;
	mpfr_inits2(REF_PREC, x, w, (mpfr_ptr)0);
	for (i = 0; i < 1000; i++) {
		uint32_t u = (uint32_t)(pe_test_rand(&st) >> (i % 32));

		u = u ? u : 1;
		rand_mp(&a, &st, -50, 50);
		to_mpfr(x, &a);
		pe_mp_div_u(&r, &a, u);
		mpfr_div_ui(w, x, u, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -255, "div_u", i);
	}
	mpfr_clears(x, w, (mpfr_ptr)0);
}

static void test_functions(void **state)
{
	uint64_t st = 3;
	mpfr_t x, w, c;
	struct pe_mp a, r, s, co;
	int i, n = pe_test_quick() ? 100 : 1500;

	(void)state;
	mpfr_inits2(REF_PREC, x, w, c, (mpfr_ptr)0);
	for (i = 0; i < n; i++) {
		/* exp on |x| < 2^11 */
		rand_mp(&a, &st, -60, 10);
		to_mpfr(x, &a);
		pe_mp_exp(&r, &a);
		mpfr_exp(w, x, MPFR_RNDN);
		expect_bits(err_bits(&r, w, 1), -240, "exp", i);
		/* log over the whole double range and near 1 */
		rand_mp(&a, &st, -1070, 1020);
		if (a.sign < 0)
			a.sign = 1;
		if (i % 5 == 0) {
			struct pe_mp one;

			pe_mp_set_d(&one, 1.0);
			pe_mp_mul_2exp(&a, &a, -a.exp - 20);
			pe_mp_add(&a, &a, &one);
		}
		to_mpfr(x, &a);
		pe_mp_log(&r, &a);
		mpfr_log(w, x, MPFR_RNDN);
		mpfr_abs(c, w, MPFR_RNDN);
		/* 2^-245 absolute plus 2^-250 relative */
		{
			mpfr_t g;
			double e;

			mpfr_init2(g, REF_PREC);
			to_mpfr(g, &r);
			mpfr_sub(g, g, w, MPFR_RNDN);
			mpfr_abs(g, g, MPFR_RNDN);
			mpfr_mul_2si(c, c, -250, MPFR_RNDN);
			mpfr_sub(g, g, c, MPFR_RNDN);
			e = mpfr_get_d(g, MPFR_RNDN);
			if (!(e <= 0x1p-245))
				fail_msg("log case %d: error beyond 2^-245 + 2^-250 |ln x|", i);
			mpfr_clear(g);
		}
		/* sin, cos up to 2^53 */
		rand_mp(&a, &st, -30, 53);
		if (pe_mp_to_d(&a) > 0x1p53 || pe_mp_to_d(&a) < -0x1p53)
			pe_mp_mul_2exp(&a, &a, -1);
		to_mpfr(x, &a);
		pe_mp_sincos(&a, &s, &co);
		mpfr_sin_cos(w, c, x, MPFR_RNDN);
		expect_bits(err_bits(&s, w, 0), -200, "sin", i);
		expect_bits(err_bits(&co, c, 0), -200, "cos", i);
	}
	/* the constants: pi and ln 2 = log(2) */
	pe_mp_pi(&r);
	mpfr_const_pi(w, MPFR_RNDN);
	expect_bits(err_bits(&r, w, 1), -255, "pi", 0);
	pe_mp_set_d(&a, 2.0);
	pe_mp_log(&r, &a);
	mpfr_const_log2(w, MPFR_RNDN);
	expect_bits(err_bits(&r, w, 1), -250, "ln 2", 0);
	pe_mp_set_d(&a, 1.0);
	pe_mp_log(&r, &a);
	assert_int_equal(r.sign, 0);
	mpfr_clears(x, w, c, (mpfr_ptr)0);
}

/* to_d and to_f32 equal MPFR's correctly rounded conversions, across the
 * normal, subnormal and overflow ranges and on exact ties */
static void test_roundings(void **state)
{
	uint64_t st = 4;
	mpfr_t x;
	struct pe_mp a, t;
	int i;

	(void)state;
	mpfr_init2(x, REF_PREC);
	for (i = 0; i < 20000; i++) {
		double want_d;
		float want_f, got_f;
		int emin = i % 2 ? -1090 : -160, emax = i % 2 ? 1030 : 135;

		rand_mp(&a, &st, emin, emax);
		if (i % 4 == 0) {
			/* a float32 tie: 25 significant bits, the last one set */
			uint64_t m = (pe_test_rand(&st) >> 39) | ((uint64_t)1 << 24) | 1;

			pe_mp_set_d(&a, ldexp((double)m, emin + (int)(pe_test_rand(&st) %
							       (uint64_t)(emax - emin))));
		} else if (i % 4 == 1) {
			/* a double tie: 54 significant bits */
			uint64_t m = (pe_test_rand(&st) >> 11) | ((uint64_t)1 << 52);
			int e = emin + (int)(pe_test_rand(&st) % (uint64_t)(emax - emin));

			pe_mp_set_d(&a, ldexp((double)m, e));
			pe_mp_set_d(&t, ldexp(1.0, e - 1));
			pe_mp_add(&a, &a, &t);
		}
		to_mpfr(x, &a);
		{
			/* mpfr_get_d rounds subnormals correctly only within its emin */
			mpfr_t y;
			mpfr_exp_t e0 = mpfr_get_emin(), e1 = mpfr_get_emax();
			int tern;

			mpfr_init2(y, 53);
			mpfr_set_emin(-1073);
			mpfr_set_emax(1024);
			tern = mpfr_set(y, x, MPFR_RNDN);
			tern = mpfr_check_range(y, tern, MPFR_RNDN);
			mpfr_subnormalize(y, tern, MPFR_RNDN);
			want_d = mpfr_get_d(y, MPFR_RNDN);
			mpfr_set_emin(e0);
			mpfr_set_emax(e1);
			mpfr_clear(y);
		}
		if (memcmp(&want_d, &(double){ pe_mp_to_d(&a) }, sizeof want_d) != 0)
			fail_msg("to_d case %d: got %a want %a", i, pe_mp_to_d(&a), want_d);
		want_f = pe_mpfr_to_f32(x);
		got_f = pe_mp_to_f32(&a);
		if (memcmp(&want_f, &got_f, sizeof got_f) != 0)
			fail_msg("to_f32 case %d: got %a want %a", i, (double)got_f, (double)want_f);
	}
	mpfr_clear(x);
}

static void test_td(void **state)
{
	uint64_t st = 5;
	mpfr_t x, s;
	struct pe_mp a;
	int i;

	(void)state;
	mpfr_inits2(REF_PREC, x, s, (mpfr_ptr)0);
	for (i = 0; i < 2000; i++) {
		double hi, mid, lo;

		rand_mp(&a, &st, -800, 1000);
		to_mpfr(x, &a);
		pe_mp_to_td(&a, &hi, &mid, &lo);
		assert_true(hi == pe_mp_to_d(&a));
		assert_true(fabs(mid) <= ldexp(fabs(hi), -53) && fabs(lo) <= ldexp(fabs(mid), -53));
		mpfr_set_d(s, hi, MPFR_RNDN);
		mpfr_add_d(s, s, mid, MPFR_RNDN);
		mpfr_add_d(s, s, lo, MPFR_RNDN);
		mpfr_sub(s, s, x, MPFR_RNDN);
		mpfr_div(s, s, x, MPFR_RNDN);
		if (!(fabs(mpfr_get_d(s, MPFR_RNDN)) <= 0x1p-158))
			fail_msg("td case %d: error %g", i, mpfr_get_d(s, MPFR_RNDN));
	}
	mpfr_clears(x, s, (mpfr_ptr)0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_div_u),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_roundings),
		cmocka_unit_test(test_td),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
