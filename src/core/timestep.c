#include "core/timestep.h"

#include "core/angle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pe_ts_preset_names[] = { "ddpm", "sd",   "dit",      "pixart",     "sd3",
					   "flux", "wan",  "auraflow", "qwen-image", NULL };

/* What each model's Timesteps module is built with (diffusers 0.42):
 * dim, flip_sin_to_cos, downscale_freq_shift, scale; and what its forward
 * does to the timestep first (the dtype it holds it in, the factor). */
static const struct {
	uint64_t dim;
	int flip;
	double shift, scale, factor;
	enum pe_store tdtype;
} presets[] = {
	[PE_TS_DDPM] = { 128, 0, 1, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_SD] = { 320, 1, 0, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_DIT] = { 256, 1, 1, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_PIXART] = { 256, 1, 0, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_SD3] = { 256, 1, 0, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_FLUX] = { 256, 1, 0, 1, 1000, PE_STORE_BFLOAT16 },
	[PE_TS_WAN] = { 256, 1, 0, 1, 1, PE_STORE_FLOAT32 },
	[PE_TS_AURAFLOW] = { 256, 1, 0, 1000, 1, PE_STORE_FLOAT32 },
	[PE_TS_QWEN_IMAGE] = { 256, 1, 0, 1000, 1, PE_STORE_BFLOAT16 },
};

void pe_timestep_defaults(struct pe_timestep_params *p, enum pe_ts_preset preset)
{
	memset(p, 0, sizeof *p);
	p->preset = preset;
	p->dim = presets[preset].dim;
	p->flip = presets[preset].flip;
	p->shift = presets[preset].shift;
	p->scale = presets[preset].scale;
	p->time_factor = presets[preset].factor;
	p->tdtype = presets[preset].tdtype;
	p->max_period = 10000;
	p->n = 1000;
	p->start = 0;
	p->step = 1;
	pe_torch_defaults(&p->torch);
}

/* x rounded to the dtype d (as a double, exact there) */
static double round_to(enum pe_store d, double x)
{
	switch (d) {
	case PE_STORE_FLOAT32:
		return (double)(float)x;
	case PE_STORE_FLOAT16:
		return pe_round_f16(x);
	case PE_STORE_BFLOAT16:
		return pe_round_bf16(x);
	case PE_STORE_FLOAT64:
		break;
	}
	return x;
}

/* t * F as PyTorch multiplies a tensor of dtype d by a Python number: in
 * double for float64; in float32 for float32, and for the half types
 * (their opmath is float32: t and fl(F) multiplied in float, the product
 * rounded to the type) */
double pe_timestep_input(const struct pe_timestep_params *p, uint64_t i)
{
	double t = p->t ? p->t[i] : p->start + (double)i * p->step;

	t = round_to(p->tdtype, t);
	if (p->time_factor != 1.0) {
		if (p->tdtype == PE_STORE_FLOAT64)
			t *= p->time_factor;
		else
			t = round_to(p->tdtype, (double)((float)t * (float)p->time_factor));
	}
	return t;
}

static float f32_at(const void *ctx, uint64_t g)
{
	return ((const float *)ctx)[g];
}

/* largest |t'| over the timesteps, or inf/NaN when one is not finite: an
 * array is scanned; a range's ends are its extremes (rounding to a dtype
 * and multiplying by F keep the order) */
static double max_input(const struct pe_timestep_params *p, uint64_t *where)
{
	double m = 0, v;
	uint64_t i;

	*where = 0;
	if (!p->t) {
		v = fabs(pe_timestep_input(p, 0));
		m = fabs(pe_timestep_input(p, p->n - 1));
		*where = isfinite(v) && !(v > m) ? p->n - 1 : 0;
		return isfinite(v) && isfinite(m) ? fmax(v, m) : (double)INFINITY;
	}
	for (i = 0; i < p->n; i++) {
		v = fabs(pe_timestep_input(p, i));
		if (!isfinite(v)) {
			*where = i;
			return v;
		}
		if (v > m) {
			m = v;
			*where = i;
		}
	}
	return m;
}

/* Are the timesteps the integers start + i, whole after the model's step
 * (the dtype holds them, F = 1), with c > 0? */
static int integer_range(const struct pe_timestep_params *p)
{
	static const double whole[] = { 0x1p24, 0x1p11, 0x1p8, 0x1p53 };	/* pe_store order */
	double last = p->start + (double)(p->n - 1);

	return !p->t && p->step == 1.0 && p->start == trunc(p->start) && p->time_factor == 1.0 &&
	       p->scale > 0 && fabs(p->start) <= whole[p->tdtype] && fabs(last) <= whole[p->tdtype];
}

/* the step kernel's tables, as sinusoidal's (PE_STEP doubles twice per
 * frequency; 32 MiB at most, beyond that none) */
static int prepare_steps(struct pe_timestep *s)
{
	int64_t first = (int64_t)s->p.start, last = first + (int64_t)(s->p.n - 1);
	int bits = pe_angle_bits(first, last);
	size_t k;

	if (s->half == 0 || s->half > ((size_t)1 << 15))
		return 0;
	s->pf = malloc(s->half * sizeof *s->pf);
	if (!s->pf || pe_steps_alloc(&s->steps, s->half) != 0)
		return -1;
	for (k = 0; k < s->half; k++) {
		pe_freq_init(&s->pf[k], &s->freq[k], bits);
		pe_steps_set(&s->steps, k, &s->freq[k], &s->pf[k], 1.0);
	}
	return 0;
}

int pe_timestep_init(struct pe_timestep *s, const struct pe_timestep_params *p,
		     struct pe_error *err)
{
	struct pe_mp f, q, t;
	double den, x, fbig = 0, tmax;
	uint64_t where;
	size_t k;

	memset(s, 0, sizeof *s);
	s->p = *p;
	if (p->dim == 0 || p->n == 0)
		return pe_fail(err, PE_ERR_PARAM, "timesteps and dim must be positive");
	if (!(p->max_period > 0) || !isfinite(p->max_period))
		return pe_fail(err, PE_ERR_PARAM, "{max_period} must be a positive number");
	if (!isfinite(p->scale) || !isfinite(p->shift) || !isfinite(p->time_factor))
		return pe_fail(err, PE_ERR_PARAM, "{scale}, {freq_shift} and {time_factor} must be finite");
	s->half = (size_t)(p->dim / 2);
	den = (double)s->half - p->shift;
	if (s->half > 0 && den == 0)
		return pe_fail(err, PE_ERR_PARAM,
			       "{freq_shift} %g with {dim} %llu divides by half_dim - freq_shift = 0 (diffusers gives NaN)",
			       p->shift, (unsigned long long)p->dim);
	/* the exponent of the last frequency: e^(x (h - 1)) must be a double */
	x = -log(p->max_period) / den;
	if (s->half > 1 && !(fabs(x * (double)(s->half - 1)) <= 700))
		return pe_fail(err, PE_ERR_PARAM,
			       "{max_period} %g with {freq_shift} %g makes frequencies of e^%.3g, beyond double",
			       p->max_period, p->shift, x * (double)(s->half - 1));
	tmax = max_input(p, &where);
	if (!isfinite(tmax))
		return pe_fail(err, PE_ERR_PARAM,
			       "timestep %g (row %llu) becomes %g in the model's own step ({timestep_dtype} %s, {time_factor} %g)",
			       p->t ? p->t[where] : p->start + (double)where * p->step, (unsigned long long)where,
			       pe_timestep_input(p, where), pe_store_names[p->tdtype], p->time_factor);

	s->freq = malloc((s->half ? s->half : 1) * sizeof *s->freq);
	if (!s->freq)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	/* f_k = |c| q^k, q = e^(-ln P / (h - s)), to 2^-240 (core/mp.h) */
	pe_mp_set_d(&t, p->max_period);
	pe_mp_log(&q, &t);
	q.sign = -q.sign;
	pe_mp_set_u64(&t, s->half);
	pe_mp_set_d(&f, p->shift);
	pe_mp_sub(&t, &t, &f);
	if (s->half > 0)
		pe_mp_div(&q, &q, &t);
	pe_mp_exp(&q, &q);
	pe_mp_set_d(&f, fabs(p->scale));
	for (k = 0; k < s->half; k++) {
		s->freq[k] = f;
		fbig = fmax(fbig, pe_mp_to_d(&f));
		pe_mp_mul(&f, &f, &q);
	}
	if (!((long double)tmax * fbig <= PE_ANGLE_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "timestep %g (after the model's step) times frequency %.3g is an angle beyond 2^53, where sin and cos are no longer meaningful",
			       tmax, fbig);
	if (!p->float32 && integer_range(p) && prepare_steps(s) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (p->float32) {
		float c = (float)-log(p->max_period), d = (float)den;
		float *e;

		if (pe_torch_check(&p->torch, err) != 0)
			return -1;
		s->f32 = malloc((s->half ? s->half : 1) * sizeof *s->f32);
		e = malloc((s->half ? s->half : 1) * sizeof *e);
		if (!s->f32 || !e) {
			free(e);
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		}
		for (k = 0; k < s->half; k++) {
			e[k] = c * (float)k;
			e[k] = e[k] / d;
		}
		pe_torch_unary(&p->torch, PE_TORCH_EXP, f32_at, e, s->half, 0, s->half, s->f32);
		free(e);
		s->scale32 = (float)p->scale;
	}
	return 0;
}

void pe_timestep_free(struct pe_timestep *s)
{
	free(s->freq);
	free(s->f32);
	free(s->pf);
	pe_steps_free(&s->steps);
	s->freq = NULL;
	s->f32 = NULL;
	s->pf = NULL;
}

int pe_timestep_tensor(const struct pe_timestep *s, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { s->p.n, s->p.dim };

	return pe_tensor_init(t, "timestep", PE_F32, pe_timestep_fill, s, 1, 2, shape, err);
}

/* sin and cos halves into a row: [sin | cos] or flipped, zero tail */
static void put_row(const struct pe_timestep *s, float *row, const float *fs, const float *fc)
{
	size_t h = s->half;

	memcpy(row, s->p.flip ? fc : fs, h * sizeof *row);
	memcpy(row + h, s->p.flip ? fs : fc, h * sizeof *row);
	if (s->p.dim % 2)
		row[2 * h] = 0.0f;
}

/* element g of the float32 angle tensor, n x h: fl(fl(fl32(t') f_k) fl(c)) */
static float f32_angle(const void *ctx, uint64_t g)
{
	const struct pe_timestep *s = ctx;
	float t = (float)pe_timestep_input(&s->p, g / s->half);

	return (t * s->f32[g % s->half]) * s->scale32;
}

static int fill_f32(const struct pe_timestep *s, uint64_t r0, size_t nrows, float *out,
		    struct pe_error *err)
{
	size_t h = s->half, r;
	uint64_t total = s->p.n * h;
	float *fs = malloc(2 * (h ? h : 1) * sizeof *fs), *fc = fs + h;

	if (!fs)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (r = 0; r < nrows; r++) {
		if (h) {
			pe_torch_unary(&s->p.torch, PE_TORCH_SIN, f32_angle, s, total, (r0 + r) * h, h, fs);
			pe_torch_unary(&s->p.torch, PE_TORCH_COS, f32_angle, s, total, (r0 + r) * h, h, fc);
		}
		put_row(s, out + r * s->p.dim, fs, fc);
	}
	free(fs);
	return 0;
}

/*
 * Exact rows.  t' (sign of c folded in) = m 2^E with m = t''s 53-bit
 * significand, an integer below 2^53, so the angle is m times the
 * frequency g_k = |c| f_k 2^E: an integer position and a frequency, which
 * core/angle.h turns into correctly rounded values.  The frequencies are
 * prepared again whenever E changes (once per binade of t').
 */
static int fill_exact(const struct pe_timestep *s, uint64_t r0, size_t nrows, float *out,
		      struct pe_error *err)
{
	size_t h = s->half, r, k;
	struct pe_freq *fr = malloc((h ? h : 1) * sizeof *fr);
	float *fs = malloc(2 * (h ? h : 1) * sizeof *fs), *fc = fs + h;
	int have = 0, cur = 0, ex;
	struct pe_mp g;
	double t, sv, cv;
	int64_t m;

	if (!fr || !fs) {
		free(fr);
		free(fs);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	for (r = 0; r < nrows; r++) {
		t = pe_timestep_input(&s->p, r0 + r);
		if (s->p.scale < 0)
			t = -t;
		if (t == 0 || s->p.scale == 0) {
			for (k = 0; k < h; k++) {
				fs[k] = 0.0f;
				fc[k] = 1.0f;
			}
			put_row(s, out + r * s->p.dim, fs, fc);
			continue;
		}
		m = (int64_t)ldexp(frexp(t, &ex), 53);
		ex -= 53;
		if (!have || ex != cur) {
			for (k = 0; k < h; k++) {
				pe_mp_mul_2exp(&g, &s->freq[k], ex);
				pe_freq_init(&fr[k], &g, 53);
			}
			have = 1;
			cur = ex;
		}
		for (k = 0; k < h; k++) {
			/* correctly rounded: what pe_f32_sure leaves open is
			 * recomputed in 256 bits (core/angle.h) */
			pe_sincos_pf(&fr[k], m, &sv, &cv);
			if (!pe_f32_sure(sv, fr[k].e32, &fs[k]) &&
			    !pe_sincos_sure_fine(&fr[k], sv, 1.0, &fs[k]))
				fs[k] = pe_sincos_pf_f32(&fr[k], m, 0, 1.0);
			if (!pe_f32_sure(cv, fr[k].e32, &fc[k]) &&
			    !pe_sincos_sure_fine(&fr[k], cv, 1.0, &fc[k]))
				fc[k] = pe_sincos_pf_f32(&fr[k], m, 1, 1.0);
		}
		put_row(s, out + r * s->p.dim, fs, fc);
	}
	free(fr);
	free(fs);
	return 0;
}

/* Integer timesteps by the step kernel (pe_steps_rows): one exact angle
 * per PE_STEP rows and frequency, the rest by the addition formulas, every
 * value correctly rounded (core/angle.h), as sinusoidal's tables. */
struct step_out {
	const struct pe_timestep *s;
	float *out;
};

static void step_row(void *ctx, size_t i, const float *fs, const float *fc)
{
	const struct step_out *o = ctx;

	put_row(o->s, o->out + i * o->s->p.dim, fs, fc);
}

static int fill_steps(const struct pe_timestep *s, uint64_t r0, size_t nrows, float *out,
		      struct pe_error *err)
{
	struct step_out o = { s, out };

	return pe_steps_rows(&s->steps, s->pf, (int64_t)s->p.start + (int64_t)r0, nrows, step_row, &o,
			     err);
}

int pe_timestep_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_timestep *s = ctx;

	if (s->f32)
		return fill_f32(s, r0, nrows, out, err);
	if (s->pf)
		return fill_steps(s, r0, nrows, out, err);
	return fill_exact(s, r0, nrows, out, err);
}
