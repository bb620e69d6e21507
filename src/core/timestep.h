/*
 * timestep.h - diffusion timestep embeddings: diffusers'
 * get_timestep_embedding (models/embeddings.py, the DDPM convention of Ho
 * et al. 2020) and the models that call it through their Timesteps module.
 *
 * Timestep t (one row each), D columns, h = floor(D/2) frequencies:
 *
 *   t'   = r(r(t) * F)          the model's own step before the embedding:
 *                               r rounds to the timestep's dtype (FLUX:
 *                               bfloat16, t * 1000); F = 1 skips it
 *   f_k  = exp(-k ln(P) / (h - s)),  k < h      P max_period, s the shift
 *   a_k  = c t' f_k                             c the scale
 *   row  = [sin a | cos a] (flip: [cos a | sin a]), odd D: a zero column
 *
 * Exact (the default): the correctly rounded float32 of the value above,
 * with t' as that step gives it (a double: the timestep dtype float64
 * keeps it whole).  The angle is the integer m = t' 2^-E (E from t''s
 * binade, so m < 2^53) times the frequency c f_k 2^E, computed once per
 * binade in 256-bit arithmetic: core/angle.h's machinery for integer
 * positions then gives every value correctly rounded.
 *
 * float32: diffusers' float32 pipeline with the bits of PyTorch's CPU
 * kernels (core/torch32.h), step by step as its code runs:
 *   e_k  = fl(fl(-ln P) k)                  -math.log(P) * arange(h, f32)
 *   e_k  = fl(e_k / fl(h - s))              / (half_dim - shift)
 *   f_k  = torch.exp(e)                     a tensor of h elements
 *   a    = fl(fl(fl32(t') f_k) fl(c))       timesteps[:, None].float() * f,
 *                                           then scale * emb
 *   sin, cos of the n x h angle tensor      torch.sin / torch.cos
 *
 * Timesteps: a caller's array of n values, or the range start + i step
 * (i < n) computed in double.
 */
#ifndef PE_TIMESTEP_H
#define PE_TIMESTEP_H

#include <stddef.h>
#include <stdint.h>

#include "core/angle.h"
#include "core/dtype.h"
#include "core/err.h"
#include "core/mp.h"
#include "core/tensor.h"
#include "core/torch32.h"

/* The model presets, in --preset's order. */
enum pe_ts_preset {
	PE_TS_DDPM,	/* get_timestep_embedding's defaults: [sin|cos], shift 1 */
	PE_TS_SD,	/* Stable Diffusion 1/2/XL UNet2DConditionModel: 320, flip, shift 0 */
	PE_TS_DIT,	/* DiT (CombinedTimestepLabelEmbeddings): 256, flip, shift 1 */
	PE_TS_PIXART,	/* PixArt-alpha/sigma: 256, flip, shift 0 */
	PE_TS_SD3,	/* SD3 (CombinedTimestepTextProjEmbeddings): 256, flip, shift 0 */
	PE_TS_FLUX,	/* FLUX.1: 256, flip, shift 0, t' = bf16(bf16(t) * 1000) */
	PE_TS_WAN,	/* Wan 2.1/2.2: 256, flip, shift 0 */
	PE_TS_AURAFLOW,	/* AuraFlow: 256, flip, shift 0, scale 1000 */
	PE_TS_QWEN_IMAGE	/* Qwen-Image: AuraFlow's, t rounded to bfloat16 first */
};

struct pe_timestep_params {
	enum pe_ts_preset preset;
	uint64_t dim;			/* D >= 1 */
	uint64_t n;			/* timesteps (rows) >= 1 */
	const double *t;		/* n timesteps (caller's, outlives the table),
					 * or NULL: start + i step */
	double start, step;
	int flip;			/* flip_sin_to_cos: [cos | sin] */
	double shift;			/* downscale_freq_shift s */
	double scale;			/* c */
	double max_period;		/* P > 0 */
	double time_factor;		/* F */
	enum pe_store tdtype;		/* the timestep's dtype before the embedding */
	int float32;			/* diffusers' float32 pipeline */
	struct pe_torch torch;		/* float32: which PyTorch kernels */
};

struct pe_timestep {
	struct pe_timestep_params p;
	size_t half;			/* h */
	struct pe_mp *freq;		/* h frequencies |c| f_k, exact */
	float *f32;			/* float32: the h values of torch.exp */
	float scale32;			/* float32: fl(c) */
	/* exact, timesteps start + i that the model's step leaves whole
	 * (integers, step 1, c > 0): sinusoidal's step kernel, positions
	 * start + i at frequencies c f_k (core/angle.h) */
	struct pe_freq *pf;		/* NULL when not */
	struct pe_steps steps;
};

/* The preset names in enum order, NULL-terminated. */
extern const char *const pe_ts_preset_names[];

/* Fill params with a preset's values (dim included; t NULL, the range
 * 0, 1, ... of 1000 timesteps). */
void pe_timestep_defaults(struct pe_timestep_params *p, enum pe_ts_preset preset);

/* Timestep i as the model gives it to the embedding: t' above, a double
 * (for float32, the value `.float()` rounds). */
double pe_timestep_input(const struct pe_timestep_params *p, uint64_t i);

/* Validate and prepare; PE_ERR_PARAM for inconsistent parameters (a shift
 * that makes h - s zero, angles beyond 2^53, a non-positive max_period). */
int pe_timestep_init(struct pe_timestep *s, const struct pe_timestep_params *p,
		     struct pe_error *err);
void pe_timestep_free(struct pe_timestep *s);

/* A tensor (name "timestep", n x D, float32, parallel) reading s. */
int pe_timestep_tensor(const struct pe_timestep *s, struct pe_tensor *t, struct pe_error *err);

/* pe_fill_fn for a struct pe_timestep. */
int pe_timestep_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

#endif
