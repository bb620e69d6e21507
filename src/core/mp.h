/*
 * mp.h - binary floating point with a 256-bit significand, for what must
 * be exact beyond the reach of doubles: the frequencies, computed once at
 * start-up (exp, log, products), and the rare table value whose float32
 * rounding the double pipeline cannot settle (core/angle.h).
 *
 * Why not long double or double-double: an angle p f is needed to about
 * 2^-100 for |p f| up to 2^53 (PE_ANGLE_MAX), so f to about 2^-155
 * relative; the x87's 64 bits give 2^-64 (and valgrind emulates them in
 * double), double-double 2^-104.  Frequencies k = 0, 1, ... are made as
 * a q^k by repeated multiplication, whose error grows like k 2^-255: still
 * below 2^-230 for the 2^23 frequencies a table can have.
 *
 * Error bounds (relative to the exact result unless noted):
 *   mul, div_u, set_*, mul_2exp, to_d/to_f32 input  exact result truncated
 *                                   toward zero to 256 bits: < 2^-255
 *   add, sub                        the smaller operand first aligned to
 *                                   512 bits (error < 2^-510 of the larger
 *                                   operand), then truncated: < 2^-255
 *   div, recip                      < 2^-252
 *   exp                             < 2^-240 for |x| < 2^11
 *   log                             < 2^-245 absolute plus 2^-250 relative
 *   sincos                          < 2^-200 absolute for |x| <= 2^53
 * to_d and to_f32 round the held value to nearest, ties to even, with
 * the target's subnormals and overflow to infinity: correctly, of the
 * value held.  Values are finite; the exponent is an int64 and callers keep
 * |exponent| below 2^40.  Operands and result may alias.
 */
#ifndef PE_MP_H
#define PE_MP_H

#include <stdint.h>

#define PE_MP_LIMBS 8	/* 32-bit limbs: 256 bits */

struct pe_mp {
	int sign;			/* -1, +1, or 0 for the value zero */
	int64_t exp;			/* |value| = 0.d[0]d[1]... (base 2^32) * 2^exp */
	uint32_t d[PE_MP_LIMBS];	/* d[0] most significant, its top bit set */
};

void pe_mp_set_d(struct pe_mp *r, double x);	/* x finite */
void pe_mp_set_i64(struct pe_mp *r, int64_t v);
void pe_mp_set_u64(struct pe_mp *r, uint64_t v);

void pe_mp_add(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b);
void pe_mp_sub(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b);
void pe_mp_mul(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b);
/* a / b, b nonzero */
void pe_mp_div(struct pe_mp *r, const struct pe_mp *a, const struct pe_mp *b);
/* a / u, u >= 1 (div_u64: exact-limb division when u fits 32 bits, else div) */
void pe_mp_div_u(struct pe_mp *r, const struct pe_mp *a, uint32_t u);
void pe_mp_div_u64(struct pe_mp *r, const struct pe_mp *a, uint64_t u);
/* a * 2^e, exact */
void pe_mp_mul_2exp(struct pe_mp *r, const struct pe_mp *a, int64_t e);

/* e^x for |x| < 2^30 (the result's exponent must stay in range) */
void pe_mp_exp(struct pe_mp *r, const struct pe_mp *x);
/* ln x, x > 0 */
void pe_mp_log(struct pe_mp *r, const struct pe_mp *x);
/* sin x and cos x, |x| <= 2^53 */
void pe_mp_sincos(const struct pe_mp *x, struct pe_mp *s, struct pe_mp *c);
/* pi */
void pe_mp_pi(struct pe_mp *r);

/* -1, 0, 1 as a < b, a == b, a > b */
int pe_mp_cmp(const struct pe_mp *a, const struct pe_mp *b);

/* The value rounded to the nearest double / float32 (see above). */
double pe_mp_to_d(const struct pe_mp *a);
float pe_mp_to_f32(const struct pe_mp *a);

/* The value as hi + mid + lo, each the nearest double to what the ones
 * before leave: |value - (hi + mid + lo)| <= 2^-158 |value| while lo stays
 * a normal double (|value| > 2^-860); hi = inf for values beyond double. */
void pe_mp_to_td(const struct pe_mp *a, double *hi, double *mid, double *lo);

#endif
