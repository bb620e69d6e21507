#include "core/rng.h"

#include "core/simd.h"

#include <math.h>
#include <string.h>

/* Round multipliers and Weyl key increments from the Philox paper. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* ln 2 split so that e * LN2_HI is exact for |e| < 2^11 */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

/* pe_det_log's series coefficients 1/k, k = 27, 25, ..., 3 */
static const double inv_odd[13] = {
	1.0 / 27, 1.0 / 25, 1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15,
	1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3
};

/* pe_rng_uniform2's conversion of two words to a double in [0, 1) */
#define UNIFORM(hi, lo) \
	(((double)(int32_t)((hi) >> 5) * 67108864.0 + (double)(int32_t)((lo) >> 6)) * \
	 (1.0 / 9007199254740992.0))

/* One Philox round on the counter (c0, c1, c2, c3) under the round key
 * (k0, k1); the scalar block and the vector lanes below both use it. */
static inline void philox_round(uint32_t *c0, uint32_t *c1, uint32_t *c2, uint32_t *c3,
				uint32_t k0, uint32_t k1)
{
	uint64_t p0 = (uint64_t)PHILOX_M0 * *c0, p1 = (uint64_t)PHILOX_M1 * *c2;

	*c0 = (uint32_t)(p1 >> 32) ^ *c1 ^ k0;
	*c1 = (uint32_t)p1;
	*c2 = (uint32_t)(p0 >> 32) ^ *c3 ^ k1;
	*c3 = (uint32_t)p0;
}

/* log x = e ln 2 + 2 (f + f^3/3 + ...) from the exponent, f and the
 * series' sum (f^2 (1/3 + f^2 (1/5 + ...))).  A macro: GCC does not inline
 * a floating-point function into a vector kernel compiled with other
 * floating-point options (no-trapping-math), and a call there costs half
 * the kernel's speed. */
#define LOG_FROM(e, f, sum) ((e) * LN2_HI + ((e) * LN2_LO + (2.0 * (f) + 2.0 * (f) * (sum))))

void pe_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	uint32_t k0 = key[0], k1 = key[1];
	int round;

	for (round = 0; round < 10; round++) {
		if (round) {
			k0 += PHILOX_W0;
			k1 += PHILOX_W1;
		}
		philox_round(&c0, &c1, &c2, &c3, k0, k1);
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

void pe_rng_uniform2(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
		     double u[2])
{
	const uint32_t ctr[4] = { c0, c1, c2, c3 };
	const uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
	uint32_t w[4];

	pe_philox4x32_10(ctr, key, w);
	u[0] = UNIFORM(w[0], w[1]);
	u[1] = UNIFORM(w[2], w[3]);
}

double pe_det_log(double x)
{
	double m, f, f2, sum;
	int e, k;

	m = frexp(x, &e);
	if (m < 0.70710678118654752440) {
		m *= 2.0;
		e--;
	}
	f = (m - 1.0) / (m + 1.0);
	f2 = f * f;
	/* 2 (f + f^3/3 + f^5/5 + ...), |f| < 0.1716: 14 terms reach 2^-60 */
	sum = 0.0;
	for (k = 0; k < 13; k++)
		sum = (sum + inv_odd[k]) * f2;
	return LOG_FROM((double)e, f, sum);
}

double pe_rng_normal(uint64_t seed, uint64_t row, uint32_t col, double trunc)
{
	double u[2], x, y, s, z;
	uint32_t a;

	for (a = 0;; a++) {
		pe_rng_uniform2(seed, col, (uint32_t)row, (uint32_t)(row >> 32), a, u);
		x = 2.0 * u[0] - 1.0;
		y = 2.0 * u[1] - 1.0;
		s = x * x + y * y;
		if (s <= 0.0 || s >= 1.0)
			continue;
		z = x * sqrt(-2.0 * pe_det_log(s) / s);
		if (trunc > 0 && fabs(z) > trunc)
			continue;
		return z;
	}
}

/* Philox4x32-10 in PE_RNG_LANES lanes: the counters (c0[i], c1[i], c2[i],
 * c3[i]) become the blocks, under the key (k0, k1); each round's loop over
 * the lanes vectorises (32 x 32 -> 64-bit products). */
static inline void philox_lanes(uint32_t k0, uint32_t k1, uint32_t *c0, uint32_t *c1,
				uint32_t *c2, uint32_t *c3)
{
	int round, i;

	for (round = 0; round < 10; round++) {
		if (round) {
			k0 += PHILOX_W0;
			k1 += PHILOX_W1;
		}
		for (i = 0; i < PE_RNG_LANES; i++)
			philox_round(&c0[i], &c1[i], &c2[i], &c3[i], k0, k1);
	}
}

/*
 * Attempt a of pe_rng_normal for PE_RNG_LANES columns cols[i], lane by lane
 * the same operations in the same order, so the same bits:
 * Philox's rounds over all lanes at once, frexp as the exponent's bits (s
 * is a normal number: u and v are multiples of 2^-52, so s >= 2^-104), and
 * pe_det_log's series.  ok[i] is 0 where the attempt was rejected (or |z|
 * exceeds trunc) and attempt a + 1 must follow.
 */
PE_VECTOR_KERNEL
static void attempt(uint32_t k0, uint32_t k1, const uint32_t *cols, uint32_t a, uint32_t row_lo,
		    uint32_t row_hi, double trunc, double *z, int *ok)
{
	uint32_t c0[PE_RNG_LANES], c1[PE_RNG_LANES], c2[PE_RNG_LANES], c3[PE_RNG_LANES];
	double x[PE_RNG_LANES], y[PE_RNG_LANES], s[PE_RNG_LANES], e[PE_RNG_LANES];
	double m[PE_RNG_LANES], f[PE_RNG_LANES], f2[PE_RNG_LANES], sum[PE_RNG_LANES];
	int acc[PE_RNG_LANES];
	int k, i;

	for (i = 0; i < PE_RNG_LANES; i++) {
		c0[i] = cols[i];
		c1[i] = row_lo;
		c2[i] = row_hi;
		c3[i] = a;
	}
	philox_lanes(k0, k1, c0, c1, c2, c3);
	for (i = 0; i < PE_RNG_LANES; i++) {
		double u0 = UNIFORM(c0[i], c1[i]), u1 = UNIFORM(c2[i], c3[i]);

		x[i] = 2.0 * u0 - 1.0;
		y[i] = 2.0 * u1 - 1.0;
		s[i] = x[i] * x[i] + y[i] * y[i];
	}
	/* frexp: m in [1/2, 1), s = m 2^e; a rejected lane computes on 1/2 */
	for (i = 0; i < PE_RNG_LANES; i++) {
		uint64_t bits;
		double lo;

		acc[i] = (s[i] > 0.0) & (s[i] < 1.0);
		memcpy(&bits, &s[i], sizeof bits);
		bits = acc[i] ? bits : 0x3fe0000000000000u;
		e[i] = (double)(int32_t)(bits >> 52 & 0x7ff) - 1022.0;
		bits = (bits & 0x800fffffffffffffu) | 0x3fe0000000000000u;
		memcpy(&m[i], &bits, sizeof m[i]);
		/* below sqrt(1/2): m * 2, e - 1 (both exact; * 1 and - 0 change
		 * nothing) */
		lo = (double)(m[i] < 0.70710678118654752440);
		e[i] = e[i] - lo;
		m[i] = m[i] * (1.0 + lo);
		f[i] = (m[i] - 1.0) / (m[i] + 1.0);
		f2[i] = f[i] * f[i];
		sum[i] = 0.0;
	}
	for (k = 0; k < 13; k++)
		for (i = 0; i < PE_RNG_LANES; i++)
			sum[i] = (sum[i] + inv_odd[k]) * f2[i];
	for (i = 0; i < PE_RNG_LANES; i++) {
		double zz = x[i] * sqrt(-2.0 * LOG_FROM(e[i], f[i], sum[i]) / (acc[i] ? s[i] : 1.0));

		z[i] = zz;
		ok[i] = acc[i] & !((trunc > 0) & (fabs(zz) > trunc));
	}
}

void pe_rng_normal_run(uint64_t seed, uint64_t row, uint32_t col0, size_t n, double trunc,
		       double *z)
{
	uint32_t cols[PE_RNG_RUN], lane_cols[PE_RNG_LANES], a;
	uint16_t at[PE_RNG_RUN];	/* where column cols[j]'s value goes */
	double zl[PE_RNG_LANES];
	int ok[PE_RNG_LANES];
	size_t open = n, next, j, i, m;

	for (j = 0; j < n; j++) {
		cols[j] = col0 + (uint32_t)j;
		at[j] = (uint16_t)j;
	}
	/* attempt a for every column still open, PE_RNG_LANES at a time; the
	 * rejected ones (about 1 in 5) move to the front for attempt a + 1 */
	for (a = 0; open; a++) {
		for (j = next = 0; j < open; j += m) {
			m = open - j < PE_RNG_LANES ? open - j : PE_RNG_LANES;
			for (i = 0; i < PE_RNG_LANES; i++)
				lane_cols[i] = cols[j + (i < m ? i : 0)];
			attempt((uint32_t)seed, (uint32_t)(seed >> 32), lane_cols, a, (uint32_t)row,
				(uint32_t)(row >> 32), trunc, zl, ok);
			for (i = 0; i < m; i++) {
				if (ok[i]) {
					z[at[j + i]] = zl[i];
				} else {
					cols[next] = cols[j + i];
					at[next++] = at[j + i];
				}
			}
		}
		open = next;
	}
}

/* The first uniform of counters (col0 + i, row_lo, row_hi, 0), i < lanes. */
PE_VECTOR_KERNEL
static void uniform_lanes(uint32_t k0, uint32_t k1, uint32_t col0, uint32_t row_lo,
			  uint32_t row_hi, double *u)
{
	uint32_t c0[PE_RNG_LANES], c1[PE_RNG_LANES], c2[PE_RNG_LANES], c3[PE_RNG_LANES];
	int i;

	for (i = 0; i < PE_RNG_LANES; i++) {
		c0[i] = col0 + (uint32_t)i;
		c1[i] = row_lo;
		c2[i] = row_hi;
		c3[i] = 0;
	}
	philox_lanes(k0, k1, c0, c1, c2, c3);
	for (i = 0; i < PE_RNG_LANES; i++)
		u[i] = UNIFORM(c0[i], c1[i]);
}

void pe_rng_uniform_run(uint64_t seed, uint64_t row, uint32_t col0, size_t n, double *u)
{
	double ul[PE_RNG_LANES];
	size_t m;

	for (; n; n -= m, col0 += (uint32_t)m, u += m) {
		m = n < PE_RNG_LANES ? n : PE_RNG_LANES;
		uniform_lanes((uint32_t)seed, (uint32_t)(seed >> 32), col0, (uint32_t)row,
			      (uint32_t)(row >> 32), ul);
		memcpy(u, ul, m * sizeof *u);
	}
}
