/*
 * diagnose.h - why two tables differ: each cause of the research notes'
 * catalogue (rope-2026 G, the 14 parity threads) tested by transforming
 * one table as that cause would and measuring what difference is left.
 *
 * The residual of a cause is RMS(T(B) - A) / RMS(B - A) over the rows it
 * was tested on (for some causes T transforms A and compares with B):
 * 0 when the cause explains the difference exactly, 1 when it explains
 * nothing, above 1 when it makes things worse.  A cause is reported when
 * its residual is at most PE_DIAG_FIT (it removes at least 99 % of the
 * squared difference); the reported ones come best first.  Two unrelated
 * tables are expected to leave every residual near 0.7 or above (a fit of
 * one number per column to independent data removes about half of it),
 * so nothing is reported for them: "no simple explanation".
 *
 * The tables are read through their tensors' fill functions (any rows,
 * any order), on a sample of rows: every row of a table up to
 * PE_DIAG_ALL_ROWS rows; else its first 64 rows, rows 0, L, 2L, ... 8L for
 * every power of two L (the frequency ladder below), evenly spaced rows,
 * the rows of the largest errors and the first that differs.  The full
 * pass's statistics (core/diff.h) give what needs every value: the scale
 * fit's sums and the rows nearest each table's first row.
 *
 * Frequencies.  A column x(p) = u cos(w p) + v sin(w p) of a sinusoidal
 * table (rotary cos/sin, sinusoidal tables) satisfies
 *   x(p + L) + x(p - L) = 2 cos(w L) x(p)
 * whatever u, v (amplitude, phase, first position): w is estimated at
 * L = 1 and refined at L = 2, 4, ... (each estimate picks the branch of
 * acos nearest the last), to about 1e-7 / L.  How well the identity holds
 * says whether a column is a sinusoid at all.
 *
 * When B is a rope table posenc generated (model non-NULL), its parameters
 * are known: the causes are tested by generating the table they would
 * give (another scaling, truncate, L0, the long/short factors, theta, the
 * float32 pipeline of PyTorch, float16/bfloat16 steps as core/audit.h
 * computes them, the sin table for the cos) and comparing it with A.
 */
#ifndef PE_DIAGNOSE_H
#define PE_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/diff.h"
#include "core/err.h"
#include "core/meta.h"
#include "core/rope.h"
#include "core/tensor.h"

enum pe_cause {
	PE_CAUSE_PERMUTED_COLUMNS,
	PE_CAUSE_TRANSPOSED,
	PE_CAUSE_SWAPPED_SIN_COS,
	PE_CAUSE_ROW_OFFSET,
	PE_CAUSE_CONSTANT_SCALE,
	PE_CAUSE_COLUMN_SCALE,
	PE_CAUSE_THETA,
	PE_CAUSE_PRECISION,
	PE_CAUSE_STORAGE_DTYPE,
	PE_CAUSE_DOUBLE_ROTATION,
	PE_NCAUSES
};

/* "permuted-columns", ... in enum order, NULL-terminated. */
extern const char *const pe_cause_names[];

#define PE_DIAG_FIT 0.1
#define PE_DIAG_CLOSE 0.8	/* a "closest" cause must explain at least this much */
#define PE_DIAG_ALL_ROWS 4096
#define PE_DIAG_MAX 12

struct pe_diag_finding {
	enum pe_cause cause;
	double residual;
	char text[480];		/* the evidence in words, one line */
	struct pe_meta ev;	/* the evidence's numbers, for json */
};

/* What is known of B when posenc generated it. */
struct pe_diag_model {
	const struct pe_rope *rope;	/* a rope table's built parameters, or NULL */
	enum pe_rope_table table;
	uint64_t max_positions;		/* a config's max_position_embeddings, 0 if none */
};

struct pe_diag_in {
	const struct pe_tensor *a, *b;	/* same rows x cols, float32 */
	const struct pe_diff_stats *st;	/* the full pass over them */
	const struct pe_diag_model *model;	/* B's, or NULL */
	int threads;
};

struct pe_diag {
	struct pe_diag_finding f[PE_DIAG_MAX];	/* residual <= PE_DIAG_FIT, best first */
	size_t n;
	struct pe_diag_finding closest;	/* the best of the others, if its residual is
					 * below PE_DIAG_CLOSE (has_closest) */
	int has_closest;
	uint64_t rows_examined;
	char sample[160];	/* which rows, in words */
};

/* Test every cause.  d is initialised here; pe_diag_free in every case.
 * Returns 0 or -1 (a fill's error, PE_ERR_NOMEM). */
int pe_diagnose(const struct pe_diag_in *in, struct pe_diag *d, struct pe_error *err);

void pe_diag_free(struct pe_diag *d);

/* The frequency of a sinusoidal column from its values at rows 0, L, 2L,
 * ... (see above): ladder[k] holds x at rows m 2^k, m = 0 .. nm[k] - 1
 * (nm[k] >= 3 to be used), for k = 0 .. nk - 1.  Returns w in [0, pi], or
 * a negative number when the column is not a sinusoid (the identity
 * leaves more than tol of its energy) or is flat. */
double pe_diag_freq(const double *const *ladder, const size_t *nm, size_t nk, double tol);

#endif
