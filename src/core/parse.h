/*
 * parse.h - strict number parsing for options and text inputs.
 *
 * Every function takes the whole string: leading or trailing junk, an
 * empty string, a sign where none is allowed, overflow or a value outside
 * [lo, hi] is an error, never a clamp.  Integers are plain decimal digits
 * (an optional '-' for signed ones); no exponent, so "1e99" is not a
 * count.  Reals accept decimal and exponent forms ("1e4", "0.5") and must be
 * finite: "nan" and "inf" are refused, and so is a literal beyond the
 * doubles ("1e309").  Subnormal values ("1e-308", "4.9e-324") are doubles
 * and accepted; a nonzero literal below half the least of them ("1e-400")
 * is refused rather than read as 0, which would turn a positive value
 * into zero behind the caller's back.  All return 0 or -1 and leave *out
 * untouched on failure.
 */
#ifndef PE_PARSE_H
#define PE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Exactly the n decimal digits s[0, n) (n > 0, no sign, s need not be
 * NUL-terminated) as a uint64; -1 for anything else or beyond 2^64 - 1. */
int pe_parse_digits(const char *s, size_t n, uint64_t *out);

int pe_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int pe_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int pe_parse_double(const char *s, double *out);

/*
 * A Python-style range "A:B" of 0-based indices, A included, B excluded.
 * Either end may be omitted ("A:", ":B"): A defaults to 0 and B to limit.
 * Requires A < B <= limit.
 */
int pe_parse_range(const char *s, uint64_t limit, uint64_t *a, uint64_t *b);

/* A signed range "A:B" (both given, A included, B excluded), with
 * lo <= A < B <= hi: distances, which may be negative ("-64:65"). */
int pe_parse_irange(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b);

/* Index of name in a NULL-terminated list of names; -1 if absent. */
int pe_name_index(const char *const *names, const char *name);

/* "HxW" with both positive and at most hi. */
int pe_parse_dims2(const char *s, uint64_t hi, uint64_t *h, uint64_t *w);

/*
 * A comma-separated list of finite reals, at most max values.  *out is
 * malloc'd (caller frees) and *n set.  An empty list is an error.
 */
int pe_parse_double_list(const char *s, size_t max, double **out, size_t *n);

#endif
