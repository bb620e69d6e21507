/*
 * core/ropeinfo and core/qscale: the per-pair facts against closed forms
 * written here (theta^(-2j/R), 2 pi / inv, the yarn correction range of
 * the YaRN paper, llama3's wavelength bands), the worked numbers of the
 * research notes (rope-2026.md A.6, D), and the query scales against
 * their formulas at the positions where they step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/qscale.h"
#include "core/ropeinfo.h"
#include "testutil.h"

#define PI 3.141592653589793

static void init(struct pe_rope *r, struct pe_rope_params *p)
{
	struct pe_error err;

	assert_int_equal(pe_rope_init(r, p, &err), 0);
}

static struct pe_rope_pair *pairs(const struct pe_rope *r, uint64_t context)
{
	struct pe_error err;
	struct pe_rope_pair *q = calloc(r->nfreq, sizeof *q);

	assert_non_null(q);
	assert_int_equal(pe_rope_pairs(r, context, q, &err), 0);
	return q;
}

/* Llama 3.1 8B: 29 kept, 6 blended, 29 divided by 8; the kept and divided
 * ones exactly theta^(-2j/R) and that / 8, the blend's wavelengths before
 * scaling inside [L0/4, L0] */
static void test_llama3_regions(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_rope_pair *q;
	struct pe_rope_span sp[64];
	size_t j, n;

	(void)state;
	pe_rope_defaults(&p);
	p.rotary_dim = 128;
	p.theta = 500000;
	p.scaling = PE_ROPE_LLAMA3;
	p.factor = 8;
	p.original_max = 8192;
	init(&r, &p);
	q = pairs(&r, 8192);
	for (j = 0; j < 64; j++) {
		double inv0 = pow(500000.0, -2.0 * (double)j / 128);
		double wl0 = 2 * PI / inv0;

		assert_int_equal(q[j].col[0], j);
		assert_int_equal(q[j].col[1], j + 64);
		assert_close(q[j].original, inv0, 0, 1e-14);
		assert_close(q[j].wavelength, 2 * PI / q[j].inv_freq, 0, 1e-15);
		assert_close(q[j].rotations, 8192 * q[j].inv_freq / (2 * PI), 0, 1e-15);
		assert_close(q[j].scale, q[j].original / q[j].inv_freq, 0, 1e-15);
		if (wl0 < 2048) {
			assert_int_equal(q[j].region, PE_REGION_KEPT);
			assert_close(q[j].inv_freq, inv0, 0, 1e-14);
			assert_close(q[j].scale, 1, 0, 1e-14);
		} else if (wl0 > 8192) {
			assert_int_equal(q[j].region, PE_REGION_INTERPOLATED);
			assert_close(q[j].inv_freq, inv0 / 8, 0, 1e-14);
		} else {
			/* s = (L0 / wl - 1) / 3: inv0 ((1 - s) / 8 + s) */
			double s = (8192 / wl0 - 1) / 3;

			assert_int_equal(q[j].region, PE_REGION_RAMPED);
			assert_close(q[j].inv_freq, inv0 * ((1 - s) / 8 + s), 0, 1e-13);
		}
	}
	assert_close(q[29].scale, 1.2074839, 0, 1e-7);	/* llama.cpp's rope_freqs */
	assert_close(q[34].scale, 5.257327, 0, 1e-6);
	n = pe_rope_spans(&r, sp);
	assert_int_equal(n, 3);
	assert_int_equal(sp[0].region, PE_REGION_KEPT);
	assert_int_equal(sp[0].last, 28);
	assert_int_equal(sp[1].region, PE_REGION_RAMPED);
	assert_int_equal(sp[1].first, 29);
	assert_int_equal(sp[1].last, 34);
	assert_int_equal(sp[2].region, PE_REGION_INTERPOLATED);
	assert_int_equal(sp[2].last, 63);
	free(q);
	pe_rope_free(&r);
}

/* yarn: kept up to floor(cd(32)), interpolated from ceil(cd(1)), with
 * cd(b) = R ln(L0 / (2 pi b)) / (2 ln theta); a pair at low itself has ramp
 * 0 (kept), at high ramp 1 */
static void test_yarn_regions(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_rope_pair *q;
	double lo = floor(128 * log(4096 / (32 * 2 * PI)) / (2 * log(10000.0)));
	double hi = ceil(128 * log(4096 / (1 * 2 * PI)) / (2 * log(10000.0)));
	size_t j;

	(void)state;
	assert_true(lo == 20 && hi == 46);	/* the notes' worked example */
	pe_rope_defaults(&p);
	p.rotary_dim = 128;
	p.scaling = PE_ROPE_YARN;
	p.factor = 4;
	p.original_max = 4096;
	init(&r, &p);
	q = pairs(&r, 4096);
	for (j = 0; j < 64; j++) {
		double t = ((double)j - lo) / (hi - lo), inv0 = pow(10000.0, -2.0 * (double)j / 128);

		t = t < 0 ? 0 : t > 1 ? 1 : t;
		assert_int_equal(q[j].region, t == 0 ? PE_REGION_KEPT
					      : t == 1 ? PE_REGION_INTERPOLATED : PE_REGION_RAMPED);
		assert_close(q[j].inv_freq, inv0 * (t / 4 + 1 - t), 0, 1e-13);
	}
	free(q);
	pe_rope_free(&r);
}

/* proportional (Gemma 4 full layers): 64 of 256 pairs turn, pair j at
 * columns j and j + 256, the rest unrotated: no wavelength, no scale */
static void test_proportional(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_rope_pair *q;
	size_t j;

	(void)state;
	pe_rope_defaults(&p);
	p.rotary_dim = 512;
	p.theta = 1e6;
	p.scaling = PE_ROPE_PROPORTIONAL;
	p.factor = 1;
	p.rotated = 64;
	init(&r, &p);
	q = pairs(&r, 131072);
	for (j = 0; j < 256; j++) {
		assert_int_equal(q[j].col[1], j + 256);
		if (j < 64) {
			assert_int_equal(q[j].region, PE_REGION_KEPT);
			assert_close(q[j].inv_freq, pow(1e6, -2.0 * (double)j / 512), 0, 1e-14);
		} else {
			assert_int_equal(q[j].region, PE_REGION_UNROTATED);
			assert_true(q[j].inv_freq == 0 && isinf(q[j].wavelength) && isnan(q[j].scale) &&
				    q[j].rotations == 0);
		}
	}
	free(q);
	pe_rope_free(&r);
}

/* interleaved pairs, longrope's factor sets on both sides of L0 */
static void test_longrope_interleaved(void **state)
{
	double sf[4] = { 1, 1.5, 2, 3 }, lf[4] = { 2, 4, 8, 16 };
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_rope_pair *q;
	size_t j;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		pe_rope_defaults(&p);
		p.rotary_dim = 8;
		p.layout = PE_LAYOUT_INTERLEAVED;
		p.scaling = PE_ROPE_LONGROPE;
		p.factor = 32;
		p.original_max = 4096;
		p.short_factor = sf;
		p.long_factor = lf;
		p.nshort = p.nlong = 4;
		p.seq_len = pass ? 4097 : 4096;
		init(&r, &p);
		q = pairs(&r, 4096);
		for (j = 0; j < 4; j++) {
			assert_int_equal(q[j].col[0], 2 * j);
			assert_int_equal(q[j].col[1], 2 * j + 1);
			assert_int_equal(q[j].region, pass ? PE_REGION_LONG : PE_REGION_SHORT);
			assert_close(q[j].scale, pass ? lf[j] : sf[j], 0, 1e-15);
		}
		free(q);
		pe_rope_free(&r);
	}
}

/* dynamic: theta ((f L / L0) - (f - 1))^(R/(R-2)) beyond L0, theta itself
 * up to it; 30527.74 at 8192 tokens (rope-2026.md A.5) */
static void test_dynamic_theta(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_error err;
	double th;

	(void)state;
	pe_rope_defaults(&p);
	p.rotary_dim = 128;
	p.scaling = PE_ROPE_DYNAMIC;
	p.factor = 2;
	p.original_max = 4096;
	p.seq_len = 100;
	init(&r, &p);
	assert_int_equal(r.region[5], PE_REGION_KEPT);
	assert_int_equal(pe_rope_dynamic_theta(&r, 4096, &th, &err), 0);
	assert_true(th == 10000);
	assert_int_equal(pe_rope_dynamic_theta(&r, 8192, &th, &err), 0);
	assert_close(th, 10000 * pow(3, 128.0 / 126), 0, 1e-15);
	assert_close(th, 30527.74, 0.005, 0);
	pe_rope_free(&r);
	p.seq_len = 8192;
	init(&r, &p);
	assert_int_equal(r.region[5], PE_REGION_RESCALED);
	pe_rope_free(&r);
}

/* yarn's g(s, m): 1 up to s = 1, else 0.1 m ln s + 1; DeepSeek-V3's
 * softmax scale 192^-0.5 g(40, 1)^2 = 0.1352338 (rope-2026.md A.6) */
static void test_yarn_mscale(void **state)
{
	(void)state;
	assert_true(pe_rope_yarn_mscale(1, 5) == 1);
	assert_true(pe_rope_yarn_mscale(0.5, 5) == 1);
	assert_close(pe_rope_yarn_mscale(40, 0.707), 0.0707 * log(40) + 1, 0, 1e-15);
	assert_close(pow(pe_rope_yarn_mscale(40, 1), 2) / sqrt(192), 0.1352338, 0, 4e-7);
}

/* the query scales where they step (rope-2026.md D) */
static void test_qscale(void **state)
{
	(void)state;
	assert_true(pe_qscale_llama4(0, 8192, 0.1) == 1);
	assert_true(pe_qscale_llama4(8190, 8192, 0.1) == 1);
	assert_close(pe_qscale_llama4(8191, 8192, 0.1), 1 + 0.1 * log(2), 0, 1e-15);
	assert_close(pe_qscale_llama4(8191, 8192, 0.1), 1.0693147, 0, 1e-7);
	assert_close(pe_qscale_llama4(16383, 8192, 0.1), 1.1098612, 0, 1e-7);
	assert_close(pe_qscale_llama4(100000, 8192, 0.1), 1.2564949, 0, 1e-7);
	assert_close(pe_qscale_llama4(1000000, 8192, 0.1), 1.4812184, 0, 1e-7);
	assert_true(pe_qscale_beta(16383, 0.1, 16384) == 1);
	assert_close(pe_qscale_beta(16384, 0.1, 16384), 1.0693147, 0, 1e-7);
	assert_close(pe_qscale_beta(32768, 0.1, 16384), 1.1098612, 0, 1e-7);
	assert_close(pe_qscale_beta(100000, 0.1, 16384), 1.1945910, 0, 1e-7);
	assert_close(pe_qscale_beta(8192, 0.1, 8192), 1.0693147, 0, 1e-7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama3_regions),
		cmocka_unit_test(test_yarn_regions),
		cmocka_unit_test(test_proportional),
		cmocka_unit_test(test_longrope_interleaved),
		cmocka_unit_test(test_dynamic_theta),
		cmocka_unit_test(test_yarn_mscale),
		cmocka_unit_test(test_qscale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
