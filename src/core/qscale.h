/*
 * qscale.h - the per-position query scale some models multiply their
 * queries by (`posenc generate rope --table attn-scale`), one value per
 * position, as transformers 5.18's modeling code computes it:
 *
 *   llama4  Llama 4's attention temperature tuning (its NoPE layers, when
 *           attn_temperature_tuning):
 *               s(p) = log1p(floor((p + 1) / floor_scale)) attn_scale + 1
 *           with p = arange(seq_len) + past_seen_tokens, the absolute
 *           position (modeling_llama4.py, Llama4TextAttention.forward);
 *   beta    Ministral 3 and Mistral 4 (rope_parameters.llama_4_scaling_beta),
 *           every layer, after RoPE:
 *               s(p) = 1 + beta log(1 + floor(p / L0))
 *           with p the position id and L0 the rope dict's
 *           original_max_position_embeddings (get_llama_4_attn_scale).
 *
 * Both are 1 + scale ln(1 + k(p)) for an integer k(p) >= 0: k is
 * floor((p + 1) / floor_scale) or floor(p / L0), decided exactly (not by
 * a rounded quotient).  Positions are >= 0 (both models count from 0).
 *
 * Precision.  Exact: 1 + scale ln(1 + k) of the real logarithm, correctly
 * rounded to float32 (and to double for the float64 fill); 1 exactly where
 * k = 0.  Float32: PyTorch's float32 steps, each rounded as torch rounds
 * them on the CPU (core/torch32.h):
 *   llama4  ((float)p + 1) / (float)floor_scale, floorf, torch.log1p
 *           (SLEEF's log1pf), times (float)attn_scale, plus 1;
 *   beta    (float)p / (float)L0 (true division of an int64 tensor by an
 *           int: both cast to float32), floorf, 1 +, torch.log (MKL's vmsLn
 *           or SLEEF's logf, per torch.vml), times (float)beta, 1 +.
 */
#ifndef PE_QSCALE_H
#define PE_QSCALE_H

#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"
#include "core/torch32.h"

enum pe_qscale_kind { PE_QSCALE_LLAMA4, PE_QSCALE_BETA };

struct pe_qscale_params {
	enum pe_qscale_kind kind;
	uint64_t positions;		/* n >= 1 */
	int64_t offset;			/* first position, >= 0 */
	double scale;			/* llama4: attn_scale; beta: llama_4_scaling_beta;
					 * finite */
	double divisor;			/* llama4: floor_scale (> 0); beta: L0, an integer
					 * >= 1 */
	int float32;			/* PyTorch's float32 steps (torch says which) */
	struct pe_torch torch;
};

struct pe_qscale {
	struct pe_qscale_params p;
};

/* Validate (PE_ERR_PARAM, naming {offset}, {attn_scale}, {floor_scale},
 * {llama_4_scaling_beta}, {original_max_positions}); no allocation. */
int pe_qscale_init(struct pe_qscale *q, const struct pe_qscale_params *p, struct pe_error *err);

/* k(p) of the formulas above, exactly; p >= 0. */
uint64_t pe_qscale_k(const struct pe_qscale *q, int64_t p);

/* The scale at position p >= 0: float32 (of the chosen precision) and, for
 * exact, the correctly rounded double. */
float pe_qscale_value(const struct pe_qscale *q, int64_t p);
double pe_qscale_value64(const struct pe_qscale *q, int64_t p);

/* The table: a 1-D tensor "attn_scale" of n values, parallel; its double
 * fill gives pe_qscale_value64 (exact) or the float32 values (float32). */
int pe_qscale_tensor(const struct pe_qscale *q, struct pe_tensor *t, struct pe_error *err);

/* The same formulas in plain double (posenc explain's summaries: within an
 * ulp or two of the values above, the quotient's floor from the rounded
 * quotient): llama4 with floor_scale > 0, beta with L0 >= 1; p >= 0. */
double pe_qscale_llama4(uint64_t p, double floor_scale, double attn_scale);
double pe_qscale_beta(uint64_t p, double beta, uint64_t L0);

#endif
