#include "core/rng.h"

#include <math.h>

/* Round multipliers and Weyl key increments from the Philox paper. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void pe_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	uint32_t k0 = key[0], k1 = key[1];
	uint64_t p0, p1;
	int round;

	for (round = 0; round < 10; round++) {
		if (round) {
			k0 += PHILOX_W0;
			k1 += PHILOX_W1;
		}
		p0 = (uint64_t)PHILOX_M0 * c0;
		p1 = (uint64_t)PHILOX_M1 * c2;
		c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		c1 = (uint32_t)p1;
		c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c3 = (uint32_t)p0;
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
	u[0] = ((double)(w[0] >> 5) * 67108864.0 + (double)(w[1] >> 6)) * (1.0 / 9007199254740992.0);
	u[1] = ((double)(w[2] >> 5) * 67108864.0 + (double)(w[3] >> 6)) * (1.0 / 9007199254740992.0);
}

double pe_det_log(double x)
{
	/* ln 2 split so that e * LN2_HI is exact for |e| < 2^11 */
	static const double LN2_HI = 6.93147180369123816490e-01;
	static const double LN2_LO = 1.90821492927058770002e-10;
	double m, f, f2, term, sum;
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
	for (k = 27; k >= 3; k -= 2)
		sum = (sum + 1.0 / k) * f2;
	term = 2.0 * f + 2.0 * f * sum;
	return (double)e * LN2_HI + ((double)e * LN2_LO + term);
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
