/*
 * RoPE tables against closed forms computed here in long double (tolerance:
 * 1 float32 ulp for the exact mode; test_angle checks every value's
 * correct rounding against MPFR), the exact frequencies against MPFR at
 * 256 bits (to 2^-150), the worked YaRN / llama3 numbers of the research
 * notes (section 3.3), and invariants: cos^2 + sin^2 = attention^2, half vs
 * interleaved is a column permutation, linear scaling = positions / factor.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/rope.h"
#include "core/sleef32.h"
#include "testutil.h"

/* the whole table t of r: malloc'd */
static float *table(struct pe_rope *r, enum pe_rope_table t)
{
	struct pe_error err;
	struct pe_tensor ten;
	float *v;

	assert_int_equal(pe_rope_tensor(r, t, &ten, &err), 0);
	v = malloc((size_t)(ten.rows * ten.cols) * sizeof *v);
	assert_non_null(v);
	assert_int_equal(ten.fill(ten.ctx, 0, (size_t)ten.rows, v, &err), 0);
	return v;
}

static void init_ok(struct pe_rope *r, const struct pe_rope_params *p)
{
	struct pe_error err = { PE_OK, "" };

	if (pe_rope_init(r, p, &err) != 0)
		fail_msg("pe_rope_init: %s", err.msg);
}

/* |exact frequency j of r - want| / want (fr = f + r + r2, core/angle.h) */
static double freq_err(const struct pe_rope *r, size_t j, mpfr_t want)
{
	const struct pe_freq *fr = &r->freq[j];
	mpfr_t t;
	double e;

	mpfr_init2(t, 256);
	mpfr_set_d(t, fr->f, MPFR_RNDN);
	mpfr_add_d(t, t, fr->r, MPFR_RNDN);
	mpfr_add_d(t, t, fr->r2, MPFR_RNDN);
	mpfr_sub(t, t, want, MPFR_RNDN);
	mpfr_div(t, t, want, MPFR_RNDN);
	e = fabs(mpfr_get_d(t, MPFR_RNDN));
	mpfr_clear(t);
	return e;
}

/* r = b^(num / den) */
static void mp_pow(mpfr_t r, double b, long num, long den)
{
	mpfr_t t;

	mpfr_init2(t, 256);
	mpfr_set_d(t, b, MPFR_RNDN);
	mpfr_set_si(r, num, MPFR_RNDN);
	mpfr_div_si(r, r, den, MPFR_RNDN);
	mpfr_pow(r, t, r, MPFR_RNDN);
	mpfr_clear(t);
}

static void test_golden_d4(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(2, 4);
	struct pe_rope r;
	float *c, *s, *inv;

	(void)state;
	init_ok(&r, &p);
	c = table(&r, PE_ROPE_COS);
	s = table(&r, PE_ROPE_SIN);
	inv = table(&r, PE_ROPE_INV_FREQ);
	/* frequencies 1 and 1/100; half layout cat(f, f) */
	assert_true(inv[0] == 1.0f && inv[1] == 0.01f);
	assert_true(c[0] == 1.0f && c[3] == 1.0f && s[0] == 0.0f);
	assert_true(c[4] == (float)cos(1.0) && c[5] == (float)cos(0.01) && c[6] == (float)cos(1.0) &&
		    c[7] == (float)cos(0.01));
	assert_true(s[4] == (float)sin(1.0) && s[5] == (float)sin(0.01));
	free(c);
	free(s);
	free(inv);
	pe_rope_free(&r);
}

/* exact mode against long double sin/cos of p * theta^(-2j/R) */
static void test_exact_vs_long_double(void **state)
{
	const uint64_t R[] = { 2, 64, 96, 128 };
	const int64_t off[] = { 0, 37, -500, 100000 };
	size_t t, i, j;
	int64_t worst = 0;

	(void)state;
	for (t = 0; t < 4; t++) {
		struct pe_rope_params p = pe_test_rope_params(700, R[t]);
		struct pe_rope r;
		float *c, *s;

		p.offset = off[t];
		p.theta = t == 3 ? 500000.0 : 10000.0;
		init_ok(&r, &p);
		c = table(&r, PE_ROPE_COS);
		s = table(&r, PE_ROPE_SIN);
		for (i = 0; i < 700; i++) {
			for (j = 0; j < R[t] / 2; j++) {
				long double f = powl((long double)p.theta,
						     -(long double)(2 * j) / (long double)R[t]);
				long double a = (long double)(off[t] + (int64_t)i) * f;
				int64_t d1 = pe_ulp_diff(c[i * R[t] + j], (float)cosl(a));
				int64_t d2 = pe_ulp_diff(s[i * R[t] + j + R[t] / 2], (float)sinl(a));

				worst = d1 > worst ? d1 : worst;
				worst = d2 > worst ? d2 : worst;
			}
		}
		free(c);
		free(s);
		pe_rope_free(&r);
	}
	assert_true(worst <= 1);
}

/* interleaved column 2j and 2j+1 hold what half holds in j and j + R/2 */
static void test_layout_permutation(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(300, 64);
	struct pe_rope h, in;
	float *a, *b;
	size_t i, j;

	(void)state;
	p.scaling = PE_ROPE_YARN;
	p.factor = 4;
	p.original_max = 64;
	init_ok(&h, &p);
	p.layout = PE_LAYOUT_INTERLEAVED;
	init_ok(&in, &p);
	a = table(&h, PE_ROPE_SIN);
	b = table(&in, PE_ROPE_SIN);
	for (i = 0; i < 300; i++)
		for (j = 0; j < 32; j++) {
			assert_true(b[i * 64 + 2 * j] == a[i * 64 + j]);
			assert_true(b[i * 64 + 2 * j + 1] == a[i * 64 + j + 32]);
		}
	free(a);
	free(b);
	pe_rope_free(&h);
	pe_rope_free(&in);
}

/* cos^2 + sin^2 = attention^2 (yarn: 0.1 ln 4 + 1) */
static void test_pythagoras_attention(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(500, 128);
	struct pe_rope r;
	float *c, *s;
	size_t k;

	(void)state;
	p.scaling = PE_ROPE_YARN;
	p.factor = 4;
	p.original_max = 4096;
	init_ok(&r, &p);
	assert_close(r.attention, 0.1 * log(4.0) + 1.0, 0, 1e-15);
	c = table(&r, PE_ROPE_COS);
	s = table(&r, PE_ROPE_SIN);
	assert_true(c[0] == (float)r.attention);
	for (k = 0; k < 500 * 128; k++)
		assert_close((double)c[k] * (double)c[k] + (double)s[k] * (double)s[k], r.attention * r.attention,
			     0, 3e-7);
	free(c);
	free(s);
	pe_rope_free(&r);
}

/* linear: the table at position 4p is the unscaled table at p */
static void test_linear_is_positions_over_factor(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(4000, 64);
	struct pe_rope lin, base;
	float *a, *b;
	size_t i, j;

	(void)state;
	init_ok(&base, &p);
	p.scaling = PE_ROPE_LINEAR;
	p.factor = 4;
	init_ok(&lin, &p);
	a = table(&lin, PE_ROPE_COS);
	b = table(&base, PE_ROPE_COS);
	for (i = 0; i < 1000; i++)
		for (j = 0; j < 64; j++)
			assert_true(pe_ulp_diff(a[4 * i * 64 + j], b[i * 64 + j]) <= 1);
	for (j = 0; j < 32; j++)
		assert_true(lin.freq[j].f == base.freq[j].f / 4 && lin.freq[j].r == base.freq[j].r / 4 &&
			    lin.freq[j].r2 == base.freq[j].r2 / 4);
	free(a);
	free(b);
	pe_rope_free(&lin);
	pe_rope_free(&base);
}

/* section 3.3: head_dim 128, base 1e4, factor 4, L0 4096 -> low 20, high 46 */
static void test_yarn_worked(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(1, 128);
	struct pe_rope r;
	mpfr_t inv0, want;
	size_t j;

	(void)state;
	p.scaling = PE_ROPE_YARN;
	p.factor = 4;
	p.original_max = 4096;
	init_ok(&r, &p);
	assert_true(r.yarn_low == 20 && r.yarn_high == 46);
	assert_close(r.attention, 1.1386294361, 1e-10, 0);
	mpfr_inits2(256, inv0, want, (mpfr_ptr)0);
	for (j = 0; j < 64; j++) {
		/* inv0 / 4 ramp + inv0 (1 - ramp), ramp = clamp((j - 20) / 26) */
		long num = (long)j - 20 < 0 ? 0 : (long)j - 20 > 26 ? 26 : (long)j - 20;

		mp_pow(inv0, 10000.0, -2 * (long)j, 128);
		mpfr_mul_si(want, inv0, 4 * 26 - 3 * num, MPFR_RNDN);
		mpfr_div_ui(want, want, 4 * 26, MPFR_RNDN);
		assert_true(freq_err(&r, j, want) < 0x1p-150);
	}
	/* j = 33: ramp 1/2, inv0 * 0.625 */
	mp_pow(inv0, 10000.0, -66, 128);
	mpfr_mul_d(want, inv0, 0.625, MPFR_RNDN);
	assert_true(freq_err(&r, 33, want) < 0x1p-150);
	mpfr_clears(inv0, want, (mpfr_ptr)0);
	pe_rope_free(&r);

	/* without truncation the range stays fractional: 20.94 .. 45.03 */
	p.truncate = 0;
	init_ok(&r, &p);
	assert_close(r.yarn_low, 20.94, 0.01, 0);
	assert_close(r.yarn_high, 45.03, 0.01, 0);
	pe_rope_free(&r);

	/* mscale / mscale_all_dim (DeepSeek): g(f, m) / g(f, m_all) */
	p.truncate = 1;
	p.mscale = 1.0;
	p.mscale_all_dim = 0.707;
	init_ok(&r, &p);
	assert_close(r.attention, (0.1 * log(4.0) + 1) / (0.1 * 0.707 * log(4.0) + 1), 0, 1e-15);
	pe_rope_free(&r);
	p.attention_factor = 1.5;
	init_ok(&r, &p);
	assert_true(r.attention == 1.5);
	pe_rope_free(&r);
}

/* Llama 3.1 (dim 128, theta 5e5, factor 8): 29 high, 6 medium, 29 low */
static void test_llama3_bands(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(1, 128);
	struct pe_rope r;
	mpfr_t inv0, want;
	size_t j, hi = 0, lo = 0, mid = 0;

	(void)state;
	p.theta = 500000;
	p.scaling = PE_ROPE_LLAMA3;
	p.factor = 8;
	p.original_max = 8192;
	init_ok(&r, &p);
	mpfr_inits2(256, inv0, want, (mpfr_ptr)0);
	for (j = 0; j < 64; j++) {
		mp_pow(inv0, 500000.0, -2 * (long)j, 128);
		mpfr_div_ui(want, inv0, 8, MPFR_RNDN);
		if (freq_err(&r, j, inv0) < 0x1p-150) {
			hi++;
		} else if (freq_err(&r, j, want) < 0x1p-150) {
			lo++;
		} else {
			/* s = (8192 / lambda - 1) / 3, lambda = 2 pi / inv0;
			 * (1 - s) inv0 / 8 + s inv0 = inv0 (1 + 7 s) / 8 */
			mid++;
			mpfr_const_pi(want, MPFR_RNDN);
			mpfr_mul_2ui(want, want, 1, MPFR_RNDN);
			mpfr_div(want, inv0, want, MPFR_RNDN);
			mpfr_mul_ui(want, want, 8192, MPFR_RNDN);
			mpfr_sub_ui(want, want, 1, MPFR_RNDN);
			mpfr_div_ui(want, want, 3, MPFR_RNDN);
			assert_true(mpfr_cmp_ui(want, 0) > 0 && mpfr_cmp_ui(want, 1) < 0);
			mpfr_mul_ui(want, want, 7, MPFR_RNDN);
			mpfr_add_ui(want, want, 1, MPFR_RNDN);
			mpfr_mul(want, want, inv0, MPFR_RNDN);
			mpfr_div_ui(want, want, 8, MPFR_RNDN);
			assert_true(freq_err(&r, j, want) < 0x1p-150);
		}
	}
	mpfr_clears(inv0, want, (mpfr_ptr)0);
	assert_int_equal(hi, 29);
	assert_int_equal(mid, 6);
	assert_int_equal(lo, 29);
	pe_rope_free(&r);
}

static void test_dynamic(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(2048, 64);
	struct pe_rope r;
	mpfr_t b, want;

	(void)state;
	p.scaling = PE_ROPE_DYNAMIC;
	p.factor = 2;
	p.original_max = 2048;
	init_ok(&r, &p);
	mpfr_inits2(256, b, want, (mpfr_ptr)0);
	/* seq_len = 2048 <= L0: unscaled, as HF before the sequence grows */
	assert_true(r.dynamic_theta == 10000.0);
	mp_pow(want, 10000.0, -2, 64);
	assert_true(freq_err(&r, 1, want) < 0x1p-150);
	pe_rope_free(&r);
	p.seq_len = 8192;
	init_ok(&r, &p);
	/* b = 1e4 (2 8192 / 2048 - 1)^(64/62) = 1e4 7^(32/31); inv_5 = b^(-10/64) */
	mp_pow(b, 7.0, 32, 31);
	mpfr_mul_ui(b, b, 10000, MPFR_RNDN);
	assert_close(r.dynamic_theta, mpfr_get_d(b, MPFR_RNDN), 0, 1e-15);
	mpfr_set_si(want, -10, MPFR_RNDN);
	mpfr_div_ui(want, want, 64, MPFR_RNDN);
	mpfr_pow(want, b, want, MPFR_RNDN);
	assert_true(freq_err(&r, 5, want) < 0x1p-150);
	mpfr_clears(b, want, (mpfr_ptr)0);
	pe_rope_free(&r);
}

static void test_longrope(void **state)
{
	double sf[4] = { 1, 1.5, 2, 3 }, lf[4] = { 2, 4, 8, 16 };
	struct pe_rope_params p = pe_test_rope_params(100, 8);
	struct pe_rope r;
	size_t j;

	(void)state;
	p.scaling = PE_ROPE_LONGROPE;
	p.short_factor = sf;
	p.long_factor = lf;
	p.nshort = p.nlong = 4;
	p.original_max = 4096;
	p.factor = 32;
	init_ok(&r, &p);
	assert_false(r.use_long);
	assert_close(r.attention, sqrt(1 + log(32.0) / log(4096.0)), 0, 1e-15);
	for (j = 0; j < 4; j++)
		assert_close(r.freq[j].f, 1 / (sf[j] * pow(10000.0, 2.0 * j / 8)), 0, 1e-15);
	pe_rope_free(&r);
	p.seq_len = 4097;
	init_ok(&r, &p);
	assert_true(r.use_long);
	for (j = 0; j < 4; j++)
		assert_close(r.freq[j].f, 1 / (lf[j] * pow(10000.0, 2.0 * j / 8)), 0, 1e-15);
	pe_rope_free(&r);
}

/* float32 mode: a float32 inv_freq within an ulp of the exact one, angles
 * = fl(fl(p) * inv), and the table drifts from the exact one like p 2^-24 */
static void test_float32_emulation(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(2048, 128);
	struct pe_rope ex, f;
	float *a, *b, *ang;
	double worst = 0, d;
	size_t k, j;

	(void)state;
	init_ok(&ex, &p);
	p.precision = PE_ROPE_FLOAT32;
	init_ok(&f, &p);
	for (j = 0; j < 64; j++) {
		/* torch.pow on 64 exponents: SLEEF's powf for all (4 pairs of
		 * 16-lane vectors), then 1 / x (core/sleef32.h, proven against
		 * libsleef in test_sleef32.c) */
		float hf = 1.0f / pe_sleef_powf(10000.0f, (float)(2 * j) / 128.0f);

		assert_true(f.inv32[j] == hf);
		assert_true(pe_ulp_diff(f.inv32[j], ex.inv32[j]) <= 1);
	}
	a = table(&ex, PE_ROPE_COS);
	b = table(&f, PE_ROPE_COS);
	ang = table(&f, PE_ROPE_ANGLES);
	/* each value within what its float32 angle's error allows: p times
	 * inv32's distance from the exact inv_j, half an ulp of the rounded
	 * angle, half an ulp of the exact table's rounding and an ulp of
	 * SLEEF's u10 cos (|cos| <= 1: 2^-24 each) */
	for (k = 0; k < 2048 * 128; k++) {
		size_t pos = k / 128, jj = k % 64;
		double inv = (double)((long double)ex.freq[jj].f + (long double)ex.freq[jj].r);
		double bound = (double)pos * fabs((double)f.inv32[jj] - inv) +
			       0.5 * (double)(nextafterf(fabsf(ang[k]), INFINITY) - fabsf(ang[k])) +
			       2 * 0x1p-24;

		d = fabs((double)a[k] - (double)b[k]);
		if (d > bound)
			fail_msg("cos row %zu col %zu: float32 %.9g, exact %.9g, %.3g > bound %.3g",
				 pos, k % 128, (double)b[k], (double)a[k], d, bound);
		worst = d > worst ? d : worst;
	}
	/* and the drift is real: the table is not the exact one rounded */
	assert_true(worst > 0x1p-24);
	assert_true(ang[1999 * 128 + 3] == (float)(1999.0 * (double)f.inv32[3]));
	/* row 1999's first 16-lane vector holds angles above 125: Payne-Hanek */
	assert_true(b[1999 * 128 + 3] == pe_sleef_cosf(ang[1999 * 128 + 3], 1));
	/* its last vector (columns 112..127: frequencies 48..63) stays below 125 */
	assert_true(b[1999 * 128 + 127] == pe_sleef_cosf(ang[1999 * 128 + 127], 0));
	free(a);
	free(b);
	free(ang);
	pe_rope_free(&ex);
	pe_rope_free(&f);
}

/*
 * Known answers from torch 2.13.0+cpu (pip, x86-64 with AVX-512) and
 * transformers 5.18.0, as bit patterns:
 *   dynamic: LlamaRotaryEmbedding of LlamaConfig(hidden_size=256,
 *     num_attention_heads=4, max_position_embeddings=512, rope_parameters=
 *     {rope_type: dynamic, rope_theta: 10000.0, factor: 2.0}) after its
 *     forward at position_ids arange(4016): the inv_freq buffer, computed
 *     in float32 tensors from the int64 seq_len (a double base put 14 of
 *     these 32 values 1 or 2 ulp off);
 *   polar: Llama4TextRotaryEmbedding of Llama4TextConfig(hidden_size=256,
 *     num_attention_heads=4, head_dim=64, rope_parameters={rope_type:
 *     default, rope_theta: 500000.0}) at arange(2048): freqs_cis.real and
 *     .imag of rows 1 and 235, torch.polar's cos and sin (that build's
 *     Tensor.cos() and .sin() of the same angles, MKL's, differ in 3 values
 *     of row 1 and 10 of row 235).
 */
static const uint32_t ka_dynamic_inv[32] = {
	0x3f800000, 0x3f3008b2, 0x3ef217eb, 0x3ea678ab, 0x3e64f13b, 0x3e1d6d9f, 0x3dd8816d,
	0x3d94e055, 0x3d4cbe93, 0x3d0cc9fa, 0x3cc19f48, 0x3c852415, 0x3c371aa9, 0x3bfbd118,
	0x3bad2850, 0x3b6e2331, 0x3b23c049, 0x3ae13384, 0x3a9adb11, 0x3a54f7bd, 0x3a12718e,
	0x39c96616, 0x398a7d07, 0x393e7551, 0x3902f721, 0x38b41cb3, 0x3877b3b2, 0x382a53f5,
	0x37ea3f04, 0x37a11347, 0x375d8573, 0x37185346,
};
static const uint32_t ka_polar[4][32] = {
	{ /* cos, row 1 */
	  0x3f0a5140, 0x3f49abe4, 0x3f679391, 0x3f752591, 0x3f7b3395, 0x3f7de219, 0x3f7f112e,
	  0x3f7f96cc, 0x3f7fd1aa, 0x3f7feb98, 0x3f7ff703, 0x3f7ffc0b, 0x3f7ffe42, 0x3f7fff3c,
	  0x3f7fffa9, 0x3f7fffda, 0x3f7fffef, 0x3f7ffff9, 0x3f7ffffd, 0x3f7fffff, 0x3f7fffff,
	  0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000,
	  0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000 },
	{ /* sin, row 1 */
	  0x3f576aa4, 0x3f1daf6a, 0x3eda4036, 0x3e93800d, 0x3e4555aa, 0x3e036998, 0x3daeae47,
	  0x3d67fe9a, 0x3d19ff7d, 0x3ccc69da, 0x3c87a82d, 0x3c340c7f, 0x3beef6c4, 0x3b9e93d9,
	  0x3b527708, 0x3b0baa3a, 0x3ab95d1d, 0x3a7603e8, 0x3a23418c, 0x39d8ac81, 0x398fc8f8,
	  0x393ed4f4, 0x38fd45c3, 0x38a8126b, 0x385f10c4, 0x381406cb, 0x37c47610, 0x37825f34,
	  0x372d07a7, 0x36e5a54d, 0x369864a7, 0x364a41b0 },
	{ /* cos, row 235 */
	  0xbf506f50, 0x3ed8e84b, 0xbf7b90ce, 0x3f6773dd, 0xbc99a49a, 0x3ec5af80, 0x3eb08a83,
	  0x3f3b23b4, 0xbf551896, 0x3f69e3d6, 0xbf3b4b01, 0xbf5906a4, 0xbe11e9c7, 0x3ed71496,
	  0x3f3a7def, 0x3f608faf, 0x3f71fdf7, 0x3f79ccaa, 0x3f7d4367, 0x3f7ecb2c, 0x3f7f77f1,
	  0x3f7fc413, 0x3f7fe59c, 0x3f7ff461, 0x3f7ffae2, 0x3f7ffdbf, 0x3f7fff02, 0x3f7fff90,
	  0x3f7fffcf, 0x3f7fffea, 0x3f7ffff6, 0x3f7ffffc },
	{ /* sin, row 235 */
	  0x3f14a153, 0xbf67e44b, 0x3e3dc479, 0xbedac694, 0x3f7ff479, 0xbf6c2603, 0x3f704ceb,
	  0x3f2eaf57, 0x3f0dddce, 0xbed02612, 0xbf2e8533, 0x3f07c73d, 0x3f7d6341, 0x3f68511b,
	  0x3f2f6046, 0x3ef5d4c6, 0x3ea70b08, 0x3e600212, 0x3e15545d, 0x3dc69658, 0x3d83e619,
	  0x3d2f1fd1, 0x3ce8770d, 0x3c9a4692, 0x3c4cc307, 0x3c07e1d6, 0x3bb45825, 0x3b6f5aa6,
	  0x3b1ed5fc, 0x3ad2ceb8, 0x3a8be463, 0x3a39aa4c },
};

static void test_torch_known_answers(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	float *t[2];
	size_t j, k, row;
	int cpu;

	(void)state;
	/* both vector widths: 32 exponents are whole pairs of vectors either way */
	for (cpu = PE_TORCH_AVX2; cpu <= PE_TORCH_AVX512; cpu++) {
		p = pe_test_rope_params(4016, 64);
		p.precision = PE_ROPE_FLOAT32;
		p.torch.cpu = (enum pe_torch_cpu)cpu;
		p.scaling = PE_ROPE_DYNAMIC;
		p.factor = 2;
		p.original_max = 512;
		init_ok(&r, &p);
		for (j = 0; j < 32; j++)
			assert_true(pe_f32_bits(r.inv32[j]) == ka_dynamic_inv[j]);
		pe_rope_free(&r);

		p = pe_test_rope_params(2048, 64);
		p.precision = PE_ROPE_FLOAT32;
		p.torch.cpu = (enum pe_torch_cpu)cpu;
		p.theta = 500000;
		p.layout = PE_LAYOUT_INTERLEAVED;
		p.polar = 1;
		init_ok(&r, &p);
		t[0] = table(&r, PE_ROPE_COS);
		t[1] = table(&r, PE_ROPE_SIN);
		for (k = 0; k < 4; k++) {
			row = k < 2 ? 1 : 235;
			for (j = 0; j < 32; j++) {
				assert_true(pe_f32_bits(t[k % 2][row * 64 + 2 * j]) == ka_polar[k][j]);
				assert_true(pe_f32_bits(t[k % 2][row * 64 + 2 * j + 1]) == ka_polar[k][j]);
			}
		}
		free(t[0]);
		free(t[1]);
		pe_rope_free(&r);
	}
}

/* Gemma 4's proportional type: the first n = int(F R // 2) pairs turn at
 * theta^(-2j/R) / factor, the others not at all (cos 1, sin 0), in both
 * precisions; closed forms in double, rounded once. */
static void test_proportional(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_error err;
	int prec;
	size_t j, i;

	(void)state;
	for (prec = 0; prec < 2; prec++) {
		p = pe_test_rope_params(5, 16);
		p.scaling = PE_ROPE_PROPORTIONAL;
		p.theta = 1e6;
		p.factor = 2;
		p.rotated = 2;
		p.precision = prec ? PE_ROPE_FLOAT32 : PE_ROPE_EXACT;
		assert_int_equal(pe_rope_init(&r, &p, &err), 0);
		for (j = 0; j < 8; j++) {
			double want = j < 2 ? pow(1e6, -(double)(2 * j) / 16.0) / 2.0 : 0.0;

			assert_close(r.inv32[j], want, 0, prec ? 3e-7 : 6e-8);
			if (j >= 2)
				assert_true(r.inv32[j] == 0.0f);
		}
		{
			float *c = table(&r, PE_ROPE_COS), *sn = table(&r, PE_ROPE_SIN);

			for (i = 0; i < 5; i++)
				for (j = 2; j < 8; j++) {	/* columns j and j + 8 stay put */
					assert_true(c[i * 16 + j] == 1.0f && c[i * 16 + j + 8] == 1.0f);
					assert_true(sn[i * 16 + j] == 0.0f && sn[i * 16 + j + 8] == 0.0f);
				}
			assert_close(c[3 * 16 + 1], cos(3 * pow(1e6, -2.0 / 16) / 2), 0, 1e-7);
			free(c);
			free(sn);
		}
		pe_rope_free(&r);
	}
}

/* Llama 4 Scout's llama3 with low_freq_factor == high_freq_factor: no band
 * is blended; pairs whose wavelength exceeds L0 / low are divided (29 of
 * 64), the rest kept (35), as rope-2026 A.6 works out. */
static void test_llama3_equal_factors(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_error err;
	size_t j, kept = 0;
	int prec;

	(void)state;
	for (prec = 0; prec < 2; prec++) {
		p = pe_test_rope_params(2, 128);
		p.scaling = PE_ROPE_LLAMA3;
		p.theta = 500000;
		p.factor = 16;
		p.original_max = 8192;
		p.low_freq_factor = p.high_freq_factor = 1;
		p.precision = prec ? PE_ROPE_FLOAT32 : PE_ROPE_EXACT;
		assert_int_equal(pe_rope_init(&r, &p, &err), 0);
		assert_true(r.llama3_unordered);
		for (j = kept = 0; j < 64; j++) {
			double inv0 = pow(500000.0, -(double)(2 * j) / 128.0);
			int divided = 2 * 3.14159265358979323846 / inv0 > 8192;

			kept += !divided;
			assert_close(r.inv32[j], divided ? inv0 / 16 : inv0, 0, prec ? 4e-7 : 6e-8);
		}
		assert_int_equal(kept, 35);
		pe_rope_free(&r);
	}
}

static void test_bad_params(void **state)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_error err;
	double one[3] = { 1, 1, 1 };

	(void)state;
	p = pe_test_rope_params(4, 7);
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	pe_rope_free(&r);
	p = pe_test_rope_params(4, 8);
	p.scaling = PE_ROPE_LINEAR;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_non_null(strstr(err.msg, "{factor}"));
	pe_rope_free(&r);
	p.scaling = PE_ROPE_YARN;
	p.factor = 2;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_non_null(strstr(err.msg, "{original_max_positions}"));
	pe_rope_free(&r);
	p.scaling = PE_ROPE_LONGROPE;
	p.original_max = 10;
	p.short_factor = p.long_factor = one;
	p.nshort = p.nlong = 3;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_non_null(strstr(err.msg, "needs 4"));
	pe_rope_free(&r);
	p = pe_test_rope_params(4, 8);
	p.scaling = PE_ROPE_LLAMA3;
	p.factor = 8;
	p.original_max = 8192;
	p.low_freq_factor = 4;
	p.high_freq_factor = 1;
	assert_int_equal(pe_rope_init(&r, &p, &err), 0);	/* transformers: a warning */
	assert_true(r.llama3_unordered);
	pe_rope_free(&r);
	p = pe_test_rope_params(4, 8);
	p.theta = NAN;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	pe_rope_free(&r);
}

/* Issue 9: a tiny theta or factor (angles past 2^53, inf, NaN), an
 * overflowing dynamic base and an infinite attention factor are refused. */
static void test_impossible_parameters(void **state)
{
	static const double one[2] = { 1, 1 };
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_error err;

	(void)state;
	p = pe_test_rope_params(4, 4);
	p.theta = 1e-60;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "angles beyond 2^53"));
	pe_rope_free(&r);
	p = pe_test_rope_params(8, 4);
	p.scaling = PE_ROPE_LINEAR;
	p.factor = 2.3e-308;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	pe_rope_free(&r);
	p = pe_test_rope_params(8, 4);
	p.scaling = PE_ROPE_LINEAR;
	p.factor = 2.3e-308;
	p.precision = PE_ROPE_FLOAT32;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	pe_rope_free(&r);
	p = pe_test_rope_params(2, 4);
	p.scaling = PE_ROPE_DYNAMIC;
	p.factor = 1e300;
	p.original_max = 1;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_non_null(strstr(err.msg, "dynamic base"));
	pe_rope_free(&r);
	p = pe_test_rope_params(3, 4);
	p.scaling = PE_ROPE_LONGROPE;
	p.factor = 2;
	p.original_max = 1;
	p.short_factor = p.long_factor = one;
	p.nshort = p.nlong = 2;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	assert_non_null(strstr(err.msg, "attention factor"));
	pe_rope_free(&r);
	p = pe_test_rope_params(3, 4);
	p.scaling = PE_ROPE_YARN;
	p.factor = 1e300;
	p.original_max = 4;
	p.mscale = 1e308;
	p.mscale_all_dim = 1;
	assert_int_equal(pe_rope_init(&r, &p, &err), -1);
	pe_rope_free(&r);
	/* a factor below 1 within range is fine */
	p = pe_test_rope_params(64, 8);
	p.scaling = PE_ROPE_LINEAR;
	p.factor = 0.25;
	init_ok(&r, &p);
	pe_rope_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_d4),
		cmocka_unit_test(test_exact_vs_long_double),
		cmocka_unit_test(test_layout_permutation),
		cmocka_unit_test(test_pythagoras_attention),
		cmocka_unit_test(test_linear_is_positions_over_factor),
		cmocka_unit_test(test_yarn_worked),
		cmocka_unit_test(test_llama3_bands),
		cmocka_unit_test(test_dynamic),
		cmocka_unit_test(test_longrope),
		cmocka_unit_test(test_float32_emulation),
		cmocka_unit_test(test_torch_known_answers),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_proportional),
		cmocka_unit_test(test_llama3_equal_factors),
		cmocka_unit_test(test_impossible_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
