/*
 * PyTorch's float32 operations (torch32.h): the models of ATen's loops
 * around the emulated functions, glibc's powf, and MKL's vector math loaded
 * at run time.
 */
#include "core/torch32.h"

#include "core/mp.h"
#include "core/sleef32.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef PE_MKL_SONAME
#define PE_MKL_SONAME "libmkl_rt.so.2"
#endif

const char *const pe_torch_cpu_names[] = { "avx2", "avx512", NULL };
const char *const pe_torch_vml_names[] = { "sleef", "mkl", NULL };

/* at::parallel_for's grain for ATen's unary float kernels */
#define VML_GRAIN 2048

void pe_torch_defaults(struct pe_torch *t)
{
	t->cpu = PE_TORCH_AVX512;
	t->vml = PE_TORCH_SLEEF;
	t->threads = 1;
}

int pe_torch_cpu_detect(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("fma"))
		return PE_TORCH_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return PE_TORCH_AVX2;
#endif
	return -1;
}

size_t pe_torch_lanes(enum pe_torch_cpu cpu)
{
	return cpu == PE_TORCH_AVX2 ? PE_SLEEF_AVX2_LANES : PE_SLEEF_AVX512_LANES;
}

/* ---- glibc's powf ---- */

/*
 * The algorithm of glibc 2.28's powf (Szabolcs Nagy, ARM optimized-routines):
 * log2 x from a 16-entry table of c near z (invc = 1/c, logc = log2 c) and a
 * degree-5 polynomial in r = z/c - 1, all in double; y log2 x; 2^t from a
 * 32-entry table of 2^(i/32) and a cubic.  The constants are glibc's
 * published tables (e_powf_log2_data.c, e_exp2f_data.c).  fma() where GCC
 * contracts a * b + c in the -mfma build (a product used only by the sum).
 */
static const double powf_invc[16] = {
	0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0,
	0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
	0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
	0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
};
static const double powf_logc[16] = {
	-0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
	-0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
	-0x1.a6f9db6475fcep-5, 0x0p+0, 0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3,
	0x1.e840b4ac4e4d2p-3, 0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2, 0x1.ce0a44eb17bccp-2,
};
static const double powf_poly[5] = {
	0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1,
	0x1.71547652ab82bp0,
};
/* 2^(i/32) as bits, less i << 47 */
static const uint64_t exp2f_tab[32] = {
	0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
	0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
	0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
	0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
	0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
	0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
	0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
	0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
static const double exp2f_poly[3] = { 0x1.c6af84b912394p-5, 0x1.ebfce50fac4f3p-3,
				      0x1.62e42ff0c52d6p-1 };


static double glibc_log2(uint32_t ix)
{
	uint32_t tmp = ix - 0x3f330000u, top = tmp & 0xff800000u;
	int i = (int)((tmp >> 19) % 16);
	int k = (int32_t)top >> 23;
	double z = (double)pe_f32_from_bits(ix - top), r, r2, r4, p, q, y, y0;

	r = fma(z, powf_invc[i], -1.0);
	y0 = powf_logc[i] + (double)k;
	r2 = r * r;
	y = fma(powf_poly[0], r, powf_poly[1]);
	p = fma(powf_poly[2], r, powf_poly[3]);
	r4 = r2 * r2;
	q = fma(powf_poly[4], r, y0);
	q = fma(p, r2, q);
	return fma(y, r4, q);
}

static double glibc_exp2(double xd, uint64_t sign_bias)
{
	const double shift = 0x1.8p+52 / 32;
	double kd = xd + shift, r, z, r2, y, s;
	uint64_t ki, t;

	memcpy(&ki, &kd, sizeof ki);
	kd -= shift;
	r = xd - kd;
	t = exp2f_tab[ki % 32];
	t += (ki + sign_bias) << 47;
	memcpy(&s, &t, sizeof s);
	z = fma(exp2f_poly[0], r, exp2f_poly[1]);
	r2 = r * r;
	y = fma(exp2f_poly[2], r, 1.0);
	y = fma(z, r2, y);
	return y * s;
}

/* 0: not an integer, 1: odd, 2: even (iy non-zero finite) */
static int checkint(uint32_t iy)
{
	int e = (int)(iy >> 23 & 0xff);

	if (e < 0x7f)
		return 0;
	if (e > 0x7f + 23)
		return 2;
	if (iy & ((1u << (0x7f + 23 - e)) - 1))
		return 0;
	if (iy & (1u << (0x7f + 23 - e)))
		return 1;
	return 2;
}

static int signaling(uint32_t i)
{
	return 2 * (i ^ 0x00400000u) > 2u * 0x7fc00000u;
}

static int zeroinfnan(uint32_t i)
{
	return 2 * i - 1 >= 2u * 0x7f800000u - 1;
}

float pe_glibc_powf(float x, float y)
{
	uint32_t ix = pe_f32_bits(x), iy = pe_f32_bits(y);
	uint64_t sign_bias = 0;
	double ylogx;

	if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u || zeroinfnan(iy)) {
		if (zeroinfnan(iy)) {
			if (2 * iy == 0)
				return signaling(ix) ? x + y : 1.0f;
			if (ix == 0x3f800000u)
				return signaling(iy) ? x + y : 1.0f;
			if (2 * ix > 2u * 0x7f800000u || 2 * iy > 2u * 0x7f800000u)
				return x + y;
			if (2 * ix == 2u * 0x3f800000u)
				return 1.0f;
			if ((2 * ix < 2u * 0x3f800000u) == !(iy & 0x80000000u))
				return 0.0f;
			return y * y;
		}
		if (zeroinfnan(ix)) {
			float x2 = x * x;

			if (ix & 0x80000000u && checkint(iy) == 1)
				x2 = -x2;
			return iy & 0x80000000u ? 1 / x2 : x2;
		}
		if (ix & 0x80000000u) {
			int yint = checkint(iy);

			if (yint == 0)
				return NAN;
			if (yint == 1)
				sign_bias = 1u << 16;
			ix &= 0x7fffffffu;
		}
		if (ix < 0x00800000u) {
			ix = pe_f32_bits(x * 0x1p23f) & 0x7fffffffu;
			ix -= 23u << 23;
		}
	}
	ylogx = (double)y * glibc_log2(ix);
	if (fabs(ylogx) >= 126.0) {
		if (ylogx > 0x1.fffffffd1d571p+6)
			return sign_bias ? -INFINITY : INFINITY;
		if (ylogx <= -150.0)
			return sign_bias ? -0.0f : 0.0f;
	}
	return (float)glibc_exp2(ylogx, sign_bias);
}

/* ---- glibc's sinf and cosf ---- */

/*
 * The algorithm of glibc's sinf/cosf since 2018 (Szabolcs Nagy and Wilco
 * Dijkstra, ARM optimized-routines): in double, |x| < 0.75 straight into
 * the polynomials; below 120 one reduction by the nearest multiple n of
 * pi/2 (n from a product with 2/pi scaled by 2^24); above, the integer
 * product of the significand with 192 bits of 4/pi.  Then an odd degree-7
 * polynomial for sin and an even degree-8 one for cos of the reduced
 * argument, chosen and signed by the quadrant.  The constants are glibc's
 * published table (s_sincosf_data.c).  fma() where GCC contracts a product
 * into the sum that is its only use in the -mfma build.
 */
static const double sc_cos[5] = { 0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5,
				  -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16 };
static const double sc_sin[3] = { -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
				  -0x1.994eb3774cf24p-13 };
/* 4/pi, each entry 8 bits on from the last */
static const uint32_t sc_inv_pio4[24] = {
	0xa2,       0xa2f9,     0xa2f983,   0xa2f9836e, 0xf9836e4e, 0x836e4e44,
	0x6e4e4415, 0x4e441529, 0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
	0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0, 0x34ddc0db, 0xddc0db62,
	0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
};
#define SC_HPI 0x1.921fb54442d18p0		/* pi/2 */
#define SC_HPI_INV 0x1.45f306dc9c883p+23	/* 2/pi * 2^24 */
#define SC_PI63 0x1.921fb54442d18p-62		/* 2 pi * 2^-64 */

/* the sine (n even) or cosine (n odd) polynomial of the reduced x, x2 =
 * x * x; neg: the cosine's negated (glibc's second table, quadrants 2 and
 * 3; its entries are exact negations) */
static float sc_poly(double x, double x2, unsigned n, int neg)
{
	double x3, x4, x6, x7, s, p, c, c1, c2, k = neg ? -1.0 : 1.0;

	if ((n & 1) == 0) {
		x3 = x * x2;
		p = fma(x2, sc_sin[2], sc_sin[1]);
		x7 = x3 * x2;
		s = fma(x3, sc_sin[0], x);
		return (float)fma(x7, p, s);
	}
	x4 = x2 * x2;
	c2 = fma(x2, k * sc_cos[4], k * sc_cos[3]);
	c1 = fma(x2, k * sc_cos[1], k * sc_cos[0]);
	x6 = x4 * x2;
	c = fma(x4, k * sc_cos[2], c1);
	return (float)fma(x6, c2, c);
}

/* the arithmetic shift v >> 24 (floor division), portably */
static int32_t sc_asr24(int32_t v)
{
	return v >= 0 ? v >> 24 : -1 - ((-1 - v) >> 24);
}

/* |x| mod pi/2 for |x| >= 120 by the bits xi of x, the quadrant in *np */
static double sc_reduce_large(uint32_t xi, int *np)
{
	const uint32_t *t = &sc_inv_pio4[(xi >> 26) & 15];
	int shift = (int)((xi >> 23) & 7);
	uint64_t n, r0, r1, r2;
	int64_t v;

	xi = ((xi & 0xffffffu) | 0x800000u) << shift;
	r0 = (uint32_t)(xi * t[0]);
	r1 = (uint64_t)xi * t[4];
	r2 = (uint64_t)xi * t[8];
	r0 = (r2 >> 32) | (r0 << 32);
	r0 += r1;
	n = (r0 + ((uint64_t)1 << 61)) >> 62;
	r0 -= n << 62;
	/* r0 as a signed 2.62 fixed-point fraction */
	v = r0 < ((uint64_t)1 << 63) ? (int64_t)r0 : -(int64_t)(~r0) - 1;
	*np = (int)n;
	return (double)v * SC_PI63;
}

/* sin (want_cos 0) or cos (want_cos 1) of y */
static float glibc_sincosf(float y, unsigned want_cos)
{
	static const double sign[4] = { 1.0, -1.0, -1.0, 1.0 };
	uint32_t yi = pe_f32_bits(y), top = (yi >> 20) & 0x7ff;
	double x = (double)y, s;
	int32_t r;
	unsigned n, q;
	int nl;

	if (top < 0x3f4) {	/* |y| < 0.75 */
		if (top < 0x398)	/* |y| < 2^-12 */
			return want_cos ? 1.0f : y;
		return sc_poly(x, x * x, want_cos, 0);
	}
	if (top < 0x42f) {	/* |y| < 120 */
		r = (int32_t)(x * SC_HPI_INV);
		nl = (int)sc_asr24(r + 0x800000);
		x = fma(-(double)nl, SC_HPI, x);
		n = q = (unsigned)nl;
	} else if (top < 0x7f8) {
		x = sc_reduce_large(yi, &nl);
		n = (unsigned)nl;
		q = n + (yi >> 31);
	} else {
		return y - y;	/* inf, NaN: NaN */
	}
	s = sign[q & 3];
	return sc_poly(x * s, x * x, want_cos ? n ^ 1 : n, (q & 2) != 0);
}

float pe_glibc_sinf(float x)
{
	return glibc_sincosf(x, 0);
}

float pe_glibc_cosf(float x)
{
	return glibc_sincosf(x, 1);
}

/* ---- torch.pow(Tensor, Scalar) ---- */

float pe_torch_pow_exp(float x, double e)
{
	struct pe_mp t, u;
	double est;

	if (e == 2.0)
		return x * x;
	if (isnan(x) || isnan(e) || x < 0)
		return NAN;
	if (x == 0 || isinf(x) || e == 0 || x == 1.0f || isinf(e))
		return (float)pow((double)x, e);
	/* far beyond float32's range either way (and mp's exponents) */
	est = e * log((double)x);
	if (fabs(est) > 1000)
		return est > 0 ? INFINITY : 0.0f;
	/* exp(e ln x) to 2^-240: its nearest double, then float32 */
	pe_mp_set_d(&t, (double)x);
	pe_mp_log(&t, &t);
	pe_mp_set_d(&u, e);
	pe_mp_mul(&t, &t, &u);
	pe_mp_exp(&t, &t);
	return (float)pe_mp_to_d(&t);
}

/* ---- torch.pow(Scalar, Tensor) ---- */

void pe_torch_pow_scalar(const struct pe_torch *t, float base, const float *e, float *out,
			 size_t n)
{
	size_t step = 2 * pe_torch_lanes(t->cpu), vec = n - n % step, i;

	/* vectorized_loop: whole pairs of vectors through Vectorized::pow,
	 * the rest through the scalar op */
	for (i = 0; i < vec; i++)
		out[i] = pe_sleef_powf(base, e[i]);
	for (; i < n; i++)
		out[i] = pe_glibc_powf(base, e[i]);
}

/* ---- MKL ---- */

typedef void vms_fn(int, const float *, float *, long long);

static struct {
	pthread_once_t once;
	vms_fn *fn[4];
	char why[240];
} mkl = { PTHREAD_ONCE_INIT, { NULL, NULL, NULL, NULL }, "" };

/* VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE, as ATen's vml.h passes */
#define VML_MODE (0x2LL | 0x140000LL | 0x100LL)

static void mkl_load(void)
{
	static const char *const names[4] = { "vmsCos", "vmsSin", "vmsExp", "vmsLn" };
	void *lib = dlopen(PE_MKL_SONAME, RTLD_NOW | RTLD_LOCAL), *f;
	int (*layer)(int);
	const char *e;
	int k;

	if (!lib) {
		e = dlerror();
		snprintf(mkl.why, sizeof mkl.why, "%s", e ? e : PE_MKL_SONAME);
		return;
	}
	/* one thread per call (posenc's workers call it in parallel): MKL's
	 * sequential layer, which needs no OpenMP runtime */
	f = dlsym(lib, "MKL_Set_Threading_Layer");
	if (f) {
		memcpy(&layer, &f, sizeof layer);
		layer(1);	/* MKL_THREADING_SEQUENTIAL */
	}
	for (k = 0; k < 4; k++) {
		f = dlsym(lib, names[k]);
		if (!f) {
			snprintf(mkl.why, sizeof mkl.why, "%s has no %s", PE_MKL_SONAME, names[k]);
			return;
		}
		memcpy(&mkl.fn[k], &f, sizeof mkl.fn[k]);
	}
}

int pe_torch_check(const struct pe_torch *t, struct pe_error *err)
{
	if (t->threads < 1)
		return pe_fail(err, PE_ERR_PARAM, "{torch_threads} must be at least 1");
	if (t->vml != PE_TORCH_MKL)
		return 0;
	pthread_once(&mkl.once, mkl_load);
	if (!mkl.fn[3])
		return pe_fail(err, PE_ERR_IO, "cannot load Intel MKL: %s", mkl.why);
	return 0;
}

void pe_torch_mkl(enum pe_torch_unary op, const float *x, float *y, size_t n)
{
	while (n > 0) {
		int m = n > (1u << 30) ? 1 << 30 : (int)n;

		mkl.fn[op](m, x, y, VML_MODE);
		x += m;
		y += m;
		n -= (size_t)m;
	}
}

/* ---- cos, sin, exp of a tensor ---- */

/* the first element of the at::parallel_for chunk holding element g */
static uint64_t chunk_start(const struct pe_torch *t, uint64_t total, uint64_t g, uint64_t *end)
{
	uint64_t nthr = t->threads, chunk, c;

	if (total < VML_GRAIN || nthr <= 1) {
		*end = total;
		return 0;
	}
	if (nthr > (total + VML_GRAIN - 1) / VML_GRAIN)
		nthr = (total + VML_GRAIN - 1) / VML_GRAIN;
	chunk = (total + nthr - 1) / nthr;
	c = g / chunk * chunk;
	*end = c + chunk < total ? c + chunk : total;
	return c;
}

void pe_torch_unary(const struct pe_torch *t, enum pe_torch_unary op, pe_torch_elem_fn *x,
		    const void *ctx, uint64_t total, uint64_t first, size_t count, float *out)
{
	float lane[PE_SLEEF_AVX512_LANES];
	size_t V = pe_torch_lanes(t->cpu), i = 0, k, n;
	uint64_t g, c0, cend, v0;
	int ph;

	if (t->vml == PE_TORCH_MKL || op == PE_TORCH_EXP || op == PE_TORCH_LOG) {
		for (i = 0; i < count; i++)
			out[i] = x(ctx, first + i);
		if (t->vml == PE_TORCH_MKL) {
			pe_torch_mkl(op, out, out, count);
			return;
		}
		/* element by element: no lane looks at another */
		for (i = 0; i < count; i++)
			out[i] = op == PE_TORCH_EXP ? pe_sleef_expf(out[i]) : pe_sleef_logf(out[i]);
		return;
	}
	while (i < count) {
		/* the vector holding element g: V lanes from its chunk's start,
		 * the chunk's last one shorter (its other lanes are zeros) */
		g = first + i;
		c0 = chunk_start(t, total, g, &cend);
		v0 = c0 + (g - c0) / V * V;
		n = cend - v0 < V ? (size_t)(cend - v0) : V;
		for (k = 0; k < n; k++)
			lane[k] = x(ctx, v0 + k);
		ph = pe_sleef_trig_ph(lane, n);
		for (k = (size_t)(g - v0); k < n && i < count; k++, i++)
			out[i] = op == PE_TORCH_COS ? pe_sleef_cosf(lane[k], ph)
						    : pe_sleef_sinf(lane[k], ph);
	}
}
