/*
 * Rounding to float16 and bfloat16 (see dtype.h).  A double holds every
 * value of both types exactly, so a rounding is: find the quantum (the
 * type's ulp at x's binade, or the subnormal quantum below the smallest
 * normal), round x / quantum to an integer, ties to even (nearbyint in the
 * default rounding mode; the division by a power of two is exact), and
 * scale back.  Then the bits are assembled field by field.
 */
#include "core/dtype.h"

#include <math.h>
#include <string.h>

const char *const pe_store_names[] = { "float32", "float16", "bfloat16", "float64", NULL };

unsigned pe_store_size(enum pe_store d)
{
	return d == PE_STORE_FLOAT64 ? 8 : d == PE_STORE_FLOAT32 ? 4 : 2;
}

/* A format: p significand bits (with the implicit one), normal exponents
 * emin..emax. */
struct fmt {
	int p, emin, emax;
};

static const struct fmt F16 = { 11, -14, 15 }, BF16 = { 8, -126, 127 };

static double round_to(double x, const struct fmt *f)
{
	double q, r, max;
	int e;

	if (!isfinite(x) || x == 0)
		return x;
	frexp(x, &e);			/* |x| in [2^(e-1), 2^e) */
	if (e - 1 < f->emin)
		e = f->emin + 1;	/* subnormal: the smallest normal's quantum */
	q = ldexp(1.0, e - f->p);
	r = nearbyint(x / q) * q;
	max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
	return fabs(r) > max ? copysign(INFINITY, x) : r;
}

double pe_round_f16(double x)
{
	return round_to(x, &F16);
}

double pe_round_bf16(double x)
{
	return round_to(x, &BF16);
}

/* The bits of v, a value of the format (or +-inf, NaN): 1 sign bit, then
 * ebits of exponent (bias 2^(ebits-1) - 1), then p - 1 of fraction. */
static uint16_t encode(double v, const struct fmt *f, int ebits)
{
	uint16_t sign = signbit(v) ? (uint16_t)0x8000 : 0, emask = (uint16_t)((1u << ebits) - 1);
	int fbits = f->p - 1, bias = (1 << (ebits - 1)) - 1, e;
	double m;

	if (isnan(v))
		return (uint16_t)(sign | (emask << fbits) | (1u << (fbits - 1)));
	if (isinf(v))
		return (uint16_t)(sign | (emask << fbits));
	v = fabs(v);
	if (v == 0)
		return sign;
	m = frexp(v, &e);		/* v = m 2^e, m in [0.5, 1) */
	if (e - 1 < f->emin)		/* subnormal: v / 2^(emin - fbits) */
		return (uint16_t)(sign | (uint16_t)ldexp(v, fbits - f->emin));
	return (uint16_t)(sign | ((uint16_t)(e - 1 + bias) << fbits) |
			  ((uint16_t)ldexp(m, f->p) & ((1u << fbits) - 1)));
}

uint16_t pe_to_f16(double x)
{
	return encode(pe_round_f16(x), &F16, 5);
}

uint16_t pe_to_bf16(double x)
{
	return encode(pe_round_bf16(x), &BF16, 8);
}

float pe_from_f16(uint16_t h)
{
	unsigned e = (h >> 10) & 31u, m = h & 1023u;
	double v;

	if (e == 31 && m) {
		/* NaN: the payload moves into float32's top fraction bits, the
		 * quiet bit included, as NumPy widens float16 */
		uint32_t u = ((uint32_t)(h & 0x8000u) << 16) | 0x7f800000u | ((uint32_t)m << 13);
		float f;

		memcpy(&f, &u, sizeof f);
		return f;
	}
	v = e == 0 ? ldexp((double)m, -24)
	  : e == 31 ? (double)INFINITY
		    : ldexp((double)(m | 1024u), (int)e - 25);
	return (float)((h & 0x8000) ? -v : v);
}

float pe_from_bf16(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}
