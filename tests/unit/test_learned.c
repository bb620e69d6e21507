/*
 * The random source (Philox4x32-10 against the Random123 known-answer
 * vectors, the libm-free logarithm against libm) and learned tables
 * (determinism, seed sensitivity, random access, and the distributions
 * within statistical bounds of 5 standard errors).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/learned.h"
#include "core/rng.h"
#include "testutil.h"

static void test_philox_kat(void **state)
{
	/* Random123 kat_vectors, philox4x32_10 */
	const struct {
		uint32_t ctr[4], key[2], out[4];
	} kat[] = {
		{ { 0, 0, 0, 0 }, { 0, 0 }, { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
		{ { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
		  { 0xffffffff, 0xffffffff },
		  { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
		{ { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 },
		  { 0xa4093822, 0x299f31d0 },
		  { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
	};
	uint32_t out[4];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		pe_philox4x32_10(kat[i].ctr, kat[i].key, out);
		assert_memory_equal(out, kat[i].out, sizeof out);
	}
}

static void test_det_log(void **state)
{
	double x = 1e-300, worst = 0;

	(void)state;
	/* a geometric sweep over the whole positive range plus (0, 1) densely */
	for (; x < 1e300; x *= 1.0137) {
		double got = pe_det_log(x), want = log(x);
		double ulp = fabs(got - want) / (nextafter(fabs(want), INFINITY) - fabs(want));

		if (want != 0 && ulp > worst)
			worst = ulp;
	}
	for (x = 1e-6; x < 1.0; x += 1.0 / 65537) {
		double got = pe_det_log(x), want = log(x);

		assert_close(got, want, 0, 4.5e-16);
	}
	assert_true(worst <= 2.0);
	assert_true(pe_det_log(1.0) == 0.0);
}

static void test_uniforms(void **state)
{
	double u[2], sum = 0, sum2 = 0;
	uint32_t i;
	const uint32_t n = 200000;

	(void)state;
	for (i = 0; i < n; i++) {
		pe_rng_uniform2(42, i, 0, 0, 0, u);
		assert_true(u[0] >= 0 && u[0] < 1 && u[1] >= 0 && u[1] < 1);
		sum += u[0] + u[1];
		sum2 += u[0] * u[0] + u[1] * u[1];
	}
	/* mean 1/2 (sd of the mean sqrt(1/12/2n)), variance 1/12 */
	assert_close(sum / (2.0 * n), 0.5, 5 * sqrt(1.0 / 12 / (2.0 * n)), 0);
	assert_close(sum2 / (2.0 * n) - 0.25, 1.0 / 12, 5 * sqrt(1.0 / 180 / (2.0 * n)), 0);
}

/* Fill a learned table; malloc'd rows x dim. */
static float *learned(struct pe_learned *l)
{
	struct pe_error err;
	float *t;

	assert_int_equal(pe_learned_init(l, &err), 0);
	t = malloc((size_t)l->rows * (size_t)l->dim * sizeof *t);
	assert_non_null(t);
	assert_int_equal(pe_learned_fill(l, 0, (size_t)l->rows, t, &err), 0);
	return t;
}

static struct pe_learned base(enum pe_init init, double std, uint64_t seed)
{
	struct pe_learned l;

	memset(&l, 0, sizeof l);
	l.init = init;
	l.std = std;
	l.seed = seed;
	l.positions = 400;
	l.dim = 500;
	l.padding_idx = -1;
	return l;
}

struct moments {
	double mean, sd, maxabs, within1;
};

static struct moments moments_of(const float *v, size_t n, double sigma)
{
	struct moments m = { 0, 0, 0, 0 };
	double s = 0, s2 = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = (double)v[i];

		s += x;
		s2 += x * x;
		if (fabs(x) > m.maxabs)
			m.maxabs = fabs(x);
		if (fabs(x) < sigma)
			m.within1 += 1;
	}
	m.mean = s / (double)n;
	m.sd = sqrt(s2 / (double)n - m.mean * m.mean);
	m.within1 /= (double)n;
	return m;
}

static void test_normal_distribution(void **state)
{
	struct pe_learned l = base(PE_INIT_NORMAL, 0.02, 1);
	float *t = learned(&l);
	size_t n = 400 * 500;
	struct moments m = moments_of(t, n, 0.02);

	(void)state;
	assert_close(m.mean, 0, 5 * 0.02 / sqrt((double)n), 0);
	assert_close(m.sd, 0.02, 5 * 0.02 / sqrt(2.0 * (double)n), 0);
	/* P(|z| < 1) = 0.682689 */
	assert_close(m.within1, 0.682689, 5 * sqrt(0.682689 * 0.317311 / (double)n), 0);
	/* a normal sample this size reaches beyond 4 sigma */
	assert_true(m.maxabs > 4 * 0.02);
	free(t);
}

static void test_trunc_normal_distribution(void **state)
{
	struct pe_learned l = base(PE_INIT_TRUNC_NORMAL, 0.02, 2);
	float *t = learned(&l);
	size_t n = 400 * 500;
	struct moments m = moments_of(t, n, 0.02);
	/* standard normal truncated to [-2, 2]: variance 1 - 4 phi(2) / (2 Phi(2) - 1) */
	double phi2 = exp(-2.0) / sqrt(2 * 3.14159265358979323846), mass = erf(2 / sqrt(2.0));
	double sd = 0.02 * sqrt(1 - 4 * phi2 / mass);

	(void)state;
	assert_true(m.maxabs <= 0.04);
	assert_close(m.mean, 0, 5 * sd / sqrt((double)n), 0);
	assert_close(m.sd, sd, 5 * sd / sqrt(2.0 * (double)n), 0);
	free(t);
}

static void test_uniform_distribution(void **state)
{
	struct pe_learned l = base(PE_INIT_UNIFORM, 0.5, 3);
	float *t = learned(&l);
	size_t n = 400 * 500, i;
	struct moments m = moments_of(t, n, 0.5);
	double a = sqrt(3.0) * 0.5;

	(void)state;
	for (i = 0; i < n; i++)
		assert_true((double)t[i] >= -a && (double)t[i] <= a);
	assert_close(m.mean, 0, 5 * 0.5 / sqrt((double)n), 0);
	/* the sd of a uniform's sample sd: sigma * sqrt(0.8 / (4n)) (kurtosis 1.8) */
	assert_close(m.sd, 0.5, 5 * 0.5 * sqrt(0.8 / (4.0 * (double)n)), 0);
	/* P(|x| < sigma) = 1/sqrt(3) */
	assert_close(m.within1, 1 / sqrt(3.0), 5 * sqrt(0.25 / (double)n), 0);
	free(t);
}

static void test_determinism_and_random_access(void **state)
{
	struct pe_learned l = base(PE_INIT_NORMAL, 0.02, 7);
	float *a = learned(&l), *b = learned(&l), part[30 * 500];
	struct pe_learned other = base(PE_INIT_NORMAL, 0.02, 8);
	float *c = learned(&other);
	size_t same = 0, i;

	(void)state;
	assert_memory_equal(a, b, 400 * 500 * sizeof *a);
	/* rows 100..129 alone equal the same rows of the whole table */
	assert_int_equal(pe_learned_fill(&l, 100, 30, part, NULL), 0);
	assert_memory_equal(part, a + 100 * 500, sizeof part);
	for (i = 0; i < 400 * 500; i++)
		same += a[i] == c[i];
	assert_true(same < 10);
	/* neighbouring cells are not correlated: lag-1 correlation near 0 */
	{
		double s = 0;

		for (i = 0; i + 1 < 400 * 500; i++)
			s += (double)a[i] * (double)a[i + 1];
		assert_close(s / (400.0 * 500.0) / (0.02 * 0.02), 0, 5 / sqrt(400.0 * 500.0), 0);
	}
	free(a);
	free(b);
	free(c);
}

/* The vector-lane runs give pe_rng_normal's bits: runs of every length up
 * to PE_RNG_RUN, columns starting anywhere (up to 2^32 - n), rows past
 * 2^32, seeds with both halves set, truncation on and off. */
static void test_normal_run_is_scalar(void **state)
{
	static const uint64_t seeds[] = { 0, 1, 0x0123456789abcdefu, UINT64_MAX };
	static const uint64_t rows[] = { 0, 7, 1000003, (uint64_t)1 << 32 | 5, UINT64_MAX };
	static const uint32_t cols[] = { 0, 1, 63, 4096, UINT32_MAX - PE_RNG_RUN };
	double z[PE_RNG_RUN], want;
	size_t si, ri, ci, n, i, checked = 0;
	int t;

	(void)state;
	for (si = 0; si < sizeof seeds / sizeof seeds[0]; si++)
		for (ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
			for (ci = 0; ci < sizeof cols / sizeof cols[0]; ci++)
				for (t = 0; t < 2; t++)
					for (n = 1; n <= PE_RNG_RUN; n += n < 70 ? 1 : 37) {
						pe_rng_normal_run(seeds[si], rows[ri], cols[ci], n,
								  t ? 2.0 : 0.0, z);
						for (i = 0; i < n; i++) {
							want = pe_rng_normal(seeds[si], rows[ri],
									     cols[ci] + (uint32_t)i,
									     t ? 2.0 : 0.0);
							if (memcmp(&z[i], &want, sizeof want) != 0)
								fail_msg("seed %zu row %zu col %u + %zu (n %zu, trunc %d): %.17g, scalar %.17g",
									 si, ri, (unsigned)cols[ci], i, n, t,
									 z[i], want);
							checked++;
						}
					}
	print_message("normal runs: %zu values as the scalar sampler\n", checked);
}

/* The same for the uniform runs against pe_rng_uniform2's first value. */
static void test_uniform_run_is_scalar(void **state)
{
	static const uint64_t seeds[] = { 0, 0x0123456789abcdefu, UINT64_MAX };
	static const uint64_t rows[] = { 0, 1000003, (uint64_t)1 << 32 | 5, UINT64_MAX };
	static const uint32_t cols[] = { 0, 63, UINT32_MAX - PE_RNG_RUN };
	double u[PE_RNG_RUN], want[2];
	size_t si, ri, ci, n, i, checked = 0;

	(void)state;
	for (si = 0; si < sizeof seeds / sizeof seeds[0]; si++)
		for (ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
			for (ci = 0; ci < sizeof cols / sizeof cols[0]; ci++)
				for (n = 1; n <= PE_RNG_RUN; n += n < 70 ? 1 : 37) {
					pe_rng_uniform_run(seeds[si], rows[ri], cols[ci], n, u);
					for (i = 0; i < n; i++) {
						pe_rng_uniform2(seeds[si], cols[ci] + (uint32_t)i,
								(uint32_t)rows[ri],
								(uint32_t)(rows[ri] >> 32), 0, want);
						if (memcmp(&u[i], &want[0], sizeof want[0]) != 0)
							fail_msg("seed %zu row %zu col %u + %zu (n %zu): %.17g, scalar %.17g",
								 si, ri, (unsigned)cols[ci], i, n, u[i],
								 want[0]);
						checked++;
					}
				}
	print_message("uniform runs: %zu values as the scalar draw\n", checked);
}

static void test_presets_and_padding(void **state)
{
	static const struct {
		enum pe_init init;
		double ok, bad;
	} lim[] = {
		{ PE_INIT_NORMAL, 2.833e37, 2.834e37 },
		{ PE_INIT_TRUNC_NORMAL, 1.7e38, 1.71e38 },
		{ PE_INIT_UNIFORM, 1.964e38, 1.965e38 },
		{ PE_INIT_UNIFORM, 1.176e-38, 1.175e-38 },
	};
	struct pe_learned l = base(PE_INIT_UNIFORM, 1.0, 0);
	float *t;
	size_t c, k;

	(void)state;
	pe_learned_apply_preset(&l, PE_LEARNED_GPT2);
	assert_int_equal(l.init, PE_INIT_NORMAL);
	assert_close(l.std, 0.02, 0, 0);
	pe_learned_apply_preset(&l, PE_LEARNED_BERT);
	assert_int_equal(l.init, PE_INIT_TRUNC_NORMAL);
	pe_learned_apply_preset(&l, PE_LEARNED_SCALED);
	assert_close(l.std, 1 / sqrt(500.0), 0, 1e-15);
	l.dim = 16;
	pe_learned_apply_preset(&l, PE_LEARNED_FAIRSEQ);
	assert_close(l.std, 0.25, 0, 1e-15);
	l.positions = 5;
	l.padding_idx = 1;
	t = learned(&l);
	assert_int_equal(l.rows, 7);
	for (c = 0; c < 16; c++)
		assert_true(t[16 + c] == 0.0f && t[c] != 0.0f);
	free(t);
	l.std = 0;
	assert_int_equal(pe_learned_init(&l, NULL), -1);
	l.std = NAN;
	assert_int_equal(pe_learned_init(&l, NULL), -1);
	/* float32's range: FLT_MAX / 12.01 for normal, / 2 truncated, / sqrt 3
	 * uniform (the limit the message shows passes, the next one does not);
	 * at least FLT_MIN */
	for (k = 0; k < sizeof lim / sizeof lim[0]; k++) {
		l.init = lim[k].init;
		l.std = lim[k].ok;
		assert_int_equal(pe_learned_init(&l, NULL), 0);
		l.std = lim[k].bad;
		assert_int_equal(pe_learned_init(&l, NULL), -1);
	}
	assert_int_equal(pe_init_by_name("trunc-normal"), PE_INIT_TRUNC_NORMAL);
	assert_int_equal(pe_init_by_name("cauchy"), -1);
	assert_int_equal(pe_learned_preset_by_name("bert"), PE_LEARNED_BERT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_philox_kat),
		cmocka_unit_test(test_det_log),
		cmocka_unit_test(test_uniforms),
		cmocka_unit_test(test_normal_distribution),
		cmocka_unit_test(test_trunc_normal_distribution),
		cmocka_unit_test(test_uniform_distribution),
		cmocka_unit_test(test_determinism_and_random_access),
		cmocka_unit_test(test_normal_run_is_scalar),
		cmocka_unit_test(test_uniform_run_is_scalar),
		cmocka_unit_test(test_presets_and_padding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
