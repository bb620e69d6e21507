#include "core/learned.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "core/parse.h"
#include "core/rng.h"

const char *const pe_learned_init_names[] = { "normal", "trunc-normal", "uniform", NULL };
const char *const pe_learned_preset_names[] = { "gpt2", "bert", "fairseq", "scaled", NULL };

int pe_init_by_name(const char *name)
{
	return pe_name_index(pe_learned_init_names, name);
}

const char *pe_init_name(enum pe_init i)
{
	return pe_learned_init_names[i];
}

int pe_learned_preset_by_name(const char *name)
{
	return pe_name_index(pe_learned_preset_names, name);
}

const char *pe_learned_preset_name(enum pe_learned_preset p)
{
	return p == PE_LEARNED_NONE ? "none" : pe_learned_preset_names[p];
}

void pe_learned_apply_preset(struct pe_learned *l, enum pe_learned_preset p)
{
	switch (p) {
	case PE_LEARNED_GPT2:
		l->init = PE_INIT_NORMAL;
		l->std = 0.02;
		break;
	case PE_LEARNED_BERT:
		l->init = PE_INIT_TRUNC_NORMAL;
		l->std = 0.02;
		break;
	case PE_LEARNED_FAIRSEQ:
	case PE_LEARNED_SCALED:
		l->init = PE_INIT_NORMAL;
		l->std = 1.0 / sqrt((double)l->dim);
		break;
	case PE_LEARNED_NONE:
		break;
	}
}

/*
 * The largest |value| / std an init can draw.  Uniform: sqrt(3).  Truncated
 * normal: 2 (redrawn beyond).  Normal, by the polar method on uniforms that
 * are multiples of 2^-53: |z| = |x| sqrt(-2 ln s / s) with s = x^2 + y^2 is
 * largest when y = 0, where it is sqrt(-4 ln |x|) <= sqrt(4 * 52 ln 2) < 12.01.
 */
static double learned_max_draw(enum pe_init init)
{
	switch (init) {
	case PE_INIT_UNIFORM:
		return sqrt(3.0);
	case PE_INIT_TRUNC_NORMAL:
		return 2.0;
	case PE_INIT_NORMAL:
		break;
	}
	return 12.01;
}

/* x to 4 significant digits, rounded by f (floor or ceil): a limit shown in
 * a message must itself pass the check. */
static double digits4(double x, double (*f)(double))
{
	double unit = pow(10.0, floor(log10(x)) - 3);

	return f(x / unit) * unit;
}

int pe_learned_init(struct pe_learned *l, struct pe_error *err)
{
	double most;

	if (l->positions == 0 || l->dim == 0)
		return pe_fail(err, PE_ERR_PARAM, "positions and dim must be positive");
	if (!(l->std > 0) || !isfinite(l->std))
		return pe_fail(err, PE_ERR_PARAM, "{std} must be a positive number");
	/* Refused rather than written as inf, or as zeros and subnormals that
	 * carry none of the distribution. */
	most = (double)FLT_MAX / learned_max_draw(l->init);
	if (l->std > most)
		return pe_fail(err, PE_ERR_PARAM,
			       "{std} %g would overflow float32 (inf values): at most %.4g with {init} %s",
			       l->std, digits4(most, floor), pe_init_name(l->init));
	if (l->std < (double)FLT_MIN)
		return pe_fail(err, PE_ERR_PARAM,
			       "{std} %g is below float32's normal range: values would be zeros and subnormals (at least %.4g)",
			       l->std, digits4((double)FLT_MIN, ceil));
	if (l->dim > UINT32_MAX)
		return pe_fail(err, PE_ERR_PARAM, "{dim} too large");
	l->rows = l->positions;
	if (l->padding_idx >= 0) {
		if ((uint64_t)l->padding_idx > UINT64_MAX / 2 - l->positions)
			return pe_fail(err, PE_ERR_PARAM, "table too large to address");
		l->rows = l->positions + (uint64_t)l->padding_idx + 1;
	}
	return 0;
}

static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

int pe_learned_tensor(const struct pe_learned *l, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { l->rows, l->dim };

	if (pe_tensor_init(t, "learned", PE_F32, pe_learned_fill, l, 1, 2, shape, err) != 0)
		return -1;
	t->fill64 = fill64;	/* the doubles each float32 is rounded from */
	return 0;
}

/* Rows [r0, r0 + nrows) as float (wide 0) or as the doubles they are
 * rounded from (wide 1). */
static void fill_rows(const struct pe_learned *l, uint64_t r0, size_t nrows, void *out, int wide)
{
	size_t dim = (size_t)l->dim, r, c, m, i;
	uint64_t ri;
	double a = sqrt(3.0) * l->std, z[PE_RNG_RUN], v;

	for (r = 0; r < nrows; r++) {
		ri = r0 + r;
		if (l->padding_idx >= 0 && ri == (uint64_t)l->padding_idx) {
			memset((char *)out + r * dim * (wide ? 8 : 4), 0, dim * (wide ? 8 : 4));
			continue;
		}
		for (c = 0; c < dim; c += m) {
			m = dim - c < PE_RNG_RUN ? dim - c : PE_RNG_RUN;
			/* normal, trunc-normal: a run of columns at a time (core/rng.h) */
			if (l->init == PE_INIT_UNIFORM)
				pe_rng_uniform_run(l->seed, ri, (uint32_t)c, m, z);
			else
				pe_rng_normal_run(l->seed, ri, (uint32_t)c, m,
						  l->init == PE_INIT_TRUNC_NORMAL ? 2.0 : 0.0, z);
			for (i = 0; i < m; i++) {
				v = l->init == PE_INIT_UNIFORM ? (2.0 * z[i] - 1.0) * a : l->std * z[i];
				if (wide)
					((double *)out)[r * dim + c + i] = v;
				else
					((float *)out)[r * dim + c + i] = (float)v;
			}
		}
	}
}

int pe_learned_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		    struct pe_error *err)
{
	(void)err;
	fill_rows(ctx, r0, nrows, out, 0);
	return 0;
}

static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	(void)err;
	fill_rows(ctx, r0, nrows, out, 1);
	return 0;
}
