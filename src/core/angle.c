/* sincos() is a GNU extension: ISO mode hides it (and the compiler does
 * not merge sin and cos into one call), so this file alone asks for it. */
#define _GNU_SOURCE
#include "core/angle.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* libm's sin and cos assumed within 4 ulp: relative 2^-50 */
#define LIBM_REL 0x1p-50

/* Below this a frequency's sin values round to +-0 even when scaled by
 * FLT_MAX (|p f| < 2^53 2^-600), and its triple double could lose bits to
 * subnormals; such frequencies take exact shortcuts. */
#define TINY_FREQ 0x1p-600

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

/*
 * The error bound of pe_sincos_pf, following angle.h with amax = 2^bits f
 * (>= |p f|), u = LIBM_REL and L = 2^-52 amax (>= |lo|: |e| <= 2^-53 |A|,
 * |p r| <= 2^-53 amax):
 *   angle:    a = 2^-103 amax (p r2 <= 2^-106 amax, p r rounded 2^-106 amax,
 *             lo rounded 2^-53 L, the frequency's own 2^-158)
 *   |lo| <= 2^-26: u |sin A| + |lo| (u + 2^-53) + 2^-53 |s| (the sum)
 *             + lo^2/2 |sin A| + |lo|^3/6 + a, with |sin A| <= |s| + L + a
 *             + (the error): (u + 2^-52) |s| + L (2u + 2^-52) + L^3 + a
 *   otherwise: two products of libm values, each 2u + 2^-53, summed
 *             (2^-53): below 3u + 2^-51 + a (|sin A cos lo| + |cos A sin lo|
 *             <= sqrt 2); no relative form
 * as rel |s| + abs, with 2^-40 to spare for the roundings of this
 * computation; abs at least 2^-1000 (pe_f32_sure's 2^-1074 with room).
 */
static void sincos_bound(struct pe_freq *fr, int bits)
{
	const double u = LIBM_REL;
	double amax = ldexp(fr->f, bits), lmax = amax * 0x1p-52, t = lmax < 0x1p-26 ? lmax : 0x1p-26;
	double a = amax * 0x1p-103, taylor = t * (2 * u + 0x1p-52) + t * t * t + a;

	fr->rel = u + 0x1p-52;
	fr->abs = taylor * (1 + 0x1p-40);
	if (lmax > 0x1p-26) {
		fr->rel = 0;
		fr->abs = fmax(u + 0x1p-52 + taylor, 3 * u + 0x1p-51 + a) * (1 + 0x1p-40);
	}
	fr->abs = fmax(fr->abs, 0x1p-1000);
	/* |s| <= 1 + err: rel |s| <= rel (1 + 2^-40) */
	fr->err = fr->rel * (1 + 0x1p-40) + fr->abs;
	/* pe_f32_sure's margin for |x| <= 1 + err: (1 + 2^-52)(E + 2^-52 |x|) */
	fr->e32 = fr->err + 0x1p-51;
}

void pe_freq_init(struct pe_freq *fr, const struct pe_mp *f, int bits)
{
	double scale;
	int e;

	pe_mp_to_td(f, &fr->f, &fr->r, &fr->r2);
	fr->h1 = fr->f;
	fr->h2 = 0.0;
	fr->split = 0;
	fr->tiny = !(fr->f >= TINY_FREQ);
	fr->rel = fr->abs = fr->err = fr->e32 = HUGE_VAL;
	if (isfinite(fr->f))
		sincos_bound(fr, bits);
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

/* p (f + r + r2), exact up to the 256-bit truncation */
static void mp_angle(const struct pe_freq *fr, int64_t p, struct pe_mp *a)
{
	struct pe_mp t, u;

	pe_mp_set_d(a, fr->f);
	pe_mp_set_d(&t, fr->r);
	pe_mp_add(a, a, &t);
	pe_mp_set_d(&t, fr->r2);
	pe_mp_add(a, a, &t);
	pe_mp_set_i64(&u, p);
	pe_mp_mul(a, a, &u);
}

/* v - err and v + err, err first widened by 2^-240 |v|: mp's relative
 * error in the series, the scaling and the truncation of v +- err. */
static void mp_bracket(const struct pe_mp *v, double err, struct pe_mp *lo, struct pe_mp *hi)
{
	struct pe_mp e, w;

	pe_mp_set_d(&e, err);
	w = *v;
	w.sign = w.sign != 0;
	pe_mp_mul_2exp(&w, &w, -240);
	pe_mp_add(&e, &e, &w);
	pe_mp_sub(lo, v, &e);
	pe_mp_add(hi, v, &e);
}

/* v rounded to float32 when v - err and v + err round alike (then so does
 * the exact value, within err of v); else v's own rounding, the best this
 * precision can do. */
static float mp_round_f32(const struct pe_mp *v, double err)
{
	struct pe_mp lo, hi;
	float a, b;

	mp_bracket(v, err, &lo, &hi);
	a = pe_mp_to_f32(&lo);
	b = pe_mp_to_f32(&hi);
	if (memcmp(&a, &b, sizeof a) == 0)
		return a;
	return pe_mp_to_f32(v);
}

/*
 * The angle from f + r + r2 is within |p f| 2^-157 of the exact one (the
 * triple double's 2^-158 and the truncations); mp's sin and cos are within
 * 2^-200 for |p f| <= 2^53 where the reduction mod pi/2 acts, within
 * 2^-245 relative below pi/4 where it does not: so the value is within
 * scale |p| f 2^-150 (+ scale 2^-190 beyond pi/4) + 2^-240 |value|.
 * A cosine of an angle below 2^-100 is 1 less something below 2^-200:
 * scale times it rounds as scale (1 - 2^-300) does -- as scale, or to
 * the float below when scale lies on a rounding boundary (a boundary is a
 * double, so any other lies a double's ulp, far more than 2^-200 scale,
 * away) -- which 256 bits cannot tell from scale, so that case is decided
 * so.  A tiny frequency: |p f| < 2^-547,
 * so sin(p f) = p f (1 - ...) rounds to +-0 even after scaling by up to
 * 2^128.
 */
float pe_sincos_pf_f32(const struct pe_freq *fr, int64_t p, int want_cos, double scale)
{
	struct pe_mp a, s, c, k;
	double err;

	if (p == 0 || (fr->tiny && !want_cos)) {
		if (!want_cos)
			return p < 0 ? -0.0f : 0.0f;
		return (float)scale;	/* cos 0 = 1 */
	}
	mp_angle(fr, p, &a);
	if (want_cos && (a.sign == 0 || a.exp < -100)) {
		/* scale (1 - 2^-300), truncated below scale */
		pe_mp_set_d(&k, scale);
		pe_mp_set_d(&a, scale * 0x1p-300);
		pe_mp_sub(&k, &k, &a);
		return pe_mp_to_f32(&k);
	}
	pe_mp_sincos(&a, &s, &c);
	pe_mp_set_d(&k, scale);
	err = scale * (fabs((double)p) * fr->f * 0x1p-150 + (a.exp > 0 ? 0x1p-190 : 0.0));
	pe_mp_mul(&a, want_cos ? &c : &s, &k);
	return mp_round_f32(&a, err);
}

/*
 * p f = a + e exactly (two_product), plus p r and p r2: x = a + (e + p r)
 * is within 2^-53 |x| (the sum) + 2^-53 |e + p r| + 2^-53 |p r| + |p r2|
 * (and the frequency's 2^-158) <= 2^-52 |x| + 2^-103 |a| of p f, so
 * e = 2^-50 |x| + 2^-100 |a| is pe_f32_sure's margin; the rest in mp.
 */
float pe_angle_pf_f32(const struct pe_freq *fr, int64_t p)
{
	double pd = (double)p, a, e, x;
	struct pe_mp m;
	float out;

	if (fr->tiny)
		return p < 0 ? -0.0f : 0.0f;	/* |p f| < 2^-547 */
	pe_two_product(pd, fr->f, &a, &e);
	x = a + (e + pd * fr->r);
	if (pe_f32_sure(x, fabs(x) * 0x1p-50 + fabs(a) * 0x1p-100, &out))
		return out;
	mp_angle(fr, p, &m);
	return mp_round_f32(&m, fabs(a) * 0x1p-150);
}

/* The step kernels (angle.h, PE_STEP). */

/* margin of pe_f32_sure for a step value att (cA cB - sA sB): each of the
 * four sin/cos within its err (anchor E_a, step E_t), so the sum within
 * 2 (E_a + E_t) (1 + 2^-40) + 2^-51 (two products and a sum rounded);
 * the product with att adds 2^-53 |y|, pe_f32_sure's margin 2^-52 |y|,
 * |y| <= 1.01 att: both within att 2^-50; and 2^-1073 in case att's
 * product underflows */
static double step_margin(double att, double ea, double et)
{
	return att * (2 * (ea + et) * (1 + 0x1p-40) + 0x1p-51 + 0x1p-50) + 0x1p-1073;
}

/* pe_f32_sure for a step value y = att x with the relative forms of the
 * bounds (core/angle.h): the four inputs within rel |v| + abs, the products'
 * sum P = |cA cB| + |sA sB| (or |sA cB| + |cA sB|), so x within
 * (rel_a + rel_t + 2^-53) (1 + 2^-40) P + 2 (abs_a + abs_t) (1 + 2^-40)
 * + 2^-53 |x|; y adds 2^-53 |y|, pe_f32_sure's margin 2^-52 |y| */
static int step_sure_fine(const struct pe_freq *a, const struct pe_freq *t, double y, double pr,
			  double att, float *out)
{
	return pe_f32_sure(y, att * ((a->rel + t->rel + 0x1p-52) * pr +
				     2 * (a->abs + t->abs) * (1 + 0x1p-39)) +
				      0x1p-50 * fabs(y) + 0x1p-1073,
			   out);
}

int pe_steps_alloc(struct pe_steps *st, size_t n)
{
	size_t m = n ? n : 1;

	st->n = n;
	st->t = malloc(m * PE_STEP * 2 * sizeof *st->t);
	st->e = malloc(m * sizeof *st->e);
	st->freq = malloc(m * sizeof *st->freq);
	if (!st->t || !st->e || !st->freq) {
		pe_steps_free(st);
		return -1;
	}
	return 0;
}

void pe_steps_free(struct pe_steps *st)
{
	free(st->t);
	free(st->e);
	free(st->freq);
	memset(st, 0, sizeof *st);
}

void pe_steps_set(struct pe_steps *st, size_t k, const struct pe_mp *f,
		  const struct pe_freq *anchor, double att)
{
	struct pe_freq *tf = &st->freq[k];
	size_t b;

	pe_freq_init(tf, f, pe_angle_bits(0, PE_STEP));
	for (b = 0; b < PE_STEP; b++)
		pe_sincos_pf(tf, (int64_t)b, &st->t[b * st->n + k], &st->t[(PE_STEP + b) * st->n + k]);
	st->e[k] = step_margin(att, anchor->err, tf->err);
}

/* One value the vectorised pass left open: the bound e first, then its
 * relative form, else exactly. */
static float step_settle(const struct pe_freq *anchor, const struct pe_freq *tf, double ts,
			 double tc, double e, int64_t pos, double sa, double ca, double att,
			 int want_cos)
{
	double x = want_cos ? ca * tc - sa * ts : sa * tc + ca * ts;
	double pr = want_cos ? fabs(ca * tc) + fabs(sa * ts) : fabs(sa * tc) + fabs(ca * ts);
	float v;

	if (!pe_f32_sure(x * att, e, &v) && !step_sure_fine(anchor, tf, x * att, pr, att, &v))
		v = pe_sincos_pf_f32(anchor, pos, want_cos, att);
	return v;
}

/* The vectorised pass of pe_steps_row: nonzero when some value is open. */
PE_VECTOR_KERNEL
static uint32_t step_row(const double *ts, const double *tc, const double *sa, const double *ca,
			 const double *e, double att, size_t n, float *fs, float *fc)
{
	uint32_t open = 0, l, h;
	size_t k;
	float hi;

	for (k = 0; k < n; k++) {
		double ys = (sa[k] * tc[k] + ca[k] * ts[k]) * att;
		double yc = (ca[k] * tc[k] - sa[k] * ts[k]) * att;

		fs[k] = (float)(ys - e[k]);
		hi = (float)(ys + e[k]);
		memcpy(&l, &fs[k], sizeof l);
		memcpy(&h, &hi, sizeof h);
		open |= l ^ h;
		fc[k] = (float)(yc - e[k]);
		hi = (float)(yc + e[k]);
		memcpy(&l, &fc[k], sizeof l);
		memcpy(&h, &hi, sizeof h);
		open |= l ^ h;
	}
	return open;
}

void pe_steps_row(const struct pe_steps *st, const struct pe_freq *anchor, int64_t pos, size_t b,
		  const double *sa, const double *ca, double att, int want, float *fs, float *fc)
{
	const double *ts = st->t + b * st->n, *tc = st->t + (PE_STEP + b) * st->n;
	size_t k;

	if (!step_row(ts, tc, sa, ca, st->e, att, st->n, fs, fc))
		return;
	for (k = 0; k < st->n; k++) {
		if (want & PE_STEP_SIN)
			fs[k] = step_settle(&anchor[k], &st->freq[k], ts[k], tc[k], st->e[k],
					    pos + (int64_t)b, sa[k], ca[k], att, 0);
		if (want & PE_STEP_COS)
			fc[k] = step_settle(&anchor[k], &st->freq[k], ts[k], tc[k], st->e[k],
					    pos + (int64_t)b, sa[k], ca[k], att, 1);
	}
}

/* ---- correctly rounded doubles (--dtype float64, and float16 and
 * bfloat16 rounded from them) ---- */

/* a + b, within 2^-104 of |a + b| (plus 2^-105 of |a| + |b| where they cancel) */
static struct pe_dd dd_add(struct pe_dd a, struct pe_dd b)
{
	struct pe_dd s = pe_dd_two_sum(a.hi, b.hi), t = pe_dd_two_sum(a.lo, b.lo);

	s.lo += t.hi;
	s = pe_dd_fast_two_sum(s.hi, s.lo);
	s.lo += t.lo;
	return pe_dd_fast_two_sum(s.hi, s.lo);
}

static struct pe_dd dd_add_d(struct pe_dd a, double b)
{
	struct pe_dd s = pe_dd_two_sum(a.hi, b);

	s.lo += a.lo;
	return pe_dd_fast_two_sum(s.hi, s.lo);
}

/*
 * The series of sin r / r and cos r in z = r^2 for |r| <= 0.93 (the
 * reduction's remainder, pi/4 widened by the rounding of k below): terms
 * (-1)^n z^n / (2n+1)! and / (2n)!, n <= 14, the first left out below
 * 2^-105; coefficients and pi/2 as double-doubles from 256-bit values.
 */
#define SERIES 15

static struct {
	pthread_once_t once;
	struct pe_dd s[SERIES], c[SERIES];
	double pio2[3];
} k64 = { PTHREAD_ONCE_INIT, { { 0, 0 } }, { { 0, 0 } }, { 0, 0, 0 } };

static void k64_init(void)
{
	struct pe_mp f, one;
	double mid;
	unsigned n;

	pe_mp_set_d(&one, 1.0);
	f = one;	/* 1 / n! */
	for (n = 0; n < 2 * SERIES; n++) {
		if (n)
			pe_mp_div_u(&f, &f, n);
		if (n % 2 == 0)
			pe_mp_to_td(&f, &k64.c[n / 2].hi, &k64.c[n / 2].lo, &mid);
		else
			pe_mp_to_td(&f, &k64.s[n / 2].hi, &k64.s[n / 2].lo, &mid);
	}
	for (n = 1; n < SERIES; n += 2) {
		k64.s[n].hi = -k64.s[n].hi;
		k64.s[n].lo = -k64.s[n].lo;
		k64.c[n].hi = -k64.c[n].hi;
		k64.c[n].lo = -k64.c[n].lo;
	}
	pe_mp_pi(&f);
	pe_mp_mul_2exp(&f, &f, -1);
	pe_mp_to_td(&f, &k64.pio2[0], &k64.pio2[1], &k64.pio2[2]);
	(void)one;
}

/* r = x - k pi/2 for x = xh + xl, k = rint(2 xh / pi); its quadrant k mod 4.
 * Within 2^-160 |x| (pi/2's triple) + 2^-102 of x - k pi/2: xh - k P1 is
 * exact (two_product, two_sum) and the small terms are added in
 * double-double to a sum below 1. */
static struct pe_dd reduce(double xh, double xl, int *quadrant)
{
	double kd = rint(xh * 0.63661977236758134308), h, l;
	struct pe_dd r;

	*quadrant = (int)((int64_t)kd & 3);
	pe_two_product(kd, k64.pio2[0], &h, &l);
	r = pe_dd_two_sum(xh, -h);
	r = dd_add_d(r, xl);
	r = dd_add_d(r, -l);
	pe_two_product(kd, k64.pio2[1], &h, &l);
	r = dd_add_d(r, -h);
	r = dd_add_d(r, -l);
	return dd_add_d(r, -kd * k64.pio2[2]);
}

/* sin r or cos r by Horner's rule in double-double, within 2^-99 */
static struct pe_dd series(struct pe_dd r, int want_cos)
{
	const struct pe_dd *c = want_cos ? k64.c : k64.s;
	struct pe_dd z = pe_dd_mul(r, r), acc = c[SERIES - 1];
	int n;

	for (n = SERIES - 2; n >= 0; n--)
		acc = dd_add(pe_dd_mul(acc, z), c[n]);
	return want_cos ? acc : pe_dd_mul(acc, r);
}

/* v rounded to double when v - err and v + err round alike (then so does
 * the exact value, within err of v); else v's own rounding, the best 256
 * bits can do (see mp_round_f32) */
static double mp_round_d(const struct pe_mp *v, double err)
{
	struct pe_mp lo, hi;
	double a, b;

	mp_bracket(v, err, &lo, &hi);
	a = pe_mp_to_d(&lo);
	b = pe_mp_to_d(&hi);
	if (memcmp(&a, &b, sizeof a) == 0)
		return a;
	return pe_mp_to_d(v);
}

/*
 * The 256-bit route, as pe_sincos_pf_f32's.  scale cos of an angle below
 * 2^-100 is scale (1 - something below 2^-200), which rounds to scale: a
 * double's neighbours are far further.  sin of such an angle a is
 * a (1 - below 2^-200): its rounding is that of a itself (scale a), as
 * a cannot be a rounding boundary of double at that distance unless it
 * is one exactly, which 256 bits cannot tell either.
 */
static double sincos_mp64(const struct pe_freq *fr, int64_t p, int want_cos, double scale)
{
	struct pe_mp a, s, c, k;

	mp_angle(fr, p, &a);
	pe_mp_set_d(&k, scale);
	if (a.sign == 0 || a.exp < -100) {
		if (want_cos)
			return scale;
		pe_mp_mul(&a, &a, &k);
		return pe_mp_to_d(&a);
	}
	pe_mp_sincos(&a, &s, &c);
	pe_mp_mul(&a, want_cos ? &c : &s, &k);
	return mp_round_d(&a, scale * (fabs((double)p) * fr->f * 0x1p-150 + 0x1p-190));
}

/*
 * pe_sincos_pf_f64.  The angle x = p (f + r + r2) in double-double: p f
 * = a + e exactly (two_product), e + p r rounded, p r2 left out: within
 * 2^-103.9 |p f|.  Reduced by pi/2 (reduce), the series (within 2^-99 for
 * a value of at most 1), the quadrant's sign and function, times scale in
 * double-double (2^-103 of the product): the double-double y is within
 * E = scale (2^-97 + 2^-103 |p f|) + 2^-103 |y| of the exact value.  If
 * yh + (yl -+ E') round to the same double, with E' covering the rounding
 * of yl -+ E', so does every value between, the exact one too; otherwise
 * (about one value in 2^-29 |p f|, near a rounding boundary or zero) the
 * 256-bit route decides.  Angles beyond 2^50 take the 256-bit route.
 */
double pe_sincos_pf_f64(const struct pe_freq *fr, int64_t p, int want_cos, double scale)
{
	double pd = (double)p, a, e, amax, E, lo, hi;
	struct pe_dd x, r, v;
	int q, fn, neg;

	if (p == 0)
		return want_cos ? scale : 0.0;
	if (fr->tiny || !isfinite(fr->f))
		return sincos_mp64(fr, p, want_cos, scale);
	pthread_once(&k64.once, k64_init);
	pe_two_product(pd, fr->f, &a, &e);
	amax = fabs(a);
	if (!(amax <= 0x1p50))
		return sincos_mp64(fr, p, want_cos, scale);
	x = pe_dd_fast_two_sum(a, e + pd * fr->r);
	r = reduce(x.hi, x.lo, &q);
	/* sin(r + q pi/2) is sin, cos, -sin, -cos of r; cos(...) is cos,
	 * -sin, -cos, sin */
	fn = want_cos ? !(q & 1) : (q & 1);
	neg = want_cos ? (q == 1 || q == 2) : (q >= 2);
	v = series(r, fn);
	if (neg) {
		v.hi = -v.hi;
		v.lo = -v.lo;
	}
	v = pe_dd_mul_d(v, scale);
	E = scale * (0x1p-97 + 0x1p-103 * amax) + 0x1p-103 * fabs(v.hi);
	E = (E + 0x1p-105 * fabs(v.hi)) * (1 + 0x1p-50) + 0x1p-1074;
	lo = v.hi + (v.lo - E);
	hi = v.hi + (v.lo + E);
	if (memcmp(&lo, &hi, sizeof lo) == 0)
		return lo;
	return sincos_mp64(fr, p, want_cos, scale);
}

/* p (f + r + r2) correctly rounded to double: a + (e + p r), within
 * 2^-103.9 |p f| (see above), settled as pe_sincos_pf_f64 settles its
 * values; else in 256 bits */
double pe_angle_pf_f64(const struct pe_freq *fr, int64_t p)
{
	double pd = (double)p, a, e, l, E, lo, hi;
	struct pe_mp m;

	if (p == 0)
		return 0.0;
	if (!fr->tiny && isfinite(fr->f)) {
		pe_two_product(pd, fr->f, &a, &e);
		l = e + pd * fr->r;
		E = fabs(a) * 0x1p-102 + 0x1p-1074;
		lo = a + (l - E);
		hi = a + (l + E);
		if (memcmp(&lo, &hi, sizeof lo) == 0)
			return lo;
	}
	mp_angle(fr, p, &m);
	return mp_round_d(&m, fabs(pd) * fr->f * 0x1p-150);
}

int pe_steps_rows(const struct pe_steps *st, const struct pe_freq *anchor, int64_t first,
		  size_t nrows, pe_steps_row_fn *row, void *ctx, struct pe_error *err)
{
	size_t n = st->n, i0, m, k, b;
	double *sa = malloc(2 * (n ? n : 1) * sizeof *sa), *ca = sa + n;
	float *fs = malloc(2 * (n ? n : 1) * sizeof *fs), *fc = fs + n;
	int64_t pos;

	if (!sa || !fs) {
		free(sa);
		free(fs);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	for (i0 = 0; i0 < nrows; i0 += PE_STEP) {
		m = nrows - i0 < PE_STEP ? nrows - i0 : PE_STEP;
		pos = first + (int64_t)i0;
		for (k = 0; k < n; k++)
			pe_sincos_pf(&anchor[k], pos, &sa[k], &ca[k]);
		for (b = 0; b < m; b++) {
			pe_steps_row(st, anchor, pos, b, sa, ca, 1.0, PE_STEP_SIN | PE_STEP_COS, fs, fc);
			row(ctx, i0 + b, fs, fc);
		}
	}
	free(sa);
	free(fs);
	return 0;
}
