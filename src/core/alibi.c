#include "core/alibi.h"

#include "core/angle.h"
#include "core/mp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pe_alibi_defaults(struct pe_alibi_params *p)
{
	memset(p, 0, sizeof *p);
	p->heads = 8;
	p->positions = 512;
	p->bias_max = 8.0;
	p->form = PE_ALIBI_CAUSAL;
	p->table = PE_ALIBI_BIAS;
	p->head = -1;
}

long double pe_alibi_slope(uint64_t heads, double bias_max, uint64_t k)
{
	uint64_t c = 1;

	while (c <= heads / 2)
		c *= 2;
	/* c = 2^floor(log2 H): the first c heads follow the power-of-two rule */
	if (k < c)
		return exp2l(-(long double)bias_max * (long double)(k + 1) / (long double)c);
	/* the rest: the odd-numbered slopes 1, 3, 5, ... of 2c heads */
	return exp2l(-(long double)bias_max * (long double)(2 * (k - c) + 1) /
		     (long double)(2 * c));
}

/* 2^(-B num / den) of pe_alibi_slope in 256 bits, for distances below N */
static void exact_slopes(struct pe_alibi *a)
{
	uint64_t c = 1, k, num, den;
	struct pe_mp ln2, x, t;
	int bits = pe_angle_bits(0, (int64_t)a->p.positions - 1);

	while (c <= a->p.heads / 2)
		c *= 2;
	pe_mp_set_d(&ln2, 2.0);
	pe_mp_log(&ln2, &ln2);
	for (k = 0; k < a->p.heads; k++) {
		num = k < c ? k + 1 : 2 * (k - c) + 1;
		den = k < c ? c : 2 * c;
		pe_mp_set_d(&t, a->p.bias_max);
		pe_mp_mul(&x, &ln2, &t);
		pe_mp_set_u64(&t, num);
		pe_mp_mul(&x, &x, &t);
		pe_mp_div_u64(&x, &x, den);
		x.sign = -x.sign;
		pe_mp_exp(&x, &x);
		pe_freq_init(&a->exact[k], &x, bits);
	}
}

int pe_alibi_init(struct pe_alibi *a, const struct pe_alibi_params *p, struct pe_error *err)
{
	uint64_t k;

	memset(a, 0, sizeof *a);
	a->p = *p;
	if (p->heads == 0 || p->heads > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_PARAM, "{heads} must be an integer from 1 to %llu",
			       (unsigned long long)PE_MAX_COLS);
	if (p->positions == 0)
		return pe_fail(err, PE_ERR_PARAM, "{positions} must be positive");
	if (!(p->bias_max > 0) || !isfinite(p->bias_max))
		return pe_fail(err, PE_ERR_PARAM, "{alibi_bias_max} must be a positive number");
	if (p->head >= 0 && (uint64_t)p->head >= p->heads)
		return pe_fail(err, PE_ERR_PARAM, "{head} %lld is out of range for %llu heads (0 to %llu)",
			       (long long)p->head, (unsigned long long)p->heads,
			       (unsigned long long)(p->heads - 1));
	a->slope = malloc(p->heads * sizeof *a->slope);
	a->exact = malloc(p->heads * sizeof *a->exact);
	if (!a->slope || !a->exact)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (k = 0; k < p->heads; k++)
		a->slope[k] = pe_alibi_slope(p->heads, p->bias_max, k);
	exact_slopes(a);
	return 0;
}

void pe_alibi_free(struct pe_alibi *a)
{
	free(a->slope);
	free(a->exact);
	a->slope = NULL;
	a->exact = NULL;
}

static int pe_alibi_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
			 struct pe_error *err);
static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

static int init(struct pe_tensor *t, const char *name, const struct pe_alibi *a, int ndim,
		const uint64_t *shape, struct pe_error *err)
{
	if (pe_tensor_init(t, name, PE_F32, pe_alibi_fill, a, 1, ndim, shape, err) != 0)
		return -1;
	t->fill64 = fill64;
	return 0;
}

int pe_alibi_tensor(const struct pe_alibi *a, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[3];

	if (a->p.table == PE_ALIBI_SLOPES) {
		shape[0] = a->p.heads;
		return init(t, "alibi_slopes", a, 1, shape, err);
	}
	if (a->p.positions > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_PARAM,
			       "an ALiBi bias has N columns: {positions} must be at most %llu, got %llu",
			       (unsigned long long)PE_MAX_COLS, (unsigned long long)a->p.positions);
	if (a->p.head >= 0) {
		shape[0] = shape[1] = a->p.positions;
		return init(t, "alibi_bias", a, 2, shape, err);
	}
	if (a->p.heads > PE_MAX_ELEMS / a->p.positions / a->p.positions)
		return pe_fail(err, PE_ERR_PARAM, "a bias of %llu x %llu x %llu values is too large",
			       (unsigned long long)a->p.heads, (unsigned long long)a->p.positions,
			       (unsigned long long)a->p.positions);
	shape[0] = a->p.heads;
	shape[1] = shape[2] = a->p.positions;
	return init(t, "alibi_bias", a, 3, shape, err);
}

static int pe_alibi_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_alibi *a = ctx;
	uint64_t n = a->p.positions, row, head, i, j;
	float *o = out;
	long double m;
	size_t r;

	(void)err;
	if (a->p.table == PE_ALIBI_SLOPES) {
		for (r = 0; r < nrows; r++)
			o[r] = (float)a->slope[r0 + r];
		return 0;
	}
	for (r = 0; r < nrows; r++, o += n) {
		row = r0 + r;
		head = a->p.head >= 0 ? (uint64_t)a->p.head : row / n;
		i = row % n;
		m = a->slope[head];
		for (j = 0; j < n; j++) {
			switch (a->p.form) {
			case PE_ALIBI_CAUSAL:
				/* 0 on and above the diagonal (+0, never -0) */
				o[j] = j < i ? (float)(-m * (long double)(i - j)) : 0.0f;
				break;
			case PE_ALIBI_SYMMETRIC:
				o[j] = i == j ? 0.0f : (float)(-m * (long double)(i > j ? i - j : j - i));
				break;
			case PE_ALIBI_BLOOM:
				o[j] = (float)(m * (long double)j);
				break;
			}
		}
	}
	return 0;
}

/* The values correctly rounded to double: m d as an angle p f
 * (core/angle.h), negated where the form subtracts. */
static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_alibi *a = ctx;
	uint64_t n = a->p.positions, row, head, i, j;
	const struct pe_freq *m;
	double *o = out;
	size_t r;

	(void)err;
	if (a->p.table == PE_ALIBI_SLOPES) {
		for (r = 0; r < nrows; r++)
			o[r] = a->exact[r0 + r].f;	/* the nearest double */
		return 0;
	}
	for (r = 0; r < nrows; r++, o += n) {
		row = r0 + r;
		head = a->p.head >= 0 ? (uint64_t)a->p.head : row / n;
		i = row % n;
		m = &a->exact[head];
		for (j = 0; j < n; j++) {
			switch (a->p.form) {
			case PE_ALIBI_CAUSAL:
				o[j] = j < i ? -pe_angle_pf_f64(m, (int64_t)(i - j)) : 0.0;
				break;
			case PE_ALIBI_SYMMETRIC:
				o[j] = i == j ? 0.0 : -pe_angle_pf_f64(m, (int64_t)(i > j ? i - j : j - i));
				break;
			case PE_ALIBI_BLOOM:
				o[j] = pe_angle_pf_f64(m, (int64_t)j);
				break;
			}
		}
	}
	return 0;
}
