/*
 * Shortest round-trip text by search: if p significant digits read back to
 * the same float, so do p+1 (the correctly rounded p+1-digit decimal is at
 * least as close), so the first precision that fails, walking down, ends
 * the search.  glibc's printf and strtof are correctly rounded, which this
 * relies on.
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

/* %g switches to an exponent once the exponent reaches the precision, so
 * the shortest 10 would print "1e+01": below 1e16 write the same digits in
 * fixed form, padded with zeros, as NumPy does ("10.0", "123456790.0"). */
static size_t unexponent(char *buf, size_t len)
{
	char digits[PE_FMT_BUF], *e = strchr(buf, 'e'), *q;
	const char *p;
	size_t n = 0, out = 0;
	int x;

	if (!e)
		return len;
	x = atoi(e + 1);
	if (x < 1 || x >= 16)
		return len;
	for (p = buf; p < e; p++)
		if (*p >= '0' && *p <= '9')
			digits[n++] = *p;
	/* %g chose the exponent, so there are at most x + 1 digits */
	q = buf;
	if (buf[0] == '-')
		q[out++] = '-';
	memcpy(q + out, digits, n);
	out += n;
	while (n++ < (size_t)x + 1)
		q[out++] = '0';
	q[out] = '\0';
	return out;
}

size_t pe_fmt_f32(float v, char *buf)
{
	char tmp[PE_FMT_BUF];
	int p, len, good;
	size_t n;

	n = special((double)v, buf);
	if (n)
		return n;
	/* Table values mostly need 8 or 9 digits, so walk down from 8, keeping
	 * the last text that read back; 9 digits always do (FLT_DECIMAL_DIG). */
	good = snprintf(buf, PE_FMT_BUF, "%.8g", (double)v);
	if (strtof(buf, NULL) != v)
		return unexponent(buf, (size_t)snprintf(buf, PE_FMT_BUF, "%.9g", (double)v));
	for (p = 7; p >= 1; p--) {
		len = snprintf(tmp, sizeof tmp, "%.*g", p, (double)v);
		if (strtof(tmp, NULL) != v)
			break;
		memcpy(buf, tmp, (size_t)len + 1);
		good = len;
	}
	return unexponent(buf, (size_t)good);
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
