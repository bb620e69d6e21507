/*
 * qscale.h - the position-dependent query scales some models multiply
 * their queries by (research rope-2026.md section D), as the reference
 * code computes them, in double:
 *
 *   Llama 4 (attn_temperature_tuning, NoPE layers only; transformers'
 *   Llama4TextAttention, positions arange(seq_len) + past tokens):
 *       s(p) = log1p(floor((p + 1) / floor_scale)) * attn_scale + 1
 *   Ministral 3 / Mistral 4 (llama_4_scaling_beta, every layer;
 *   get_llama_4_attn_scale, positions = position_ids):
 *       s(p) = 1 + beta * ln(1 + floor(p / L0))
 *
 * Both are steps: constant between multiples of floor_scale (at p + 1)
 * or of L0 (at p).  transformers evaluates them in float32; these are the
 * real values (the float32 ones differ by a rounding or two).
 */
#ifndef PE_QSCALE_H
#define PE_QSCALE_H

#include <stdint.h>

/* floor_scale > 0; p >= 0 */
double pe_qscale_llama4(uint64_t p, double floor_scale, double attn_scale);

/* L0 >= 1; p >= 0 */
double pe_qscale_beta(uint64_t p, double beta, uint64_t L0);

#endif
