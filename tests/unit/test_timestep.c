/*
 * Timestep embeddings against the research notes' worked values
 * (rope-2026.md F.1), closed forms, and MPFR: every exact value must be
 * the correctly rounded float32 of sin or cos of c t' e^(-k ln P/(h - s)),
 * computed here at 256 bits from the formula, over timesteps of every
 * binade (fractional, negative, tiny beside large, bfloat16-rounded).
 * Also the model's own step before the embedding (bfloat16, times 1000),
 * the refusals, and the text reader of --timesteps-file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "core/timestep.h"
#include "io/values.h"
#include "testutil.h"

static float *table(const struct pe_timestep_params *p, struct pe_timestep *s)
{
	struct pe_error err;
	float *t;

	assert_int_equal(pe_timestep_init(s, p, &err), 0);
	t = malloc((size_t)(p->n * p->dim) * sizeof *t);
	assert_non_null(t);
	assert_int_equal(pe_timestep_fill(s, 0, (size_t)p->n, t, &err), 0);
	return t;
}

static struct pe_timestep_params params(enum pe_ts_preset preset, const double *t, size_t n,
					uint64_t d)
{
	struct pe_timestep_params p;

	pe_timestep_defaults(&p, preset);
	p.t = t;
	p.n = n;
	p.dim = d;
	return p;
}

/* The first columns of one timestep's row, within tol each. */
static void expect_row(enum pe_ts_preset preset, double t, uint64_t d, int float32,
		       const double *want, size_t n, double tol)
{
	struct pe_timestep_params p = params(preset, &t, 1, d);
	struct pe_timestep s;
	float *row;
	size_t k;

	p.float32 = float32;
	row = table(&p, &s);
	for (k = 0; k < n; k++)
		assert_close(row[k], want[k], tol, 0);
	free(row);
	pe_timestep_free(&s);
}

/* F.1's worked values (6-7 digits) */
static void test_worked(void **state)
{
	/* dim 4, t 1, shift 1, no flip: freqs 1, 1e-4 */
	const double ddpm[] = { 0.841471, 1e-4, 0.5403023, 1.0 };
	/* dim 4, t 1, shift 0, flip: freqs 1, 0.01 */
	const double flip[] = { 0.5403023, 0.99995, 0.841471, 0.00999983 };
	/* SD 1.5, t 999, dim 320: the first cos columns of the float32
	 * pipeline as torch 2.13.0 gives them (get_timestep_embedding(
	 * tensor([999.]), 320, True, 0)); the notes' -0.27812076 in column 2
	 * is NumPy's float32 exp, an ulp off torch's frequency */
	const double sd[] = { 0.9996498227, 0.8026775, -0.2780621350, 0.17680281 };
	/* FLUX, t 0.5 -> 500, float32: torch's values (the notes' 0.848523
	 * in column 2: NumPy's exp again) */
	const double flux[] = { -0.88384926, 0.94594574, 0.8485068679 };

	(void)state;
	expect_row(PE_TS_DDPM, 1, 4, 0, ddpm, 4, 1e-6);
	expect_row(PE_TS_SD, 1, 4, 0, flip, 4, 1e-6);
	expect_row(PE_TS_SD, 999, 320, 1, sd, 4, 1e-7);
	expect_row(PE_TS_FLUX, 0.5, 256, 1, flux, 3, 1e-7);
}

/* the model's step: FLUX's bfloat16, then times 1000 rounded to bfloat16 */
static void test_model_step(void **state)
{
	const double t[] = { 0.7, 0.333, 1.0, 0.0, 0.0625 };
	struct pe_timestep_params p;

	(void)state;
	p = params(PE_TS_FLUX, t, 5, 256);
	/* 0.7 -> 0.69921875 -> 699.21875 -> 700; 0.333 -> 0.33300781 -> 333.0078 -> 332 */
	assert_true(pe_timestep_input(&p, 0) == 700.0);
	assert_true(pe_timestep_input(&p, 1) == 332.0);
	assert_true(pe_timestep_input(&p, 2) == 1000.0);
	assert_true(pe_timestep_input(&p, 3) == 0.0);
	assert_true(pe_timestep_input(&p, 4) == 62.5);
	/* float32: 0.1 rounded, the product in float */
	p.tdtype = PE_STORE_FLOAT32;
	p.time_factor = 3;
	assert_true(pe_timestep_input(&p, 0) == (double)(0.7f * 3.0f));
	/* float64 keeps the double */
	p.tdtype = PE_STORE_FLOAT64;
	assert_true(pe_timestep_input(&p, 0) == 0.7 * 3);
	/* a range: A + i S in double */
	p.t = NULL;
	p.start = 0.25;
	p.step = 0.1;
	p.time_factor = 1;
	assert_true(pe_timestep_input(&p, 7) == 0.25 + 7 * 0.1);
}

/* layout: [sin | cos], flipped [cos | sin], a zero column for odd D, D = 1 */
static void test_layout(void **state)
{
	const double ts[] = { 3.0, -2.5 };
	struct pe_timestep_params p;
	struct pe_timestep s;
	float *a, *b;
	size_t i, k;

	(void)state;
	p = params(PE_TS_DDPM, ts, 2, 9);
	a = table(&p, &s);
	pe_timestep_free(&s);
	p.flip = 1;
	b = table(&p, &s);
	pe_timestep_free(&s);
	for (i = 0; i < 2; i++) {
		for (k = 0; k < 4; k++) {
			assert_memory_equal(&a[i * 9 + k], &b[i * 9 + 4 + k], sizeof(float));
			assert_memory_equal(&a[i * 9 + 4 + k], &b[i * 9 + k], sizeof(float));
		}
		assert_true(a[i * 9 + 8] == 0.0f && !signbit(a[i * 9 + 8]));
		assert_true(b[i * 9 + 8] == 0.0f);
	}
	/* sin(-x) = -sin x: the negative timestep's sin column 0 */
	assert_close(a[9], -sin(2.5), 1e-7, 0);
	free(a);
	free(b);
	p = params(PE_TS_DDPM, ts, 2, 1);
	a = table(&p, &s);
	assert_true(a[0] == 0.0f && a[1] == 0.0f);
	free(a);
	pe_timestep_free(&s);
}

/* the correctly rounded float32 of sin (or cos) of c t e^(-k ln P/(h - s)) */
static float mpfr_value(double t, double c, double period, double shift, size_t h, size_t k,
			int want_cos)
{
	mpfr_t a, x, y;
	float r;

	mpfr_inits2(320, a, x, y, (mpfr_ptr)0);
	mpfr_set_d(x, period, MPFR_RNDN);
	mpfr_log(x, x, MPFR_RNDN);
	mpfr_mul_ui(x, x, (unsigned long)k, MPFR_RNDN);
	mpfr_set_d(y, (double)h, MPFR_RNDN);
	mpfr_sub_d(y, y, shift, MPFR_RNDN);
	mpfr_div(x, x, y, MPFR_RNDN);
	mpfr_neg(x, x, MPFR_RNDN);
	mpfr_exp(x, x, MPFR_RNDN);
	mpfr_mul_d(x, x, t, MPFR_RNDN);
	mpfr_mul_d(a, x, c, MPFR_RNDN);
	if (want_cos)
		mpfr_cos(y, a, MPFR_RNDN);
	else
		mpfr_sin(y, a, MPFR_RNDN);
	r = pe_mpfr_to_f32(y);
	mpfr_clears(a, x, y, (mpfr_ptr)0);
	return r;
}

static void expect_mpfr(const struct pe_timestep_params *p, const char *what)
{
	struct pe_timestep s;
	size_t h = (size_t)(p->dim / 2), i, k, bad = 0;
	float *t = table(p, &s), want;
	double ti;

	for (i = 0; i < p->n; i++) {
		ti = pe_timestep_input(p, i);
		for (k = 0; k < 2 * h; k++) {
			want = mpfr_value(ti, p->scale, p->max_period, p->shift, h, k % h,
					  (k < h) == (p->flip != 0));
			if (memcmp(&want, &t[i * p->dim + k], sizeof want) != 0 &&
			    !(want == 0 && t[i * p->dim + k] == 0)) {
				if (bad++ < 5)
					print_message("%s: t %.17g column %zu: posenc %.9g, MPFR %.9g\n", what,
						      ti, k, (double)t[i * p->dim + k], (double)want);
			}
		}
	}
	assert_int_equal(bad, 0);
	free(t);
	pe_timestep_free(&s);
}

static void test_mpfr(void **state)
{
	double ts[96];
	uint64_t seed = 23;
	struct pe_timestep_params p;
	size_t i;

	(void)state;
	/* integers, sigmas, fractions of every size and sign, in one table:
	 * many binades, so many frequency sets */
	for (i = 0; i < 96; i++) {
		uint64_t r = pe_test_rand(&seed);

		switch (i % 4) {
		case 0:
			ts[i] = (double)(r % 1000);
			break;
		case 1:
			ts[i] = (double)(r >> 11) * 0x1p-53;
			break;
		case 2:
			ts[i] = ldexp((double)(r >> 11) * 0x1p-53 - 0.5, (int)(r % 40) - 30);
			break;
		default:
			ts[i] = (double)(r % 2000000) / 1000.0 - 1000.0;
		}
	}
	ts[5] = 0.0;
	p = params(PE_TS_SD, ts, 96, pe_test_quick() ? 64 : 320);
	p.tdtype = PE_STORE_FLOAT64;
	expect_mpfr(&p, "sd, float64 timesteps");
	p = params(PE_TS_DIT, ts, 96, 66);
	expect_mpfr(&p, "dit (shift 1), float32 timesteps");
	for (i = 0; i < 96; i++)
		ts[i] = fabs(ts[i]) < 2 ? ts[i] : ts[i] / 1000;
	p = params(PE_TS_FLUX, ts, 96, 64);
	expect_mpfr(&p, "flux (bfloat16, x1000)");
	/* odd knobs: negative scale, a fractional shift, a small period */
	p = params(PE_TS_DDPM, ts, 96, 31);
	p.tdtype = PE_STORE_FLOAT64;
	p.scale = -3.75;
	p.shift = 0.5;
	p.max_period = 17;
	expect_mpfr(&p, "scale -3.75, shift 0.5, max_period 17");
	/* a shift beyond h: frequencies that grow */
	p.scale = 1;
	p.shift = 20;
	p.max_period = 10;
	expect_mpfr(&p, "shift beyond half: growing frequencies");
}

static void test_refusals(void **state)
{
	const double big[] = { 100.0 }, huge[] = { 1e13 };
	struct pe_timestep_params p;
	struct pe_timestep s;
	struct pe_error err;

	(void)state;
	/* h - s = 0: diffusers divides by zero */
	p = params(PE_TS_DIT, NULL, 4, 2);
	assert_int_equal(pe_timestep_init(&s, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{freq_shift}"));
	pe_timestep_free(&s);
	p = params(PE_TS_DDPM, NULL, 4, 8);
	p.max_period = 0;
	assert_int_equal(pe_timestep_init(&s, &p, &err), -1);
	assert_non_null(strstr(err.msg, "{max_period}"));
	pe_timestep_free(&s);
	/* float16 holds at most 65504: 100 * 1000 is inf */
	p = params(PE_TS_FLUX, big, 1, 8);
	p.tdtype = PE_STORE_FLOAT16;
	assert_int_equal(pe_timestep_init(&s, &p, &err), -1);
	assert_non_null(strstr(err.msg, "becomes inf"));
	pe_timestep_free(&s);
	/* angles beyond 2^53 */
	p = params(PE_TS_AURAFLOW, huge, 1, 8);
	p.tdtype = PE_STORE_FLOAT64;
	assert_int_equal(pe_timestep_init(&s, &p, &err), -1);
	assert_non_null(strstr(err.msg, "2^53"));
	pe_timestep_free(&s);
}

static void test_values_text(void **state)
{
	const char ok[] = "# timesteps\n999, 500\n1.5e2\t0.25 # tail\n\n-3\n";
	double *v;
	size_t n;
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_values_parse_text((const unsigned char *)ok, strlen(ok), "t.txt", 100, &v, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_true(v[0] == 999 && v[1] == 500 && v[2] == 150 && v[3] == 0.25 && v[4] == -3);
	free(v);
	assert_int_equal(pe_values_parse_text((const unsigned char *)"1\n2\nx3\n", 7, "t.txt", 100, &v, &n, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "t.txt: line 3: 'x3' is not a finite number");
	assert_int_equal(pe_values_parse_text((const unsigned char *)"# none\n", 7, "t.txt", 100, &v, &n, &err), -1);
	assert_string_equal(err.msg, "t.txt: no numbers in it");
	assert_int_equal(pe_values_parse_text((const unsigned char *)"1 2 3", 5, "t.txt", 2, &v, &n, &err), -1);
	assert_string_equal(err.msg, "t.txt: more than 2 values");
	assert_int_equal(pe_values_parse_text((const unsigned char *)"nan", 3, "t.txt", 2, &v, &n, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked),
		cmocka_unit_test(test_model_step),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_mpfr),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_values_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
