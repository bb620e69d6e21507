/*
 * core/audit: the narrow-type steps of a rotary table against the same
 * steps done here in GCC's _Float16 arithmetic (correctly rounded: each
 * operation in float, rounded once to half) and the bfloat16 integer
 * formula, with every combination of steps; the research notes' worked
 * numbers (rope-2026 G #7): float16 position 1857's angle 1044.27 becomes
 * 1045 and its cos is 0.715 off, bfloat16 holds position 15962 as 15936;
 * the per-row comparison against its definition.
 */
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "core/audit.h"
#include "core/dtype.h"
#include "core/ulp.h"
#include "testutil.h"

__extension__ typedef _Float16 half;

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static float bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return bits_float((uint32_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16);
}

/* x rounded to 8 bits (bfloat16's precision, its exponents for these
 * magnitudes) by MPFR, in one step from the double */
static float bf16_of_double(double x)
{
	mpfr_t m;
	double r;

	mpfr_init2(m, 8);
	mpfr_set_d(m, x, MPFR_RNDN);
	r = mpfr_get_d(m, MPFR_RNDN);
	mpfr_clear(m);
	return (float)r;
}

/* the value by the steps, done here: d 0 float16, 1 bfloat16; the angle
 * rounded once from the exact product (a double holds a product of two
 * floats exactly) */
static float by_steps(float inv32, double att, int64_t p, int d, unsigned steps, int use_sin)
{
	float inv = inv32, pos = (float)p, ang, v;

	if (steps & PE_AUDIT_INV_FREQ)
		inv = d ? bf16(inv) : (float)(half)inv;
	if (steps & PE_AUDIT_POSITIONS)
		pos = d ? bf16(pos) : (float)(half)pos;
	if (steps & PE_AUDIT_ANGLES)
		ang = d ? bf16_of_double((double)pos * (double)inv)
			: (float)(half)((double)pos * (double)inv);
	else
		ang = pos * inv;
	v = (float)(use_sin ? sin((double)ang) : cos((double)ang));
	if (steps & PE_AUDIT_TABLE) {
		v = d ? bf16(v) : (float)(half)v;
		if (att != 1)
		{
			/* a half product is computed in float: the assignment
			 * rounds it to half (GCC's excess precision) */
			half hv = (half)v * (half)(float)att;

			v = d ? bf16(bf16(v) * bf16((float)att)) : (float)hv;
		}
	} else if (att != 1) {
		v = v * (float)att;
	}
	return v;
}

static void test_steps_against_half_arithmetic(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(3000, 64);
	struct pe_error err = { PE_OK, "" };
	struct pe_rope r;
	float row[64];
	unsigned steps;
	int d, t;
	uint64_t pos;
	size_t j;

	(void)state;
	p.scaling = PE_ROPE_YARN;	/* an attention factor that is not 1 */
	p.factor = 4;
	p.original_max = 1024;
	assert_int_equal(pe_rope_init(&r, &p, &err), 0);
	for (d = 0; d < 2; d++)
		for (steps = 0; steps <= PE_AUDIT_ALL; steps++)
			for (t = 0; t < 2; t++)
				for (pos = 0; pos < 3000; pos += 97) {
					pe_audit_rope_rows(&r, t ? PE_ROPE_SIN : PE_ROPE_COS,
							   d ? PE_STORE_BFLOAT16 : PE_STORE_FLOAT16, steps,
							   pos, 1, row);
					for (j = 0; j < 64; j++) {
						float want = by_steps(r.inv32[j % 32], r.attention,
								      (int64_t)pos, d, steps, t);

						if (row[j] != want)
							fail_msg("d %d steps %u %s pos %llu col %zu: %a, want %a",
								 d, steps, t ? "sin" : "cos",
								 (unsigned long long)pos, j, (double)row[j],
								 (double)want);
					}
				}
	pe_rope_free(&r);
}

static void test_worked_numbers(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(16000, 64);
	struct pe_error err = { PE_OK, "" };
	struct pe_rope r;
	float row[64], ang[64];
	double exact;

	(void)state;
	assert_int_equal(pe_rope_init(&r, &p, &err), 0);
	/* GPT-NeoX #1003: inv_freq[2] = 10^-0.25 = 0.5623413 is 0.5625 in
	 * float16; 1857 x 0.5625 = 1044.5625 rounds to 1045 */
	pe_audit_rope_rows(&r, PE_ROPE_ANGLES, PE_STORE_FLOAT16,
			   PE_AUDIT_INV_FREQ | PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES, 1857, 1, ang);
	assert_true(ang[2] == 1045.0f && ang[34] == 1045.0f);
	exact = 1857.0 * pow(10.0, -0.25);
	assert_close(exact, 1044.2678, 1e-4, 0);
	pe_audit_rope_rows(&r, PE_ROPE_COS, PE_STORE_FLOAT16,
			   PE_AUDIT_INV_FREQ | PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES, 1857, 1, row);
	assert_close(fabs((double)row[2] - cos(exact)), 0.7149, 1e-4, 0);
	/* bfloat16 positions: 15962 is 15936, so column 0 (inv 1) turns by
	 * 15936 */
	pe_audit_rope_rows(&r, PE_ROPE_ANGLES, PE_STORE_BFLOAT16, PE_AUDIT_POSITIONS, 15962, 1, ang);
	assert_true(ang[0] == 15936.0f);
	pe_rope_free(&r);
}

static void test_compare_row(void **state)
{
	const float ex[5] = { 1.0f, 0.5f, 0.0f, -2.0f, 3.0f };
	const float lo[5] = { 1.0f, 0.625f, 1e-3f, -2.0f, 2.75f };
	struct pe_audit_row a;

	(void)state;
	pe_audit_compare_row(ex, lo, 5, &a);
	assert_close(a.max_abs, 0.25, 0, 0);
	assert_int_equal(a.worst_col, 4);
	assert_close(a.sum_abs, 0.125 + (double)1e-3f + 0.25, 0, 1e-15);
	assert_true(isinf(a.max_rel));	/* 1e-3 against an exact 0 */
	assert_int_equal(a.max_ulp, pe_ulp_dist(1e-3f, 0.0f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_against_half_arithmetic),
		cmocka_unit_test(test_worked_numbers),
		cmocka_unit_test(test_compare_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
