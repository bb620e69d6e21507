/*
 * rope.h - rotary position embedding tables (Su et al. 2021) with every
 * frequency-scaling rule of Hugging Face transformers.
 *
 * Formulas: RoFormer (Su et al. 2021) and the scaling rules as transformers'
 * modeling_rope_utils.py computes them (the _compute_*_parameters functions,
 * v5 era; YaRN: Peng et al. 2023; LongRoPE: Ding et al. 2024).  R is the rotary width
 * (head_dim * partial_rotary_factor, even), j = 0 .. R/2-1 a frequency:
 *
 *   inv0_j   = theta^(-2j/R)
 *   none     inv_j = inv0_j
 *   linear   inv_j = inv0_j / factor                (= positions / factor)
 *   dynamic  L = max(seq_len, L0); theta' = theta ((factor L / L0) - (factor - 1))^(R/(R-2));
 *            inv_j = theta'^(-2j/R)        (theta' = theta when seq_len <= L0)
 *   yarn     cd(b) = R ln(L0 / (2 pi b)) / (2 ln theta); low = cd(beta_fast),
 *            high = cd(beta_slow), floor/ceil when truncate, clamped to [0, R-1];
 *            ramp_j = clamp((j - low) / (high - low), 0, 1) (high += 0.001 if equal);
 *            inv_j = inv0_j / factor * ramp_j + inv0_j (1 - ramp_j);
 *            attention = g(f, mscale) / g(f, mscale_all_dim) if both set, else g(f),
 *            g(s, m) = 1 if s <= 1 else 0.1 m ln s + 1
 *   llama3   lambda = 2 pi / inv0; lambda > L0/low_freq_factor: inv0 / factor;
 *            lambda < L0/high_freq_factor: inv0; otherwise with
 *            s = (L0/lambda - low) / (high - low): (1 - s) inv0 / factor + s inv0
 *   longrope inv_j = 1 / (ext_j theta^(2j/R)), ext = long_factor when
 *            seq_len > L0 else short_factor; attention = 1 if factor <= 1
 *            else sqrt(1 + ln factor / ln L0)
 *   proportional (Gemma 4) inv_j = inv0_j / factor for j < n, 0 for n <= j < R/2,
 *            R the whole head dim and n = int(partial_rotary_factor R // 2):
 *            the pairs j >= n are not rotated (cos 1, sin 0)
 * llama3 with high_freq_factor <= low_freq_factor (Llama 4 Scout's equal
 * ones) is what transformers computes: divided when lambda > L0/low, kept
 * when lambda < L0/high, blended in between (never, in exact arithmetic).
 *
 * An explicit attention_factor replaces the derived one (yarn, longrope).
 *
 * Tables (rows = positions offset .. offset+n-1):
 *   cos, sin  n x R, attention * cos/sin(p inv_j); layout half puts frequency
 *             j in columns j and j + R/2 (HF / GPT-NeoX cat(freqs, freqs)),
 *             interleaved in columns 2j and 2j+1 (GPT-J / RoFormer pairs)
 *   angles    n x R, p * inv_j in the same layout, without the attention factor
 *   inv_freq  R/2 values (a 1-D tensor)
 * and the caches engines hold, laid out as each engine reads them, each
 * value the same as the cos or sin table's (E.1-E.3 of the 2026 notes):
 *   cos_cache, sin_cache  n x R/2: frequency j in column j (ONNX Runtime's
 *             com.microsoft.RotaryEmbedding inputs, [max_seq, rotary_dim/2])
 *   cos_sin_cache  n x R: cos of frequency j in column j, its sin in column
 *             R/2 + j (vLLM's RotaryEmbedding buffer)
 *   rope_freqs.weight  R/2 values: what llama.cpp's convert_hf_to_gguf.py
 *             writes for llama3 scaling, the divisor of each pair's angle:
 *             1 where lambda < L0/high_freq_factor, factor where lambda >
 *             L0/low_freq_factor (the converter tests them in that order),
 *             else 1/((1 - s)/factor + s); float32: the converter's torch
 *             steps on the default inv_freq of the rotary width
 *   rope_factors_long.weight, rope_factors_short.weight  R/2 values: the
 *             longrope lists as stored (float32 of each number)
 *
 * The double fill (core/tensor.h: fill64) gives every exact table's values
 * correctly rounded to double (core/angle.h's pe_sincos_pf_f64,
 * pe_angle_pf_f64; inv_freq and the divisors from 256 bits); float32 mode
 * is f32_exact.
 *
 * Precision.  PE_ROPE_EXACT: every inv_j the real number of the formula,
 * computed in 256-bit arithmetic (core/mp.h); cos/sin tables hold the
 * correctly rounded float32 of attention * cos/sin(p inv_j) (attention the
 * double below), angles that of p inv_j, inv_freq that of inv_j
 * (core/angle.h).  PE_ROPE_FLOAT32 emulates the float32
 * pipeline of transformers on PyTorch's CPU kernels operation by operation,
 * with their bits (core/torch32.h: params.torch says which kernels): inv_freq
 * from `base ** (arange(0, R, 2) / R)` (torch.pow), freqs = fl(fl(p) inv_j),
 * emb = cat(freqs, freqs) (half layout; interleaved: cos/sin of the N x R/2
 * freqs, each value in both columns of its pair, as GPT-J builds its table),
 * emb.cos() and .sin() over the whole N x R tensor whose first row is the
 * table's first, times the attention factor in float32; with params.polar
 * Llama 4's freqs_cis = torch.polar(ones_like(freqs), freqs) * attention
 * instead, cos and sin of each float32 angle by glibc's cosf and sinf
 * (torch32.h), the same whatever the shape, capability or threads.  The yarn
 * correction range and every attention factor are computed in double in
 * both modes, as the Python code does.
 */
#ifndef PE_ROPE_H
#define PE_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/angle.h"
#include "core/err.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "core/torch32.h"

/* The scaling names in enum order, NULL-terminated ("default", transformers'
 * name for none, is also accepted by pe_rope_scaling_by_name). */
extern const char *const pe_rope_scaling_names[];

enum pe_rope_scaling {
	PE_ROPE_NONE, PE_ROPE_LINEAR, PE_ROPE_DYNAMIC, PE_ROPE_YARN, PE_ROPE_LLAMA3,
	PE_ROPE_LONGROPE, PE_ROPE_PROPORTIONAL
};
enum pe_rope_table {
	PE_ROPE_COS, PE_ROPE_SIN, PE_ROPE_INV_FREQ, PE_ROPE_ANGLES,
	PE_ROPE_ORT_COS, PE_ROPE_ORT_SIN, PE_ROPE_VLLM,
	PE_ROPE_GGUF_FREQS, PE_ROPE_GGUF_LONG, PE_ROPE_GGUF_SHORT, PE_ROPE_NTABLES
};
enum pe_rope_precision { PE_ROPE_EXACT, PE_ROPE_FLOAT32 };

/*
 * What the scaling did to frequency j (pe_rope.region[j]), as the exact
 * computation decided it: kept (inv0_j itself), ramped (yarn's ramp strictly
 * between 0 and 1, llama3's blended band), interpolated (inv0_j / factor:
 * linear, proportional, yarn's ramp 1, llama3's long wavelengths), rescaled
 * (dynamic beyond L0: from the larger base), short or long (longrope's
 * factor set), unrotated (proportional's pairs of frequency 0).
 */
enum pe_rope_region {
	PE_REGION_KEPT, PE_REGION_RAMPED, PE_REGION_INTERPOLATED, PE_REGION_RESCALED,
	PE_REGION_SHORT, PE_REGION_LONG, PE_REGION_UNROTATED, PE_REGION_COUNT
};
/* Their names ("kept", "ramped", ...), in enum order. */
extern const char *const pe_rope_region_names[];

/* Rows per exactly computed angle in the exact cos/sin tables (core/angle.h) */
#define PE_ROPE_STEP PE_STEP

struct pe_rope_params {
	uint64_t positions;		/* n >= 1 */
	int64_t offset;			/* first position */
	uint64_t rotary_dim;		/* R, even, >= 2 */
	double theta;			/* > 0 (10000) */
	enum pe_rope_scaling scaling;
	enum pe_layout layout;		/* DEFAULT is half */
	enum pe_rope_precision precision;
	double factor;			/* > 0; linear, dynamic, yarn, llama3, longrope,
					 * proportional */
	uint64_t rotated;		/* proportional: the pairs j < rotated turn, the rest
					 * have frequency 0 (<= R/2) */
	uint64_t original_max;		/* L0; dynamic, yarn, llama3, longrope */
	uint64_t seq_len;		/* dynamic, longrope; 0: offset + n */
	double beta_fast, beta_slow;	/* yarn (32, 1) */
	double mscale, mscale_all_dim;	/* yarn; 0 = unset, as Python's truthiness */
	int truncate;			/* yarn (1) */
	double attention_factor;	/* NaN: derived from the rule above */
	double low_freq_factor;		/* llama3 (1) */
	double high_freq_factor;	/* llama3 (4) */
	const double *short_factor;	/* longrope, R/2 values (not copied) */
	const double *long_factor;
	size_t nshort, nlong;
	struct pe_torch torch;		/* float32: which PyTorch kernels (core/torch32.h) */
	int polar;			/* float32: cos/sin as torch.polar(ones, freqs) gives
					 * them (Llama 4, DeepSeek-V2): glibc's cosf/sinf of
					 * each angle, not Tensor.cos()/.sin() */
};

struct pe_rope;

/* A tensor's view of one table. */
struct pe_rope_view {
	const struct pe_rope *rope;
	enum pe_rope_table table;
};

struct pe_rope {
	struct pe_rope_params p;
	size_t nfreq;			/* R / 2 */
	float *inv32;			/* float32 inv_freq: emulated, or exact rounded */
	struct pe_freq *freq;		/* the exact inv_freq, prepared (core/angle.h) */
	unsigned char *region;		/* per frequency: its enum pe_rope_region */
	struct pe_steps steps;		/* exact mode: the step kernel's tables
					 * (core/angle.h), steps.t NULL when not used */
	double attention;		/* resolved attention factor */
	float attention32;		/* (float)attention, float32 mode */
	uint64_t seq_len;		/* resolved (dynamic, longrope) */
	double dynamic_theta;		/* dynamic: the rescaled base (float32 beyond L0:
					 * the forward's float32 base) */
	float dynamic_theta32;		/* dynamic, float32: the base torch.pow takes */
	double yarn_low, yarn_high;	/* yarn: the correction range used */
	float *div32;			/* llama3: llama.cpp's rope_freqs, float32 */
	double *div64;			/* and correctly rounded to double (exact mode) */
	int use_long;			/* longrope: long factors chosen */
	int llama3_unordered;		/* llama3: high_freq_factor <= low_freq_factor, which
					 * transformers computes with a warning */
	struct pe_rope_view view[PE_ROPE_NTABLES];
};

/* Defaults: theta 10000, no scaling, half layout, exact, beta 32/1,
 * truncate, attention NaN, llama3 factors 8/1/4 with L0 8192 (the values
 * of Llama 3.1), everything else 0. */
void pe_rope_defaults(struct pe_rope_params *p);

/* YaRN's g(s, m) = 1 if s <= 1 else 0.1 m ln s + 1 (transformers'
 * get_mscale / yarn_get_mscale), in double: the attention factor's terms,
 * and squared the softmax scale DeepSeek's attention multiplies by. */
double pe_rope_yarn_mscale(double s, double m);

const char *pe_rope_scaling_name(enum pe_rope_scaling s);
/* By name ("none", "default" (= none), "linear", ...); -1 if unknown. */
int pe_rope_scaling_by_name(const char *name);

/* Validate and compute the frequencies.  PE_ERR_PARAM for inconsistent
 * parameters (the message names them as {theta}, ...: see core/err.h). */
int pe_rope_init(struct pe_rope *r, const struct pe_rope_params *p, struct pe_error *err);
void pe_rope_free(struct pe_rope *r);

/* A tensor reading one table of r: names rope_cos, rope_sin, rope_inv_freq,
 * rope_angles and the engines' names above; parallel.  The gguf tables
 * are for llama3 (FREQS) and longrope (LONG, SHORT) only: PE_ERR_PARAM
 * otherwise. */
int pe_rope_tensor(struct pe_rope *r, enum pe_rope_table table, struct pe_tensor *t,
		   struct pe_error *err);

/* One value of the exact cos (want_cos) or sin table: attention * cos or
 * sin of pos * inv_j, correctly rounded to float32, for a position within
 * those r was made for (offset .. offset + positions - 1) and j < R/2; any
 * precision (the exact frequencies are always prepared).  Thread-safe. */
float pe_rope_exact(const struct pe_rope *r, size_t j, int64_t pos, int want_cos);


#endif
