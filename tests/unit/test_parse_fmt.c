/* Strict number parsing (core/parse.h) and number text (io/fmt.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "core/rng.h"
#include "io/fmt.h"
#include "testutil.h"

static void test_u64(void **state)
{
	const struct {
		const char *s;
		int ok;
		uint64_t v;
	} cases[] = {
		{ "0", 1, 0 },	 { "512", 1, 512 }, { "007", 1, 7 },
		{ "18446744073709551615", 1, UINT64_MAX },
		{ "18446744073709551616", 0, 0 }, { "", 0, 0 }, { "12x", 0, 0 },
		{ "-3", 0, 0 },	 { "+3", 0, 0 },    { "1e99", 0, 0 },
		{ " 5", 0, 0 },	 { "5 ", 0, 0 },    { "0x10", 0, 0 },
		{ "3.0", 0, 0 },
	};
	size_t i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = 12345;
		if (cases[i].ok) {
			assert_int_equal(pe_parse_u64(cases[i].s, 0, UINT64_MAX, &v), 0);
			assert_true(v == cases[i].v);
		} else {
			assert_int_equal(pe_parse_u64(cases[i].s, 0, UINT64_MAX, &v), -1);
			assert_true(v == 12345);
		}
	}
	assert_int_equal(pe_parse_u64("0", 1, 10, &v), -1);
	assert_int_equal(pe_parse_u64("11", 1, 10, &v), -1);
	assert_int_equal(pe_parse_u64(NULL, 0, 10, &v), -1);
}

static void test_i64(void **state)
{
	int64_t v;

	(void)state;
	assert_int_equal(pe_parse_i64("-5", -10, 10, &v), 0);
	assert_true(v == -5);
	assert_int_equal(pe_parse_i64("-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(pe_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &v), -1);
	assert_int_equal(pe_parse_i64("-9223372036854775809", INT64_MIN, INT64_MAX, &v), -1);
	assert_int_equal(pe_parse_i64("-", -10, 10, &v), -1);
	assert_int_equal(pe_parse_i64("--1", -10, 10, &v), -1);
	assert_int_equal(pe_parse_i64("-11", -10, 10, &v), -1);
}

static void test_double(void **state)
{
	/* subnormals are doubles (strtod's ERANGE for them is no error; the
	 * bits are Python's float.hex of the same literal); a
	 * zero literal is zero however small its exponent */
	const char *good[] = { "1", "1e4", "10000", "0.5", ".5", "-2.5", "+3", "1E-3", "0",
			       "1e-308", "-2.5e-320", "4.9406564584124654e-324", "2.2250738585072014e-308",
			       "0e-999", "0.000e-400", "-0", "3e-324" };
	const double want[] = { 1, 1e4, 1e4, 0.5, 0.5, -2.5, 3, 1e-3, 0,
				0x0.730d67819e8d2p-1022, -0x0.00000000013c4p-1022, 0x0.0000000000001p-1022,
				0x1p-1022, 0, 0, 0, 0x0.0000000000001p-1022 };
	const char *bad[] = { "", "nan", "NaN", "inf", "-inf", "infinity", "0x1p3", "1e999",
			      "1,5", " 1", "1 ", "e5", ".", "-", "1e", "abc", "1e-400", "-2e-324",
			      "0.00001e-320" };
	size_t i;
	double v;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		if (pe_parse_double(good[i], &v) != 0)
			fail_msg("'%s' was refused", good[i]);
		if (v != want[i])
			fail_msg("'%s' is %a, want %a", good[i], v, want[i]);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (pe_parse_double(bad[i], &v) != -1)
			fail_msg("'%s' was accepted", bad[i]);
}

static void test_range_dims_list(void **state)
{
	uint64_t a, b, h, w;
	double *v;
	size_t n;

	(void)state;
	assert_int_equal(pe_parse_range("2:5", 10, &a, &b), 0);
	assert_true(a == 2 && b == 5);
	assert_int_equal(pe_parse_range(":5", 10, &a, &b), 0);
	assert_true(a == 0 && b == 5);
	assert_int_equal(pe_parse_range("3:", 10, &a, &b), 0);
	assert_true(a == 3 && b == 10);
	assert_int_equal(pe_parse_range("0:10", 10, &a, &b), 0);
	assert_int_equal(pe_parse_range("0:11", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range("5:5", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range("6:5", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range(":", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range("5", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range("1:2:3", 10, &a, &b), -1);
	assert_int_equal(pe_parse_range("-1:2", 10, &a, &b), -1);
	assert_int_equal(pe_parse_dims2("14x16", 100, &h, &w), 0);
	assert_true(h == 14 && w == 16);
	assert_int_equal(pe_parse_dims2("0x16", 100, &h, &w), -1);
	assert_int_equal(pe_parse_dims2("14x", 100, &h, &w), -1);
	assert_int_equal(pe_parse_dims2("14X16", 100, &h, &w), -1);
	assert_int_equal(pe_parse_dims2("101x1", 100, &h, &w), -1);
	assert_int_equal(pe_parse_double_list("1,2.5,-3e2", 8, &v, &n), 0);
	assert_true(n == 3 && v[0] == 1 && v[1] == 2.5 && v[2] == -300);
	free(v);
	assert_int_equal(pe_parse_double_list("1,,2", 8, &v, &n), -1);
	assert_int_equal(pe_parse_double_list("1,2,", 8, &v, &n), -1);
	assert_int_equal(pe_parse_double_list("1,nan", 8, &v, &n), -1);
	assert_int_equal(pe_parse_double_list("1,2,3", 2, &v, &n), -1);
	assert_int_equal(pe_parse_double_list("", 2, &v, &n), -1);
}

static void test_fmt_f32_known(void **state)
{
	const struct {
		float v;
		const char *s;
	} cases[] = {
		{ 0.1f, "0.1" },	 { 1.0f, "1" },	     { 0.0f, "0" },	 { -0.0f, "-0" },
		{ 0.5403023f, "0.5403023" }, { 1e-5f, "1e-05" }, { 16777216.0f, "16777216" },
		{ 3.4028235e38f, "3.4028235e+38" }, { 1.4e-45f, "1e-45" },
		{ -2.5f, "-2.5" },	 { 0.0001f, "0.0001" },
		{ 10.0f, "10" },	 { 100000.0f, "100000" },   { -1200.0f, "-1200" },
		{ 1e15f, "1000000000000000" }, { 1e16f, "1e+16" },
		{ 123456789.0f, "123456790" }, { -921007616.0f, "-921007600" },
	};
	char buf[PE_FMT_BUF];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pe_fmt_f32(cases[i].v, buf);
		assert_string_equal(buf, cases[i].s);
	}
	pe_fmt_f32(NAN, buf);
	assert_string_equal(buf, "nan");
	pe_fmt_f32(-INFINITY, buf);
	assert_string_equal(buf, "-inf");
}

/* Random bit patterns: the text reads back to the same bits, and one digit
 * fewer would not (shortest). */
static void test_fmt_f32_roundtrip_shortest(void **state)
{
	char buf[PE_FMT_BUF], shorter[64];
	uint32_t i, bits, ctr[4] = { 0, 0, 0, 0 }, key[2] = { 9, 9 }, out[4];
	float v, back;
	int digits;

	(void)state;
	for (i = 0; i < 200000; i++) {
		ctr[0] = i;
		pe_philox4x32_10(ctr, key, out);
		bits = out[0];
		memcpy(&v, &bits, 4);
		if (isnan(v) || isinf(v))
			continue;
		pe_fmt_f32(v, buf);
		back = strtof(buf, NULL);
		assert_memory_equal(&back, &v, 4);
		/* count significant digits of %g output and try one fewer */
		{
			const char *p = buf;
			int seen = 0;

			digits = 0;
			int zeros = 0;

			for (; *p && *p != 'e'; p++) {
				if (*p >= '1' && *p <= '9')
					seen = 1;
				if (seen && *p >= '0' && *p <= '9')
					digits++;
				/* padding zeros of a fixed-form integer are not digits */
				zeros = *p == '0' ? zeros + 1 : 0;
			}
			if (!strchr(buf, '.') && !strchr(buf, 'e'))
				digits -= zeros;
		}
		if (v != 0 && digits > 1) {
			snprintf(shorter, sizeof shorter, "%.*e", digits - 2, (double)v);
			back = strtof(shorter, NULL);
			if (back == v)
				fail_msg("%s is not shortest: %s also reads back", buf, shorter);
		}
	}
}

static void test_fmt_f64_and_int(void **state)
{
	char buf[PE_FMT_BUF];

	(void)state;
	pe_fmt_f64(0.1, buf);
	assert_string_equal(buf, "0.1");
	pe_fmt_f64(1.0 / 3, buf);
	assert_true(strtod(buf, NULL) == 1.0 / 3);
	pe_fmt_f64(10000.0, buf);
	assert_string_equal(buf, "10000");
	pe_fmt_i64(INT64_MIN, buf);
	assert_string_equal(buf, "-9223372036854775808");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_range_dims_list),
		cmocka_unit_test(test_fmt_f32_known),
		cmocka_unit_test(test_fmt_f32_roundtrip_shortest),
		cmocka_unit_test(test_fmt_f64_and_int),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
