/*
 * ALiBi: slopes against the research notes (section 4.1) and an
 * independent port of MPT's gen_slopes rule (written here), biases against
 * the closed forms, the 3-D shape, and the per-row-constant relation
 * between the forms; the double fill (--dtype) against MPFR: every value
 * m d correctly rounded to double.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "core/alibi.h"
#include "testutil.h"

static float *fill_all(const struct pe_alibi *a, struct pe_tensor *t)
{
	struct pe_error err;
	float *v;

	assert_int_equal(pe_alibi_tensor(a, t, &err), 0);
	v = malloc((size_t)(t->rows * t->cols) * sizeof *v);
	assert_non_null(v);
	assert_int_equal(t->fill(t->ctx, 0, (size_t)t->rows, v, &err), 0);
	return v;
}

static void test_golden_slopes(void **state)
{
	const double h1[] = { 1.0 / 256 };
	const double h2[] = { 1.0 / 16, 1.0 / 256 };
	const double h3[] = { 1.0 / 16, 1.0 / 256, 1.0 / 4 };
	const double h8[] = { 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625 };
	const double h12[] = { 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
			       0.707107, 0.353553, 0.176777, 0.0883883 };
	const struct {
		uint64_t h;
		const double *v;
	} cases[] = { { 1, h1 }, { 2, h2 }, { 3, h3 }, { 8, h8 }, { 12, h12 } };
	size_t c, k;

	(void)state;
	for (c = 0; c < 5; c++)
		for (k = 0; k < cases[c].h; k++)
			assert_close((double)pe_alibi_slope(cases[c].h, 8, k), cases[c].v[k], 0, 2e-6);
}

/* MPT gen_slopes: N = 2^ceil(log2 H), m_k = k B / N, slope 1 / 2^m_k;
 * if N != H: concat(slopes[1::2], slopes[0::2])[:H] */
static double mpt_slope(uint64_t h, double B, uint64_t k)
{
	uint64_t N = 1, idx;

	while (N < h)
		N *= 2;
	if (N == h)
		idx = k + 1;
	else if (k < N / 2)
		idx = 2 * (k + 1);		/* slopes[1::2]: k = 2, 4, ... */
	else
		idx = 2 * (k - N / 2) + 1;	/* slopes[0::2]: k = 1, 3, ... */
	return 1.0 / pow(2.0, (double)idx * (B / (double)N));
}

static void test_mpt_rule(void **state)
{
	const double B[] = { 8, 4, 12.5 };
	uint64_t h, k;
	size_t b;

	(void)state;
	for (b = 0; b < 3; b++)
		for (h = 1; h <= 40; h++)
			for (k = 0; k < h; k++)
				assert_close((double)pe_alibi_slope(h, B[b], k), mpt_slope(h, B[b], k), 0,
					     1e-14);
}

static void test_forms(void **state)
{
	struct pe_alibi_params p;
	struct pe_alibi c, s, b;
	struct pe_tensor tc, ts, tb;
	struct pe_error err;
	float *vc, *vs, *vb;
	uint64_t h, i, j, n = 9;

	(void)state;
	pe_alibi_defaults(&p);
	p.heads = 3;
	p.positions = n;
	assert_int_equal(pe_alibi_init(&c, &p, &err), 0);
	p.form = PE_ALIBI_SYMMETRIC;
	assert_int_equal(pe_alibi_init(&s, &p, &err), 0);
	p.form = PE_ALIBI_BLOOM;
	assert_int_equal(pe_alibi_init(&b, &p, &err), 0);
	vc = fill_all(&c, &tc);
	vs = fill_all(&s, &ts);
	vb = fill_all(&b, &tb);
	assert_int_equal(tc.ndim, 3);
	assert_true(tc.shape[0] == 3 && tc.shape[1] == n && tc.shape[2] == n);
	assert_true(tc.rows == 3 * n && tc.cols == n);
	for (h = 0; h < 3; h++) {
		long double m = c.slope[h];

		for (i = 0; i < n; i++) {
			const float *rc = vc + (h * n + i) * n, *rs = vs + (h * n + i) * n;
			const float *rb = vb + (h * n + i) * n;

			for (j = 0; j < n; j++) {
				long double d = (long double)i - (long double)j;

				assert_true(rs[j] == (float)(-m * fabsl(d)));
				assert_true(rb[j] == (float)(m * (long double)j));
				if (j <= i) {
					assert_true(rc[j] == (float)(-m * d));
					assert_true(rc[j] == rs[j]);
					/* causal - bloom = -m i, the same for every key */
					assert_close((double)rc[j] - (double)rb[j], (double)(-m * (long double)i),
						     1e-6, 0);
				} else {
					assert_true(rc[j] == 0.0f);
				}
				assert_false(signbit(rc[j]) && rc[j] == 0.0f);
				assert_false(signbit(rs[j]) && rs[j] == 0.0f);
			}
		}
	}
	free(vc);
	free(vs);
	free(vb);
	pe_alibi_free(&c);
	pe_alibi_free(&s);
	pe_alibi_free(&b);
}

/* --head K is the K-th N x N block of the full bias */
static void test_one_head(void **state)
{
	struct pe_alibi_params p;
	struct pe_alibi all, one;
	struct pe_tensor ta, to;
	struct pe_error err;
	float *va, *vo;

	(void)state;
	pe_alibi_defaults(&p);
	p.heads = 5;
	p.positions = 7;
	assert_int_equal(pe_alibi_init(&all, &p, &err), 0);
	p.head = 3;
	assert_int_equal(pe_alibi_init(&one, &p, &err), 0);
	va = fill_all(&all, &ta);
	vo = fill_all(&one, &to);
	assert_int_equal(to.ndim, 2);
	assert_memory_equal(vo, va + 3 * 7 * 7, 7 * 7 * sizeof *vo);
	free(va);
	free(vo);
	pe_alibi_free(&all);
	pe_alibi_free(&one);

	p.head = 5;
	assert_int_equal(pe_alibi_init(&one, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{head} 5"));
	pe_alibi_free(&one);
	p.head = -1;
	p.bias_max = 0;
	assert_int_equal(pe_alibi_init(&one, &p, &err), -1);
	pe_alibi_free(&one);
}

static void test_slopes_tensor(void **state)
{
	struct pe_alibi_params p;
	struct pe_alibi a;
	struct pe_tensor t;
	struct pe_error err;
	float *v;

	(void)state;
	pe_alibi_defaults(&p);
	p.heads = 12;
	p.table = PE_ALIBI_SLOPES;
	assert_int_equal(pe_alibi_init(&a, &p, &err), 0);
	v = fill_all(&a, &t);
	assert_int_equal(t.ndim, 1);
	assert_true(t.shape[0] == 12 && t.cols == 1);
	assert_true(v[8] == (float)sqrtl(0.5L));
	assert_true(v[7] == 0.00390625f);
	free(v);
	pe_alibi_free(&a);
}

/* slope k of H heads (the paper's rule) times d, rounded to double by MPFR */
static double ref_bias(uint64_t heads, uint64_t k, int64_t d)
{
	uint64_t c = 1, num, den;
	mpfr_t x;
	double v;

	while (c <= heads / 2)
		c *= 2;
	num = k < c ? k + 1 : 2 * (k - c) + 1;
	den = k < c ? c : 2 * c;
	mpfr_init2(x, 256);
	mpfr_set_si(x, -8 * (long)num, MPFR_RNDN);
	mpfr_div_ui(x, x, (unsigned long)den, MPFR_RNDN);
	mpfr_exp2(x, x, MPFR_RNDN);
	mpfr_mul_si(x, x, (long)d, MPFR_RNDN);
	v = mpfr_get_d(x, MPFR_RNDN);
	mpfr_clear(x);
	return v;
}

static void test_double_fill(void **state)
{
	static const uint64_t heads[] = { 12, 8, 5, 40 };
	struct pe_alibi_params p;
	struct pe_alibi a;
	struct pe_tensor t;
	struct pe_error err;
	uint64_t seed = 7, n = 70001, i, row, head, bad = 0;
	double *row64 = malloc(n * sizeof *row64), want;
	size_t h, j;
	int form;

	(void)state;
	assert_non_null(row64);
	for (h = 0; h < sizeof heads / sizeof heads[0]; h++)
		for (form = 0; form < 3; form++) {
			pe_alibi_defaults(&p);
			p.heads = heads[h];
			p.positions = n;
			p.form = (enum pe_alibi_form)form;
			assert_int_equal(pe_alibi_init(&a, &p, &err), 0);
			assert_int_equal(pe_alibi_tensor(&a, &t, &err), 0);
			assert_non_null(t.fill64);
			for (i = 0; i < (pe_test_quick() ? 2u : 6u); i++) {
				row = pe_test_rand(&seed) % t.rows;
				head = row / n;
				assert_int_equal(t.fill64(t.ctx, row, 1, row64, &err), 0);
				for (j = 0; j < n; j += 1 + (size_t)(pe_test_rand(&seed) % 97)) {
					int64_t q = (int64_t)(row % n), d = form == 0 ? (int64_t)j < q ? q - (int64_t)j : 0
						  : form == 1 ? (q > (int64_t)j ? q - (int64_t)j : (int64_t)j - q)
						  : -(int64_t)j;

					want = d == 0 ? 0.0 : ref_bias(heads[h], head, -d);
					if (memcmp(&row64[j], &want, sizeof want) != 0 && bad++ < 5)
						print_error("H %llu form %d row %llu col %zu: %.17g, want %.17g\n",
							    (unsigned long long)heads[h], form,
							    (unsigned long long)row, j, row64[j], want);
				}
			}
			pe_alibi_free(&a);
		}
	free(row64);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_slopes),
		cmocka_unit_test(test_mpt_rule),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_one_head),
		cmocka_unit_test(test_slopes_tensor),
		cmocka_unit_test(test_double_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
