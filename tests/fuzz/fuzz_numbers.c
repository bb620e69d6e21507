/*
 * fuzz_numbers - the strict parsers of core/parse.h.  The first byte picks
 * the bounds, the rest (up to a NUL) is the string given to every parser;
 * pe_parse_digits gets the raw bytes.  Each success is checked against the
 * header's promise: plain digits for integers, the value printed back, a
 * finite real (zero only when written as zero), ordered range ends within
 * their limits.
 */
#include <inttypes.h>
#include <math.h>

#include "core/parse.h"
#include "fuzz.h"

/* s without its sign and leading zeros ("0" for all zeros). */
static const char *digits_of(const char *s)
{
	if (*s == '-')
		s++;
	while (s[0] == '0' && s[1] != '\0')
		s++;
	return s;
}

static void check_u64(const char *s, uint64_t lo, uint64_t hi)
{
	char buf[32];
	uint64_t v;
	size_t i;

	if (pe_parse_u64(s, lo, hi, &v) != 0)
		return;
	FUZZ_REQUIRE(v >= lo && v <= hi);
	FUZZ_REQUIRE(s[0] != '\0');
	for (i = 0; s[i]; i++)
		FUZZ_REQUIRE(s[i] >= '0' && s[i] <= '9');
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	FUZZ_REQUIRE(strcmp(buf, digits_of(s)) == 0);
}

static void check_i64(const char *s, int64_t lo, int64_t hi)
{
	char buf[32];
	int64_t v;
	size_t i;

	if (pe_parse_i64(s, lo, hi, &v) != 0)
		return;
	FUZZ_REQUIRE(v >= lo && v <= hi);
	for (i = s[0] == '-'; s[i]; i++)
		FUZZ_REQUIRE(s[i] >= '0' && s[i] <= '9');
	snprintf(buf, sizeof buf, "%" PRId64, v);
	FUZZ_REQUIRE(strcmp(digits_of(buf), digits_of(s)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t limits[] = { 0, 1, 7, 4096, UINT64_MAX };
	uint64_t lim, u, a, b;
	int64_t ia, ib, ilo, ihi;
	double d, *list = NULL;
	size_t n = 0, i;
	char *s;

	if (size < 1)
		return 0;
	lim = limits[data[0] % 5];
	ilo = data[0] & 0x80 ? INT64_MIN : -(int64_t)(data[0] & 0x7f);
	ihi = data[0] & 0x40 ? INT64_MAX : (int64_t)(data[0] & 0x3f);
	if (pe_parse_digits((const char *)data + 1, size - 1, &u) == 0)
		FUZZ_REQUIRE(size > 1);
	s = fuzz_strndup(data + 1, size - 1);
	if (!s)
		return 0;

	check_u64(s, 0, UINT64_MAX);
	check_u64(s, 1, lim);
	check_i64(s, INT64_MIN, INT64_MAX);
	check_i64(s, ilo, ihi);
	if (pe_parse_double(s, &d) == 0) {
		FUZZ_REQUIRE(isfinite(d));
		/* zero only from a literal of zeros: never a nonzero one rounded away */
		if (d == 0)
			for (i = 0; s[i] && s[i] != 'e' && s[i] != 'E'; i++)
				FUZZ_REQUIRE(s[i] < '1' || s[i] > '9');
	}
	if (pe_parse_range(s, lim, &a, &b) == 0)
		FUZZ_REQUIRE(a < b && b <= lim);
	if (pe_parse_irange(s, ilo, ihi, &ia, &ib) == 0)
		FUZZ_REQUIRE(ilo <= ia && ia < ib && ib <= ihi);
	if (pe_parse_dims2(s, lim, &a, &b) == 0)
		FUZZ_REQUIRE(a >= 1 && b >= 1 && a <= lim && b <= lim);
	if (pe_parse_double_list(s, (size_t)(data[0] % 9), &list, &n) == 0) {
		FUZZ_REQUIRE(n >= 1 && n <= (size_t)(data[0] % 9) && list != NULL);
		for (i = 0; i < n; i++)
			FUZZ_REQUIRE(isfinite(list[i]));
		free(list);
	}
	free(s);
	return 0;
}
