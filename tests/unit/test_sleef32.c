/*
 * The float32 emulation (core/sleef32.h, core/torch32.h) against the real
 * thing: Debian's libsleef vector functions (tests/unit/sleef_ref.h) and the
 * C library's powf, sinf, cosf and pow.  A sample of every float32 here (inputs spaced by a
 * prime stride over all 2^32 patterns, and the angles of real tables);
 * make check-exhaustive runs all of them (tests/exhaustive/sleef32.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/sleef32.h"
#include "core/torch32.h"
#include "sleef_ref.h"
#include "testutil.h"

static const char *const fn_names[] = { "sin", "cos", "exp", "pow", "log", "log1p" };

/* every fn over vectors of n lanes: x[k] from the pattern stream, y[k] an
 * exponent; returns the mismatches (the first few printed) */
static uint64_t check_vectors(enum ref_fn fn, size_t n, const float *x, const float *y,
			      uint64_t *count)
{
	float out[16];
	uint64_t bad = 0;
	size_t k;

	if (n == 8)
		ref_avx2(fn, x, y, out);
	else
		ref_avx512(fn, x, y, out);
	for (k = 0; k < n; k++) {
		float e = ref_emulate(fn, x, n, k, y[k]);

		if (!ref_same(out[k], e) && bad++ < 3)
			print_message("%s%zu(%a%s%a): libsleef %a, emulation %a\n", fn_names[fn], n,
				      (double)x[k], fn == REF_POW ? ", " : "",
				      fn == REF_POW ? (double)y[k] : 0.0, (double)out[k], (double)e);
	}
	*count += n;
	return bad;
}

/* inputs spaced by a stride over all patterns, 16 at a time, each vector
 * also seen by the 8-lane variant as two halves */
static void sweep(uint32_t stride, uint64_t *n, uint64_t *bad)
{
	float x[16], y[16], ax[16];
	uint64_t u;
	size_t k;
	int f, has2 = ref_has_avx2(), has512 = ref_has_avx512();

	for (u = 0; u < ((uint64_t)1 << 32); u += 16 * (uint64_t)stride) {
		for (k = 0; k < 16; k++) {
			uint32_t w = (uint32_t)(u + k * stride);

			memcpy(&x[k], &w, sizeof w);
			ax[k] = fabsf(x[k]);
			/* exponents as rope's arange(0, R, 2) / R, and beyond */
			y[k] = (float)((u / 16 + k) % 4099) / 1024.0f - 2.0f;
		}
		for (f = REF_SIN; f < REF_NFN; f++) {
			const float *in = f == REF_POW ? ax : x;

			if (has512)
				bad[f] += check_vectors((enum ref_fn)f, 16, in, y, &n[f]);
			if (has2) {
				bad[f] += check_vectors((enum ref_fn)f, 8, in, y, &n[f]);
				bad[f] += check_vectors((enum ref_fn)f, 8, in + 8, y + 8, &n[f]);
			}
		}
	}
}

static void test_sample_of_all_floats(void **state)
{
	uint64_t n[REF_NFN] = { 0 }, bad[REF_NFN] = { 0 };
	int f;

	(void)state;
	if (!ref_has_avx2()) {
		print_message("no AVX2 on this CPU: libsleef's vector functions cannot run here; "
			      "tests/cli/t_isa.sh compares the tables across CPUs\n");
		skip();
	}
	/* 4099: a prime, about a million vectors; PE_TEST_QUICK a tenth */
	sweep(pe_test_quick() ? 40961 : 4099, n, bad);
	for (f = REF_SIN; f < REF_NFN; f++) {
		print_message("%s: %llu lanes, %llu differ\n", fn_names[f], (unsigned long long)n[f],
			      (unsigned long long)bad[f]);
		assert_true(n[f] > 0);
		assert_int_equal(bad[f], 0);
	}
}

/* the angles of rope tables (inv = theta^(-2j/R), p inv rounded to float)
 * in the vectors torch makes of a row: both reductions, the lanes mixed */
static void test_rope_angles(void **state)
{
	static const double thetas[] = { 10000, 500000, 1e6 };
	uint64_t n[4] = { 0 }, bad = 0;
	float row[128], y[16] = { 0 };
	size_t t, j, v;
	int p;

	(void)state;
	if (!ref_has_avx2())
		skip();
	for (t = 0; t < 3; t++)
		for (p = 0; p < 20000; p += 7) {
			for (j = 0; j < 64; j++)
				row[j] = row[j + 64] = (float)p * (1.0f / (float)pow(thetas[t], j / 64.0));
			for (v = 0; v < 128; v += 16) {
				if (ref_has_avx512()) {
					bad += check_vectors(REF_SIN, 16, row + v, y, &n[0]);
					bad += check_vectors(REF_COS, 16, row + v, y, &n[1]);
				}
				bad += check_vectors(REF_SIN, 8, row + v, y, &n[0]);
				bad += check_vectors(REF_COS, 8, row + v + 8, y, &n[1]);
			}
		}
	print_message("rope angles: %llu sin, %llu cos lanes, %llu differ\n",
		      (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)bad);
	assert_int_equal(bad, 0);
}

/* the query scales' arguments (core/qscale.h): log of 1 + k and log1p of
 * k for every integer k below 2^22, as torch makes them of position ids */
static void test_log_integers(void **state)
{
	float x[16], y[16] = { 0 }, one[16];
	uint64_t n[REF_NFN] = { 0 }, bad = 0;
	uint32_t k0;
	size_t k;

	(void)state;
	if (!ref_has_avx2())
		skip();
	for (k0 = 0; k0 < (1u << 22); k0 += 16) {
		for (k = 0; k < 16; k++) {
			x[k] = (float)(k0 + k);
			one[k] = x[k] + 1.0f;
		}
		if (ref_has_avx512()) {
			bad += check_vectors(REF_LOG, 16, one, y, &n[REF_LOG]);
			bad += check_vectors(REF_LOG1P, 16, x, y, &n[REF_LOG1P]);
		}
		bad += check_vectors(REF_LOG, 8, one + 8, y, &n[REF_LOG]);
		bad += check_vectors(REF_LOG1P, 8, x, y, &n[REF_LOG1P]);
	}
	print_message("integers: %llu log, %llu log1p lanes, %llu differ\n",
		      (unsigned long long)n[REF_LOG], (unsigned long long)n[REF_LOG1P],
		      (unsigned long long)bad);
	assert_int_equal(bad, 0);
}

/* edge cases: zeros, subnormals, the reduction thresholds, huge, inf, NaN */
static void test_edges(void **state)
{
	static const float xs[] = { 0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f, 0.7f,
				    0.69999999f, 1.0f, 124.99999f, 125.0f, -125.0f, 125.00001f,
				    38999.996f, 39000.0f, 1e10f, -1e10f, 3.4028235e38f,
				    -3.4028235e38f, INFINITY, -INFINITY, NAN, 88.7f, -103.9f,
				    -104.0f, 100.0f, 100.00001f, 1.5f, 0.75f, 2.0f, 65504.0f };
	float x[16], y[16], out[16];
	uint64_t n = 0, bad = 0;
	size_t i, k, nx = sizeof xs / sizeof xs[0];
	int f;

	(void)state;
	if (!ref_has_avx2())
		skip();
	for (i = 0; i < nx; i++) {
		for (k = 0; k < 16; k++) {
			x[k] = xs[(i + k) % nx];
			y[k] = xs[(i + 3 * k + 1) % nx];
		}
		for (f = REF_SIN; f < REF_NFN; f++) {
			if (ref_has_avx512())
				bad += check_vectors((enum ref_fn)f, 16, x, y, &n);
			bad += check_vectors((enum ref_fn)f, 8, x, y, &n);
		}
		/* a lane alone (the others zero): Cody-Waite when it is small */
		memset(x + 1, 0, 15 * sizeof *x);
		for (k = 1; k < 16; k++)
			y[k] = 1.0f;
		ref_avx2(REF_COS, x, y, out);
		bad += !ref_same(out[0], pe_sleef_cosf(x[0], pe_sleef_trig_ph(x, 1)));
	}
	assert_int_equal(bad, 0);
}

/* glibc's powf, the FMA build (what PyTorch's scalar tail runs on CPUs
 * with AVX2): the emulation against this C library's powf */
static void test_glibc_powf(void **state)
{
	uint64_t u, n = 0, bad = 0;
	int k;

	(void)state;
#if !defined(__GLIBC__)
	skip();
#endif
	if (!ref_has_avx2()) {
		print_message("no FMA: this glibc runs its other powf build\n");
		skip();
	}
	for (u = 0; u < ((uint64_t)1 << 32); u += pe_test_quick() ? 40009 : 4001) {
		uint32_t w = (uint32_t)u;
		float x;

		memcpy(&x, &w, sizeof w);
		for (k = 0; k < 4; k++) {
			float y = k == 0   ? (float)((u >> 3) % 4096) / 4096.0f
				  : k == 1 ? -(float)((u >> 5) % 777) / 333.0f
				  : k == 2 ? (float)(int)((u >> 7) % 41) - 20.0f
					   : (float)((u >> 11) % 100000) / 7.0f;
			float a = powf(x, y), b = pe_glibc_powf(x, y);

			n++;
			if (!ref_same(a, b) && bad++ < 3)
				print_message("powf(%a, %a): libm %a, emulation %a\n", (double)x,
					      (double)y, (double)a, (double)b);
		}
	}
	print_message("glibc powf: %llu inputs, %llu differ\n", (unsigned long long)n,
		      (unsigned long long)bad);
	assert_int_equal(bad, 0);
}

/* sinf and cosf of x by libm and the emulation; 1 when they differ */
static int sincos_differ(float x, uint64_t *bad)
{
	float s = sinf(x), c = cosf(x), es = pe_glibc_sinf(x), ec = pe_glibc_cosf(x);

	if (ref_same(s, es) && ref_same(c, ec))
		return 0;
	if ((*bad)++ < 3)
		print_message("%a: libm %a %a, emulation %a %a\n", (double)x, (double)s, (double)c,
			      (double)es, (double)ec);
	return 1;
}

/* glibc's sinf and cosf, the FMA build (torch.polar's cos and sin on CPUs
 * with AVX2): the emulation against this C library's, on a sample of all
 * patterns, the angles of rope tables, and the edges of each path */
static void test_glibc_sincosf(void **state)
{
	static const float edges[] = {
		0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f, 0x1p-12f, -0x1p-12f, 0x1.fffffep-13f,
		0.74999994f, 0.75f, -0.75f, 0.7853982f, 1.0f, 1.5707964f, 3.1415927f, 119.99999f,
		120.0f, -120.0f, 120.00001f, 1e10f, -1e10f, 3.4028235e38f, -3.4028235e38f,
		INFINITY, -INFINITY, NAN, 0x1p24f, 0x1.921fb6p+24f, 8.5e37f, -2.5e-30f,
	};
	uint64_t u, n = 0, bad = 0;
	size_t i;
	int p, j;

	(void)state;
#if !defined(__GLIBC__)
	skip();
#endif
	if (!ref_has_avx2()) {
		print_message("no FMA: this glibc runs its other sinf/cosf build\n");
		skip();
	}
	for (u = 0; u < ((uint64_t)1 << 32); u += pe_test_quick() ? 40009 : 1009) {
		uint32_t w = (uint32_t)u;
		float x;

		memcpy(&x, &w, sizeof w);
		n += 2;
		sincos_differ(x, &bad);
	}
	for (i = 0; i < sizeof edges / sizeof edges[0]; i++, n += 2)
		sincos_differ(edges[i], &bad);
	/* Llama 4's angles: p inv_j, theta 500000, R 128 */
	for (p = 0; p < 300000; p += 97)
		for (j = 0; j < 64; j++, n += 2)
			sincos_differ((float)p * (1.0f / (float)pow(500000.0, j / 64.0)), &bad);
	print_message("glibc sinf/cosf: %llu values, %llu differ\n", (unsigned long long)n,
		      (unsigned long long)bad);
	assert_int_equal(bad, 0);
}

/* (float)pow(x, R/(R-2)) by libm and the emulation for R = 4 .. 1024 */
static void pow_exp_differ(uint32_t w, uint64_t *n, uint64_t *bad)
{
	float x;
	unsigned R;

	memcpy(&x, &w, sizeof w);
	for (R = 4; R <= 1024; R += R < 16 ? 2 : 126) {
		double e = (double)R / (double)(R - 2);
		float a = (float)pow((double)x, e), b = pe_torch_pow_exp(x, e);

		++*n;
		if (!ref_same(a, b) && (*bad)++ < 3)
			print_message("pow(%a, %a): libm %a, emulation %a\n", (double)x, e, (double)a,
				      (double)b);
	}
}

/* torch.pow(Tensor, Scalar), std::pow(float, double): the emulation against
 * this C library's double pow rounded to float32, for exponents R/(R-2) on a
 * sample of all positive floats and more densely on dynamic's bases
 * (factor L / L0 - (factor - 1), 1 to 2^20); 9 us a value */
static void test_torch_pow_exp(void **state)
{
	uint64_t u, n = 0, bad = 0, step = pe_test_quick() ? 10 : 1;

	(void)state;
	for (u = 0; u < ((uint64_t)1 << 31); u += 1000003 * step)
		pow_exp_differ((uint32_t)u, &n, &bad);
	for (u = 0x3f800000u; u < 0x3f800000u + ((uint64_t)20 << 23); u += 40009 * step)
		pow_exp_differ((uint32_t)u, &n, &bad);
	/* x < 0 (a non-integer power), 0, 1, inf, NaN, beyond float32 */
	assert_true(isnan(pe_torch_pow_exp(-2.0f, 1.5)));
	assert_true(pe_torch_pow_exp(-2.0f, 2.0) == 4.0f);
	assert_true(pe_torch_pow_exp(0.0f, 1.5) == 0.0f);
	assert_true(pe_torch_pow_exp(1.0f, 1e300) == 1.0f);
	assert_true(isinf(pe_torch_pow_exp(INFINITY, 1.5)));
	assert_true(isnan(pe_torch_pow_exp(NAN, 1.5)));
	assert_true(isinf(pe_torch_pow_exp(3e38f, 1.5)));
	assert_true(pe_torch_pow_exp(1e-30f, 1.5) == (float)pow(1e-30, 1.5));
	assert_true(pe_torch_pow_exp(1e-30f, 2000.0) == 0.0f);
	print_message("torch pow(tensor, double): %llu values, %llu differ\n",
		      (unsigned long long)n, (unsigned long long)bad);
	assert_int_equal(bad, 0);
}

/* torch.pow(Scalar, Tensor): SLEEF on whole pairs of vectors, glibc after */
static void test_pow_split(void **state)
{
	struct pe_torch t;
	float e[40], out[40];
	size_t j;

	(void)state;
	pe_torch_defaults(&t);
	for (j = 0; j < 40; j++)
		e[j] = (float)(2 * j) / 80.0f;
	t.cpu = PE_TORCH_AVX512;
	pe_torch_pow_scalar(&t, 10000.0f, e, out, 40);
	for (j = 0; j < 40; j++)
		assert_true(ref_same(out[j], j < 32 ? pe_sleef_powf(10000.0f, e[j])
						: pe_glibc_powf(10000.0f, e[j])));
	t.cpu = PE_TORCH_AVX2;
	pe_torch_pow_scalar(&t, 10000.0f, e, out, 40);
	for (j = 0; j < 40; j++)
		assert_true(ref_same(out[j], j < 32 ? pe_sleef_powf(10000.0f, e[j])
						: pe_glibc_powf(10000.0f, e[j])));
	pe_torch_pow_scalar(&t, 10000.0f, e, out, 15);
	for (j = 0; j < 15; j++)
		assert_true(ref_same(out[j], pe_glibc_powf(10000.0f, e[j])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_of_all_floats),
		cmocka_unit_test(test_rope_angles),
		cmocka_unit_test(test_log_integers),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_glibc_powf),
		cmocka_unit_test(test_glibc_sincosf),
		cmocka_unit_test(test_torch_pow_exp),
		cmocka_unit_test(test_pow_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
