/*
 * diff.h - two tables of the same shape compared value by value, a block
 * of rows at a time: what `posenc diff` reports (and the diagnosis starts
 * from).  Memory is the statistics', not the tables': a few numbers per
 * column, and per row only when asked.
 *
 * A pair (a, b) takes a from table A and b from table B, the reference:
 *   abs  |a - b|, in double (exact for two float32 unless their exponents
 *        are more than 29 apart)
 *   rel  abs / |b|; 0 when a == b, inf when b == 0 and a != 0
 *   ulp  pe_ulp_dist(a, b) (core/ulp.h): +0 and -0 are 0 apart, so are
 *        two NaNs
 * A pair is incomparable when a NaN meets a number, or an infinity meets
 * anything but the same infinity: its abs, rel and ulp are infinite, and
 * it always differs.  Two NaNs are equal (abs, rel, ulp 0).
 *
 * Tolerance: a pair is equal (does not differ) when a == b (both zeros
 * alike, infinities of one sign alike) or both are NaN; or when
 * abs <= atol + rtol |b| (only when atol or rtol is above 0: NumPy's
 * isclose(a, b) rule); or when ulp <= ulps (only when ulps is above 0).
 * All zero: only the same float32 values are equal.
 *
 * Calling sequence:
 *   pe_diff_init(&s, rows, cols, per_row, err)
 *   pe_diff_add(&s, &tol, r0, n, a, b)    blocks in row order from row 0
 *   ... read s ...
 *   pe_diff_free(&s)                      in every case
 */
#ifndef PE_DIFF_H
#define PE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct pe_diff_tol {
	double atol, rtol;	/* >= 0 */
	uint64_t ulps;
};

/* One pair's errors, as above. */
struct pe_diff_err {
	double abs, rel;
	uint64_t ulp;
	int incomparable;
};

void pe_diff_pair(float a, float b, struct pe_diff_err *e);

/* Is the pair equal within t?  (e from pe_diff_pair(a, b).) */
int pe_diff_equal(const struct pe_diff_err *e, float b, const struct pe_diff_tol *t);

/* The errors of a row or of a column. */
struct pe_diff_line {
	double max_abs, sum_abs, max_rel;	/* sum over comparable pairs */
	uint64_t max_ulp, differ;
};

/* A largest error and where it is: the first in row-major order among
 * equal ones.  row and col are meaningless while v is -1 (none yet). */
struct pe_diff_max {
	double v;
	uint64_t row, col;
};

/* The rows of one table closest (least sum of squares) to the other's
 * row 0, row 0 itself left out: where a row offset would put it. */
#define PE_DIFF_NEAR 3
struct pe_diff_near {
	uint64_t row;	/* UINT64_MAX: none */
	double d;	/* sum of squared differences */
};

struct pe_diff_stats {
	uint64_t rows, cols;
	uint64_t values;		/* pairs seen */
	uint64_t inexact;		/* pairs not the same value (NaN and NaN are) */
	uint64_t differ;		/* pairs not equal within the tolerance */
	uint64_t incomparable;		/* of them: NaN or inf against another value */
	uint64_t first_row, first_col;	/* the first pair that differs (valid when differ) */
	struct pe_diff_max abs, rel, ulp;	/* ulp's v: the distance as a double, inf
						 * for PE_ULP_INF */
	uint64_t max_ulp;		/* the largest ulp distance (PE_ULP_INF possible) */
	uint64_t comparable;		/* pairs in sum_abs, sum_sq */
	double sum_abs, sum_sq;		/* of abs, abs^2 over comparable pairs */
	double sum_ab, sum_aa, sum_bb;	/* over every pair: a least-squares scale
					 * (not finite when a value is not) */
	struct pe_diff_line *col;	/* cols lines */
	struct pe_diff_line *row;	/* rows lines, or NULL (per_row 0) */
	float *a0, *b0;			/* row 0 of A and of B */
	struct pe_diff_near a0_in_b[PE_DIFF_NEAR];	/* rows of B nearest A's row 0 */
	struct pe_diff_near b0_in_a[PE_DIFF_NEAR];	/* rows of A nearest B's row 0 */
	/* private: a run of rows' sums per column (the vector kernel's) */
	int have_first;
	double *k_max, *k_sum, *k_sq, *k_rel, *k_ab, *k_aa, *k_bb;
	int64_t *k_ulp, *k_dif, *k_inexact;
	uint32_t *k_ua, *k_ub;		/* a row's bits */
};

/* rows, cols >= 1; per_row: keep a line per row too (rows of them).
 * PE_ERR_NOMEM when out of memory.  Returns 0 or -1. */
int pe_diff_init(struct pe_diff_stats *s, uint64_t rows, uint64_t cols, int per_row,
		 struct pe_error *err);

/* Rows [r0, r0 + n) of both tables, n * cols values each, row-major. */
void pe_diff_add(struct pe_diff_stats *s, const struct pe_diff_tol *t, uint64_t r0, size_t n,
		 const float *a, const float *b);

void pe_diff_free(struct pe_diff_stats *s);

/* The error matrix's values: what -o --error writes. */
enum pe_diff_metric { PE_DIFF_ABS, PE_DIFF_REL, PE_DIFF_ULP };

/* n values of the metric for pairs a[i], b[i] into out: abs and rel as
 * float32 (rounded; inf where infinite), ulp as a float32 count (exact up
 * to 2^24, rounded beyond; inf for PE_ULP_INF). */
void pe_diff_metric(enum pe_diff_metric m, const float *a, const float *b, size_t n, float *out);

/* An error curve of `all` lines (rows or columns, each over len values)
 * drawn with n <= all points: point k stands for lines [k all/n, (k+1)
 * all/n), at x = origin + its first line, with their largest max_abs in
 * mx[k] and their mean of sum_abs / len in mean[k].  max_abs and sum_abs
 * are the first line's fields, the next line's stride bytes further on
 * (struct pe_diff_line, struct pe_audit_row). */
void pe_diff_curve(const double *max_abs, const double *sum_abs, size_t stride, uint64_t all,
		   uint64_t len, uint64_t n, double origin, double *x, double *mx, double *mean);

#endif
