/*
 * dd.h - double-double arithmetic (a value as hi + lo, |lo| <= ulp(hi) / 2)
 * for core's exact paths: the primitives the similarity's middle tier
 * (exact.c) and the correctly rounded doubles of angle.c both build on.
 */
#ifndef PE_CORE_DD_H
#define PE_CORE_DD_H

struct pe_dd {
	double hi, lo;
};

/* Dekker's exact product a * b = hi + lo (Veltkamp splitting; needs no
 * fused multiply-add, and the build forbids contraction). */
static inline void pe_two_product(double a, double b, double *hi, double *lo)
{
	const double split = 134217729.0;	/* 2^27 + 1 */
	double ca = split * a, cb = split * b;
	double ah = ca - (ca - a), al = a - ah;
	double bh = cb - (cb - b), bl = b - bh;

	*hi = a * b;
	*lo = ((ah * bh - *hi) + ah * bl + al * bh) + al * bl;
}

/* a + b exactly, for |a| >= |b| (or a = 0) */
static inline struct pe_dd pe_dd_fast_two_sum(double a, double b)
{
	struct pe_dd r;

	r.hi = a + b;
	r.lo = b - (r.hi - a);
	return r;
}

/* a + b exactly */
static inline struct pe_dd pe_dd_two_sum(double a, double b)
{
	struct pe_dd r;
	double v;

	r.hi = a + b;
	v = r.hi - a;
	r.lo = (a - (r.hi - v)) + (b - v);
	return r;
}

/* a b, within 2^-103 of |a b| */
static inline struct pe_dd pe_dd_mul(struct pe_dd a, struct pe_dd b)
{
	struct pe_dd p;

	pe_two_product(a.hi, b.hi, &p.hi, &p.lo);
	p.lo += a.hi * b.lo + a.lo * b.hi;
	return pe_dd_fast_two_sum(p.hi, p.lo);
}

/* a b for a double b */
static inline struct pe_dd pe_dd_mul_d(struct pe_dd a, double b)
{
	struct pe_dd p;

	pe_two_product(a.hi, b, &p.hi, &p.lo);
	p.lo += a.lo * b;
	return pe_dd_fast_two_sum(p.hi, p.lo);
}

#endif
