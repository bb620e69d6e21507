/*
 * diff_out.h - the report of `posenc diff` as text: readable lines, one
 * JSON object, or the errors per row or per column as CSV.
 *
 * JSON keys (SPEC "posenc diff", and more): "a", "b" (label, format,
 * shape), "shape" (the compared region), "equal", "values", "differ",
 * "incomparable", "max_abs", "where" [row, col], "max_rel", "where_rel",
 * "max_ulp", "where_ulp", "mean_abs", "rms", "first_row", "first_col",
 * "rows_differ", "cols_differ", "tolerance" {atol, rtol, ulps},
 * "shape_finding", "diagnosis" [{"cause", "residual", "evidence"}],
 * "closest", "sample".  A measure that is infinite (a NaN or an infinity
 * met something else) is the string "inf"; where there is no such place
 * (equal tables) the value is null.  Numbers are written shortest
 * round-trip (io/fmt.h).  Every function returns 0 or -1 (PE_ERR_IO,
 * PE_ERR_PIPE, PE_ERR_NOMEM).
 */
#ifndef PE_DIFF_OUT_H
#define PE_DIFF_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/diagnose.h"
#include "core/diff.h"
#include "core/err.h"
#include "core/meta.h"

struct pe_diff_side {
	const char *label;	/* the file's name, or the KIND */
	const char *what;	/* "npy <f4", "generated rope cos, exact", ... */
	uint64_t rows, cols;
};

struct pe_diff_report {
	struct pe_diff_side a, b;
	char shape_note[480];	/* what differing shapes mean, "" if they do not */
	uint64_t rows, cols;	/* the region compared; rows 0: none */
	const struct pe_diff_stats *st;	/* NULL when nothing was compared */
	struct pe_diff_tol tol;
	const struct pe_diag *diag;	/* NULL: no diagnosis run */
	int equal;		/* the verdict (the exit status) */
};

int pe_diff_write_text(FILE *fp, const struct pe_diff_report *r, struct pe_error *err);

/* One line of JSON; meta (may be NULL) as "meta". */
int pe_diff_write_json(FILE *fp, const struct pe_diff_report *r, const struct pe_meta *meta,
		       struct pe_error *err);

/* CSV with the header "row,max_abs,mean_abs,max_rel,max_ulp,differ" (what
 * "row" or "column"), one line per line of l (n of them), each over len
 * values; origin is added to the index written (a table's first
 * position).  inf is written "inf". */
int pe_diff_write_lines(FILE *fp, const char *what, const struct pe_diff_line *l, uint64_t n,
			uint64_t len, int64_t origin, struct pe_error *err);

#endif
