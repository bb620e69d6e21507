/*
 * stats.h - numbers that describe a position-similarity matrix S (n x n,
 * S[i][j] the similarity of positions i and j), computed as its rows stream
 * past: a struct pe_sink (core/pipeline.h) that keeps O(n) memory, never
 * the matrix.
 *
 * The definitions are posenc's own, inspired by Wang et al. (ICLR 2021:
 * monotonicity, translation invariance, symmetry) and Chen, Varoquaux and
 * Suchanek (EMNLP Findings 2023: locality, symmetry); they are not those
 * papers' numbers.  With offsets k = j - i:
 *
 *   profile[k], k = 0..n-1: mean, population std and count (n - k) of the
 *     diagonal {S[i][i+k]}.
 *   translation_invariance = 1 - sum_{i!=j} (S[i][j] - t[j-i])^2
 *                              / sum_{i!=j} (S[i][j] - m)^2,
 *     t[d] the mean of diagonal d (d = -(n-1)..n-1), m the mean of all
 *     off-diagonal entries: 1 when S is Toeplitz (also when every
 *     off-diagonal entry is equal), near 0 for noise.  NaN for n < 2
 *     (or when every off-diagonal entry is NaN).
 *   monotonicity_forward = -mean_i rho_i, rho_i the Spearman rank
 *     correlation (ties get average ranks) of k = 1..m_i with S[i][i+k],
 *     m_i = min(window, n-1-i); rows with m_i < 3, or whose values are all
 *     equal, are left out (NaN entries are dropped first: k is then ranked
 *     among the k that remain, and m_i counts them).  monotonicity_backward
 *     the same with S[i][i-k], m_i = min(window, i).  1: similarity falls
 *     with every step away; near 0 for noise.  NaN when no row counts.
 *   symmetry_lr = 1 - mean_{i, k} |S[i][i-k] - S[i][i+k]| / (max S - min S)
 *     over k = 1..min(i, n-1-i): 1 when each row is symmetric about its
 *     diagonal.  1 when max S = min S; NaN when there is no such pair (n < 3,
 *     or a NaN in every pair).
 *   locality = mean_i sum_j A[i][j] 2^-|i-j|, A = softmax(S[i][.] / tau)
 *     by rows (Chen et al.'s locality, applied to a softmax of the
 *     similarity, not to a real attention matrix): 1 when all weight is on
 *     the diagonal.  A row of NaN is left out of the mean; NaN if all are.
 *   first_increase: the smallest k >= 1 with profile mean[k] > mean[k-1],
 *     0 when the profile never rises (a NaN mean, count 0, never compares
 *     greater or smaller).
 *
 * Sums are kept in double, diagonals shifted by their first value, so a
 * Toeplitz matrix gives translation_invariance 1 to within rounding.
 * NaN entries (zero rows under cosine) are left out of every sum and count.
 * An infinite entry is refused (PE_ERR_DATA from rows()): it would turn
 * every statistic into NaN without saying why.
 */
#ifndef PE_STATS_H
#define PE_STATS_H

#include <stdint.h>

#include "core/err.h"
#include "core/pipeline.h"

#define PE_STATS_WINDOW_DEFAULT 32
#define PE_STATS_TAU_DEFAULT 1.0

struct pe_stats_params {
	uint64_t window;	/* >= 1 */
	double tau;		/* finite, > 0 */
};

struct pe_stats {
	uint64_t n;
	double translation_invariance;
	double monotonicity_forward, monotonicity_backward;
	uint64_t monotonicity_rows_forward, monotonicity_rows_backward;	/* rows counted */
	double symmetry_lr;
	double locality;
	uint64_t first_increase;
	double *mean, *std;	/* n values each: offsets 0..n-1 (NaN where count is 0) */
	uint64_t *count;	/* entries of each diagonal that were not NaN */
};

/*
 * A sink that accepts one square F32 tensor (anything else is PE_ERR_DATA
 * from begin()).  Destroy it with pe_sink_destroy (io/sink.h) or its
 * ops->destroy.  Returns NULL (PE_ERR_PARAM for bad params, PE_ERR_NOMEM).
 */
struct pe_sink *pe_stats_sink_new(const struct pe_stats_params *p, struct pe_error *err);

/* After a successful pump into s: the results.  out's arrays are malloc'd;
 * free them with pe_stats_free.  Returns 0 or -1 (PE_ERR_PARAM when s is
 * not a stats sink that has seen a whole matrix, PE_ERR_NOMEM). */
int pe_stats_result(struct pe_sink *s, struct pe_stats *out, struct pe_error *err);

void pe_stats_free(struct pe_stats *st);

#endif
