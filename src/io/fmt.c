/*
 * Shortest round-trip text by search: if p significant digits read back to
 * the same float, so do p+1 (the correctly rounded p+1-digit decimal is at
 * least as close), so the smallest good precision can be found by binary
 * search over 1..9 (FLT_DECIMAL_DIG) -- about three snprintf/strtof pairs
 * per value instead of nine.  glibc's printf and strtof are correctly
 * rounded, which this relies on.
 */
#include "io/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t special(double v, char *buf)
{
	if (isnan(v)) {
		memcpy(buf, "nan", 4);
		return 3;
	}
	if (isinf(v)) {
		if (v < 0) {
			memcpy(buf, "-inf", 5);
			return 4;
		}
		memcpy(buf, "inf", 4);
		return 3;
	}
	if (v == 0.0) {
		if (signbit(v)) {
			memcpy(buf, "-0", 3);
			return 2;
		}
		memcpy(buf, "0", 2);
		return 1;
	}
	return 0;
}

size_t pe_fmt_f32(float v, char *buf)
{
	int lo = 1, hi = 9, len = 0, mid;
	size_t n;
	char tmp[PE_FMT_BUF];

	n = special((double)v, buf);
	if (n)
		return n;
	/* invariant: precision hi reads back exactly */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		snprintf(tmp, sizeof tmp, "%.*g", mid, (double)v);
		if (strtof(tmp, NULL) == v)
			hi = mid;
		else
			lo = mid + 1;
	}
	len = snprintf(buf, PE_FMT_BUF, "%.*g", hi, (double)v);
	return (size_t)len;
}

size_t pe_fmt_f64(double v, char *buf)
{
	int p, len = 0;
	size_t n;

	n = special(v, buf);
	if (n)
		return n;
	for (p = 15; p <= 17; p++) {
		len = snprintf(buf, PE_FMT_BUF, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return (size_t)len;
}

size_t pe_fmt_i64(int64_t v, char *buf)
{
	return (size_t)snprintf(buf, PE_FMT_BUF, "%lld", (long long)v);
}
