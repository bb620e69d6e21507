/*
 * rng.h - a portable, counter-based random source.
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11): a keyed bijection of a 128-bit counter.  Any
 * element of a table can be drawn on its own (counter = element index), so
 * rows are generated in any order, on any number of threads, with the same
 * bytes.  Only integer arithmetic and IEEE-exact double operations
 * (+ - * / sqrt) are used -- no libm transcendental, whose last bit differs
 * between C libraries -- so a seed gives the same table on every machine.
 */
#ifndef PE_RNG_H
#define PE_RNG_H

#include <stddef.h>
#include <stdint.h>

/* One Philox4x32-10 block: out = Philox(ctr, key). */
void pe_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Two uniform doubles in [0, 1) with 53 random bits each, from the block at
 * counter (c0, c1, c2, c3) under a 64-bit seed: u[0] from words 0-1, u[1]
 * from words 2-3 (a = w >> 5, b = w' >> 6, (a * 2^26 + b) / 2^53). */
void pe_rng_uniform2(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
		     double u[2]);

/* Natural logarithm of x > 0 using only exact IEEE operations and frexp:
 * x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m-1)/(m+1))
 * summed to 2^-60.  Within 2 ulp of the true value; identical on every
 * IEEE-754 machine. */
double pe_det_log(double x);

/*
 * A standard normal variate for element (row, col) by Marsaglia's polar
 * method (Marsaglia & Bray 1964): attempt a = 0, 1, ... draws
 * (u, v) = 2 * uniform2(counter = (col, row_lo, row_hi, a)) - 1 until
 * 0 < s = u^2 + v^2 < 1, and returns u * sqrt(-2 log(s) / s).  When
 * trunc > 0, values with |z| > trunc are redrawn (next attempt), as
 * TensorFlow's truncated_normal does at trunc = 2.
 */
double pe_rng_normal(uint64_t seed, uint64_t row, uint32_t col, double trunc);

/* z[i] = pe_rng_normal(seed, row, col0 + i, trunc) for i < n <= PE_RNG_RUN,
 * the same bits, each attempt PE_RNG_LANES columns at a time in vector
 * lanes (about 4 in 5 are accepted at the first, the rest go on to the
 * next together).  Columns must not wrap past 2^32. */
#define PE_RNG_LANES 64
#define PE_RNG_RUN 256
void pe_rng_normal_run(uint64_t seed, uint64_t row, uint32_t col0, size_t n, double trunc,
		       double *z);

/* u[i] = the first of pe_rng_uniform2(seed, col0 + i, row_lo, row_hi, 0)
 * for i < n, the same bits, PE_RNG_LANES at a time.  Columns must not wrap
 * past 2^32. */
void pe_rng_uniform_run(uint64_t seed, uint64_t row, uint32_t col0, size_t n, double *u);

#endif
