/* sincos() is a GNU extension: ISO mode hides it (and the compiler does
 * not merge sin and cos into one call), so this file alone asks for it. */
#define _GNU_SOURCE
#include "core/angle.h"

#include <float.h>
#include <math.h>

void pe_sincos(double x, double *s, double *c)
{
#if defined(__GLIBC__)
	sincos(x, s, c);
#else
	*s = sin(x);
	*c = cos(x);
#endif
}

int pe_angle_bits(int64_t first, int64_t last)
{
	uint64_t a = first < 0 ? (uint64_t)0 - (uint64_t)first : (uint64_t)first;
	uint64_t b = last < 0 ? (uint64_t)0 - (uint64_t)last : (uint64_t)last;
	uint64_t m = a > b ? a : b;
	int bits = 0;

	while (m) {
		bits++;
		m >>= 1;
	}
	return bits;
}

long double pe_angle_max(long double fmax, int64_t first, int64_t last)
{
	long double a = first < 0 ? -(long double)first : (long double)first;
	long double b = last < 0 ? -(long double)last : (long double)last;

	if (!(fmax >= 0) || !isfinite((double)fmax))
		return NAN;
	return (a > b ? a : b) * fmax;
}

void pe_freq_init(struct pe_freq *fr, long double f, int bits)
{
	double scale;
	int e;

	fr->f = (double)f;
	fr->r = (double)(f - (long double)fr->f);
	fr->h1 = fr->f;
	fr->h2 = 0.0;
	fr->split = 0;
	if (bits > 26 || !(fabs(fr->f) >= DBL_MIN) || !isfinite(fr->f))
		return;
	frexp(fr->f, &e);
	scale = ldexp(1.0, 53 - bits - e);
	if (!isfinite(scale) || scale == 0.0)
		return;
	fr->h1 = trunc(fr->f * scale) / scale;
	fr->h2 = fr->f - fr->h1;
	fr->split = 1;
}

/* Dekker's exact product a * b = hi + lo (Veltkamp splitting; needs no
 * fused multiply-add, and the build forbids contraction). */
static void two_product(double a, double b, double *hi, double *lo)
{
	const double split = 134217729.0;	/* 2^27 + 1 */
	double ca = split * a, cb = split * b;
	double ah = ca - (ca - a), al = a - ah;
	double bh = cb - (cb - b), bl = b - bh;

	*hi = a * b;
	*lo = ((ah * bh - *hi) + ah * bl + al * bh) + al * bl;
}

void pe_sincos_pf(const struct pe_freq *fr, int64_t p, double *s, double *c)
{
	double pd = (double)p, x1, x2, a, e, lo, sa, ca;

	if (fr->split) {
		x1 = pd * fr->h1;
		x2 = pd * fr->h2;
		a = x1 + x2;
		e = x2 - (a - x1);
		lo = e + pd * fr->r;
	} else {
		two_product(pd, fr->f, &a, &e);
		lo = e + pd * fr->r;
	}
	pe_sincos(a, &sa, &ca);
	if (fabs(lo) <= 0x1p-26) {
		/* sin(a + lo) = sin a + lo cos a + O(lo^2 / 2 <= 2^-53): always
		 * so for |p| < 2^26, where lo is at most 2^-27 + 2^-28 */
		*s = sa + lo * ca;
		*c = ca - lo * sa;
	} else {
		/* far positions: p times the frequency's residual is no longer
		 * small, so the angles are added in full */
		double sl, cl;

		pe_sincos(lo, &sl, &cl);
		*s = sa * cl + ca * sl;
		*c = ca * cl - sa * sl;
	}
}
