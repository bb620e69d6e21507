/*
 * Correct rounding of every exact sin/cos table (issue 10): sinusoidal
 * (every preset and layout), rope's exact mode (every scaling; cos, sin,
 * angles, inv_freq) and sincos2d, value by value against MPFR.  MPFR
 * computes each frequency from its paper's formula at 256 bits (its own
 * pow, exp, log and pi), then scale * sin or cos of p f at 256 bits, and
 * rounds to binary32 itself (pe_mpfr_to_f32): an oracle that shares no
 * code or method with posenc.  Every column of each sampled row is
 * checked; rope rows in whole blocks of PE_ROPE_STEP so the addition
 * formulas between exact anchors are exercised as the pipeline runs them.
 *
 * The 1,000,000 x 64 sample holds the ten values that long-double
 * frequencies rounded wrongly (row 751181 column 5 was 1.01 ulp off).
 * Tiny frequencies (whole columns of values near zero, and cos(p f) just
 * below 1 times an attention factor on a rounding boundary) are checked
 * at 2400 bits.
 * PE_TEST_QUICK (make valgrind): fewer random rows.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/grid2d.h"
#include "core/rope.h"
#include "core/sinusoidal.h"
#include "testutil.h"

/* MPFR's working precision: 256 bits, more where values lie closer to a
 * rounding boundary than that resolves (test_tiny_frequencies) */
static mpfr_prec_t PREC = 256;

/* the first few mismatches are printed, all are counted */
static size_t bad;

static void expect_f32(float got, float want, const char *what, uint64_t row, size_t col)
{
	if (memcmp(&got, &want, sizeof got) == 0)
		return;
	if (bad++ < 8)
		print_error("%s row %llu col %zu: got %.9g want %.9g (%lld ulp)\n", what,
			    (unsigned long long)row, col, (double)got, (double)want,
			    (long long)pe_ulp_diff(got, want));
}

static void expect_none(const char *what)
{
	if (bad)
		fail_msg("%s: %zu values not correctly rounded", what, bad);
}

/* scale * sin(p f) (want_cos: cos) rounded to float32 */
static float ref_value(mpfr_t f, int64_t p, int want_cos, double scale)
{
	mpfr_t a;
	float v;

	mpfr_init2(a, PREC);
	mpfr_set_d(a, (double)p, MPFR_RNDN);	/* |p| <= 2^53: exact */
	mpfr_mul(a, a, f, MPFR_RNDN);
	if (want_cos)
		mpfr_cos(a, a, MPFR_RNDN);
	else
		mpfr_sin(a, a, MPFR_RNDN);
	mpfr_mul_d(a, a, scale, MPFR_RNDN);
	v = pe_mpfr_to_f32(a);
	mpfr_clear(a);
	return v;
}

/* base^(num / den) */
static void ref_pow(mpfr_t r, double base, long num, unsigned long den)
{
	mpfr_t b;

	mpfr_init2(b, PREC);
	mpfr_set_d(b, base, MPFR_RNDN);
	mpfr_set_si(r, num, MPFR_RNDN);
	mpfr_div_ui(r, r, den, MPFR_RNDN);
	mpfr_pow(r, b, r, MPFR_RNDN);
	mpfr_clear(b);
}

/* ---- sinusoidal ---- */

/* frequency k of a preset (sinusoidal.h's table) */
static void sin_freq(mpfr_t f, const struct pe_sinusoidal_params *p, size_t k)
{
	unsigned long h = (unsigned long)(p->dim / 2);

	switch (p->preset) {
	case PE_SIN_T2T:
		mpfr_set_d(f, p->max_timescale, MPFR_RNDN);
		mpfr_div_d(f, f, p->min_timescale, MPFR_RNDN);
		mpfr_log(f, f, MPFR_RNDN);
		mpfr_mul_si(f, f, -(long)k, MPFR_RNDN);
		mpfr_div_ui(f, f, h > 2 ? h - 1 : 1, MPFR_RNDN);
		mpfr_exp(f, f, MPFR_RNDN);
		mpfr_mul_d(f, f, p->min_timescale, MPFR_RNDN);
		break;
	case PE_SIN_FAIRSEQ:
		mpfr_set_d(f, p->base, MPFR_RNDN);
		mpfr_log(f, f, MPFR_RNDN);
		mpfr_mul_si(f, f, -(long)k, MPFR_RNDN);
		mpfr_div_ui(f, f, h - 1, MPFR_RNDN);
		mpfr_exp(f, f, MPFR_RNDN);
		break;
	default:
		ref_pow(f, p->base, -2 * (long)k, (unsigned long)p->dim);
		break;
	}
}

/* rows (positions offset + row) of a sinusoidal table, every column */
static void check_sinusoidal(const char *what, const struct pe_sinusoidal_params *p,
			     const uint64_t *rows, size_t nrows)
{
	struct pe_sinusoidal s;
	struct pe_error err;
	size_t d = (size_t)p->dim, i, k, nf;
	mpfr_t *f;
	float *buf;

	assert_int_equal(pe_sinusoidal_init(&s, p, &err), 0);
	nf = s.nfreq;
	f = malloc((nf ? nf : 1) * sizeof *f);
	buf = malloc(d * sizeof *buf);
	assert_non_null(f);
	assert_non_null(buf);
	for (k = 0; k < nf; k++) {
		mpfr_init2(f[k], PREC);
		sin_freq(f[k], p, k);
	}
	bad = 0;
	for (i = 0; i < nrows; i++) {
		int64_t pos = p->offset + (int64_t)rows[i];

		assert_int_equal(pe_sinusoidal_fill(&s, rows[i], 1, buf, &err), 0);
		for (k = 0; k < nf; k++) {
			int inter = s.layout == PE_LAYOUT_INTERLEAVED;
			size_t cs = inter ? 2 * k : k, cc = inter ? 2 * k + 1 : s.nsin + k;

			expect_f32(buf[cs], ref_value(f[k], pos, 0, 1.0), what, rows[i], cs);
			if (k < s.ncos)
				expect_f32(buf[cc], ref_value(f[k], pos, 1, 1.0), what, rows[i], cc);
		}
	}
	for (k = 0; k < nf; k++)
		mpfr_clear(f[k]);
	free(f);
	free(buf);
	pe_sinusoidal_free(&s);
	expect_none(what);
}

/* n distinct-enough random rows below limit, after the given ones */
static size_t random_rows(uint64_t *rows, size_t have, size_t n, uint64_t limit, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		rows[have + i] = pe_test_rand(&seed) % limit;
	return have + n;
}

/* The table of the issue: 1,000,000 x 64, vaswani.  The ten values
 * long-double frequencies missed, the last 300 rows, random rows. */
static void test_million_by_64(void **state)
{
	static const uint64_t known[] = { 230738, 503680, 751181, 756195, 770145,
					  798119, 822895, 868647, 921657, 961595 };
	struct pe_sinusoidal_params p;
	size_t n = 0, i, nrand = pe_test_quick() ? 60 : 2000, nlast = pe_test_quick() ? 20 : 300;
	uint64_t *rows = malloc((10 + nlast + nrand) * sizeof *rows);

	(void)state;
	assert_non_null(rows);
	pe_sinusoidal_defaults(&p, PE_SIN_VASWANI);
	p.positions = 1000000;
	p.dim = 64;
	for (i = 0; i < 10; i++)
		rows[n++] = known[i];
	for (i = 0; i < nlast; i++)
		rows[n++] = 1000000 - 1 - i;
	n = random_rows(rows, n, nrand, 1000000, 10);
	check_sinusoidal("1000000x64", &p, rows, n);
	free(rows);
}

/* every preset and layout, odd widths, negative and far positions */
static void test_sinusoidal_presets(void **state)
{
	const struct {
		enum pe_sin_preset preset;
		enum pe_layout layout;
		uint64_t n, d;
		int64_t offset;
		double base, min_ts, max_ts;
	} cases[] = {
		{ PE_SIN_VASWANI, PE_LAYOUT_DEFAULT, 65536, 1024, 0, 10000, 1, 1e4 },
		{ PE_SIN_VASWANI, PE_LAYOUT_HALF, 4096, 65, -2000, 10000, 1, 1e4 },
		{ PE_SIN_MARIAN, PE_LAYOUT_DEFAULT, 100000, 33, 0, 10000, 1, 1e4 },
		{ PE_SIN_T2T, PE_LAYOUT_DEFAULT, 100000, 65, 0, 10000, 1, 1e4 },
		{ PE_SIN_T2T, PE_LAYOUT_INTERLEAVED, 5000, 16, 0, 10000, 2, 500 },
		{ PE_SIN_FAIRSEQ, PE_LAYOUT_DEFAULT, 100000, 64, 0, 10000, 1, 1e4 },
		{ PE_SIN_VASWANI, PE_LAYOUT_DEFAULT, 200, 16, 0, 1e-3, 1, 1e4 },
		{ PE_SIN_VASWANI, PE_LAYOUT_DEFAULT, 64, 16, ((int64_t)1 << 53) - 64, 1e16, 1, 1e4 },
		{ PE_SIN_VASWANI, PE_LAYOUT_DEFAULT, 64, 8, -((int64_t)1 << 45) - 7, 10000, 1, 1e4 },
		{ PE_SIN_VASWANI, PE_LAYOUT_DEFAULT, 512, 128, 1048000, 10000, 1, 1e4 },
	};
	size_t i, n;
	uint64_t rows[300];
	char what[64];

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pe_sinusoidal_params p;

		pe_sinusoidal_defaults(&p, cases[i].preset);
		p.layout = cases[i].layout;
		p.positions = cases[i].n;
		p.dim = cases[i].d;
		p.offset = cases[i].offset;
		p.base = cases[i].base;
		p.min_timescale = cases[i].min_ts;
		p.max_timescale = cases[i].max_ts;
		n = 0;
		rows[n++] = 0;
		rows[n++] = cases[i].n - 1;
		n = random_rows(rows, n, (pe_test_quick() ? 10 : 200) / (cases[i].d > 512 ? 8 : 1),
				cases[i].n, 20 + i);
		snprintf(what, sizeof what, "sinusoidal case %zu", i);
		check_sinusoidal(what, &p, rows, n);
	}
}

/* ---- rope ---- */

/* the exact inv_j of rope.h's formulas */
static void rope_inv(mpfr_t inv, const struct pe_rope *r, size_t j)
{
	const struct pe_rope_params *p = &r->p;
	long R = (long)p->rotary_dim;
	mpfr_t t, u, inv0;

	mpfr_inits2(PREC, t, u, inv0, (mpfr_ptr)0);
	ref_pow(inv0, p->theta, -2 * (long)j, (unsigned long)R);
	mpfr_set(inv, inv0, MPFR_RNDN);
	switch (p->scaling) {
	case PE_ROPE_NONE:
		break;
	case PE_ROPE_LINEAR:
		mpfr_div_d(inv, inv0, p->factor, MPFR_RNDN);
		break;
	case PE_ROPE_DYNAMIC:
		if (r->seq_len > p->original_max) {
			/* theta ((f L / L0) - (f - 1))^(R / (R - 2)), then ^(-2j/R) */
			mpfr_set_d(t, p->factor, MPFR_RNDN);
			mpfr_mul_ui(t, t, (unsigned long)r->seq_len, MPFR_RNDN);
			mpfr_div_ui(t, t, (unsigned long)p->original_max, MPFR_RNDN);
			mpfr_sub_d(t, t, p->factor - 1, MPFR_RNDN);	/* f - 1 exact here */
			mpfr_set_si(u, R, MPFR_RNDN);
			mpfr_div_si(u, u, R - 2, MPFR_RNDN);
			mpfr_pow(t, t, u, MPFR_RNDN);
			mpfr_mul_d(t, t, p->theta, MPFR_RNDN);
			mpfr_set_si(u, -2 * (long)j, MPFR_RNDN);
			mpfr_div_si(u, u, R, MPFR_RNDN);
			mpfr_pow(inv, t, u, MPFR_RNDN);
		}
		break;
	case PE_ROPE_YARN:
		/* ramp = clamp((j - low) / (high - low)); inv0 / f ramp + inv0 (1 - ramp) */
		mpfr_set_ui(t, (unsigned long)j, MPFR_RNDN);
		mpfr_sub_d(t, t, r->yarn_low, MPFR_RNDN);
		mpfr_set_d(u, r->yarn_high, MPFR_RNDN);
		mpfr_sub_d(u, u, r->yarn_low, MPFR_RNDN);
		mpfr_div(t, t, u, MPFR_RNDN);
		if (mpfr_sgn(t) < 0)
			mpfr_set_ui(t, 0, MPFR_RNDN);
		if (mpfr_cmp_ui(t, 1) > 0)
			mpfr_set_ui(t, 1, MPFR_RNDN);
		mpfr_div_d(u, inv0, p->factor, MPFR_RNDN);
		mpfr_mul(u, u, t, MPFR_RNDN);
		mpfr_ui_sub(t, 1, t, MPFR_RNDN);
		mpfr_mul(inv, inv0, t, MPFR_RNDN);
		mpfr_add(inv, inv, u, MPFR_RNDN);
		break;
	case PE_ROPE_LLAMA3:
		/* lambda = 2 pi / inv0 against L0 / high and L0 / low */
		mpfr_const_pi(t, MPFR_RNDN);
		mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
		mpfr_div(t, t, inv0, MPFR_RNDN);
		mpfr_set_ui(u, (unsigned long)p->original_max, MPFR_RNDN);
		mpfr_div_d(u, u, p->high_freq_factor, MPFR_RNDN);
		if (mpfr_cmp(t, u) < 0)
			break;
		mpfr_set_ui(u, (unsigned long)p->original_max, MPFR_RNDN);
		mpfr_div_d(u, u, p->low_freq_factor, MPFR_RNDN);
		if (mpfr_cmp(t, u) > 0) {
			mpfr_div_d(inv, inv0, p->factor, MPFR_RNDN);
			break;
		}
		/* s = (L0 / lambda - low) / (high - low); (1 - s) inv0 / f + s inv0 */
		mpfr_ui_div(t, (unsigned long)p->original_max, t, MPFR_RNDN);
		mpfr_sub_d(t, t, p->low_freq_factor, MPFR_RNDN);
		mpfr_div_d(t, t, p->high_freq_factor - p->low_freq_factor, MPFR_RNDN);
		mpfr_mul(inv, inv0, t, MPFR_RNDN);
		mpfr_ui_sub(t, 1, t, MPFR_RNDN);
		mpfr_mul(t, t, inv0, MPFR_RNDN);
		mpfr_div_d(t, t, p->factor, MPFR_RNDN);
		mpfr_add(inv, inv, t, MPFR_RNDN);
		break;
	case PE_ROPE_LONGROPE:
		mpfr_div_d(inv, inv0, r->use_long ? p->long_factor[j] : p->short_factor[j],
			   MPFR_RNDN);
		break;
	case PE_ROPE_PROPORTIONAL:
		/* Gemma 4: inv0 / f for the first `rotated` pairs, 0 beyond */
		if (j < p->rotated)
			mpfr_div_d(inv, inv0, p->factor, MPFR_RNDN);
		else
			mpfr_set_zero(inv, 1);
		break;
	}
	mpfr_clears(t, u, inv0, (mpfr_ptr)0);
}

/* column of frequency j (the first of its two) */
static size_t rope_col(const struct pe_rope *r, size_t j)
{
	return r->p.layout != PE_LAYOUT_INTERLEAVED ? j : 2 * j;
}

/* whole blocks [b0, b0 + PE_ROPE_STEP) around the given rows, all four
 * tables, every frequency in both of its columns */
static void check_rope(const char *what, const struct pe_rope_params *p, const uint64_t *rows,
		       size_t nrows, size_t jstep)
{
	struct pe_rope r;
	struct pe_error err = { PE_OK, "" };
	struct pe_tensor tc, ts, ta, ti;
	size_t R = (size_t)p->rotary_dim, half = R / 2, i, j, b;
	mpfr_t *inv;
	float *c, *s, *a, *iv;

	if (pe_rope_init(&r, p, &err) != 0)
		fail_msg("pe_rope_init: %s", err.msg);
	inv = malloc(r.nfreq * sizeof *inv);
	c = malloc(PE_ROPE_STEP * R * sizeof *c);
	s = malloc(PE_ROPE_STEP * R * sizeof *s);
	a = malloc(PE_ROPE_STEP * R * sizeof *a);
	iv = malloc(r.nfreq * sizeof *iv);
	assert_true(inv && c && s && a && iv);
	assert_int_equal(pe_rope_tensor(&r, PE_ROPE_COS, &tc, &err), 0);
	assert_int_equal(pe_rope_tensor(&r, PE_ROPE_SIN, &ts, &err), 0);
	assert_int_equal(pe_rope_tensor(&r, PE_ROPE_ANGLES, &ta, &err), 0);
	assert_int_equal(pe_rope_tensor(&r, PE_ROPE_INV_FREQ, &ti, &err), 0);
	assert_int_equal(ti.fill(ti.ctx, 0, r.nfreq, iv, &err), 0);
	bad = 0;
	for (j = 0; j < r.nfreq; j += jstep) {
		mpfr_init2(inv[j], PREC);
		rope_inv(inv[j], &r, j);
		expect_f32(iv[j], pe_mpfr_to_f32(inv[j]), "inv_freq", 0, j);
	}
	for (i = 0; i < nrows; i++) {
		uint64_t b0 = rows[i] - rows[i] % PE_ROPE_STEP;
		size_t m = p->positions - b0 < PE_ROPE_STEP ? (size_t)(p->positions - b0)
							     : PE_ROPE_STEP;

		assert_int_equal(tc.fill(tc.ctx, b0, m, c, &err), 0);
		assert_int_equal(ts.fill(ts.ctx, b0, m, s, &err), 0);
		assert_int_equal(ta.fill(ta.ctx, b0, m, a, &err), 0);
		for (b = 0; b < m; b++) {
			int64_t pos = p->offset + (int64_t)(b0 + b);

			for (j = 0; j < r.nfreq; j += jstep) {
				size_t col = rope_col(&r, j), col2 = col + (r.p.layout != PE_LAYOUT_INTERLEAVED ? half : 1);
				float wc = ref_value(inv[j], pos, 1, r.attention);
				float ws = ref_value(inv[j], pos, 0, r.attention);
				mpfr_t ang;

				expect_f32(c[b * R + col], wc, what, b0 + b, col);
				expect_f32(c[b * R + col2], wc, what, b0 + b, col2);
				expect_f32(s[b * R + col], ws, what, b0 + b, col);
				expect_f32(s[b * R + col2], ws, what, b0 + b, col2);
				mpfr_init2(ang, PREC);
				mpfr_set_d(ang, (double)pos, MPFR_RNDN);
				mpfr_mul(ang, ang, inv[j], MPFR_RNDN);
				expect_f32(a[b * R + col], pe_mpfr_to_f32(ang), "angles", b0 + b, col);
				mpfr_clear(ang);
			}
		}
	}
	for (j = 0; j < r.nfreq; j += jstep)
		mpfr_clear(inv[j]);
	free(inv);
	free(c);
	free(s);
	free(a);
	free(iv);
	pe_rope_free(&r);
	expect_none(what);
}

/* the benchmark table, 131072 x 128, theta 1e4: its last blocks, its first,
 * random blocks */
static void test_rope_131072_by_128(void **state)
{
	struct pe_rope_params p = pe_test_rope_params(131072, 128);
	size_t n = 0, i, nrand = pe_test_quick() ? 4 : 30;
	uint64_t rows[64];

	(void)state;
	rows[n++] = 0;
	for (i = 0; i < (pe_test_quick() ? 2u : 8u); i++)
		rows[n++] = 131071 - PE_ROPE_STEP * i;
	n = random_rows(rows, n, nrand, 131072, 30);
	check_rope("rope 131072x128", &p, rows, n, 1);
}

static void test_rope_scalings(void **state)
{
	static const double sf[4] = { 1, 1.5, 2, 3 }, lf[4] = { 2, 4, 8, 16 };
	struct pe_rope_params p;
	uint64_t rows[16];
	size_t n, k;

	(void)state;
	for (k = 0; k < 9; k++) {
		p = pe_test_rope_params(40000, 128);
		switch (k) {
		case 0:
			p.scaling = PE_ROPE_YARN;
			p.factor = 4;
			p.original_max = 4096;
			break;
		case 1:
			p.scaling = PE_ROPE_LLAMA3;
			p.theta = 500000;
			p.factor = 8;
			p.original_max = 8192;
			break;
		case 2:
			p.scaling = PE_ROPE_LINEAR;
			p.factor = 4;
			p.layout = PE_LAYOUT_INTERLEAVED;
			break;
		case 3:
			p.scaling = PE_ROPE_DYNAMIC;
			p.factor = 2;
			p.original_max = 2048;
			p.seq_len = 8192;
			break;
		case 4:
			p.scaling = PE_ROPE_LONGROPE;
			p.rotary_dim = 8;
			p.short_factor = sf;
			p.long_factor = lf;
			p.nshort = p.nlong = 4;
			p.original_max = 4096;
			p.factor = 32;
			break;
		case 5:
			/* yarn with DeepSeek's mscale pair: attention below 1 */
			p.scaling = PE_ROPE_YARN;
			p.factor = 40;
			p.original_max = 4096;
			p.mscale = 0.707;
			p.mscale_all_dim = 1;
			p.offset = -1000;
			break;
		case 6:
			/* far positions with an attention factor */
			p.positions = 512;
			p.offset = ((int64_t)1 << 53) - 512;
			p.theta = 1e16;
			p.attention_factor = 3.25;
			break;
		case 8:
			/* proportional: 16 of 64 pairs turn, divided by f; the
			 * rest are 0 (cos 1, sin 0) */
			p.scaling = PE_ROPE_PROPORTIONAL;
			p.theta = 1e6;
			p.factor = 8;
			p.rotated = 16;
			break;
		case 7:
		default:
			/* beyond 2^15 frequencies: no step table, one exact angle
			 * per value */
			p.positions = 40;
			p.rotary_dim = 2 * ((1 << 15) + 3);
			p.offset = 123456;
			break;
		}
		n = 0;
		if (k != 7 || !pe_test_quick())
			rows[n++] = 0;
		rows[n++] = p.positions - 1;
		if (k != 7)
			n = random_rows(rows, n, pe_test_quick() ? 1 : 6, p.positions, 40 + k);
		check_rope(pe_rope_scaling_name(p.scaling), &p, rows, n, k == 7 ? 499 : 1);
	}
}

/* Frequencies down to 1e-300: values near zero in whole columns (the
 * relative form of the error bound settles them), frequencies below 2^-600
 * (sin rounds to +-0 by the sign of p), and an attention factor 1 + 3 2^-24
 * on a float32 rounding boundary, so att cos(p f), just below it for any
 * p != 0, must round down while att itself (p = 0) rounds up to even. */
static void test_tiny_frequencies(void **state)
{
	struct pe_sinusoidal_params p;
	struct pe_rope_params rp;
	uint64_t rows[300];
	size_t i;

	(void)state;
	PREC = 2400;
	pe_sinusoidal_defaults(&p, PE_SIN_VASWANI);
	p.positions = 300;
	p.dim = 64;
	p.offset = -150;
	p.base = 1e300;
	for (i = 0; i < 300; i++)
		rows[i] = pe_test_quick() ? i * 5 : i;
	check_sinusoidal("sinusoidal base 1e300", &p, rows, pe_test_quick() ? 60 : 300);
	rp = pe_test_rope_params(256, 16);
	rp.theta = 1e300;
	rp.offset = -100;
	rp.attention_factor = 1 + 0x3p-24;
	for (i = 0; i < 4; i++)
		rows[i] = 64 * i;
	check_rope("rope theta 1e300", &rp, rows, 4, 1);
	rp = pe_test_rope_params(100, 8);
	rp.scaling = PE_ROPE_LINEAR;
	rp.factor = 1e300;
	rp.attention_factor = 1 + 0x3p-24;
	rp.layout = PE_LAYOUT_INTERLEAVED;
	rows[0] = 0;
	rows[1] = 99;
	check_rope("rope linear 1e300", &rp, rows, 2, 1);
	PREC = 256;
}

/* ---- sincos2d ---- */

static void test_grid2d(void **state)
{
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_error err;
	size_t q, k, i, d;
	uint64_t seed = 50;
	mpfr_t *w;
	float *buf;
	int preset;

	(void)state;
	for (preset = 0; preset < 2; preset++) {
		pe_grid2d_defaults(&p);
		p.preset = (enum pe_grid2d_preset)preset;
		p.height = 3000;
		p.width = 700;
		p.dim = 128;
		p.cls_token = preset == 0;
		assert_int_equal(pe_grid2d_init(&g, &p, &err), 0);
		q = g.nfreq;
		d = (size_t)p.dim;
		w = malloc(q * sizeof *w);
		buf = malloc(d * sizeof *buf);
		assert_true(w && buf);
		for (k = 0; k < q; k++) {
			mpfr_init2(w[k], PREC);
			ref_pow(w[k], p.base, -(long)k, (unsigned long)q);
		}
		bad = 0;
		for (i = 0; i < (pe_test_quick() ? 20u : 300u); i++) {
			uint64_t tok = i == 0 ? 1 : pe_test_rand(&seed) % g.rows;
			uint64_t cell = tok - (p.cls_token ? 1 : 0);
			int64_t row, col, first, second;

			if (p.cls_token && tok == 0)
				continue;
			row = (int64_t)(cell / p.width);
			col = (int64_t)(cell % p.width);
			first = preset == 0 ? col : row;
			second = preset == 0 ? row : col;
			assert_int_equal(pe_grid2d_fill(&g, tok, 1, buf, &err), 0);
			for (k = 0; k < q; k++) {
				float s1 = ref_value(w[k], first, 0, 1.0), c1 = ref_value(w[k], first, 1, 1.0);
				float s2 = ref_value(w[k], second, 0, 1.0), c2 = ref_value(w[k], second, 1, 1.0);

				expect_f32(buf[k], s1, "sincos2d", tok, k);
				expect_f32(buf[q + k], preset == 0 ? c1 : s2, "sincos2d", tok, q + k);
				expect_f32(buf[2 * q + k], preset == 0 ? s2 : c1, "sincos2d", tok, 2 * q + k);
				expect_f32(buf[3 * q + k], c2, "sincos2d", tok, 3 * q + k);
			}
		}
		for (k = 0; k < q; k++)
			mpfr_clear(w[k]);
		free(w);
		free(buf);
		pe_grid2d_free(&g);
		expect_none(preset == 0 ? "sincos2d mae" : "sincos2d timm");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_million_by_64),
		cmocka_unit_test(test_sinusoidal_presets),
		cmocka_unit_test(test_rope_131072_by_128),
		cmocka_unit_test(test_rope_scalings),
		cmocka_unit_test(test_tiny_frequencies),
		cmocka_unit_test(test_grid2d),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
