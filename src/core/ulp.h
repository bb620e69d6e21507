/*
 * ulp.h - how far apart two float32 values are, in units in the last
 * place, and what a narrow type does to a number: the arithmetic of
 * `posenc diff` (tolerances, the ulp error) and `posenc audit`, shared
 * with their tests.
 *
 * The float32 line.  Every float32 x has a key: its bit pattern for
 * x >= +0, minus the pattern of |x| for x <= -0.  Both zeros have key 0,
 * and neighbouring floats have keys one apart everywhere, across zero and
 * through the subnormals (the smallest subnormal 2^-149 is key 1, its
 * negative -1: the two are 2 ulps apart).  pe_ulp_dist(a, b) is
 * |key(a) - key(b)|: how many steps of nextafterf lead from a to b.
 *
 * Where the line ends, by convention (documented in posenc-diff(1)):
 *   +0 and -0          0 ulps: the same value (a == b in C and NumPy)
 *   NaN and NaN        0: both "not a number", whatever their payloads or
 *                      signs (numpy.array_equal(equal_nan=True) agrees)
 *   NaN and a number   PE_ULP_INF
 *   +inf and +inf      0 (and -inf and -inf)
 *   an infinity and anything else (FLT_MAX too)   PE_ULP_INF: an
 *                      overflow is never "one ulp" from the largest float
 * Finite distances are below 2^32 (FLT_MAX to -FLT_MAX is 4278190078).
 */
#ifndef PE_ULP_H
#define PE_ULP_H

#include <stdint.h>

#include "core/dtype.h"

#define PE_ULP_INF UINT64_MAX

/* The key of x on the float32 line (see above); x not NaN. */
int64_t pe_ulp_key(float x);

/* ulps from a to b, with the conventions above. */
uint64_t pe_ulp_dist(float a, float b);

/* The spacing of float32 at x: the gap from |x| to the next float away
 * from zero (2^-149 for zero and the subnormals; 2^104 for FLT_MAX, the
 * gap to where 2^128 would be).  NaN for inf and NaN. */
double pe_ulp_of(float x);

/* x rounded to the type d, to nearest, ties to even (core/dtype.h; float64
 * returns x). */
double pe_store_round(enum pe_store d, double x);

/* The smallest positive integer d cannot hold: float16 2049, bfloat16
 * 257, float32 16777217 (2^24 + 1), float64 2^53 + 1. */
uint64_t pe_store_first_unrepresentable(enum pe_store d);

/* One ulp of 1 in d: 2^-10, 2^-7, 2^-23, 2^-52. */
double pe_store_eps(enum pe_store d);

#endif
