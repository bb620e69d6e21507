/*
 * The lane emulation of SLEEF 3.5.1's u10 float functions (sleef32.h).
 * Names follow the double-float ("df") operations of the SLEEF paper: a
 * value x + y with |y| <= ulp(x) / 2; "2" in a name is the variant that
 * does not assume |first| >= |second|.  Every product or sum below is one
 * float operation rounded to nearest; fmaf() where the vector code fuses.
 */
#include "core/sleef32.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

struct df {
	float x, y;
};


/* x with its sign flipped where y is negative (vmulsign) */
static float mulsign(float x, float y)
{
	return pe_f32_from_bits(pe_f32_bits(x) ^ (pe_f32_bits(y) & 0x80000000u));
}

/* cvtps2dq: nearest even; NaN and out of range give INT32_MIN */
static int32_t cvt_rne(float f)
{
	if (!(f >= -2147483648.0f && f < 2147483648.0f))
		return INT32_MIN;
	return (int32_t)rintf(f);
}

/* cvttps2dq: towards zero; NaN and out of range give INT32_MIN */
static int32_t cvt_trunc(float f)
{
	if (!(f > -2147483904.0f && f < 2147483648.0f))
		return INT32_MIN;
	return (int32_t)f;
}

/* 2^q as a float built from its exponent field (vpow2i): q + 127 in 1..254 */
static float pow2i(int32_t q)
{
	return pe_f32_from_bits(((uint32_t)q + 0x7fu) << 23);
}

static struct df df_make(float x, float y)
{
	struct df r = { x, y };

	return r;
}

static struct df df_normalize(struct df t)
{
	float s = t.x + t.y;

	return df_make(s, (t.x - s) + t.y);
}

static struct df df_scale(struct df d, float s)
{
	return df_make(d.x * s, d.y * s);
}

/* |x| >= |y| */
static struct df df_add_ff(float x, float y)
{
	float s = x + y;

	return df_make(s, (x - s) + y);
}

static struct df df_add2_ff(float x, float y)
{
	float s = x + y, v = s - x;

	return df_make(s, (x - (s - v)) + (y - v));
}

static struct df df_add_dff(struct df x, float y)
{
	float s = x.x + y;

	return df_make(s, ((x.x - s) + y) + x.y);
}

static struct df df_add2_dff(struct df x, float y)
{
	float s = x.x + y, v = s - x.x;
	float t = (x.x - (s - v)) + (y - v);

	return df_make(s, t + x.y);
}

static struct df df_add_fdf(float x, struct df y)
{
	float s = x + y.x;

	return df_make(s, ((x - s) + y.x) + y.y);
}

static struct df df_add_dfdf(struct df x, struct df y)
{
	float s = x.x + y.x;

	return df_make(s, (((x.x - s) + y.x) + x.y) + y.y);
}

static struct df df_add2_dfdf(struct df x, struct df y)
{
	float s = x.x + y.x, v = s - x.x;
	float t = (x.x - (s - v)) + (y.x - v);

	return df_make(s, t + (x.y + y.y));
}

/* the products with a fused multiply-add (ENABLE_FMA_SP) */
static struct df df_mul_ff(float x, float y)
{
	float s = x * y;

	return df_make(s, fmaf(x, y, -s));
}

static struct df df_mul_dff(struct df x, float y)
{
	float s = x.x * y;

	return df_make(s, fmaf(x.y, y, fmaf(x.x, y, -s)));
}

static struct df df_mul_dfdf(struct df x, struct df y)
{
	float s = x.x * y.x;

	return df_make(s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s))));
}

static float df_mul_dfdf_f(struct df x, struct df y)
{
	return fmaf(x.x, y.x, fmaf(x.y, y.x, x.x * y.y));
}

static struct df df_squ(struct df x)
{
	float s = x.x * x.x;

	return df_make(s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s)));
}

static struct df df_div(struct df n, struct df d)
{
	float t = 1.0f / d.x, s = n.x * t;
	float u = fmaf(t, n.x, -s);
	float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));

	return df_make(s, fmaf(s, v, fmaf(n.y, t, u)));
}

/* ---- sin and cos ---- */

#define PI_A2f 3.1414794921875f
#define PI_B2f 0.00011315941810607910156f
#define PI_C2f 1.9841872589410058936e-09f
#define TRIG_SMALL 125.0f
#define M_1_PIf ((float)0.318309886183790671537767526745028724)
/* pi/2 as a float pair, negated (the vector code's 3.14159274f * -0.5) */
#define PI_HI_HALF (3.1415927410125732422f * -0.5f)
#define PI_LO_HALF (-8.7422776573475857731e-08f * -0.5f)

/* Payne-Hanek: the bits of 1/(2 pi) from exponent 4k on, four floats per
 * row (SLEEF's published table Sleef_rempitabsp) */
static const float rempitab[103][4] = {
#include "core/sleef32_rempi.h"
};

struct dfi {
	struct df df;
	int32_t i;
};

/* x - rint(4x)/4 and the quadrant count rint(4x) - 4 rint(x) (FULL_FP_ROUNDING) */
static void rempisub(float x, float *rest, int32_t *q)
{
	float y = rintf(x * 4.0f);

	*q = cvt_trunc(y - rintf(x) * 4.0f);
	*rest = x - y * 0.25f;
}

/* a = (2 pi) (n/4 + the result), n the returned count: the reduction of a
 * finite a of any size in three double-float steps */
static struct dfi rempi(float a)
{
	struct df x, y;
	struct dfi r;
	int32_t ex = (int32_t)((pe_f32_bits(a) >> 23) & 0xff) - 0x7f, q, qi;
	float rest;

	ex -= 25;
	q = ex > 90 - 25 ? -64 : 0;
	a = pe_f32_from_bits(pe_f32_bits(a) + ((uint32_t)q << 23));
	if (ex < 0)
		ex = 0;
	if (ex > 102)
		ex = 102;	/* inf and NaN: the caller returns NaN */
	x = df_mul_ff(a, rempitab[ex][0]);
	rempisub(x.x, &rest, &q);
	x.x = rest;
	x = df_normalize(x);
	y = df_mul_ff(a, rempitab[ex][1]);
	x = df_add2_dfdf(x, y);
	rempisub(x.x, &rest, &qi);
	q = (int32_t)((uint32_t)q + (uint32_t)qi);
	x.x = rest;
	x = df_normalize(x);
	y = df_mul_dff(df_make(rempitab[ex][2], rempitab[ex][3]), a);
	x = df_add2_dfdf(x, y);
	x = df_normalize(x);
	x = df_mul_dfdf(x, df_make(3.1415927410125732422f * 2, -8.7422776573475857731e-08f * 2));
	if (fabsf(a) < 0.7f)
		x = df_make(a, 0.0f);
	r.df = x;
	r.i = q;
	return r;
}

int pe_sleef_trig_ph(const float *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(fabsf(x[i]) < TRIG_SMALL))
			return 1;
	return 0;
}

/* the common tail of sin and cos: the polynomial of the reduced argument t */
static float trig_poly(struct df t)
{
	struct df s = df_squ(t), x;
	float u;

	u = 2.6083159809786593541503e-06f;
	u = fmaf(u, s.x, -0.0001981069071916863322258f);
	u = fmaf(u, s.x, 0.00833307858556509017944336f);
	x = df_add_fdf(1.0f, df_mul_dfdf(df_add_ff(-0.166666597127914428710938f, u * s.x), s));
	return df_mul_dfdf_f(t, x);
}

static float nan_if_not_finite(float d, float x)
{
	return isfinite(d) ? x : pe_f32_from_bits(0xffffffffu);
}

float pe_sleef_sinf(float d, int ph)
{
	struct df s;
	int32_t q;
	float u;

	if (!ph) {
		u = rintf(d * M_1_PIf);
		q = cvt_rne(u);
		s = df_add2_ff(fmaf(u, -PI_A2f, d), u * -PI_B2f);
		s = df_add_dff(s, u * -PI_C2f);
	} else {
		struct dfi r = rempi(d);
		struct df x;

		q = r.i & 3;
		q = (q + q + (r.df.x > 0 ? 2 : 1)) >> 2;
		x = df_make(mulsign(PI_HI_HALF, r.df.x), mulsign(PI_LO_HALF, r.df.x));
		x = df_add2_dfdf(r.df, x);
		if ((r.i & 1) == 1)
			r.df = x;
		s = df_normalize(r.df);
		s.x = nan_if_not_finite(d, s.x);
	}
	u = trig_poly(s);
	if (q & 1)
		u = pe_f32_from_bits(pe_f32_bits(u) ^ 0x80000000u);
	if (pe_f32_bits(d) == 0x80000000u)
		u = d;
	return u;
}

float pe_sleef_cosf(float d, int ph)
{
	struct df s;
	int32_t q;
	float u;

	if (!ph) {
		float dq = fmaf(rintf(fmaf(d, M_1_PIf, -0.5f)), 2.0f, 1.0f);

		q = cvt_rne(dq);
		s = df_add2_ff(d, dq * (-PI_A2f * 0.5f));
		s = df_add2_dff(s, dq * (-PI_B2f * 0.5f));
		s = df_add2_dff(s, dq * (-PI_C2f * 0.5f));
	} else {
		struct dfi r = rempi(d);
		struct df x;
		float y = r.df.x > 0 ? 0.0f : -1.0f;

		q = r.i & 3;
		q = (q + q + (r.df.x > 0 ? 8 : 7)) >> 1;
		x = df_make(mulsign(PI_HI_HALF, y), mulsign(PI_LO_HALF, y));
		x = df_add2_dfdf(r.df, x);
		if ((r.i & 1) == 0)
			r.df = x;
		s = df_normalize(r.df);
		s.x = nan_if_not_finite(d, s.x);
	}
	u = trig_poly(s);
	if ((q & 2) == 0)
		u = pe_f32_from_bits(pe_f32_bits(u) ^ 0x80000000u);
	return u;
}

/* ---- exp, log and pow ---- */

#define L2Uf 0.693145751953125f
#define L2Lf 1.428606765330187045e-06f
#define R_LN2f 1.442695040888963407359924681001892137426645954152985934135449406931f

float pe_sleef_expf(float d)
{
	int32_t q = cvt_rne(d * R_LN2f);
	float s, u;

	s = fmaf((float)q, -L2Uf, d);
	s = fmaf((float)q, -L2Lf, s);
	u = 0.000198527617612853646278381f;
	u = fmaf(u, s, 0.00139304355252534151077271f);
	u = fmaf(u, s, 0.00833336077630519866943359f);
	u = fmaf(u, s, 0.0416664853692054748535156f);
	u = fmaf(u, s, 0.166666671633720397949219f);
	u = fmaf(u, s, 0.5f);
	u = 1.0f + fmaf(s * s, u, s);
	/* vldexp2: two powers of two, each within the exponent range */
	u = (u * pow2i(q >> 1)) * pow2i((int32_t)((uint32_t)q - (uint32_t)(q >> 1)));
	if (d < -104.0f)
		u = 0.0f;
	if (100.0f < d)
		u = INFINITY;
	return u;
}

/* log x as a double float, x > 0 finite (logkf) */
static struct df logk(float d)
{
	struct df x, x2, s;
	float t, m;
	int32_t e;
	int tiny = d < 1.17549435e-38f;

	if (tiny)
		d *= 18446744073709551616.0f;	/* 2^64 */
	e = (int32_t)((pe_f32_bits(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
	m = pe_f32_from_bits(pe_f32_bits(d) + ((uint32_t)-e << 23));
	if (tiny)
		e -= 64;
	x = df_div(df_add2_ff(-1.0f, m), df_add2_ff(1.0f, m));
	x2 = df_squ(x);
	t = 0.240320354700088500976562f;
	t = fmaf(t, x2.x, 0.285112679004669189453125f);
	t = fmaf(t, x2.x, 0.400007992982864379882812f);
	s = df_mul_dff(df_make(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);
	s = df_add_dfdf(s, df_scale(x, 2.0f));
	s = df_add_dfdf(s, df_mul_dfdf(df_mul_dfdf(x2, x),
				      df_add2_dfdf(df_mul_dff(x2, t),
						   df_make(0.66666662693023681640625f,
							   3.69183861259614332084311e-09f))));
	return s;
}

/* vldexp: x 2^q in five exact steps, the exponent clamped to a float's;
 * the integer steps wrap as the vector lanes do (q may be INT32_MIN, from
 * a NaN) */
static float ldexpk(float x, int32_t q)
{
	uint32_t m = (uint32_t)(q >> 31), uq = (uint32_t)q;
	int32_t e;
	float u;

	m = (((uint32_t)((int32_t)(m + uq) >> 6) - m) * 16u);
	uq -= m * 4u;
	e = (int32_t)(m + 0x7fu);
	e = e > 0 ? e : 0;
	e = e > 0xff ? 0xff : e;
	u = pe_f32_from_bits((uint32_t)e << 23);
	x = ((x * u) * u) * u * u;
	return x * pe_f32_from_bits((uq + 0x7fu) << 23);
}

/* exp of a double float (expkf) */
static float expk(struct df d)
{
	float u = (d.x + d.y) * R_LN2f;
	int32_t q = cvt_rne(u);
	struct df s, t;

	s = df_add2_dff(d, (float)q * -L2Uf);
	s = df_add2_dff(s, (float)q * -L2Lf);
	s = df_normalize(s);
	u = 0.00136324646882712841033936f;
	u = fmaf(u, s.x, 0.00836596917361021041870117f);
	u = fmaf(u, s.x, 0.0416710823774337768554688f);
	u = fmaf(u, s.x, 0.166665524244308471679688f);
	u = fmaf(u, s.x, 0.499999850988388061523438f);
	t = df_add_dfdf(s, df_mul_dff(df_squ(s), u));
	t = df_add_fdf(1.0f, t);
	u = ldexpk(t.x + t.y, q);
	if (d.x < -104.0f)
		u = 0.0f;
	return u;
}

float pe_sleef_powf(float x, float y)
{
	int yisint = truncf(y) == y || fabsf(y) > 16777216.0f;
	int yisodd = (cvt_trunc(y) & 1) == 1 && yisint && fabsf(y) < 16777216.0f;
	float r, efx, ax = fabsf(x);

	r = ax > 0 && isfinite(ax) ? expk(df_mul_dff(logk(ax), y)) : 0.0f;
	if (isnan(r))
		r = INFINITY;
	r *= x > 0 ? 1.0f : yisint ? (yisodd ? -1.0f : 1.0f) : NAN;
	efx = mulsign(ax - 1.0f, y);
	if (isinf(y))
		r = efx < 0 ? 0.0f : efx == 0 ? 1.0f : INFINITY;
	if (isinf(x) || x == 0)
		r = (yisodd ? mulsign(1.0f, x) : 1.0f) * ((x == 0 ? -y : y) < 0 ? 0.0f : INFINITY);
	if (isnan(x) || isnan(y))
		r = pe_f32_from_bits(0xffffffffu);
	if (y == 0 || x == 1)
		r = 1.0f;
	return r;
}

/* ---- log and log1p (torch.log of a build without MKL, torch.log1p) ---- */

#define LN2_HIf 0.69314718246459960938f
#define LN2_LOf (-1.904654323148236017e-09f)
#define FLT_MIN_NORMAL 1.17549435e-38f

/* the polynomial and the sum both functions end with: s + 2x + x^3 t(x^2) */
static float log_tail(struct df s, struct df x)
{
	float x2 = x.x * x.x, t;

	t = 0.3027294874f;
	t = fmaf(t, x2, 0.3996108174f);
	t = fmaf(t, x2, 0.6666694880f);
	s = df_add_dfdf(s, df_scale(x, 2.0f));
	s = df_add_dff(s, (x2 * x.x) * t);
	return s.x + s.y;
}

/* xlogf_u1: m = d 2^-e in [0.75, 1.5), log d = e ln 2 + 2 atanh((m - 1)/(m + 1)) */
float pe_sleef_logf(float d)
{
	struct df x, s;
	float m, r;
	int32_t e;
	int tiny = d < FLT_MIN_NORMAL;

	if (tiny)
		d *= 18446744073709551616.0f;	/* 2^64 */
	e = (int32_t)((pe_f32_bits(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
	m = pe_f32_from_bits(pe_f32_bits(d) + ((uint32_t)-e << 23));
	if (tiny)
		e -= 64;
	s = df_mul_dff(df_make(LN2_HIf, LN2_LOf), (float)e);
	x = df_div(df_add2_ff(-1.0f, m), df_add2_ff(1.0f, m));
	r = log_tail(s, x);
	if (isinf(d))
		r = INFINITY;
	if (d < 0 || isnan(d))
		r = NAN;
	if (d == 0)
		r = -INFINITY;
	return r;
}

/* xlog1pf: the same with m = (1 + d) 2^-e - 1 formed as d 2^-e + (2^-e - 1),
 * so the bits of a small d are not lost to 1 + d */
float pe_sleef_log1pf(float d)
{
	struct df x, s;
	float dp1 = d + 1.0f, m, t, r;
	int32_t e;
	int tiny = dp1 < FLT_MIN_NORMAL;

	if (tiny)
		dp1 *= 18446744073709551616.0f;
	e = (int32_t)((pe_f32_bits(dp1 * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
	t = pe_f32_from_bits(pe_f32_bits(1.0f) + ((uint32_t)-e << 23));
	m = fmaf(d, t, t - 1.0f);
	if (tiny)
		e -= 64;
	s = df_mul_dff(df_make(LN2_HIf, LN2_LOf), (float)e);
	x = df_div(df_make(m, 0.0f), df_add_ff(2.0f, m));
	r = log_tail(s, x);
	if (d > 1e38f)
		r = INFINITY;
	if (-1.0f > d || isnan(d))
		r = pe_f32_from_bits(0xffffffffu);
	if (d == -1.0f)
		r = -INFINITY;
	if (pe_f32_bits(d) == 0x80000000u)
		r = -0.0f;
	return r;
}
