/*
 * alibi.h - ALiBi attention biases (Press, Smith and Lewis 2022).
 *
 * Slopes (the paper's section 3 and its reference code): for H heads
 * and bias maximum B (8; MPT's alibi_bias_max),
 *   H a power of two:  m_k = 2^(-B (k+1) / H),  k = 0 .. H-1
 *   otherwise:         c = 2^floor(log2 H); the c slopes of c heads, then
 *                      every other slope of 2c heads, 2^(-B (2i+1) / (2c)),
 *                      i = 0 .. H-c-1
 * (ofirpress/attention_with_linear_biases get_slopes; BLOOM, MPT gen_slopes
 * and EleutherAI gpt-neox give the same values).  Not monotonic for
 * non-powers of two: H = 12 gives 2^-1 .. 2^-8, 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
 *
 * Bias for query i, key j, head k, as each implementation adds it:
 *   causal     -m_k (i - j) for j <= i, 0 above (EleutherAI gpt-neox; the
 *              mask is separate)
 *   symmetric  -m_k |i - j|  (MPT full=True, non-causal)
 *   bloom      +m_k j        (ofirpress fairseq, BLOOM: one row for every query)
 * The forms differ row by row by a constant on the causal part, so softmax
 * gives the same attention.
 *
 * Slopes are computed in long double (exp2l) and biases as m * distance in
 * long double, rounded once to float32.  The double fill (core/tensor.h,
 * --dtype) gives each value correctly rounded to double: the slope as an
 * exact 256-bit number (core/mp.h) times the distance, as core/angle.h
 * rounds an angle p f.
 */
#ifndef PE_ALIBI_H
#define PE_ALIBI_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"

enum pe_alibi_form { PE_ALIBI_CAUSAL, PE_ALIBI_SYMMETRIC, PE_ALIBI_BLOOM };
enum pe_alibi_table { PE_ALIBI_SLOPES, PE_ALIBI_BIAS };

struct pe_alibi_params {
	uint64_t heads;		/* H >= 1 (8) */
	uint64_t positions;	/* N >= 1: the bias is N x N per head */
	double bias_max;	/* B > 0 (8) */
	enum pe_alibi_form form;
	enum pe_alibi_table table;
	int64_t head;		/* one head's N x N slice, or -1 for all */
};

struct pe_freq;

struct pe_alibi {
	struct pe_alibi_params p;
	long double *slope;	/* H slopes */
	struct pe_freq *exact;	/* the H slopes to 2^-158, as core/angle.h keeps them */
};

void pe_alibi_defaults(struct pe_alibi_params *p);

/* Slope k (0-based) of H heads with maximum B, in long double. */
long double pe_alibi_slope(uint64_t heads, double bias_max, uint64_t k);

/* Validate and compute the slopes; PE_ERR_PARAM for bad parameters. */
int pe_alibi_init(struct pe_alibi *a, const struct pe_alibi_params *p, struct pe_error *err);
void pe_alibi_free(struct pe_alibi *a);

/* The tensor: "alibi_slopes" (H,), or "alibi_bias" (H, N, N) -- streamed
 * as (H N) x N rows, head after head -- or (N, N) for one head.  Parallel. */
int pe_alibi_tensor(const struct pe_alibi *a, struct pe_tensor *t, struct pe_error *err);

#endif
