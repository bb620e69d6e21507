#include "core/parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int pe_parse_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!all_digits(s, n))
		return -1;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int pe_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;

	if (!s || pe_parse_digits(s, strlen(s), &v) != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int pe_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	uint64_t mag;
	int64_t v;
	int neg;

	if (!s)
		return -1;
	neg = s[0] == '-';
	if (pe_parse_digits(s + neg, strlen(s + neg), &mag) != 0)
		return -1;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -1;
		v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return -1;
		v = (int64_t)mag;
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Is there a digit 1-9 before the exponent? */
static int nonzero_digit(const char *p)
{
	for (; *p && *p != 'e' && *p != 'E'; p++)
		if (*p >= '1' && *p <= '9')
			return 1;
	return 0;
}

int pe_parse_double(const char *s, double *out)
{
	char *end;
	double v;
	const char *p;

	if (!s || !*s)
		return -1;
	/* strtod also takes hex floats, "inf", "nan" and leading spaces:
	 * allow only [+-]digits[.digits][e[+-]digits]. */
	p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -1;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		return -1;
	/* strtod's ERANGE on underflow is not an error for a subnormal result
	 * (1e-308 is a double); a nonzero literal that rounds to zero is */
	if (v == 0.0 && nonzero_digit(p))
		return -1;
	*out = v;
	return 0;
}

int pe_parse_range(const char *s, uint64_t limit, uint64_t *a, uint64_t *b)
{
	const char *colon;
	uint64_t va = 0, vb = limit;
	size_t na;

	if (!s)
		return -1;
	colon = strchr(s, ':');
	if (!colon || strchr(colon + 1, ':'))
		return -1;
	na = (size_t)(colon - s);
	if (na && pe_parse_digits(s, na, &va) != 0)
		return -1;
	if (colon[1] && pe_parse_digits(colon + 1, strlen(colon + 1), &vb) != 0)
		return -1;
	if (!na && !colon[1])
		return -1;
	if (va >= vb || vb > limit)
		return -1;
	*a = va;
	*b = vb;
	return 0;
}

int pe_parse_irange(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
	const char *colon;
	char left[32];
	size_t na;
	int64_t va, vb;

	if (!s)
		return -1;
	colon = strchr(s, ':');
	if (!colon || strchr(colon + 1, ':'))
		return -1;
	na = (size_t)(colon - s);
	if (na == 0 || na >= sizeof left)
		return -1;
	memcpy(left, s, na);
	left[na] = '\0';
	if (pe_parse_i64(left, lo, hi, &va) != 0 || pe_parse_i64(colon + 1, lo, hi, &vb) != 0 ||
	    va >= vb)
		return -1;
	*a = va;
	*b = vb;
	return 0;
}

int pe_name_index(const char *const *names, const char *name)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int pe_parse_dims2(const char *s, uint64_t hi, uint64_t *h, uint64_t *w)
{
	const char *x;
	uint64_t vh, vw;

	if (!s)
		return -1;
	x = strchr(s, 'x');
	if (!x)
		return -1;
	if (pe_parse_digits(s, (size_t)(x - s), &vh) != 0 ||
	    pe_parse_digits(x + 1, strlen(x + 1), &vw) != 0)
		return -1;
	if (vh == 0 || vw == 0 || vh > hi || vw > hi)
		return -1;
	*h = vh;
	*w = vw;
	return 0;
}

int pe_parse_double_list(const char *s, size_t max, double **out, size_t *n)
{
	double *v;
	size_t count = 1, k = 0, len;
	const char *p, *q;
	char tmp[64];

	if (!s || !*s)
		return -1;
	for (p = s; *p; p++)
		if (*p == ',')
			count++;
	if (count > max)
		return -1;
	v = malloc(count * sizeof *v);
	if (!v)
		return -1;
	for (p = s;; p = q + 1) {
		q = strchr(p, ',');
		len = q ? (size_t)(q - p) : strlen(p);
		if (len == 0 || len >= sizeof tmp)
			goto bad;
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		if (pe_parse_double(tmp, &v[k]) != 0)
			goto bad;
		k++;
		if (!q)
			break;
	}
	*out = v;
	*n = k;
	return 0;
bad:
	free(v);
	return -1;
}
