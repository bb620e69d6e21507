/*
 * io/fmt.c's float32 formatter against its definition: pe_fmt_f32 (integer
 * arithmetic, Ryu's scaling) must write the same bytes as pe_fmt_f32_slow
 * (printf and strtof) for every float.  Here: millions of seeded random bit
 * patterns and the places where the two could part (interval ends, powers
 * of two and ten, the switches of %g and of the fixed form, short
 * decimals, 9-digit values, integers); make check-exhaustive does all 2^32.
 * The scale table is checked against MPFR.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "core/dtype.h"
#include "io/fmt.h"
#include "io/fmt_scale.h"
#include "testutil.h"

struct tally {
	uint64_t checked;
	uint64_t by_digits[10];	/* outputs by number of significant digits */
};

static float from_bits(uint32_t b)
{
	float v;

	memcpy(&v, &b, sizeof v);
	return v;
}

static uint32_t to_bits(float v)
{
	uint32_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

static int sig_digits(const char *s)
{
	int n = 0, seen = 0, zeros = 0;

	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		seen |= *s != '0';
		if (seen) {
			n++;
			zeros = *s == '0' ? zeros + 1 : 0;
		}
	}
	return n - zeros;	/* the padding of "123456790" is not a digit */
}

static void same(uint32_t bits, struct tally *t)
{
	char fast[PE_FMT_BUF], slow[PE_FMT_BUF];
	size_t nf, ns;
	int k;

	nf = pe_fmt_f32(from_bits(bits), fast);
	ns = pe_fmt_f32_slow(from_bits(bits), slow);
	if (nf != ns || strcmp(fast, slow) != 0)
		fail_msg("bits 0x%08x: pe_fmt_f32 wrote '%s' (%zu), the definition '%s' (%zu)",
			 (unsigned)bits, fast, nf, slow, ns);
	if (strlen(fast) != nf || nf > PE_FMT_F32_MAX)
		fail_msg("bits 0x%08x: length %zu for '%s' (at most %d)", (unsigned)bits, nf, fast,
			 PE_FMT_F32_MAX);
	k = sig_digits(fast);
	t->by_digits[k < 10 ? k : 0]++;
	t->checked++;
}

/* bits and its neighbours up to r ulps away in both directions, both signs
 * (wrapping into NaN or across zero is harmless: still a float) */
static void around(uint32_t bits, uint32_t r, struct tally *t)
{
	uint32_t d;

	bits &= 0x7fffffffu;
	for (d = 0; d <= 2 * r; d++) {
		same(bits - r + d, t);
		same((bits - r + d) ^ 0x80000000u, t);
	}
}

static void test_random(void **state)
{
	uint64_t rng = 20261122, i, n = pe_test_quick() ? 20000 : 4000000, r;
	struct tally t = { 0, { 0 } };

	(void)state;
	for (i = 0; i < n; i += 2) {
		r = pe_test_rand(&rng);
		same((uint32_t)r, &t);
		same((uint32_t)(r >> 32), &t);
	}
	print_message("random: %llu bit patterns, %llu with 9 digits, %llu with 8\n",
		      (unsigned long long)t.checked, (unsigned long long)t.by_digits[9],
		      (unsigned long long)t.by_digits[8]);
	/* most floats need 8 digits, about one in 70 needs 9 */
	assert_true(t.by_digits[9] > n / 200);
}

static void test_specials_and_ends(void **state)
{
	const float ends[] = { FLT_MIN, FLT_MAX, FLT_TRUE_MIN, 1.0f, 0.0f };
	struct tally t = { 0, { 0 } };
	uint32_t e, k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ends / sizeof ends[0]; i++)
		around(to_bits(ends[i]), 3, &t);
	/* zeros, infinities, NaNs with assorted payloads */
	same(0x00000000u, &t);
	same(0x80000000u, &t);
	same(0x7f800000u, &t);
	same(0xff800000u, &t);
	for (k = 1; k < 0x800000u; k = k * 3 + 1) {
		same(0x7f800000u | k, &t);
		same(0xff800000u | k, &t);
	}
	/* every power of two, subnormal and normal, +-3 ulps; the ends of the
	 * subnormal range and the switch to normal numbers in full */
	for (k = 0; k < 23; k++)
		around(1u << k, 3, &t);
	for (e = 1; e < 255; e++)
		around(e << 23, 3, &t);
	for (k = 1; k < 4096; k++) {
		same(k, &t);
		same(0x800000u - k, &t);
		same(0x800000u + k, &t);
		same(0x7f800000u - k, &t);
	}
	/* the longest text: 16 fixed digits and a sign, as the float below
	 * -1e16 (-9999999198822400, its neighbours 2^30 away, so 7 digits
	 * read back and 6 do not) */
	{
		char b[PE_FMT_BUF];

		assert_int_equal(pe_fmt_f32(nextafterf(-1e16f, 0.0f), b), PE_FMT_F32_MAX);
		assert_string_equal(b, "-9999999000000000");
	}
	print_message("ends: %llu values\n", (unsigned long long)t.checked);
}

/* The float nearest each power of ten (strtof rounds correctly), +-3 ulps,
 * and wider around the switches: %g's to exponents below 1e-4 and the
 * fixed form's at 1e16. */
static void test_powers_of_ten(void **state)
{
	struct tally t = { 0, { 0 } };
	char s[32];
	int e;

	(void)state;
	for (e = -45; e <= 38; e++) {
		snprintf(s, sizeof s, "1e%d", e);
		around(to_bits(strtof(s, NULL)), 3, &t);
	}
	around(to_bits(1e16f), 5000, &t);
	around(to_bits(1e15f), 2000, &t);
	around(to_bits(1e-4f), 5000, &t);
	around(to_bits(1e-5f), 5000, &t);
	/* 9.99... rounding up to the next power of ten, at every exponent */
	for (e = -45; e <= 38; e++) {
		snprintf(s, sizeof s, "9.9999999e%d", e);
		around(to_bits(strtof(s, NULL)), 20, &t);
	}
	print_message("powers of ten: %llu values\n", (unsigned long long)t.checked);
}

/* Decimals of 1 to 7 significant digits at every exponent, +-2 ulps:
 * short outputs, where the walk goes far down, and their neighbours.  All
 * of 1 to 3 digits (2 with PE_TEST_QUICK), a sample of the longer ones. */
static void test_short_decimals(void **state)
{
	struct tally t = { 0, { 0 } };
	int quick = pe_test_quick(), nshort = quick ? 99 : 999, nlong = quick ? 5 : 400, e, i, p;
	uint64_t rng = 99, k, digits;
	char s[32];
	float v;

	(void)state;
	for (e = -45; e <= 38; e++)
		for (i = 1; i <= nshort + nlong; i++) {
			k = (uint64_t)i;
			if (i > nshort) {
				digits = 4 + pe_test_rand(&rng) % 4;
				k = 1 + pe_test_rand(&rng) % 9;
				while (--digits)
					k = 10 * k + pe_test_rand(&rng) % 10;
			}
			if (k % 10 == 0)
				continue;
			snprintf(s, sizeof s, "%llue%d", (unsigned long long)k, e - 3);
			v = strtof(s, NULL);
			if (v == 0 || isinf(v))
				continue;
			around(to_bits(v), 2, &t);
		}
	for (p = 1; p <= 9; p++)
		if (t.by_digits[p] < (quick ? 1u : 100u))
			fail_msg("only %llu outputs with %d digits",
				 (unsigned long long)t.by_digits[p], p);
	print_message("short decimals: %llu values\n", (unsigned long long)t.checked);
}

/* Integers: every one to 2^17, then a stride through 2^24 and the top of
 * that range in full (fixed form with padding zeros above 10^8). */
static void test_integers(void **state)
{
	struct tally t = { 0, { 0 } };
	uint32_t k, step = pe_test_quick() ? 4099 : 61;

	(void)state;
	for (k = 0; k <= 1u << 17; k++)
		same(to_bits((float)k), &t);
	for (k = 1u << 17; k <= 1u << 24; k += step)
		same(to_bits(-(float)k), &t);
	for (k = (1u << 24) - 20000; k <= 1u << 24; k++)
		same(to_bits((float)k), &t);
	for (k = 0; k <= 64; k++)	/* and beyond 2^24 */
		around(to_bits((float)(1u << 24) * (float)(k + 1)), 2, &t);
	print_message("integers: %llu values\n", (unsigned long long)t.checked);
}

/* Every row of the generated table: e10 puts f = 2^e2 / 10^e10 in
 * [10, 100), and g = ceil(f 2^120), exact when e10 <= 0. */
static void test_scale_table(void **state)
{
	mpfr_t f, ten, g;
	int i, e2, e10;

	(void)state;
	mpfr_inits2(600, f, ten, g, (mpfr_ptr)0);
	for (i = 0; i < 254; i++) {
		e2 = i + 1 - 152;
		e10 = fmt_scale[i].e10;
		mpfr_set_ui(ten, 10, MPFR_RNDN);
		mpfr_pow_ui(ten, ten, (unsigned long)abs(e10), MPFR_RNDN);	/* exact */
		mpfr_set_ui_2exp(f, 1, e2 + 120, MPFR_RNDN);
		if (e10 > 0)
			mpfr_div(f, f, ten, MPFR_RNDU);	/* 600 bits: the ceil below is right */
		else
			mpfr_mul(f, f, ten, MPFR_RNDN);	/* exact */
		if (mpfr_cmp_ui_2exp(f, 10, 120) < 0 || mpfr_cmp_ui_2exp(f, 100, 120) >= 0)
			fail_msg("row %d: 2^%d / 10^%d is outside [10, 100)", i, e2, e10);
		if (e10 <= 0)
			assert_true(mpfr_integer_p(f));
		else
			assert_false(mpfr_integer_p(f));
		mpfr_ceil(f, f);
		mpfr_set_ui(g, (unsigned long)(fmt_scale[i].hi >> 32), MPFR_RNDN);
		mpfr_mul_2ui(g, g, 32, MPFR_RNDN);
		mpfr_add_ui(g, g, (unsigned long)(fmt_scale[i].hi & 0xffffffffu), MPFR_RNDN);
		mpfr_mul_2ui(g, g, 32, MPFR_RNDN);
		mpfr_add_ui(g, g, (unsigned long)(fmt_scale[i].lo >> 32), MPFR_RNDN);
		mpfr_mul_2ui(g, g, 32, MPFR_RNDN);
		mpfr_add_ui(g, g, (unsigned long)(fmt_scale[i].lo & 0xffffffffu), MPFR_RNDN);
		if (mpfr_cmp(f, g) != 0)
			fail_msg("row %d (e2 %d, e10 %d): g is not ceil(2^e2 / 10^e10 * 2^120)",
				 i, e2, e10);
	}
	mpfr_clears(f, ten, g, (mpfr_ptr)0);
}

/* Every float16 and bfloat16: the fast formatter against its definition,
 * the text read back (strtod, rounded once to the type) to the same bits,
 * and at most 5 (float16) or 4 (bfloat16) significant digits. */
static void narrow_all(int half)
{
	char fast[PE_FMT_BUF], slow[PE_FMT_BUF];
	uint32_t u;
	uint64_t bad = 0, n = 0;

	for (u = 0; u < 65536; u++) {
		uint16_t h = (uint16_t)u, back;
		size_t len = half ? pe_fmt_f16(h, fast) : pe_fmt_bf16(h, fast), k, digits = 0;
		double v = half ? (double)pe_from_f16(h) : (double)pe_from_bf16(h);
		int lead = 1;

		(half ? pe_fmt_f16_slow : pe_fmt_bf16_slow)(h, slow);
		n++;
		if (strlen(fast) != len || strcmp(fast, slow) != 0) {
			if (bad++ < 5)
				print_error("%s %#06x: fast '%s', definition '%s'\n",
					    half ? "float16" : "bfloat16", (unsigned)h, fast, slow);
			continue;
		}
		if (isnan(v))
			continue;
		back = half ? pe_to_f16(strtod(fast, NULL)) : pe_to_bf16(strtod(fast, NULL));
		for (k = 0; fast[k] && fast[k] != 'e'; k++) {
			if (fast[k] >= '1' && fast[k] <= '9')
				lead = 0;
			digits += !lead && fast[k] >= '0' && fast[k] <= '9';
		}
		/* trailing zeros of the fixed form are not significant */
		for (k = strcspn(fast, "e"); k > 0 && fast[k - 1] == '0' && !strchr(fast, '.') &&
					     digits > 1; k--)
			digits--;
		if (back != h || digits > (half ? 5u : 4u)) {
			if (bad++ < 5)
				print_error("%s %#06x: '%s' reads back as %#06x, %zu digits\n",
					    half ? "float16" : "bfloat16", (unsigned)h, fast, (unsigned)back,
					    digits);
		}
	}
	assert_int_equal(n, 65536);
	assert_int_equal(bad, 0);
}

static void test_f16_all(void **state)
{
	char buf[PE_FMT_BUF];

	(void)state;
	narrow_all(1);
	/* known texts: the largest, the smallest subnormal and normal, 0.1's neighbour */
	pe_fmt_f16(0x7bff, buf);	/* 65504: 65500 rounds to it (NumPy: 65500.0) */
	assert_string_equal(buf, "65500");
	pe_fmt_f16(0x0001, buf);
	assert_string_equal(buf, "6e-08");
	pe_fmt_f16(0x0400, buf);
	assert_string_equal(buf, "6.104e-05");
	pe_fmt_f16(0x2e66, buf);
	assert_string_equal(buf, "0.1");
	pe_fmt_f16(0xbc00, buf);
	assert_string_equal(buf, "-1");
	pe_fmt_f16(0x8000, buf);
	assert_string_equal(buf, "-0");
	pe_fmt_f16(0xfc00, buf);
	assert_string_equal(buf, "-inf");
}

static void test_bf16_all(void **state)
{
	char buf[PE_FMT_BUF];

	(void)state;
	narrow_all(0);
	pe_fmt_bf16(0x3f80, buf);	/* 1 */
	assert_string_equal(buf, "1");
	pe_fmt_bf16(0x3dcd, buf);	/* 0.10009765625, which 0.1 rounds to */
	assert_string_equal(buf, "0.1");
	pe_fmt_bf16(0x7f7f, buf);	/* the largest */
	assert_string_equal(buf, "3.39e+38");
	pe_fmt_bf16(0x4680, buf);	/* 16384: spaced 128 apart there, 16400 rounds to it */
	assert_string_equal(buf, "16400");
	pe_fmt_bf16(0x4679, buf);	/* 15936, a rounded position */
	assert_string_equal(buf, "15940");
}

static void test_i64(void **state)
{
	const int64_t cases[] = { 0, 1, -1, 9, 10, -10, 99, 100, 2147483647, -2147483648LL,
				  INT64_MAX, INT64_MIN, INT64_MIN + 1, 1000000000000000000LL };
	char buf[PE_FMT_BUF], want[64];
	uint64_t rng = 7, r;
	size_t i, n;
	int64_t v;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0] + 200000; i++) {
		if (i < sizeof cases / sizeof cases[0]) {
			v = cases[i];
		} else {
			r = pe_test_rand(&rng);
			v = (int64_t)((r >> 1) >> (r & 63));	/* all magnitudes */
			if (r & 64)
				v = -v;
		}
		n = pe_fmt_i64(v, buf);
		snprintf(want, sizeof want, "%lld", (long long)v);
		if (strcmp(buf, want) != 0 || n != strlen(want))
			fail_msg("%s written as '%s' (%zu)", want, buf, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_table),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_specials_and_ends),
		cmocka_unit_test(test_powers_of_ten),
		cmocka_unit_test(test_short_decimals),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_f16_all),
		cmocka_unit_test(test_bf16_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
