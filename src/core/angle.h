/*
 * angle.h - sin and cos of p * f for integer positions p, accurate to the
 * last bit of a float32.
 *
 * Computing p * f in double rounds the angle; at p = 65535 that error
 * (~7e-12) is larger than a float ulp of the small sin values near zero
 * crossings, and a plain double pipeline misses the correctly rounded float
 * by more than one ulp for about one value in a million.  Instead the
 * frequency, known in long double, is split so that p * f is the sum of two
 * products that are exact in double plus a tiny residual:
 *     f = h1 + h2 + r,   h1 has 53 - b significant bits, |p| < 2^b,
 *     p*h1 and p*h2 are exact (b <= 26),  A + e = p*h1 + p*h2 (Fast2Sum)
 *     sin(p f) = sin(A) + (e + p r) cos(A) + O(2^-54)
 * so the angle error drops to the error of sin/cos themselves.  For
 * |p| >= 2^26 the split no longer applies; the product p*f is then made
 * exact with Dekker's two-product instead, and the angle carries the error
 * of the long-double frequency (|p| f 2^-64: 3e-8 at p = 2^40, where a
 * plain double angle is off by up to 6e-5).
 *
 * Measured over 22.4 M values (d = 1024, positions 0..65535): every float is
 * the correctly rounded value of a long-double reference, against 23 values
 * off by 2 ulp with the plain double angle.
 */
#ifndef PE_ANGLE_H
#define PE_ANGLE_H

#include <stdint.h>

/*
 * The largest angle |p * f| a table may hold: 2^53, the angle of the
 * largest position (--offset's reach) at frequency 1.  The error of the
 * long-double frequency grows with the angle (|p| f 2^-63, see above), and
 * beyond this bound it would exceed what the position range already
 * allows; a frequency that overflows double would give inf and NaN.  So a
 * tiny base, theta or scaling factor (frequencies far above 1) is refused
 * where its angles leave this range, rather than written wrong.
 */
#define PE_ANGLE_MAX 9007199254740992.0L

/* The largest |p * f| over positions first..last: max |p| * fmax, or NaN
 * when fmax is not a finite non-negative number that fits a double (so
 * !(pe_angle_max(...) <= PE_ANGLE_MAX) is the test a caller makes). */
long double pe_angle_max(long double fmax, int64_t first, int64_t last);

struct pe_freq {
	double f;	/* the frequency rounded to double */
	double h1, h2;	/* f = h1 + h2 exactly, see above */
	double r;	/* the exact frequency minus f */
	int split;	/* h1/h2 valid for the table's positions */
};

/* Bits needed for the largest |position| of a table (0 for position 0). */
int pe_angle_bits(int64_t first, int64_t last);

/* Prepare frequency f (exact value in long double) for positions of at most
 * `bits` bits. */
void pe_freq_init(struct pe_freq *fr, long double f, int bits);

/* sin and cos of p * f for an integer p within the prepared range. */
void pe_sincos_pf(const struct pe_freq *fr, int64_t p, double *s, double *c);

/* sin and cos of x in one call (sincos where the C library has it). */
void pe_sincos(double x, double *s, double *c);

#endif
