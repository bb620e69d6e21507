/*
 * sinusoidal.h - fixed sin/cos position tables (Vaswani et al. 2017 and the
 * conventions that followed it).  Formulas from the paper (section 3.5) and
 * each convention's reference code: tensor2tensor's get_timing_signal_1d,
 * fairseq's SinusoidalPositionalEmbedding.get_embedding, Marian's (as
 * transformers' MarianSinusoidalPositionalEmbedding builds it):
 *
 *   preset   frequency k                                   layout  odd D
 *   vaswani  base^(-2k/D), k < ceil(D/2)                    inter.  last column a sin
 *   marian   base^(-2k/D), sin block ceil(D/2) wide         half    sin block wider
 *   t2t      min_ts * exp(-k ln(max_ts/min_ts)/max(h-1,1))  half    zero last column
 *   fairseq  exp(-k ln(base)/(h-1)), h = floor(D/2) >= 2     half    zero last column
 *
 * (t2t multiplies by min_ts, as tensor2tensor's code does.)  interleaved:
 * column 2k = sin, 2k+1 = cos; half: [sin ... | cos ... | zero].  A layout
 * option may override the preset's.  Rows are positions offset..offset+n-1;
 * with a fairseq padding index P the table has n + P + 1 rows, row r holds
 * position r, and row P is zero, as fairseq builds it.
 *
 * Values are the correctly rounded float32 of the exact sin and cos: the
 * frequencies in 256-bit arithmetic, the angles exact, the rare value
 * near a rounding boundary recomputed (core/angle.h).
 *
 * float32 instead reproduces a PyTorch float32 pipeline with the bits of
 * PyTorch's CPU kernels (params.torch, core/torch32.h): vaswani
 * (interleaved) is the PyTorch tutorial's PositionalEncoding (what Wang &
 * Chen's sinusoid panel was made from): c = fl(-ln(base)/D), div_k =
 * exp(fl(2k c)), angle = fl(fl(p) div_k), sin and cos of the rows x D/2
 * angle tensor; fairseq (half) is fairseq's and transformers' (M2M100,
 * Speech2Text...) get_embedding: c = fl(-(ln(base)/(h-1))), div_k =
 * exp(fl(k c)), the same angles, [sin | cos | zero column for odd D], row P
 * zero with a padding index.  The angle tensor's first row is the table's.
 */
#ifndef PE_SINUSOIDAL_H
#define PE_SINUSOIDAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/angle.h"
#include "core/err.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "core/torch32.h"

enum pe_sin_preset { PE_SIN_VASWANI, PE_SIN_T2T, PE_SIN_FAIRSEQ, PE_SIN_MARIAN };

struct pe_sinusoidal_params {
	enum pe_sin_preset preset;
	enum pe_layout layout;		/* DEFAULT: the preset's own */
	uint64_t positions;		/* n >= 1 */
	uint64_t dim;			/* D >= 1 */
	int64_t offset;			/* first position */
	double base;			/* vaswani, marian, fairseq (10000) */
	double min_timescale;		/* t2t (1) */
	double max_timescale;		/* t2t (10000) */
	int64_t padding_idx;		/* fairseq padding row, or -1 */
	int float32;			/* vaswani, fairseq: PyTorch's float32 pipeline */
	struct pe_torch torch;		/* float32: which PyTorch kernels */
};

struct pe_sinusoidal {
	struct pe_sinusoidal_params p;
	enum pe_layout layout;		/* resolved */
	uint64_t rows;
	size_t nsin, ncos, nfreq;	/* sin columns, cos columns, frequencies */
	struct pe_freq *freq;		/* nfreq prepared frequencies */
	float *div32;			/* float32: the nfreq div_term values */
	struct pe_steps steps;		/* the step kernel's tables (core/angle.h);
					 * steps.t NULL: one sincos per value */
};

/* The preset names in enum order, NULL-terminated. */
extern const char *const pe_sin_preset_names[];

/* Presets by name ("vaswani", "t2t", "fairseq", "marian"); -1 if unknown. */
int pe_sin_preset_by_name(const char *name);
const char *pe_sin_preset_name(enum pe_sin_preset p);

/* Fill params with the defaults of a preset. */
void pe_sinusoidal_defaults(struct pe_sinusoidal_params *p, enum pe_sin_preset preset);

/* Validate and prepare; PE_ERR_PARAM for inconsistent parameters. */
int pe_sinusoidal_init(struct pe_sinusoidal *s, const struct pe_sinusoidal_params *p,
		       struct pe_error *err);
void pe_sinusoidal_free(struct pe_sinusoidal *s);

/* Frequency k of an initialised table, rounded to double. */
double pe_sinusoidal_freq(const struct pe_sinusoidal *s, size_t k);

/* A tensor (name "sinusoidal", rows x D, float32, parallel) reading s. */
int pe_sinusoidal_tensor(const struct pe_sinusoidal *s, struct pe_tensor *t,
			 struct pe_error *err);

/* pe_fill_fn for a struct pe_sinusoidal. */
int pe_sinusoidal_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		       struct pe_error *err);

#endif
