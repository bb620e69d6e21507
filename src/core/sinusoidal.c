#include "core/sinusoidal.h"

#include "core/parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pe_sin_preset_names[] = { "vaswani", "t2t", "fairseq", "marian", NULL };

int pe_sin_preset_by_name(const char *name)
{
	return pe_name_index(pe_sin_preset_names, name);
}

const char *pe_sin_preset_name(enum pe_sin_preset p)
{
	return pe_sin_preset_names[p];
}

void pe_sinusoidal_defaults(struct pe_sinusoidal_params *p, enum pe_sin_preset preset)
{
	memset(p, 0, sizeof *p);
	p->preset = preset;
	p->layout = PE_LAYOUT_DEFAULT;
	p->positions = 512;
	p->dim = 768;
	p->base = 10000.0;
	p->min_timescale = 1.0;
	p->max_timescale = 10000.0;
	p->padding_idx = -1;
	pe_torch_defaults(&p->torch);
}

double pe_sinusoidal_freq(const struct pe_sinusoidal *s, size_t k)
{
	return s->freq[k].f;
}

/* Frequency k is a q^k for every preset:
 *   vaswani, marian  base^(-2k/D)                  a = 1, q = e^(-2 ln(base) / D)
 *   t2t              min e^(-k ln(max/min) / g)     a = min, q = e^(-(ln max - ln min) / g),
 *                                                  g = max(h - 1, 1)
 *   fairseq          e^(-k ln(base) / (h - 1))     a = 1, q = e^(-ln(base) / (h - 1))
 * with h = floor(D/2); the exact real numbers, to 2^-240 (core/mp.h). */
static void freq_series(const struct pe_sinusoidal_params *p, struct pe_mp *a, struct pe_mp *q)
{
	uint64_t h = p->dim / 2;
	struct pe_mp t;

	pe_mp_set_d(a, 1.0);
	switch (p->preset) {
	case PE_SIN_T2T:
		pe_mp_set_d(a, p->min_timescale);
		pe_mp_log(q, a);
		pe_mp_set_d(&t, p->max_timescale);
		pe_mp_log(&t, &t);
		pe_mp_sub(q, q, &t);
		pe_mp_div_u64(q, q, h > 2 ? h - 1 : 1);
		break;
	case PE_SIN_FAIRSEQ:
		pe_mp_set_d(&t, p->base);
		pe_mp_log(q, &t);
		q->sign = -q->sign;
		pe_mp_div_u64(q, q, h - 1);
		break;
	case PE_SIN_VASWANI:
	case PE_SIN_MARIAN:
		pe_mp_set_d(&t, p->base);
		pe_mp_log(q, &t);
		q->sign = -q->sign;
		pe_mp_mul_2exp(q, q, 1);
		pe_mp_div_u64(q, q, p->dim);
		break;
	}
	pe_mp_exp(q, q);
}

static float f32_at(const void *ctx, uint64_t g)
{
	return ((const float *)ctx)[g];
}

int pe_sinusoidal_init(struct pe_sinusoidal *s, const struct pe_sinusoidal_params *p,
		       struct pe_error *err)
{
	int64_t first, last;
	struct pe_mp f, q;
	size_t k;
	int bits;
	long double fmax = 0;

	memset(s, 0, sizeof *s);
	s->p = *p;
	if (p->positions == 0 || p->dim == 0)
		return pe_fail(err, PE_ERR_PARAM, "positions and dim must be positive");
	if (!(p->base > 0) || !isfinite(p->base))
		return pe_fail(err, PE_ERR_PARAM, "{base} must be a positive number");
	if (p->preset == PE_SIN_T2T &&
	    (!(p->min_timescale > 0) || !(p->max_timescale > 0) ||
	     !isfinite(p->min_timescale) || !isfinite(p->max_timescale)))
		return pe_fail(err, PE_ERR_PARAM, "timescales must be positive numbers");
	if (p->preset == PE_SIN_FAIRSEQ && p->dim / 2 < 2)
		return pe_fail(err, PE_ERR_PARAM,
			       "the fairseq preset needs {dim} 4 or more (it divides by dim/2 - 1), got %llu",
			       (unsigned long long)p->dim);
	if (p->padding_idx >= 0 && p->offset != 0)
		return pe_fail(err, PE_ERR_PARAM, "{padding_idx} cannot be combined with {offset}");
	if (p->float32 && !((p->preset == PE_SIN_VASWANI && p->layout != PE_LAYOUT_HALF &&
			     p->dim % 2 == 0) ||
			    (p->preset == PE_SIN_FAIRSEQ && p->layout != PE_LAYOUT_INTERLEAVED)))
		return pe_fail(err, PE_ERR_PARAM,
			       "the float32 pipelines are the PyTorch tutorial's (vaswani, interleaved, even {dim}) and fairseq's (half)");
	if (p->positions > INT64_MAX / 2 || (uint64_t)(p->padding_idx < 0 ? 0 : p->padding_idx) >
						    (uint64_t)INT64_MAX / 2)
		return pe_fail(err, PE_ERR_PARAM, "table too large to address");

	s->layout = p->layout;
	if (s->layout == PE_LAYOUT_DEFAULT)
		s->layout = p->preset == PE_SIN_VASWANI ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
	if (p->preset == PE_SIN_VASWANI || p->preset == PE_SIN_MARIAN) {
		s->nsin = (size_t)((p->dim + 1) / 2);
		s->ncos = (size_t)(p->dim / 2);
	} else {
		s->nsin = s->ncos = (size_t)(p->dim / 2);
	}
	s->nfreq = s->nsin;

	if (p->padding_idx >= 0) {
		s->rows = p->positions + (uint64_t)p->padding_idx + 1;
		first = 0;
		last = (int64_t)s->rows - 1;
	} else {
		s->rows = p->positions;
		first = p->offset;
		if (p->offset > INT64_MAX - (int64_t)p->positions)
			return pe_fail(err, PE_ERR_PARAM, "{offset} plus {positions} overflows");
		last = p->offset + (int64_t)p->positions - 1;
	}
	if ((double)(first < 0 ? -first : first) > 9007199254740992.0 ||
	    (double)(last < 0 ? -last : last) > 9007199254740992.0)
		return pe_fail(err, PE_ERR_PARAM, "positions must stay within +-2^53");
	bits = pe_angle_bits(first, last);
	s->freq = malloc((s->nfreq ? s->nfreq : 1) * sizeof *s->freq);
	if (!s->freq)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (p->float32) {
		/* the exponents as torch rounds them: c a Python float cast to
		 * float32, times arange's values in float32 */
		float c = p->preset == PE_SIN_FAIRSEQ
				  ? (float)-(log(p->base) / (double)(s->nfreq - 1))
				  : (float)(-log(p->base) / (double)p->dim);

		if (pe_torch_check(&p->torch, err) != 0)
			return -1;
		s->div32 = malloc((s->nfreq ? s->nfreq : 1) * sizeof *s->div32);
		if (!s->div32)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		for (k = 0; k < s->nfreq; k++)
			s->div32[k] = (float)(p->preset == PE_SIN_FAIRSEQ ? k : 2 * k) * c;
		pe_torch_unary(&p->torch, PE_TORCH_EXP, f32_at, s->div32, s->nfreq, 0, s->nfreq,
			       s->div32);
	}
	/* the step kernel's tables: 2 PE_STEP doubles per frequency, 32 MiB at
	 * most (beyond that, one sincos per value) */
	if (!p->float32 && s->nfreq <= ((size_t)1 << 15) && pe_steps_alloc(&s->steps, s->nfreq) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	freq_series(p, &f, &q);
	for (k = 0; k < s->nfreq; k++) {
		pe_freq_init(&s->freq[k], &f, bits);
		if (s->steps.t)
			pe_steps_set(&s->steps, k, &f, &s->freq[k], 1.0);
		pe_mp_mul(&f, &f, &q);
		if (!(s->freq[k].f <= fmax))
			fmax = s->freq[k].f;
		if (s->div32 && !((long double)s->div32[k] <= fmax))
			fmax = (long double)s->div32[k];
	}
	if (!(pe_angle_max(fmax, first, last) <= PE_ANGLE_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "%s %g gives frequencies up to %.3g and angles beyond 2^53 at position %lld (where they are no longer exact): %s or lower the positions",
			       p->preset == PE_SIN_T2T ? "{min_timescale}" : "{base}",
			       p->preset == PE_SIN_T2T ? p->min_timescale : p->base, (double)fmax,
			       (long long)(-first > last ? first : last),
			       p->preset == PE_SIN_T2T ? "lower {min_timescale}"
						       : "raise {base}");
	return 0;
}

void pe_sinusoidal_free(struct pe_sinusoidal *s)
{
	free(s->freq);
	free(s->div32);
	pe_steps_free(&s->steps);
	s->freq = NULL;
	s->div32 = NULL;
}

static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

int pe_sinusoidal_tensor(const struct pe_sinusoidal *s, struct pe_tensor *t,
			 struct pe_error *err)
{
	uint64_t shape[2] = { s->rows, s->p.dim };

	if (pe_tensor_init(t, "sinusoidal", PE_F32, pe_sinusoidal_fill, s, 1, 2, shape, err) != 0)
		return -1;
	/* float32 recipes: the emulated values are the result */
	t->f32_exact = s->div32 != NULL;
	t->fill64 = s->div32 ? NULL : fill64;
	return 0;
}

/* sin and cos values into a row, interleaved or half */
PE_VECTOR_KERNEL
static void put_row(float *row, const float *fs, const float *fc, size_t nsin, size_t ncos,
		    int interleaved)
{
	size_t k;

	if (interleaved) {
		for (k = 0; k < ncos; k++) {
			row[2 * k] = fs[k];
			row[2 * k + 1] = fc[k];
		}
		if (nsin > ncos)
			row[2 * ncos] = fs[ncos];
	} else {
		memcpy(row, fs, nsin * sizeof *row);
		memcpy(row + nsin, fc, ncos * sizeof *row);
	}
}

/* Rows [r0, r0 + nrows) by the step kernel (pe_steps_rows): one exact
 * angle per PE_STEP rows and frequency, the rest by the addition formulas,
 * every value correctly rounded.  A padding row is zeroed afterwards. */
struct step_out {
	const struct pe_sinusoidal *s;
	float *out;
};

static void step_row(void *ctx, size_t i, const float *fs, const float *fc)
{
	const struct step_out *o = ctx;
	const struct pe_sinusoidal *s = o->s;
	size_t dim = (size_t)s->p.dim;
	float *row = o->out + i * dim;

	put_row(row, fs, fc, s->nsin, s->ncos, s->layout == PE_LAYOUT_INTERLEAVED);
	/* zero tail: t2t/fairseq with odd D */
	memset(row + s->nsin + s->ncos, 0, (dim - s->nsin - s->ncos) * sizeof *row);
}

static int fill_steps(const struct pe_sinusoidal *s, uint64_t r0, size_t nrows, float *out,
		      struct pe_error *err)
{
	size_t dim = (size_t)s->p.dim;
	int64_t first = s->p.padding_idx >= 0 ? 0 : s->p.offset;
	struct step_out o = { s, out };

	if (pe_steps_rows(&s->steps, s->freq, first + (int64_t)r0, nrows, step_row, &o, err) != 0)
		return -1;
	if (s->p.padding_idx >= 0 && (uint64_t)s->p.padding_idx >= r0 &&
	    (uint64_t)s->p.padding_idx - r0 < nrows)
		memset(out + ((uint64_t)s->p.padding_idx - r0) * dim, 0, dim * sizeof *out);
	return 0;
}

/* element g of the float32 angle tensor, rows x nfreq: fl(fl(p) div_k) */
static float f32_angle(const void *ctx, uint64_t g)
{
	const struct pe_sinusoidal *s = ctx;
	uint64_t r = g / s->nfreq;
	int64_t pos = s->p.padding_idx >= 0 ? (int64_t)r : s->p.offset + (int64_t)r;

	return (float)pos * s->div32[g % s->nfreq];
}

/* float32 rows [r0, r0 + nrows): torch's sin and cos of the angle tensor */
static int fill_f32(const struct pe_sinusoidal *s, uint64_t r0, size_t nrows, float *out,
		    struct pe_error *err)
{
	size_t dim = (size_t)s->p.dim, n = s->nfreq, r;
	uint64_t total = s->rows * n;
	float *fs = malloc(2 * (n ? n : 1) * sizeof *fs), *fc = fs + n, *row;

	if (!fs)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (r = 0; r < nrows; r++) {
		row = out + r * dim;
		pe_torch_unary(&s->p.torch, PE_TORCH_SIN, f32_angle, s, total, (r0 + r) * n, n, fs);
		pe_torch_unary(&s->p.torch, PE_TORCH_COS, f32_angle, s, total, (r0 + r) * n, n, fc);
		put_row(row, fs, fc, n, n, s->layout == PE_LAYOUT_INTERLEAVED);
		memset(row + 2 * n, 0, (dim - 2 * n) * sizeof *row);
		if (s->p.padding_idx >= 0 && r0 + r == (uint64_t)s->p.padding_idx)
			memset(row, 0, dim * sizeof *row);
	}
	free(fs);
	return 0;
}

int pe_sinusoidal_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		       struct pe_error *err)
{
	const struct pe_sinusoidal *s = ctx;
	size_t dim = (size_t)s->p.dim, r, k;
	float *row, fs, fc;
	int64_t pos;
	double sv, cv;

	if (s->div32)
		return fill_f32(s, r0, nrows, out, err);
	if (s->steps.t)
		return fill_steps(s, r0, nrows, out, err);
	for (r = 0; r < nrows; r++) {
		row = (float *)out + r * dim;
		if (s->p.padding_idx >= 0) {
			pos = (int64_t)(r0 + r);
			if (pos == s->p.padding_idx) {
				memset(row, 0, dim * sizeof *row);
				continue;
			}
		} else {
			pos = s->p.offset + (int64_t)(r0 + r);
		}
		/* zero tail first: t2t/fairseq with odd D */
		memset(row + s->nsin + s->ncos, 0, (dim - s->nsin - s->ncos) * sizeof *row);
		for (k = 0; k < s->nfreq; k++) {
			const struct pe_freq *fr = &s->freq[k];

			/* correctly rounded: the rare value pe_f32_sure leaves
			 * open is recomputed exactly (core/angle.h) */
			pe_sincos_pf(fr, pos, &sv, &cv);
			if (!pe_f32_sure(sv, fr->e32, &fs) && !pe_sincos_sure_fine(fr, sv, 1.0, &fs))
				fs = pe_sincos_pf_f32(fr, pos, 0, 1.0);
			if (!pe_f32_sure(cv, fr->e32, &fc) && !pe_sincos_sure_fine(fr, cv, 1.0, &fc) &&
			    k < s->ncos)
				fc = pe_sincos_pf_f32(fr, pos, 1, 1.0);
			if (s->layout == PE_LAYOUT_INTERLEAVED) {
				row[2 * k] = fs;
				if (k < s->ncos)
					row[2 * k + 1] = fc;
			} else {
				row[k] = fs;
				if (k < s->ncos)
					row[s->nsin + k] = fc;
			}
		}
	}
	return 0;
}

/* The exact table's values correctly rounded to double (core/angle.h). */
static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_sinusoidal *s = ctx;
	size_t dim = (size_t)s->p.dim, r, k;
	int inter = s->layout == PE_LAYOUT_INTERLEAVED;
	double *row;
	int64_t pos;

	(void)err;
	for (r = 0; r < nrows; r++) {
		row = (double *)out + r * dim;
		memset(row, 0, dim * sizeof *row);	/* the zero tail, a padding row */
		if (s->p.padding_idx >= 0) {
			pos = (int64_t)(r0 + r);
			if (pos == s->p.padding_idx)
				continue;
		} else {
			pos = s->p.offset + (int64_t)(r0 + r);
		}
		for (k = 0; k < s->nfreq; k++) {
			row[inter ? 2 * k : k] = pe_sincos_pf_f64(&s->freq[k], pos, 0, 1.0);
			if (k < s->ncos)
				row[inter ? 2 * k + 1 : s->nsin + k] =
					pe_sincos_pf_f64(&s->freq[k], pos, 1, 1.0);
		}
	}
	return 0;
}
