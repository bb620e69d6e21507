#include "core/mp.h"

#include <math.h>
#include <string.h>

#define L PE_MP_LIMBS
#define WIDE (2 * L + 1)

/* pi/2 and ln 2 truncated to 256 bits (0.d * 2^1 and 0.d * 2^0), from
 * Machin's formula and 2 atanh(1/3) in exact integer arithmetic */
static const struct pe_mp PIO2 = { 1, 1, { 0xc90fdaa2, 0x2168c234, 0xc4c6628b, 0x80dc1cd1,
					  0x29024e08, 0x8a67cc74, 0x020bbea6, 0x3b139b22 } };
static const struct pe_mp LN2 = { 1, 0, { 0xb17217f7, 0xd1cf79ab, 0xc9e3b398, 0x03f2f6af,
					 0x40f34326, 0x7298b62d, 0x8a0d175b, 0x8baafa2b } };

static void set_zero(struct pe_mp *r)
{
	memset(r, 0, sizeof *r);
}

static int clz32(uint32_t x)
{
	int n = 0;

	while (!(x & 0x80000000u)) {
		x <<= 1;
		n++;
	}
	return n;
}

/* r = sign * 0.w[0]w[1]...w[n-1] * 2^e, truncated to L limbs */
static void norm(struct pe_mp *r, int sign, int64_t e, const uint32_t *w, size_t n)
{
	size_t i = 0, k;
	int sh;

	while (i < n && w[i] == 0)
		i++;
	if (i == n || sign == 0) {
		set_zero(r);
		return;
	}
	e -= 32 * (int64_t)i;
	sh = clz32(w[i]);
	e -= sh;
	for (k = 0; k < L; k++) {
		uint32_t hi = i + k < n ? w[i + k] : 0, lo = i + k + 1 < n ? w[i + k + 1] : 0;

		r->d[k] = sh ? (hi << sh) | (lo >> (32 - sh)) : hi;
	}
	r->sign = sign;
	r->exp = e;
}

static int cmp_abs(const struct pe_mp *a, const struct pe_mp *b)
{
	size_t k;

	if (a->sign == 0 || b->sign == 0)
		return (a->sign != 0) - (b->sign != 0);
	if (a->exp != b->exp)
		return a->exp > b->exp ? 1 : -1;
	for (k = 0; k < L; k++)
		if (a->d[k] != b->d[k])
			return a->d[k] > b->d[k] ? 1 : -1;
	return 0;
}

int pe_mp_cmp(const struct pe_mp *a, const struct pe_mp *b)
{
	if (a->sign != b->sign)
		return a->sign > b->sign ? 1 : -1;
	return a->sign * cmp_abs(a, b);
}

void pe_mp_set_u64(struct pe_mp *r, uint64_t v)
{
	uint32_t w[2] = { (uint32_t)(v >> 32), (uint32_t)v };

	norm(r, v ? 1 : 0, 64, w, 2);
}

void pe_mp_set_i64(struct pe_mp *r, int64_t v)
{
	pe_mp_set_u64(r, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		r->sign = -1;
}

void pe_mp_set_d(struct pe_mp *r, double x)
{
	uint64_t u;
	uint32_t w[2];
	int e;

	if (x == 0) {
		set_zero(r);
		return;
	}
	u = (uint64_t)ldexp(frexp(fabs(x), &e), 64);	/* exact: 53 bits below 2^64 */
	w[0] = (uint32_t)(u >> 32);
	w[1] = (uint32_t)u;
	norm(r, x < 0 ? -1 : 1, e, w, 2);
}

/* r = a + bsign |b| */
static void add_signed(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b, int bsign)
{
	const struct pe_mp *big = a, *small = b;
	int sbig = a->sign, ssmall = bsign, sign;
	uint32_t w[WIDE] = { 0 }, v[WIDE] = { 0 };
	int64_t s;
	size_t k;

	if (b->sign == 0) {
		*r = *a;
		return;
	}
	if (a->sign == 0) {
		*r = *b;
		r->sign = bsign;
		return;
	}
	if (cmp_abs(a, b) < 0) {
		big = b;
		small = a;
		sbig = bsign;
		ssmall = a->sign;
	}
	sign = sbig;
	for (k = 0; k < L; k++)
		w[1 + k] = big->d[k];
	s = big->exp - small->exp;
	if (s < 32 * 2 * L) {
		size_t q = (size_t)(s / 32);
		int rb = (int)(s % 32);

		for (k = 0; k < L; k++) {
			size_t idx = 1 + q + k;

			if (idx < WIDE)
				v[idx] |= rb ? small->d[k] >> rb : small->d[k];
			if (rb && idx + 1 < WIDE)
				v[idx + 1] |= small->d[k] << (32 - rb);
		}
	}
	if (sbig == ssmall) {
		uint64_t carry = 0;

		for (k = WIDE; k-- > 0;) {
			uint64_t t = (uint64_t)w[k] + v[k] + carry;

			w[k] = (uint32_t)t;
			carry = t >> 32;
		}
	} else {
		int64_t borrow = 0;

		/* |big| >= |small| >= the aligned, truncated small: no final borrow */
		for (k = WIDE; k-- > 0;) {
			int64_t t = (int64_t)w[k] - (int64_t)v[k] - borrow;

			borrow = t < 0;
			w[k] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
		}
	}
	norm(r, sign, big->exp + 32, w, WIDE);
}

void pe_mp_add(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b)
{
	add_signed(r, a, b, b->sign);
}

void pe_mp_sub(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b)
{
	add_signed(r, a, b, -b->sign);
}

void pe_mp_mul(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b)
{
	uint32_t w[2 * L] = { 0 };
	size_t i, j;

	if (a->sign == 0 || b->sign == 0) {
		set_zero(r);
		return;
	}
	for (i = L; i-- > 0;) {
		uint64_t carry = 0;

		for (j = L; j-- > 0;) {
			uint64_t t = (uint64_t)a->d[i] * b->d[j] + w[i + j + 1] + carry;

			w[i + j + 1] = (uint32_t)t;
			carry = t >> 32;
		}
		w[i] = (uint32_t)carry;
	}
	norm(r, a->sign * b->sign, a->exp + b->exp, w, 2 * L);
}

void pe_mp_div_u(struct pe_mp *r, const struct pe_mp *a, uint32_t u)
{
	uint32_t w[L + 1];
	uint64_t rem = 0;
	size_t i;

	if (a->sign == 0) {
		set_zero(r);
		return;
	}
	for (i = 0; i <= L; i++) {
		uint64_t cur = (rem << 32) | (i < L ? a->d[i] : 0);

		w[i] = (uint32_t)(cur / u);
		rem = cur % u;
	}
	norm(r, a->sign, a->exp, w, L + 1);
}

void pe_mp_div_u64(struct pe_mp *r, const struct pe_mp *a, uint64_t u)
{
	struct pe_mp t;

	if (u <= UINT32_MAX) {
		pe_mp_div_u(r, a, (uint32_t)u);
	} else {
		pe_mp_set_u64(&t, u);
		pe_mp_div(r, a, &t);
	}
}

void pe_mp_mul_2exp(struct pe_mp *r, const struct pe_mp *a, int64_t e)
{
	*r = *a;
	if (r->sign != 0)
		r->exp += e;
}

/* 1 / b by Newton's iteration y += y (1 - m y) on the significand m in
 * [1/2, 1), from double's 53 bits: 106, 212, then the working precision */
static void recip(struct pe_mp *r, const struct pe_mp *b)
{
	struct pe_mp m = *b, y, t, one;
	int i;

	m.exp = 0;
	m.sign = 1;
	pe_mp_set_d(&one, 1.0);
	pe_mp_set_d(&y, 1.0 / pe_mp_to_d(&m));
	for (i = 0; i < 4; i++) {
		pe_mp_mul(&t, &m, &y);
		pe_mp_sub(&t, &one, &t);
		pe_mp_mul(&t, &y, &t);
		pe_mp_add(&y, &y, &t);
	}
	y.exp -= b->exp;
	y.sign = b->sign;
	*r = y;
}

void pe_mp_div(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b)
{
	struct pe_mp y;

	recip(&y, b);
	pe_mp_mul(r, a, &y);
}

/* e^x = 2^n e^t, t = x - n ln 2; e^t = (e^(t/256))^256, the inner one by
 * its Taylor series (|t/256| < 2^-9: 24 terms reach 2^-280) */
void pe_mp_exp(struct pe_mp *r, const struct pe_mp *x)
{
	struct pe_mp t, s, one, nl;
	double n;
	int k;

	pe_mp_set_d(&one, 1.0);
	if (x->sign == 0) {
		*r = one;
		return;
	}
	n = nearbyint(pe_mp_to_d(x) / 0.6931471805599453);
	pe_mp_set_d(&nl, n);
	pe_mp_mul(&nl, &nl, &LN2);
	pe_mp_sub(&t, x, &nl);
	pe_mp_mul_2exp(&t, &t, -8);
	s = one;
	for (k = 24; k >= 1; k--) {
		pe_mp_mul(&s, &s, &t);
		pe_mp_div_u(&s, &s, (uint32_t)k);
		pe_mp_add(&s, &s, &one);
	}
	for (k = 0; k < 8; k++)
		pe_mp_mul(&s, &s, &s);
	pe_mp_mul_2exp(r, &s, (int64_t)n);
}

/* ln x = e ln 2 + ln m with m in [1/sqrt 2, sqrt 2), ln m = 2 atanh t,
 * t = (m - 1)/(m + 1), |t| < 0.172: 56 odd terms reach 2^-280 */
void pe_mp_log(struct pe_mp *r, const struct pe_mp *x)
{
	struct pe_mp m = *x, t, t2, s, one, c, el;
	int64_t e = x->exp;
	int k;

	pe_mp_set_d(&one, 1.0);
	m.exp = 0;
	pe_mp_set_d(&c, 0.70710678118654752);
	if (pe_mp_cmp(&m, &c) < 0) {
		m.exp = 1;
		e--;
	}
	pe_mp_sub(&t, &m, &one);
	pe_mp_add(&c, &m, &one);
	pe_mp_div(&t, &t, &c);
	pe_mp_mul(&t2, &t, &t);
	pe_mp_div_u(&s, &one, 2 * 56 + 1);
	for (k = 55; k >= 0; k--) {
		pe_mp_mul(&s, &s, &t2);
		pe_mp_div_u(&c, &one, (uint32_t)(2 * k + 1));
		pe_mp_add(&s, &s, &c);
	}
	pe_mp_mul(&s, &s, &t);
	pe_mp_mul_2exp(&s, &s, 1);
	pe_mp_set_i64(&el, e);
	pe_mp_mul(&el, &el, &LN2);
	pe_mp_add(r, &s, &el);
}

void pe_mp_pi(struct pe_mp *r)
{
	pe_mp_mul_2exp(r, &PIO2, 1);
}

/* y = x - q pi/2 with |y| <= pi/4 (to double accuracy), then Taylor series
 * (|y| < 0.8: 30 terms reach 2^-290).  The reduction's error is q times
 * that of pi/2, below 2^-203 for |x| <= 2^53 (where q stays below 2^53,
 * so q +- 1 are doubles). */
void pe_mp_sincos(const struct pe_mp *x, struct pe_mp *s, struct pe_mp *c)
{
	struct pe_mp y, y2, t, one, ss, cc;
	double q = nearbyint(pe_mp_to_d(x) / 1.5707963267948966), yd;
	int k, i, quad;

	pe_mp_set_d(&one, 1.0);
	for (i = 0; i < 4; i++) {
		pe_mp_set_d(&t, q);
		pe_mp_mul(&t, &t, &PIO2);
		pe_mp_sub(&y, x, &t);
		yd = pe_mp_to_d(&y);
		if (yd > 0.7854)
			q += 1;
		else if (yd < -0.7854)
			q -= 1;
		else
			break;
	}
	pe_mp_mul(&y2, &y, &y);
	ss = one;
	cc = one;
	for (k = 30; k >= 1; k--) {
		pe_mp_mul(&t, &y2, &ss);
		pe_mp_div_u(&t, &t, (uint32_t)(2 * k * (2 * k + 1)));
		pe_mp_sub(&ss, &one, &t);
		pe_mp_mul(&t, &y2, &cc);
		pe_mp_div_u(&t, &t, (uint32_t)((2 * k - 1) * 2 * k));
		pe_mp_sub(&cc, &one, &t);
	}
	pe_mp_mul(&ss, &ss, &y);
	quad = (int)(fmod(q, 4.0) + 4) % 4;
	switch (quad) {
	case 0:
		*s = ss;
		*c = cc;
		break;
	case 1:
		*s = cc;
		*c = ss;
		c->sign = -c->sign;
		break;
	case 2:
		*s = ss;
		*c = cc;
		s->sign = -s->sign;
		c->sign = -c->sign;
		break;
	default:
		*s = cc;
		*c = ss;
		s->sign = -s->sign;
		break;
	}
}

/* a rounded to nearest, ties to even, to prec <= 53 bits where the
 * smallest normal is 2^emin (below it the spacing stays 2^(emin - prec + 1)) */
static double round_bits(const struct pe_mp *a, int prec, int64_t emin)
{
	uint64_t top64, m, rbit, rest;
	int64_t top, bits;
	size_t k;
	double v;

	if (a->sign == 0)
		return 0.0;
	top = a->exp - 1;	/* 2^top <= |a| < 2^(top + 1) */
	bits = prec;
	if (top < emin)
		bits = prec - (emin - top);
	if (bits < 0)
		return a->sign < 0 ? -0.0 : 0.0;
	top64 = (uint64_t)a->d[0] << 32 | a->d[1];
	if (bits == 0) {
		m = 0;
		rbit = top64 >> 63;
		rest = top64 << 1;
	} else {
		m = top64 >> (64 - bits);
		rbit = (top64 >> (63 - bits)) & 1;
		rest = top64 & (((uint64_t)1 << (63 - bits)) - 1);
	}
	for (k = 2; k < L && !rest; k++)
		rest = a->d[k];
	if (rbit && (rest || (m & 1)))
		m++;
	v = ldexp((double)m, (int)(top + 1 - bits > 2000 ? 2000 : top + 1 - bits));
	return a->sign < 0 ? -v : v;
}

double pe_mp_to_d(const struct pe_mp *a)
{
	return round_bits(a, 53, -1022);
}

float pe_mp_to_f32(const struct pe_mp *a)
{
	return (float)round_bits(a, 24, -126);
}

void pe_mp_to_td(const struct pe_mp *a, double *hi, double *mid, double *lo)
{
	struct pe_mp t, u;

	*hi = pe_mp_to_d(a);
	*mid = *lo = 0;
	if (!isfinite(*hi))
		return;
	pe_mp_set_d(&u, *hi);
	pe_mp_sub(&t, a, &u);
	*mid = pe_mp_to_d(&t);
	pe_mp_set_d(&u, *mid);
	pe_mp_sub(&t, &t, &u);
	*lo = pe_mp_to_d(&t);
}
