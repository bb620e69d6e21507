/*
 * angle.h - sin and cos of p * f for integer positions p, rounded
 * correctly to float32.
 *
 * The frequency.  Computed once in 256-bit arithmetic (core/mp.h) and kept
 * as three doubles f + r + r2 (to 2^-158 relative): long double's 64 bits
 * were not enough -- at p = 751181, f = 10000^(-4/64), the angle's error
 * p f 2^-64 put one value of a 1,000,000 x 64 table 1.01 ulp off.
 *
 * The angle.  For |p| < 2^b, b <= 26, f is split so that p * f is the sum
 * of two products that are exact in double plus a tiny residual:
 *     f = h1 + h2 + r (+ r2),  h1 has 53 - b significant bits,
 *     p*h1 and p*h2 exact,  A + e = p*h1 + p*h2 (Fast2Sum),  lo = e + p r;
 * beyond 2^26 Dekker's two-product gives A + e = p f (no fused multiply-add
 * needed, so the same bits everywhere, valgrind included).  A + lo is the
 * angle to within 2^-103 max|p f|: p r2, the rounding of p r and of lo.
 *
 * The value.  One libm sincos(A), then sin(A + lo) = sin A + lo cos A
 * (|lo| <= 2^-26; the next term is below 2^-53 |sin A|), else by the
 * addition formulas with sincos(lo).  Assuming libm's sin and cos within
 * 4 ulp (glibc documents 1, musl and fdlibm under 1), the result is
 * within pe_freq.err of the exact value (about 2^-49.7 plus the angle's
 * error), and within rel |s| + abs (rel about 2^-49.7, abs about 2^-103
 * max|p f|) while |p f| < 2^26 or so.
 *
 * The rounding.  pe_f32_sure(x, e) gives fl32(x) when x - e and x + e
 * round to the same float32 (bit for bit): the exact value lies between
 * them, and rounding is monotonic, so it rounds to that float too.  With
 * e = pe_freq.e32 that settles all but about one value in a million
 * (those within e of a rounding boundary, mostly values near zero, where
 * a float's ulp is small); pe_sincos_sure_fine tries those again with the
 * relative form (values near zero: tiny frequencies make whole columns of
 * them), and what is still open is recomputed by pe_sincos_pf_f32 in
 * 256-bit arithmetic, to 2^-100, and rounded from there.
 */
#ifndef PE_ANGLE_H
#define PE_ANGLE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/dd.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/simd.h"

/*
 * The largest angle |p * f| a table may hold: 2^53, the angle of the
 * largest position (--offset's reach) at frequency 1.  The error bounds
 * here hold up to it (the angle's 2^-103 max|p f| stays below 2^-50, and
 * core/mp.h's sincos is bounded there); a tiny base, theta or scaling
 * factor (frequencies far above 1) is refused where its angles leave this
 * range, and a frequency that overflows double would give inf and NaN.
 */
#define PE_ANGLE_MAX 9007199254740992.0L

/* The largest |p * f| over positions first..last: max |p| * fmax, or NaN
 * when fmax is not a finite non-negative number that fits a double (so
 * !(pe_angle_max(...) <= PE_ANGLE_MAX) is the test a caller makes). */
long double pe_angle_max(long double fmax, int64_t first, int64_t last);

struct pe_freq {
	double f;	/* the frequency rounded to double */
	double r, r2;	/* the next two doubles: f + r + r2 to 2^-158 */
	double h1, h2;	/* f = h1 + h2 exactly, see above */
	double rel, abs;	/* |pe_sincos_pf's s - sin(p f)| <= rel |s| + abs, */
	double err;	/* <= err, and the same for c */
	double e32;	/* err plus the margin pe_f32_sure needs for |x| <= 1 */
	int split;	/* h1/h2 valid for the table's positions */
	int tiny;	/* f below 2^-600: sin(p f) rounds to +-0, see .c */
};

/* Bits needed for the largest |position| of a table (0 for position 0). */
int pe_angle_bits(int64_t first, int64_t last);

/* Prepare frequency f for positions of at most `bits` bits.  f >= 0; one
 * that does not fit a double gives f = inf (callers refuse it). */
void pe_freq_init(struct pe_freq *fr, const struct pe_mp *f, int bits);

/* scale * sin(p f) (want_cos: cos) correctly rounded to float32, in
 * 256-bit arithmetic: for the values pe_f32_sure leaves open.  scale > 0
 * finite.  Exact for p = 0. */
float pe_sincos_pf_f32(const struct pe_freq *fr, int64_t p, int want_cos, double scale);

/* p * f correctly rounded to float32 (the angles table). */
float pe_angle_pf_f32(const struct pe_freq *fr, int64_t p);

/*
 * scale * sin(p f) (want_cos: cos) and p * f correctly rounded to double
 * (the float64 tables, and the float16 and bfloat16 ones rounded from
 * them): computed in double-double arithmetic (the angle to 2^-103.9 |p f|,
 * reduced by pi/2 and summed as a series to 2^-99), whose rounding is
 * certain unless the value lies within that error of a rounding boundary
 * -- about one value in 2^29 / |p f| -- which the 256-bit route then
 * decides, as for float32.  About 0.2 us a value (float32's step kernel
 * is 20 times faster).  scale > 0 finite; p = 0 is exact.  Thread-safe
 * (the series' coefficients are made once).
 */
double pe_sincos_pf_f64(const struct pe_freq *fr, int64_t p, int want_cos, double scale);
double pe_angle_pf_f64(const struct pe_freq *fr, int64_t p);

/* sin and cos of x in one call (sincos where the C library has it). */
void pe_sincos(double x, double *s, double *c);

/* sin and cos of p * f for an integer p within the prepared range, each
 * within fr->err of the exact value (inline: the tables' inner loop). */
static inline void pe_sincos_pf(const struct pe_freq *fr, int64_t p, double *s, double *c)
{
	double pd = (double)p, x1, x2, a, e, lo, sa, ca;

	if (fr->split) {
		x1 = pd * fr->h1;
		x2 = pd * fr->h2;
		a = x1 + x2;
		e = x2 - (a - x1);
		lo = e + pd * fr->r;
	} else {
		pe_two_product(pd, fr->f, &a, &e);
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

/*
 * x rounded to float32 in *out, returning 1 when that is also the
 * rounding of every value within E of x -- given
 *     e >= (1 + 2^-52) (E + 2^-52 |x|) + 2^-1074,
 * the margin covering the double roundings of x - e and x + e -- and 0
 * when a rounding boundary may lie within E (then *out is unspecified).
 */
static inline int pe_f32_sure(double x, double e, float *out)
{
	float lo = (float)(x - e), hi = (float)(x + e);
	uint32_t bl, bh;

	memcpy(&bl, &lo, sizeof bl);
	memcpy(&bh, &hi, sizeof bh);
	*out = lo;
	return bl == bh;
}

/* pe_f32_sure for y = scale s (or scale c, or s, c with scale 1) from
 * pe_sincos_pf, rounded in double, with the relative form of the bound:
 * scale (rel |s| + abs) + 2^-53 |y|, plus pe_f32_sure's margin, is within
 * (rel + 2^-50) |y| + scale abs (1 + 2^-50) + 2^-1073. */
static inline int pe_sincos_sure_fine(const struct pe_freq *fr, double y, double scale, float *out)
{
	return pe_f32_sure(y, (fr->rel + 0x1p-50) * fabs(y) + scale * fr->abs * (1 + 0x1p-50) + 0x1p-1073,
			   out);
}

/*
 * Rows per exactly computed angle in the step kernels (the cos/sin tables
 * of rope's exact mode and the sinusoidal tables): position P + b uses
 * sin/cos(P f) (pe_sincos_pf) combined with a precomputed sin/cos(b f) by
 * the addition formulas, which costs two double roundings (~2^-52) instead
 * of a sincos call per value; the rare value this leaves near a float32
 * rounding boundary is recomputed exactly.
 */
#define PE_STEP 64

/* The step kernel's loops are PE_VECTOR_KERNEL (core/simd.h). */

/*
 * The step tables of n frequencies: row b of sin(b f_k) at t[b n + k],
 * of cos(b f_k) at t[(PE_STEP + b) n + k], and per frequency the bounds of
 * those values (freq[k]) and pe_f32_sure's margin for a step value (e[k]).
 */
struct pe_steps {
	size_t n;
	double *t;
	double *e;
	struct pe_freq *freq;
};

/* Room for n frequencies (zeroed struct on failure: -1). */
int pe_steps_alloc(struct pe_steps *st, size_t n);
void pe_steps_free(struct pe_steps *st);

/* Frequency k is f; anchor is f prepared for the table's positions; the
 * values will be scaled by att > 0. */
void pe_steps_set(struct pe_steps *st, size_t k, const struct pe_mp *f,
		  const struct pe_freq *anchor, double att);

/*
 * Row b of a block whose first position is pos: fs[k] = att sin((pos + b)
 * f_k) and fc[k] = att cos(...) for every frequency, correctly rounded,
 * from the anchors sa[k], ca[k] = pe_sincos_pf(&anchor[k], pos).  The
 * values want asks for (PE_STEP_SIN | PE_STEP_COS) are settled exactly
 * where the vectorised pass leaves them open; the others may be off.
 */
#define PE_STEP_SIN 1
#define PE_STEP_COS 2
void pe_steps_row(const struct pe_steps *st, const struct pe_freq *anchor, int64_t pos, size_t b,
		  const double *sa, const double *ca, double att, int want, float *fs, float *fc);

/*
 * The loop around pe_steps_row for the tables of consecutive positions
 * (sinusoidal, timestep): positions first, first + 1, ... (nrows of them),
 * an anchor every PE_STEP rows, each row's fs[k], fc[k] (both settled,
 * att 1) handed to row(ctx, i, fs, fc) for i = 0 .. nrows - 1 in order.
 * Returns 0, or -1 when memory runs out (err says so).
 */
typedef void pe_steps_row_fn(void *ctx, size_t i, const float *fs, const float *fc);
int pe_steps_rows(const struct pe_steps *st, const struct pe_freq *anchor, int64_t first,
		  size_t nrows, pe_steps_row_fn *row, void *ctx, struct pe_error *err);

#endif
