/*
 * Exact sums and correctly rounded similarity measures.  Three number
 * forms meet here: the carry-save accumulator (adding is exact and cheap),
 * a normalised magnitude in 32-bit digits (struct big: for rounding and for
 * the rare exact comparisons), and double-double (struct pe_dd: about 104
 * bits, enough to decide nearly every rounding of a quotient or a root).
 * Right shifts of negative values are never used: carries are computed
 * with exact divisions.
 */
#include "core/exact.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define NBIG (4 * PE_ACC_DIGITS + 16)

/* A non-negative integer: n little-endian 32-bit digits, d[n-1] != 0. */
struct big {
	int n;
	uint32_t d[NBIG];
};


void pe_acc_clear(struct pe_acc *a)
{
	memset(a, 0, sizeof *a);
}

void pe_acc_add(struct pe_acc *a, double v)
{
	uint64_t bits, m, lo, hi;
	int e, pos, k, s;
	int64_t d0, d1, d2;

	memcpy(&bits, &v, sizeof bits);
	e = (int)((bits >> 52) & 0x7ff);
	m = bits & (((uint64_t)1 << 52) - 1);
	if (e == 0) {
		if (m == 0)
			return;
		e = 1;			/* subnormal: m * 2^-1074 */
	} else {
		m |= (uint64_t)1 << 52;
	}
	/* v = m * 2^(e - 1075); its lowest bit sits pos bits above PE_ACC_LSB */
	pos = e - 1075 - PE_ACC_LSB;
	k = pos / 32;
	s = pos % 32;
	lo = (m & 0xffffffffu) << s;	/* < 2^63 */
	hi = (m >> 32) << s;		/* < 2^52 */
	d0 = (int64_t)(lo & 0xffffffffu);
	d1 = (int64_t)(lo >> 32) + (int64_t)(hi & 0xffffffffu);
	d2 = (int64_t)(hi >> 32);
	if (bits >> 63) {
		a->d[k] -= d0;
		a->d[k + 1] -= d1;
		a->d[k + 2] -= d2;
	} else {
		a->d[k] += d0;
		a->d[k + 1] += d1;
		a->d[k + 2] += d2;
	}
}

void pe_acc_add_prod(struct pe_acc *a, double x, double y)
{
	double p = x * y;

	pe_acc_add(a, p);
	pe_acc_add(a, fma(x, y, -p));
}

void pe_acc_add_scaled(struct pe_acc *a, const struct pe_acc *b, int k)
{
	int i;

	for (i = 0; i < PE_ACC_DIGITS; i++)
		a->d[i] += k * b->d[i];
}

/* The value of a as a sign (1: negative) and a magnitude. */
static int normalize(const struct pe_acc *a, struct big *mag)
{
	int64_t c = 0, v;
	uint64_t low, t;
	int i, neg;

	for (i = 0; i < PE_ACC_DIGITS; i++) {
		v = a->d[i] + c;
		low = (uint64_t)v & 0xffffffffu;
		mag->d[i] = (uint32_t)low;
		c = (v - (int64_t)low) / 4294967296;	/* exact: floor(v / 2^32) */
	}
	/* the value is sum d[i] 2^(32 i) + c 2^(32 N) with c in {0, -1} */
	neg = c < 0;
	if (neg) {
		t = 1;
		for (i = 0; i < PE_ACC_DIGITS; i++) {
			t += (uint32_t)~mag->d[i];
			mag->d[i] = (uint32_t)t;
			t >>= 32;
		}
	}
	mag->n = PE_ACC_DIGITS;
	while (mag->n > 0 && mag->d[mag->n - 1] == 0)
		mag->n--;
	return neg;
}

int pe_acc_sign(const struct pe_acc *a)
{
	struct big m;
	int neg = normalize(a, &m);

	return m.n == 0 ? 0 : neg ? -1 : 1;
}

/* ---- struct big ---- */

static uint32_t dig(const struct big *b, int i)
{
	return i >= 0 && i < b->n ? b->d[i] : 0;
}

static int bitlen(const struct big *b)
{
	uint32_t top;
	int n;

	if (b->n == 0)
		return 0;
	top = b->d[b->n - 1];
	for (n = 0; top; n++)
		top >>= 1;
	return 32 * (b->n - 1) + n;
}

/* Bits p .. p+63 of b as an integer (bits below 0 are zero). */
static uint64_t bits_at(const struct big *b, int p)
{
	int q = p >= 0 ? p / 32 : -((-p + 31) / 32);
	int s = p - 32 * q;
	uint64_t lo = dig(b, q) | ((uint64_t)dig(b, q + 1) << 32);
	uint64_t hi = dig(b, q + 2);

	return s ? (lo >> s) | (hi << (64 - s)) : lo;
}

/* Is any bit below position p set? */
static int any_below(const struct big *b, int p)
{
	int q, s, i;

	if (p <= 0)
		return 0;
	q = p / 32;
	s = p % 32;
	for (i = 0; i < q && i < b->n; i++)
		if (b->d[i])
			return 1;
	return s && q < b->n && (b->d[q] & ((1u << s) - 1)) != 0;
}

static void big_trim(struct big *b)
{
	while (b->n > 0 && b->d[b->n - 1] == 0)
		b->n--;
}

static void big_from_u64(struct big *b, uint64_t v)
{
	b->d[0] = (uint32_t)v;
	b->d[1] = (uint32_t)(v >> 32);
	b->n = 2;
	big_trim(b);
}

/* r = a * b (r distinct from both; the sizes used here stay below NBIG). */
static void big_mul(struct big *r, const struct big *a, const struct big *b)
{
	int i, j;
	uint64_t t;

	memset(r->d, 0, sizeof r->d);
	for (i = 0; i < a->n; i++) {
		t = 0;
		for (j = 0; j < b->n; j++) {
			t += (uint64_t)a->d[i] * b->d[j] + r->d[i + j];
			r->d[i + j] = (uint32_t)t;
			t >>= 32;
		}
		r->d[i + b->n] = (uint32_t)t;
	}
	r->n = a->n + b->n;
	big_trim(r);
}

static void big_shl(struct big *b, int bits)
{
	int q = bits / 32, s = bits % 32, i;

	if (b->n == 0 || bits == 0)
		return;
	for (i = b->n + q; i >= 0; i--) {
		uint64_t v = ((uint64_t)dig(b, i - q) << s) | (s ? dig(b, i - q - 1) >> (32 - s) : 0);

		b->d[i] = (uint32_t)v;
	}
	b->n += q + 1;
	big_trim(b);
}

static int big_cmp(const struct big *a, const struct big *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

/* ---- rounding to float32 ---- */

/* M * 2^E (M >= 2^63) plus a sticky fraction below, rounded to float. */
static float round_f32(uint64_t M, int sticky, int E, int neg)
{
	const uint64_t half = (uint64_t)1 << 63;
	int emsb = E + 63, keep = emsb < -126 ? emsb + 150 : 24;
	uint64_t r, rem;
	float f;

	if (keep < 0) {
		f = 0.0f;		/* below 2^-150 */
	} else if (keep == 0) {
		f = M > half || sticky ? 0x1p-149f : 0.0f;	/* 2^-150 is a tie: to even */
	} else {
		r = M >> (64 - keep);
		rem = M << keep;
		if (rem > half || (rem == half && (sticky || (r & 1))))
			r++;
		f = ldexpf((float)r, emsb - keep + 1);	/* exact, or infinity */
	}
	return neg ? -f : f;
}

float pe_acc_to_float(const struct pe_acc *a)
{
	struct big m;
	int neg = normalize(a, &m), L;

	if (m.n == 0)
		return 0.0f;
	L = bitlen(&m);
	return round_f32(bits_at(&m, L - 64), any_below(&m, L - 64), PE_ACC_LSB + L - 64, neg);
}

/* ---- double-double ---- */

/* The top 128 bits of a magnitude: relative error below 2^-104. */
static struct pe_dd big_to_dd(const struct big *m, int neg)
{
	struct pe_dd r = { 0, 0 };
	uint64_t M1, M2;
	int L = bitlen(m), E;

	if (L == 0)
		return r;
	M1 = bits_at(m, L - 64);
	M2 = bits_at(m, L - 128);
	E = PE_ACC_LSB + L - 64;
	r = pe_dd_fast_two_sum(ldexp((double)(M1 >> 11), E + 11),
			       ldexp((double)(M1 & 0x7ff) + ldexp((double)M2, -64), E));
	if (neg) {
		r.hi = -r.hi;
		r.lo = -r.lo;
	}
	return r;
}

static struct pe_dd dd_sub(struct pe_dd a, struct pe_dd b)
{
	struct pe_dd s = pe_dd_two_sum(a.hi, -b.hi);

	s.lo += a.lo - b.lo;
	return pe_dd_fast_two_sum(s.hi, s.lo);
}

static struct pe_dd dd_div(struct pe_dd a, struct pe_dd b)
{
	double q1 = a.hi / b.hi, q2, q3;
	struct pe_dd r = dd_sub(a, pe_dd_mul_d(b, q1)), q;

	q2 = r.hi / b.hi;
	r = dd_sub(r, pe_dd_mul_d(b, q2));
	q3 = r.hi / b.hi;
	q = pe_dd_fast_two_sum(q1, q2);
	return pe_dd_fast_two_sum(q.hi, q.lo + q3);
}

static struct pe_dd dd_sqrt(struct pe_dd a)
{
	double x = sqrt(a.hi);
	struct pe_dd x2 = { x * x, fma(x, x, -(x * x)) }, r = dd_sub(a, x2);

	return pe_dd_fast_two_sum(x, r.hi / (2 * x));
}

/* Above f (f >= 0) as a double; FLT_MAX's neighbour is 2^128. */
static double above(float f)
{
	return f == FLT_MAX ? 0x1p128 : (double)nextafterf(f, INFINITY);
}

/*
 * Round t (|error| <= tol) to float.  Returns 1 with *out when the rounding
 * is certain, else 0 with *mid, the rounding boundary t is too close to
 * (exactly halfway between two adjacent floats, or between FLT_MAX and
 * 2^128).
 */
static int dd_round_f32(struct pe_dd t, double tol, float *out, double *mid)
{
	int neg = t.hi < 0;
	float f, r;
	double fd, mu, md, du, dn;

	if (neg) {
		t.hi = -t.hi;
		t.lo = -t.lo;
	}
	f = (float)t.hi;
	fd = isinf(f) ? 0x1p128 : (double)f;
	mu = isinf(f) ? HUGE_VAL : (fd + above(f)) / 2;
	md = f == 0 ? -0x1p-150 : (fd + (isinf(f) ? (double)FLT_MAX : (double)nextafterf(f, 0))) / 2;
	/* t.hi and a boundary near it are within a factor 2: exact differences */
	du = (t.hi - mu) + t.lo;
	dn = (t.hi - md) + t.lo;
	if (du > tol) {
		r = f == FLT_MAX ? INFINITY : nextafterf(f, INFINITY);
	} else if (dn < -tol) {
		r = isinf(f) ? FLT_MAX : nextafterf(f, 0);
	} else if (du < -tol && dn > tol) {
		r = f;
	} else {
		*mid = neg ? -(du >= -tol ? mu : md) : (du >= -tol ? mu : md);
		return 0;
	}
	*out = neg ? -r : r;
	return 1;
}

/* The float on the side of mid that cmp (the sign of t - mid) names; on
 * a tie the one with an even last bit. */
static float pick(double mid, int cmp)
{
	float even = (float)mid;	/* ties to even */
	float other, below, above_f;

	other = (double)even < mid ? nextafterf(even, INFINITY) : nextafterf(even, -INFINITY);
	if (cmp == 0)
		return even;
	below = (double)even < mid ? even : other;
	above_f = (double)even < mid ? other : even;
	return cmp > 0 ? above_f : below;
}

/* m = M * 2^e with M a (53-bit) integer. */
static void split_double(double m, uint64_t *M, int *e)
{
	int ex;
	double fr = frexp(fabs(m), &ex);

	*M = (uint64_t)ldexp(fr, 53);
	*e = ex - 53;
}

/* Compare a * 2^ea with b * 2^eb. */
static int cmp_scaled(struct big *a, int ea, struct big *b, int eb)
{
	if (ea > eb)
		big_shl(a, ea - eb);
	else
		big_shl(b, eb - ea);
	return big_cmp(a, b);
}

float pe_exact_cosine(const struct pe_acc *s, const struct pe_acc *nx, const struct pe_acc *ny)
{
	struct big bs, bx, by, l, r, t, m, m2;
	int neg = normalize(s, &bs), em, c;
	struct pe_dd q;
	float f;
	double mid;
	uint64_t M;

	if (normalize(nx, &bx) || normalize(ny, &by) || bx.n == 0 || by.n == 0)
		return NAN;
	if (bs.n == 0)
		return 0.0f;
	q = dd_div(big_to_dd(&bs, neg), dd_sqrt(pe_dd_mul(big_to_dd(&bx, 0), big_to_dd(&by, 0))));
	if (dd_round_f32(q, ldexp(fabs(q.hi), -96), &f, &mid))
		return f;
	/* t = S / sqrt(Nx Ny) against the boundary mid: signs first, then
	 * |t| > |mid| exactly when S^2 > mid^2 Nx Ny (both sides carry the
	 * same factor 2^(2 PE_ACC_LSB), left out) */
	if ((mid > 0) != !neg)
		return pick(mid, neg ? -1 : 1);
	split_double(mid, &M, &em);
	big_from_u64(&m, M);
	big_mul(&m2, &m, &m);
	big_mul(&t, &bx, &by);
	big_mul(&r, &t, &m2);
	big_mul(&l, &bs, &bs);
	c = cmp_scaled(&l, 0, &r, 2 * em);
	return pick(mid, neg ? -c : c);
}

float pe_exact_sqrt(const struct pe_acc *e)
{
	struct big b, r, m;
	int neg = normalize(e, &b), em;
	struct pe_dd q;
	float f;
	double mid;
	uint64_t M;

	if (b.n == 0)
		return 0.0f;
	if (neg)
		return NAN;
	q = dd_sqrt(big_to_dd(&b, 0));
	if (dd_round_f32(q, ldexp(q.hi, -96), &f, &mid))
		return f;
	/* sqrt(E) > mid exactly when E > mid^2 */
	split_double(mid, &M, &em);
	big_from_u64(&m, M);
	big_mul(&r, &m, &m);
	return pick(mid, cmp_scaled(&b, PE_ACC_LSB, &r, 2 * em));
}

/* ---- the double-double tier ---- */

/* Four lanes of error-free sums (TwoSum of every term into a lane's hi, the
 * rounding errors into its lo), so the additions do not wait on each other;
 * then the lanes added in double-double.  Error: the lo sums round, at most
 * n u^2 of the magnitudes each, and the final additions 2^-104 relative;
 * pe_dd_dot_error states a bound for both. */
struct pe_dd pe_dd_dot(const double *a, const double *b, size_t n, int exact_products,
		       double *abs_sum)
{
	double hi[4] = { 0, 0, 0, 0 }, lo[4] = { 0, 0, 0, 0 }, mag[4] = { 0, 0, 0, 0 };
	struct pe_dd r, t;
	size_t k;
	int l;

	for (k = 0; k < n; k++) {
		double p = a[k] * b[k], s, bb;

		l = (int)(k & 3);
		if (!exact_products)
			lo[l] += fma(a[k], b[k], -p);
		s = hi[l] + p;
		bb = s - hi[l];
		lo[l] += (hi[l] - (s - bb)) + (p - bb);
		hi[l] = s;
		mag[l] += fabs(p);
	}
	r = pe_dd_two_sum(hi[0], hi[1]);
	r.lo += lo[0] + lo[1];
	for (l = 2; l < 4; l++) {
		t = pe_dd_two_sum(r.hi, hi[l]);
		t.lo += r.lo + lo[l];
		r = pe_dd_fast_two_sum(t.hi, t.lo);
	}
	*abs_sum = (mag[0] + mag[1] + mag[2] + mag[3]) * (1 + 0x1p-40);
	return pe_dd_fast_two_sum(r.hi, r.lo);
}

double pe_dd_dot_error(size_t n)
{
	double nu = (double)n * 0x1p-53;

	/* the lo sums: (n u)^2 with room; the TwoProd terms: n u^2; the final
	 * combination: a few 2^-104 */
	return 2 * nu * nu + 0x1p-98;
}

int pe_dd_try_float(struct pe_dd s, double err, float *out)
{
	double mid;

	return dd_round_f32(s, err + ldexp(fabs(s.hi), -100), out, &mid);
}

int pe_dd_try_cosine(struct pe_dd s, double serr, struct pe_dd x, double xerr, struct pe_dd y,
		     double yerr, float *out)
{
	struct pe_dd q;
	double rel, mid;

	if (!(x.hi > 0 && y.hi > 0) || x.hi <= 4 * xerr || y.hi <= 4 * yerr)
		return 0;
	q = dd_div(s, dd_sqrt(pe_dd_mul(x, y)));
	/* relative errors of the norms halve under the square root; s's error
	 * is absolute, scaled by 1/sqrt(x y) */
	rel = xerr / x.hi + yerr / y.hi + 0x1p-96;
	return dd_round_f32(q, serr / sqrt(x.hi * y.hi) * (1 + 0x1p-20) + rel * fabs(q.hi),
			    out, &mid);
}

int pe_dd_try_sqrt(struct pe_dd e, double err, float *out)
{
	struct pe_dd q;
	double mid;

	if (!(e.hi > 4 * err))
		return 0;
	q = dd_sqrt(e);
	/* sqrt(e + d) - sqrt(e) <= d / (2 sqrt(e)) */
	return dd_round_f32(q, err / q.hi * (1 + 0x1p-20) + ldexp(q.hi, -96), out, &mid);
}

struct pe_dd pe_dd_add(struct pe_dd a, struct pe_dd b)
{
	struct pe_dd s = pe_dd_two_sum(a.hi, b.hi);

	s.lo += a.lo + b.lo;
	return pe_dd_fast_two_sum(s.hi, s.lo);
}

struct pe_dd pe_dd_scale(struct pe_dd a, double k)
{
	a.hi *= k;
	a.lo *= k;
	return a;
}
