#include "core/qscale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/angle.h"
#include "core/mp.h"
#include "core/sleef32.h"

#define POS_MAX ((int64_t)1 << 53)

int pe_qscale_init(struct pe_qscale *q, const struct pe_qscale_params *p, struct pe_error *err)
{
	const char *sname = p->kind == PE_QSCALE_LLAMA4 ? "attn_scale" : "llama_4_scaling_beta";

	memset(q, 0, sizeof *q);
	if (p->positions == 0)
		return pe_fail(err, PE_ERR_PARAM, "{positions} must be positive");
	if (p->offset < 0 || p->offset > POS_MAX - 1 ||
	    p->positions - 1 > (uint64_t)(POS_MAX - 1 - p->offset))
		return pe_fail(err, PE_ERR_PARAM,
			       "the query scale counts positions from 0: {offset} %lld and {positions} %llu must stay within 0 .. 2^53 - 1",
			       (long long)p->offset, (unsigned long long)p->positions);
	if (!isfinite(p->scale))
		return pe_fail(err, PE_ERR_PARAM, "{%s} must be a finite number, got %g", sname,
			       p->scale);
	if (p->kind == PE_QSCALE_LLAMA4 && !(p->divisor >= 1 && p->divisor <= 0x1p53))
		return pe_fail(err, PE_ERR_PARAM, "{floor_scale} must be at least 1 (and at most 2^53), got %g",
			       p->divisor);
	if (p->kind == PE_QSCALE_BETA &&
	    !(p->divisor >= 1 && p->divisor <= 0x1p40 && p->divisor == floor(p->divisor)))
		return pe_fail(err, PE_ERR_PARAM,
			       "llama_4_scaling_beta needs {original_max_positions} (a positive integer), got %g",
			       p->divisor);
	if (p->float32 && pe_torch_check(&p->torch, err) != 0)
		return -1;
	q->p = *p;
	return 0;
}

/* Is k f <= P, exactly?  k, f, P doubles, k f without overflow. */
static int prod_le(double k, double f, double P)
{
	double hi, lo;

	pe_two_product(k, f, &hi, &lo);
	return hi < P || (hi == P && lo <= 0);
}

uint64_t pe_qscale_k(const struct pe_qscale *q, int64_t p)
{
	double P, k;

	if (q->p.kind == PE_QSCALE_BETA)
		return (uint64_t)p / (uint64_t)q->p.divisor;
	/* floor((p + 1) / f): the rounded quotient's floor, moved by one where
	 * the exact product says so (P <= 2^53 and f >= 1, so k <= 2^53) */
	P = (double)(p + 1);
	k = floor(P / q->p.divisor);
	if (!prod_le(k, q->p.divisor, P))
		k -= 1;
	else if (prod_le(k + 1, q->p.divisor, P))
		k += 1;
	return (uint64_t)k;
}

/* 1 + scale ln(1 + k) in 256-bit arithmetic (within 2^-240 relative: it is
 * transcendental for k >= 1, so no rounding boundary is met exactly) */
static void exact_value(const struct pe_qscale *q, uint64_t k, struct pe_mp *v)
{
	struct pe_mp t, s;

	pe_mp_set_u64(&t, k + 1);
	pe_mp_log(&t, &t);
	pe_mp_set_d(&s, q->p.scale);
	pe_mp_mul(&t, &t, &s);
	pe_mp_set_d(&s, 1.0);
	pe_mp_add(v, &t, &s);
}

/* torch's float32 steps, all but the logarithm; *arg: its argument */
static float f32_arg(const struct pe_qscale *q, int64_t p)
{
	float a;

	if (q->p.kind == PE_QSCALE_LLAMA4) {
		a = (float)p + 1.0f;
		return floorf(a / (float)q->p.divisor);	/* log1p of it */
	}
	a = (float)p / (float)q->p.divisor;
	return 1.0f + floorf(a);	/* log of it */
}

static float f32_finish(const struct pe_qscale *q, float lg)
{
	if (q->p.kind == PE_QSCALE_LLAMA4)
		return lg * (float)q->p.scale + 1.0f;
	return 1.0f + (float)q->p.scale * lg;
}

static float f32_arg_at(const void *ctx, uint64_t g)
{
	return f32_arg(ctx, (int64_t)g);
}

float pe_qscale_value(const struct pe_qscale *q, int64_t p)
{
	struct pe_mp v;
	uint64_t k;
	float a, lg;

	if (q->p.float32) {
		a = f32_arg(q, p);
		if (q->p.kind == PE_QSCALE_LLAMA4)
			lg = pe_sleef_log1pf(a);
		else
			pe_torch_unary(&q->p.torch, PE_TORCH_LOG, f32_arg_at, q, (uint64_t)p + 1,
				       (uint64_t)p, 1, &lg);
		return f32_finish(q, lg);
	}
	k = pe_qscale_k(q, p);
	if (k == 0 || q->p.scale == 0)
		return 1.0f;
	exact_value(q, k, &v);
	return pe_mp_to_f32(&v);
}

double pe_qscale_value64(const struct pe_qscale *q, int64_t p)
{
	struct pe_mp v;
	uint64_t k;

	if (q->p.float32)
		return (double)pe_qscale_value(q, p);
	k = pe_qscale_k(q, p);
	if (k == 0 || q->p.scale == 0)
		return 1.0;
	exact_value(q, k, &v);
	return pe_mp_to_d(&v);
}

/* Rows [r0, r0 + n): the values change only where k does (every
 * floor_scale or L0 positions), so the exact ones are computed once per
 * k met; the float32 logarithms for the whole run at once (MKL's vmsLn
 * takes a vector). */
static int fill(const void *ctx, uint64_t r0, size_t n, void *out, int wide, struct pe_error *err)
{
	const struct pe_qscale *q = ctx;
	uint64_t k, last = UINT64_MAX;
	int64_t p0 = q->p.offset + (int64_t)r0;
	struct pe_mp v;
	float f = 1.0f, *lg;
	double d = 1.0;
	size_t i;

	if (q->p.float32) {
		lg = malloc(n * sizeof *lg);
		if (!lg)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		if (q->p.kind == PE_QSCALE_LLAMA4)
			for (i = 0; i < n; i++)
				lg[i] = pe_sleef_log1pf(f32_arg(q, p0 + (int64_t)i));
		else
			pe_torch_unary(&q->p.torch, PE_TORCH_LOG, f32_arg_at, q,
				       (uint64_t)p0 + n, (uint64_t)p0, n, lg);
		for (i = 0; i < n; i++) {
			f = f32_finish(q, lg[i]);
			if (wide)
				((double *)out)[i] = (double)f;
			else
				((float *)out)[i] = f;
		}
		free(lg);
		return 0;
	}
	for (i = 0; i < n; i++) {
		k = pe_qscale_k(q, p0 + (int64_t)i);
		if (k != last) {
			last = k;
			f = 1.0f;
			d = 1.0;
			if (k != 0 && q->p.scale != 0) {
				exact_value(q, k, &v);
				f = pe_mp_to_f32(&v);
				d = pe_mp_to_d(&v);
			}
		}
		if (wide)
			((double *)out)[i] = d;
		else
			((float *)out)[i] = f;
	}
	return 0;
}

static int fill32(const void *ctx, uint64_t r0, size_t n, void *out, struct pe_error *err)
{
	return fill(ctx, r0, n, out, 0, err);
}

static int fill64(const void *ctx, uint64_t r0, size_t n, void *out, struct pe_error *err)
{
	return fill(ctx, r0, n, out, 1, err);
}

int pe_qscale_tensor(const struct pe_qscale *q, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[1] = { q->p.positions };

	if (pe_tensor_init(t, "attn_scale", PE_F32, fill32, q, 1, 1, shape, err) != 0)
		return -1;
	/* float32: the emulated values are the result; exact: doubles too */
	t->fill64 = q->p.float32 ? NULL : fill64;
	t->f32_exact = q->p.float32;
	return 0;
}

double pe_qscale_llama4(uint64_t p, double floor_scale, double attn_scale)
{
	return log1p(floor(((double)p + 1.0) / floor_scale)) * attn_scale + 1.0;
}

double pe_qscale_beta(uint64_t p, double beta, uint64_t L0)
{
	return 1.0 + beta * log(1.0 + (double)(p / L0));
}
