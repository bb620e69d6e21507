/*
 * exact.h - sums of products computed exactly, and their similarity
 * measures rounded once to float32.
 *
 * Why: similarity (core/similarity.h) promises the correctly rounded float32
 * of the exact cosine, dot product or distance of two rows.  A double GEMM
 * gets nearly all of them right and a bound tells which ones it might not
 * have; those few are recomputed here without any rounding error at all.
 *
 * struct pe_acc is a fixed-point number with bits from 2^PE_ACC_LSB up to
 * about 2^1150, held as 32-bit digits in 64-bit signed cells (carry-save),
 * so adding a double is a few integer adds and never rounds.  Products x*y
 * of doubles are added as the exact pair (p, e) with p = fl(x*y),
 * e = fma(x, y, -p): exact as long as |x|, |y| < 2^500 and x*y is zero or
 * above 2^-960, which holds for every value posenc feeds in (float32 values
 * and their centred doubles).  An addition adds less than 2^33 to a cell,
 * so up to 2^30 of them are safe between clears (pe_acc_add_prod counts 2,
 * pe_acc_add_scaled |k| times as many as b had); similarity makes at most
 * 8 d <= 2^27 (a centred distance, d <= 2^24).
 *
 * The roundings are correct (round to nearest, ties to even, subnormals
 * and overflow to infinity as IEEE binary32 does):
 *   pe_acc_to_float          the accumulated value itself;
 *   pe_exact_cosine          S / sqrt(Nx * Ny) from exact S, Nx, Ny: computed
 *                            in double-double (error below 2^-96 relative),
 *                            and when that is too close to a rounding
 *                            boundary to decide, decided exactly by comparing
 *                            S^2 with m^2 Nx Ny in integers (m the boundary);
 *   pe_exact_sqrt            sqrt(E) of an exact E >= 0, the same way.
 * A zero cosine or distance is +0; a cosine with Nx or Ny zero is NaN.
 */
#ifndef PE_EXACT_H
#define PE_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "core/dd.h"

#define PE_ACC_DIGITS 72
#define PE_ACC_LSB (-1152)	/* weight of the lowest bit: 2^PE_ACC_LSB */

struct pe_acc {
	int64_t d[PE_ACC_DIGITS];
};

void pe_acc_clear(struct pe_acc *a);

/* a += v, exactly (v finite). */
void pe_acc_add(struct pe_acc *a, double v);

/* a += x * y, exactly (see above for the range). */
void pe_acc_add_prod(struct pe_acc *a, double x, double y);

/* a += k * b for k in {1, -1, -2, 2}: combine exact sums (k * b exact). */
void pe_acc_add_scaled(struct pe_acc *a, const struct pe_acc *b, int k);

/* The sign of the value: -1, 0 or 1. */
int pe_acc_sign(const struct pe_acc *a);

/* The value rounded to the nearest float32. */
float pe_acc_to_float(const struct pe_acc *a);

/*
 * The middle tier: double-double sums, good to about 2^-100 of the sum of
 * the terms' sizes, which settle almost every rounding the GEMM's bound
 * leaves open, at a fraction of the cost of struct pe_acc.  Each pe_dd_try_
 * function returns 1 with *out when its rounding is certain given the
 * stated error of its inputs, else 0 (then use the exact functions).
 */

/* sum_k a[k] b[k] in double-double, and sum_k |a[k] b[k]| (an upper bound,
 * for the error bounds).  exact_products: every a[k] b[k] is exact in
 * double (float32 inputs), so the product's own error term is skipped. */
struct pe_dd pe_dd_dot(const double *a, const double *b, size_t n, int exact_products,
		       double *abs_sum);

/* a + b, and a * k for k a power of two (exact), in double-double
 * (error below 2^-104 of the result's size). */
struct pe_dd pe_dd_add(struct pe_dd a, struct pe_dd b);
struct pe_dd pe_dd_scale(struct pe_dd a, double k);

/* The error bound of pe_dd_dot: |result - exact| <= this * abs_sum. */
double pe_dd_dot_error(size_t n);

/* s rounded to float, s known to within err (absolute). */
int pe_dd_try_float(struct pe_dd s, double err, float *out);
/* s / sqrt(x y), each of s, x, y known to within its err. */
int pe_dd_try_cosine(struct pe_dd s, double serr, struct pe_dd x, double xerr, struct pe_dd y,
		     double yerr, float *out);
/* sqrt(e), e known to within err. */
int pe_dd_try_sqrt(struct pe_dd e, double err, float *out);

/* S / sqrt(Nx * Ny), correctly rounded; Nx, Ny >= 0. */
float pe_exact_cosine(const struct pe_acc *s, const struct pe_acc *nx, const struct pe_acc *ny);

/* sqrt(E), correctly rounded; E >= 0 (a negative E gives NaN). */
float pe_exact_sqrt(const struct pe_acc *e);

#endif
