/* Axis ticks at round labels (ticks.h). */
#include "io/ticks.h"

/* The smallest of 1, 2, 5, 10, 20, 50, ... whose ticks over n indices
 * drawn across len pixels are at least minpx apart, or the first that
 * reaches n (one tick). */
uint64_t pe_tick_step(uint64_t n, double len, double minpx)
{
	static const int mant[3] = { 1, 2, 5 };
	uint64_t decade = 1, step = 1;
	int m = 0;

	while ((double)step * len / (double)n < minpx && step < n) {
		if (++m == 3) {
			m = 0;
			decade *= 10;
		}
		step = decade * (uint64_t)mant[m];
	}
	return step;
}

/* v mod m in [0, m), m >= 1. */
uint64_t pe_mod_i64(int64_t v, uint64_t m)
{
	uint64_t mag;

	if (v >= 0)
		return (uint64_t)v % m;
	mag = (uint64_t)(-(v + 1)) + 1;
	return (m - mag % m) % m;
}

struct pe_ticks pe_ticks(uint64_t n, int64_t origin, uint64_t step, double len, double minpx)
{
	static const int mant[3] = { 1, 2, 5 };
	struct pe_ticks t;
	uint64_t decade, round, q;
	int m, done = 0;

	/* The periods step x (1, 2, 5 x 10^k) always include one that fits
	 * (tick_step() finds it); a round period 1, 2, 5 x 10^k that step
	 * divides (500 for step 4) is taken instead when it is smaller. */
	t.every = pe_tick_step(n, len, minpx);
	for (decade = 1; !done && decade <= UINT64_MAX / 50; decade *= 10) {
		for (m = 0; m < 3 && !done; m++) {
			round = decade * (uint64_t)mant[m];
			q = round / step;
			if (q >= t.every) {
				done = 1;
			} else if (q > 0 && round % step == 0 &&
				   (double)q * len / (double)n >= minpx) {
				t.every = q;
				done = 1;
			}
		}
	}
	/* Labels multiple of T = every x step: origin + i x step = j x T needs
	 * step | origin, then i = -(origin / step) mod every. */
	t.first = 0;
	if (step <= (uint64_t)INT64_MAX && pe_mod_i64(origin, step) == 0) {
		t.first = (t.every - pe_mod_i64(origin / (int64_t)step, t.every)) % t.every;
		if (t.first >= n)
			t.first = 0;
	}
	return t;
}

int64_t pe_tick_label(int64_t origin, uint64_t step, uint64_t i)
{
	/* pe_ticks_fit() has checked that origin + i * step is an int64_t */
	uint64_t d = i * step, mag;

	if (origin >= 0)
		return origin + (int64_t)d;
	mag = (uint64_t)(-(origin + 1)) + 1;
	if (d >= mag)
		return (int64_t)(d - mag);
	return -(int64_t)(mag - d - 1) - 1;
}


int pe_ticks_fit(int64_t origin, uint64_t step, uint64_t n)
{
	uint64_t room = origin >= 0 ? (uint64_t)(INT64_MAX - origin)
				    : (uint64_t)INT64_MAX + (uint64_t)(-(origin + 1)) + 1;

	return n == 1 || (step <= UINT64_MAX / (n - 1) && (n - 1) * step <= room);
}
