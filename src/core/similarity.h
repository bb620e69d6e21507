/*
 * similarity.h - the position-wise similarity of a table's rows (Wang &
 * Chen 2020): S[i][j] = sim(x_i, x_j) over the n rows of a view, streamed as
 * an n x n float32 tensor, one block of rows at a time; never all of S.
 *
 * Metrics: cosine x.y / (|x| |y|) (NaN in the row and column of a zero
 * row, counted in zero_rows), dot x.y, euclidean |x - y|.  With center, the
 * rows are x - mu first, mu the column mean (summed in double-double,
 * rounded to double), and the centred rows are held in double.
 *
 * PE_SIM_EXACT (the default): every value is the correctly rounded float32
 * of the exact similarity of the rows (of the centred double rows with
 * center).  A double GEMM (core/gemm.h) gives each value to within a bound
 * that depends only on the width and the row norms; when rounding to
 * float32 is certain anyway, that is the value, and the few that are not
 * (values near 0, values near a rounding boundary: about one in 2,400 for a
 * random table) are recomputed exactly (core/exact.h).  So the bytes depend
 * on the table alone: not on threads, row blocks, --rows shards or the BLAS
 * kernel.  And S[i][j] == S[j][i] bit for bit, so when rows are asked for
 * in order, a block of the upper triangle computed for rows i serves rows
 * j later: about half the multiply-adds are saved, with those blocks kept
 * within cache_bytes.
 *
 * PE_SIM_FLOAT32: the float32 pipeline of the NumPy script (rows normalised
 * to float32 for cosine, then a float32 GEMM; distances from float32 norms):
 * within about 1e-6 of the exact cosine, not correctly rounded.  BLAS's
 * float results depend on how rows and columns are grouped into a call, so
 * every value is defined as an element of one fixed call: S[i][j] = S[j][i]
 * = element (min, max) of X[block(min)] X[block(max)]^T on the grid.  Each
 * worker computes whole blocks, caches the upper triangle's blocks for the
 * rows below and recomputes the same call when one is missing: repeatable
 * for any thread count and any --rows shard, half the multiply-adds.
 *
 * Memory: the rows as float32 (n d 4 bytes; centred rows in exact
 * precision: double, n d 8), the GEMM scratch of the workers (exact
 * precision widens its float32 rows to double a panel at a time: a block
 * of rows plus at most 2 MiB of columns each), and the cache, at most
 * cache_bytes = max(64 MiB, 10 n d bytes; float32: 8 n d, its pump blocks
 * being threads times larger) -- O(n d), never O(n^2); blocks
 * near the diagonal are kept first (they are let go soonest).  Besides,
 * the rows written pass through the pump's slots (three, or two when a
 * block exceeds 4 MiB) of threads blocks of the grid each (a block per
 * worker): a block is 4 MiB of rows in exact precision, or 128 rows where
 * that is more, up to 8 MiB (at least 16 rows: 64 n bytes); max(32 MiB,
 * 256 n bytes) in float32.
 */
#ifndef PE_SIMILARITY_H
#define PE_SIMILARITY_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"
#include "core/tensor.h"

enum pe_metric { PE_METRIC_COSINE, PE_METRIC_DOT, PE_METRIC_EUCLIDEAN };
enum pe_sim_precision { PE_SIM_EXACT, PE_SIM_FLOAT32 };

/* exact precision: aim for row blocks of this size (larger blocks only
 * cost memory, measured at 4096 rows; see GEMM_ROWS in similarity.c for
 * more rows) */
#define PE_SIM_BLOCK_BYTES ((size_t)4 << 20)
#define PE_SIM_CACHE_MIN ((size_t)64 << 20)

struct pe_similarity_params {
	enum pe_metric metric;
	int center;
	enum pe_sim_precision precision;
	int threads;		/* the pump's workers: blocks per pump block */
	size_t cache_bytes;	/* budget for kept blocks; 0: the default above */
};

struct pe_sim_row;
struct pe_simcache;
struct pe_sim_spares;

struct pe_similarity {
	struct pe_similarity_params p;
	uint64_t n, d;
	uint64_t zero_rows;	/* cosine: rows whose norm is 0 */
	double max_norm;	/* the longest row's norm (dot and distance bounds) */
	size_t block;		/* rows per block of the grid */
	/* private */
	double *x;		/* exact with center: the centred rows, n x d */
	float *xf;		/* else n x d: float32 rows (unit rows: float32 cosine) */
	struct pe_sim_row *row;
	int exact_inputs;	/* exact, xf holds the rows: products are exact */
	double e_cos, e_dot, e_euc;
	struct pe_simcache *cache;	/* core/simcache.h */
	atomic_uint_least64_t *exact_count;	/* shared by the fills (ctx is const) */
	struct pe_sim_spares *spares;	/* the workers' buffers, kept */
};

/* "cosine", "dot", "euclidean" (enum order, NULL-terminated). */
extern const char *const pe_metric_names[];
const char *pe_metric_name(enum pe_metric m);

/*
 * Prepare the similarity of the rows of w (w's matrix may be freed after
 * this returns).  Every value must be finite (PE_ERR_DATA naming the row of
 * w's matrix and the column otherwise); n at most PE_MAX_COLS (the n x n
 * result's columns).  Free with
 * pe_similarity_free in every case.
 */
int pe_similarity_init(struct pe_similarity *s, const struct pe_matrix_view *w,
		       const struct pe_similarity_params *p, struct pe_error *err);

void pe_similarity_free(struct pe_similarity *s);

/* The n x n tensor "similarity" (parallel, block_rows on the grid); s must
 * outlive it. */
int pe_similarity_tensor(struct pe_similarity *s, struct pe_tensor *t, struct pe_error *err);

/* Row i of the result alone (n values into out): the similarity of row i
 * to every row, the values the tensor has there.  Returns 0 or -1. */
int pe_similarity_row(const struct pe_similarity *s, uint64_t i, float *out, struct pe_error *err);

/*
 * A cell of the rows [r0, r1) of the result known, before it is computed,
 * to be nan or an infinity: with cosine and a zero row, every row holds
 * nan (in the zero row's column, or all of its own); with dot, the
 * diagonal of a row whose |x|^2 is beyond float32's range for sure
 * (exact: above 2^128; float32: above 2^128 (1 - 2^-24)^-(d+3), which no
 * order of summing the squares brings below 2^128).  1 with *row, *col, *v
 * set, else 0.
 */
int pe_similarity_known_nonfinite(const struct pe_similarity *s, uint64_t r0, uint64_t r1,
				  uint64_t *row, uint64_t *col, float *v);

/* Blocks the cache holds now (for tests: none once every row has been
 * written, in order, by any number of threads). */
size_t pe_similarity_cache_held(const struct pe_similarity *s);

/* Elements recomputed exactly so far (for tests and measurements). */
uint64_t pe_similarity_exact_count(const struct pe_similarity *s);

#endif
