/*
 * Numbers as text.  float32 has two formatters that write the same bytes:
 *
 * pe_fmt_f32_slow, the definition: the shortest precision p (%.{p}g, which
 * glibc rounds correctly, half to even) that strtof reads back, found by
 * walking down from 8 to the first precision that fails (9 always reads
 * back), then the fixed form below 1e16 (unexponent()).
 *
 * pe_fmt_f32, the one the sinks call, computes the same answer in integers
 * (about 10x faster).  It follows the structure of Ryu (Ulf Adams, "Ryu:
 * fast float-to-string conversion", PLDI 2018), specialised to binary32:
 * the float and the two ends of its rounding interval, 4m and 4m + 2,
 * 4m - 2 (4m - 1 below a power of two) times 2^e2, are scaled once by a
 * power of ten (a 26-bit by 127-bit product, table from
 * tools/gen_fmt_scale.py) to integers with a flag saying whether the
 * scaling was exact.  Ryu's last step, the shortest decimal in the
 * interval, is replaced by the definition above: round to p digits, half
 * to even, as printf does, and test the candidate against the interval as
 * strtof would (ends included when m is even), walking p as above.  The
 * two differ at powers of two, where the interval is lopsided: the nearest
 * p-digit decimal can fall outside while a farther one is inside.
 * tests/unit/test_fmt.c compares the two on millions of values, make
 * check-exhaustive on all 2^32.
 */
#include "io/fmt.h"

#include "core/dtype.h"

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
 * the shortest 10 would print "1e+01": below 1e16 (where NumPy's repr
 * switches too) write the same digits in fixed form, padded with zeros:
 * "10", "123456790" (NumPy's repr adds ".0"). */
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

size_t pe_fmt_f32_slow(float v, char *buf)
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

static const uint64_t ten_pow[] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
	1000000000u, 10000000000u,
};

#include "io/fmt_scale.h"

/* x * 2^e2 / 10^e10 for x < 2^26: the product x * g is at most 153 bits,
 * formed in 32-bit limbs; its bits from 120 up are the floor.  When g is
 * exact (e10 <= 0) the value is an integer iff the low 120 bits are zero;
 * otherwise g is rounded up and an integer leaves only x * (g - f 2^120)
 * < 2^26 there, a non-integer at least 2^120 / 5^29 > 2^52. */
struct scaled {
	uint64_t fl;	/* the floor */
	int exact;	/* nothing was dropped */
};

static struct scaled scale(uint32_t x, const struct fmt_scale *s)
{
	const uint64_t m32 = 0xffffffffu;
	uint64_t t, r0, r1, r2, r3;
	struct scaled out;

	t = x * (s->lo & m32);
	r0 = t & m32;
	t = (t >> 32) + x * (s->lo >> 32);
	r1 = t & m32;
	t = (t >> 32) + x * (s->hi & m32);
	r2 = t & m32;
	t = (t >> 32) + x * (s->hi >> 32);
	r3 = t & m32;
	t >>= 32;
	out.fl = t << 8 | r3 >> 24;
	out.exact = (r1 | r2 | (r3 & 0xffffff)) == 0 && (s->e10 > 0 || r0 == 0);
	return out;
}

/* The float scaled by 10^-e10: mid its value, lo and hi the ends of its
 * rounding interval, which strtof maps back to it (ends included iff the
 * significand is even, as ties go to even); nd the digits of mid.fl. */
struct decimal {
	struct scaled lo, mid, hi;
	int incl, nd;
};

/* v / 10^j with constant divisors, which compilers turn into a multiply:
 * a hardware divide would cost as much as the rest of the formatter. */
static uint64_t div_pow10(uint64_t v, int j)
{
	switch (j) {
	case 1: return v / 10u;
	case 2: return v / 100u;
	case 3: return v / 1000u;
	case 4: return v / 10000u;
	case 5: return v / 100000u;
	case 6: return v / 1000000u;
	case 7: return v / 10000000u;
	case 8: return v / 100000000u;
	default: return v / 1000000000u;	/* j = 9: nd <= 10, p >= 1 */
	}
}

/* mid rounded to p significant digits, half to even (printf's rounding):
 * the digits, 10^(p-1) .. 10^p.  Needs nd - p >= 1, so that the digit
 * below the last kept one is known. */
static uint64_t round_digits(const struct decimal *d, int p)
{
	uint64_t unit = ten_pow[d->nd - p], q = div_pow10(d->mid.fl, d->nd - p);
	uint64_t r = d->mid.fl - q * unit, half = unit / 2;

	/* without branches: which way a value rounds is a coin toss */
	return q + (uint64_t)((r > half) | ((r == half) & ((d->mid.exact == 0) | (int)(q & 1))));
}

/* Does the p-digit rounding read back?  The ends are at least 10 units
 * from mid (f >= 10 in fmt_scale.h), so rounding at the units or tens
 * (nd - p <= 1) always lands inside. */
static int reads_back(const struct decimal *d, int p)
{
	uint64_t c;

	if (d->nd - p <= 1)
		return 1;
	c = round_digits(d, p) * ten_pow[d->nd - p];
	return ((c < d->hi.fl) | ((c == d->hi.fl) & ((d->hi.exact == 0) | d->incl))) &
	       ((c > d->lo.fl) | ((c == d->lo.fl) & d->lo.exact & d->incl));
}

static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* %g's text for the digits q (no trailing zeros, n of them) times
 * 10^(x - n + 1): exponent form below 1e-4 and from 1e16 on, fixed
 * otherwise (where %g would print an exponent for 1e1..1e15 because the
 * precision is short, unexponent() writes the same digits fixed). */
static size_t spell(char *buf, int neg, uint32_t q, int n, int x)
{
	char dig[12];
	size_t len = 0;
	int i, ax;

	for (i = n; i >= 2; i -= 2) {	/* two at a time: half the dependent divisions */
		memcpy(dig + i - 2, two_digits + 2 * (q % 100), 2);
		q /= 100;
	}
	if (i == 1)
		dig[0] = (char)('0' + q);
	if (neg)
		buf[len++] = '-';
	if (x < -4 || x >= 16) {
		buf[len++] = dig[0];
		if (n > 1) {
			buf[len++] = '.';
			memcpy(buf + len, dig + 1, (size_t)n - 1);
			len += (size_t)n - 1;
		}
		ax = x < 0 ? -x : x;
		buf[len++] = 'e';
		buf[len++] = x < 0 ? '-' : '+';
		buf[len++] = (char)('0' + ax / 10);
		buf[len++] = (char)('0' + ax % 10);
	} else if (x >= 0) {
		for (i = 0; i <= x; i++)
			buf[len++] = i < n ? dig[i] : '0';
		if (n > x + 1) {
			buf[len++] = '.';
			memcpy(buf + len, dig + x + 1, (size_t)(n - x - 1));
			len += (size_t)(n - x - 1);
		}
	} else {
		buf[len++] = '0';
		buf[len++] = '.';
		for (i = -1; i > x; i--)
			buf[len++] = '0';
		memcpy(buf + len, dig, (size_t)n);
		len += (size_t)n;
	}
	buf[len] = '\0';
	return len;
}

/*
 * The shortest text of the float32 whose bits are `bits`, for a type whose
 * values it holds: the rounding interval of that type is 2^g float32 units
 * wide on either side (g = 0 for float32 itself), half that below a power
 * of two where the type's spacing halves (lo_half), ends included iff the
 * type's significand is even (incl).
 */
static size_t fmt_interval(uint32_t bits, int g, int lo_half, int incl, char *buf)
{
	const struct fmt_scale *s;
	struct decimal d;
	uint32_t frac, m, w = (uint32_t)1 << g;
	int bexp, p, n, x;
	uint64_t q;

	bexp = (int)(bits >> 23 & 0xff);
	frac = bits & 0x7fffff;
	m = bexp ? frac | 0x800000 : frac;
	s = &fmt_scale[(bexp ? bexp : 1) - 1];
	/* m has g zero bits at the bottom, so 4 m + 2 w stays below 2^26 */
	d.lo = scale(4 * m - (lo_half ? 1 : 2) * w, s);
	d.mid = scale(4 * m, s);
	d.hi = scale(4 * m + 2 * w, s);
	d.incl = incl;
	for (d.nd = 1; d.nd < 11 && d.mid.fl >= ten_pow[d.nd]; d.nd++)
		;
	/* The p found has nd - p >= 1, as round_digits() needs: any p with
	 * nd - p <= 1 reads back, so the walk goes past it unless p = 1, and
	 * mid >= 4 * 10 has two digits at least. */
	if (!reads_back(&d, 8)) {
		p = 9;
	} else {
		for (p = 8; p > 1 && reads_back(&d, p - 1); p--)
			;
	}
	q = round_digits(&d, p);
	x = d.nd - 1 + s->e10;
	if (q == ten_pow[p]) {	/* 9.99... rounded up to 10 */
		q = 1;
		n = 1;
		x++;
	} else {
		for (n = p; (uint32_t)q % 10 == 0; n--)
			q = (uint32_t)q / 10;
	}
	return spell(buf, (int)(bits >> 31), (uint32_t)q, n, x);
}

size_t pe_fmt_f32(float v, char *buf)
{
	uint32_t bits, frac;
	int bexp;

	memcpy(&bits, &v, sizeof bits);
	bexp = (int)(bits >> 23 & 0xff);
	frac = bits & 0x7fffff;
	if (bexp == 0xff || (bexp == 0 && frac == 0))
		return special((double)v, buf);
	/* the gap below a power of two is half the gap above (not at the
	 * smallest normal, whose neighbour below is the largest subnormal) */
	return fmt_interval(bits, 0, frac == 0 && bexp > 1, !(frac & 1), buf);
}

size_t pe_fmt_f16(uint16_t h, char *buf)
{
	float v = pe_from_f16(h);
	uint32_t bits, e = (uint32_t)(h >> 10 & 0x1f), frac = h & 0x3ffu;

	if (e == 0x1f || (e == 0 && frac == 0))
		return special((double)v, buf);
	memcpy(&bits, &v, sizeof bits);
	/* 11 significant bits against float32's 24; below 2^-14 a fixed
	 * spacing of 2^-24 */
	return fmt_interval(bits, e ? 13 : 126 - (int)(bits >> 23 & 0xff),
			    frac == 0 && e > 1, !(frac & 1), buf);
}

size_t pe_fmt_bf16(uint16_t b, char *buf)
{
	float v = pe_from_bf16(b);
	uint32_t e = (uint32_t)(b >> 7 & 0xff), frac = b & 0x7fu;

	if (e == 0xff || (e == 0 && frac == 0))
		return special((double)v, buf);
	/* float32's exponents with 8 significant bits: 16 bits fewer, its
	 * subnormals included */
	return fmt_interval((uint32_t)b << 16, 16, frac == 0 && e > 1, !(frac & 1), buf);
}

/* The definition the narrow formatters follow, as pe_fmt_f32_slow's:
 * the first precision walking down from 8 whose %g text fails to read
 * back (strtod, then rounded once to the type) ends the walk. */
static size_t narrow_slow(double v, uint16_t bits, int half, char *buf)
{
	char tmp[PE_FMT_BUF];
	int p, len, good;
	size_t n;

	n = special(v, buf);
	if (n)
		return n;
	good = snprintf(buf, PE_FMT_BUF, "%.8g", v);
	for (p = 7; p >= 1; p--) {
		double r;

		len = snprintf(tmp, sizeof tmp, "%.*g", p, v);
		r = strtod(tmp, NULL);
		if ((half ? pe_to_f16(r) : pe_to_bf16(r)) != bits)
			break;
		memcpy(buf, tmp, (size_t)len + 1);
		good = len;
	}
	return unexponent(buf, (size_t)good);
}

size_t pe_fmt_f16_slow(uint16_t h, char *buf)
{
	return narrow_slow((double)pe_from_f16(h), h, 1, buf);
}

size_t pe_fmt_bf16_slow(uint16_t b, char *buf)
{
	return narrow_slow((double)pe_from_bf16(b), b, 0, buf);
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

/* What "%lld" prints, without printf's format parsing (bucket ids in csv
 * are millions of these). */
size_t pe_fmt_i64(int64_t v, char *buf)
{
	char dig[20];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0, len = 0;

	do {
		dig[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = dig[--n];
	buf[len] = '\0';
	return len;
}
