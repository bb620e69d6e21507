#include "core/rope.h"

#include "core/parse.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PE_PI 3.141592653589793

const char *const pe_rope_scaling_names[] = { "none", "linear", "dynamic", "yarn", "llama3",
					     "longrope", "proportional", NULL };
const char *const pe_rope_region_names[] = { "kept", "ramped", "interpolated", "rescaled",
					     "short", "long", "unrotated" };
static const char *const table_names[] = {
	"rope_cos", "rope_sin", "rope_inv_freq", "rope_angles", "cos_cache", "sin_cache",
	"cos_sin_cache", "rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"
};

const char *pe_rope_scaling_name(enum pe_rope_scaling s)
{
	return pe_rope_scaling_names[s];
}

int pe_rope_scaling_by_name(const char *name)
{
	/* HF spells "none" as rope_type "default" */
	if (strcmp(name, "default") == 0)
		return PE_ROPE_NONE;
	return pe_name_index(pe_rope_scaling_names, name);
}

void pe_rope_defaults(struct pe_rope_params *p)
{
	memset(p, 0, sizeof *p);
	p->positions = 512;
	p->rotary_dim = 768;
	p->theta = 10000.0;
	p->scaling = PE_ROPE_NONE;
	p->layout = PE_LAYOUT_HALF;
	p->precision = PE_ROPE_EXACT;
	pe_torch_defaults(&p->torch);
	p->beta_fast = 32.0;
	p->beta_slow = 1.0;
	p->truncate = 1;
	p->attention_factor = NAN;
	p->factor = 0.0;
	p->low_freq_factor = 1.0;
	p->high_freq_factor = 4.0;
}

/* ---- float32 emulation: PyTorch's kernels, operation by operation ---- */

static float f_mul(float a, float b) { return a * b; }
static float f_div(float a, float b) { return a / b; }
static float f_add(float a, float b) { return a + b; }
static float f_sub(float a, float b) { return a - b; }
/* torch evaluates `x / tensor` as tensor.reciprocal() * x (Tensor.__rdiv__) */
static float f_recip(float a) { return 1.0f / a; }

/* arange(0, R, 2).float() / R, one float division */
static float f_frac(size_t j, uint64_t R)
{
	return f_div((float)(2 * j), (float)R);
}

/* pw[j] = base ** (arange(0, R, 2) / R) for j < n, base a Python float
 * (torch casts it to float32) or a one-element float32 tensor: torch.pow
 * runs SLEEF's or glibc's powf on each element by its place in the vector
 * loop (core/torch32.h) */
static void f_pow_frac(const struct pe_torch *t, float base, uint64_t R, size_t n, float *pw)
{
	size_t j;

	for (j = 0; j < n; j++)
		pw[j] = f_frac(j, R);
	pe_torch_pow_scalar(t, base, pw, pw, n);
}

/*
 * dynamic's base once the sequence outgrows L0.  transformers' forward
 * (dynamic_rope_update) recomputes it with seq_len = max(position_ids) + 1,
 * an int64 tensor, so `base * ((factor * L / L0) - (factor - 1)) ** (R /
 * (R - 2))` is float32 tensor arithmetic: the Python floats factor,
 * factor - 1 and base and the ints L and L0 each cast to float32, every
 * step rounded, the power std::pow(float, double) (measured with torch
 * 2.13.0: 0 of 20,000 products, quotients and differences and 50,000
 * powers differ from this model).  Then torch.pow(Tensor, Tensor) with
 * this one-element base.
 */
static float f_dynamic_base(const struct pe_rope_params *p, uint64_t L)
{
	uint64_t R = p->rotary_dim;
	float a;

	a = f_mul((float)p->factor, (float)L);
	a = f_div(a, (float)p->original_max);
	a = f_sub(a, (float)(p->factor - 1.0));
	a = pe_torch_pow_exp(a, (double)R / (double)(R - 2));
	return f_mul((float)p->theta, a);
}

double pe_rope_yarn_mscale(double s, double m)
{
	return s <= 1.0 ? 1.0 : 0.1 * m * log(s) + 1.0;
}

/* find_correction_dim of the YaRN reference, evaluated in double in
 * Python's order so the floor/ceil decisions agree with it */
static double yarn_cd(double rotations, double R, double base, double L0)
{
	return (R * log(L0 / (rotations * 2.0 * PE_PI))) / (2.0 * log(base));
}

static int positive(double v)
{
	return v > 0 && isfinite(v);
}

static int check_params(const struct pe_rope_params *p, struct pe_error *err)
{
	enum pe_rope_scaling s = p->scaling;

	if (p->positions == 0)
		return pe_fail(err, PE_ERR_PARAM, "{positions} must be positive");
	if (p->rotary_dim < 2 || p->rotary_dim % 2 || p->rotary_dim > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_PARAM,
			       "the rotary width must be an even integer from 2 to %llu, got %llu",
			       (unsigned long long)PE_MAX_COLS, (unsigned long long)p->rotary_dim);
	if (!positive(p->theta))
		return pe_fail(err, PE_ERR_PARAM, "{theta} must be a positive number, got %g", p->theta);
	if (p->offset < -((int64_t)1 << 53) || p->offset > ((int64_t)1 << 53) ||
	    (uint64_t)(((int64_t)1 << 53) - p->offset) < p->positions - 1)
		return pe_fail(err, PE_ERR_PARAM,
			       "the positions ({offset} %lld and {positions} %llu of them) must stay within +-2^53",
			       (long long)p->offset, (unsigned long long)p->positions);
	if (!isnan(p->attention_factor) && !positive(p->attention_factor))
		return pe_fail(err, PE_ERR_PARAM, "{attention_factor} must be a positive number, got %g",
			       p->attention_factor);
	if ((s == PE_ROPE_LINEAR || s == PE_ROPE_DYNAMIC || s == PE_ROPE_YARN ||
	     s == PE_ROPE_LLAMA3 || s == PE_ROPE_PROPORTIONAL) && !positive(p->factor))
		return pe_fail(err, PE_ERR_PARAM, "%s scaling needs {factor} (a positive number), got %g",
			       pe_rope_scaling_names[s], p->factor);
	if (s == PE_ROPE_LONGROPE && p->factor != 0 && !positive(p->factor))
		return pe_fail(err, PE_ERR_PARAM, "{factor} must be a positive number, got %g", p->factor);
	if (s != PE_ROPE_NONE && s != PE_ROPE_LINEAR && s != PE_ROPE_PROPORTIONAL &&
	    p->original_max == 0)
		return pe_fail(err, PE_ERR_PARAM, "%s scaling needs {original_max_positions}",
			       pe_rope_scaling_names[s]);
	if (s == PE_ROPE_DYNAMIC && p->rotary_dim < 4)
		return pe_fail(err, PE_ERR_PARAM,
			       "dynamic scaling needs a rotary width of 4 or more (it raises to R/(R-2)), got %llu",
			       (unsigned long long)p->rotary_dim);
	if (s == PE_ROPE_YARN) {
		if (!(p->theta > 1))
			return pe_fail(err, PE_ERR_PARAM,
				       "yarn scaling needs {theta} greater than 1 (it divides by ln theta), got %g",
				       p->theta);
		if (!positive(p->beta_fast) || !positive(p->beta_slow))
			return pe_fail(err, PE_ERR_PARAM, "{%s} must be a positive number, got %g",
				       positive(p->beta_fast) ? "beta_slow" : "beta_fast",
				       positive(p->beta_fast) ? p->beta_slow : p->beta_fast);
		if (!(p->mscale >= 0) || !isfinite(p->mscale) || !(p->mscale_all_dim >= 0) ||
		    !isfinite(p->mscale_all_dim))
			return pe_fail(err, PE_ERR_PARAM, "{%s} must be a non-negative number, got %g",
				       p->mscale >= 0 && isfinite(p->mscale) ? "mscale_all_dim" : "mscale",
				       p->mscale >= 0 && isfinite(p->mscale) ? p->mscale_all_dim : p->mscale);
	}
	if (s == PE_ROPE_LLAMA3) {
		if (!positive(p->low_freq_factor) || !positive(p->high_freq_factor))
			return pe_fail(err, PE_ERR_PARAM, "{%s} must be a positive number, got %g",
				       positive(p->low_freq_factor) ? "high_freq_factor" : "low_freq_factor",
				       positive(p->low_freq_factor) ? p->high_freq_factor
								    : p->low_freq_factor);
	}
	if (s == PE_ROPE_PROPORTIONAL && p->rotated > p->rotary_dim / 2)
		return pe_fail(err, PE_ERR_PARAM,
			       "proportional scaling turns at most half the head dim's %llu pairs, got %llu",
			       (unsigned long long)(p->rotary_dim / 2), (unsigned long long)p->rotated);
	if (s == PE_ROPE_LONGROPE) {
		size_t need = (size_t)(p->rotary_dim / 2), k;

		if (!p->short_factor || !p->long_factor)
			return pe_fail(err, PE_ERR_PARAM, "longrope scaling needs {%s}",
				       p->short_factor ? "long_factor" : "short_factor");
		if (p->nshort != need || p->nlong != need)
			return pe_fail(err, PE_ERR_PARAM,
				       "{%s_factor} has %zu values, rotary width %llu needs %zu",
				       p->nshort != need ? "short" : "long",
				       p->nshort != need ? p->nshort : p->nlong,
				       (unsigned long long)p->rotary_dim, need);
		for (k = 0; k < need; k++)
			if (!positive(p->short_factor[k]) || !positive(p->long_factor[k]))
				return pe_fail(err, PE_ERR_PARAM,
					       "{%s} must be a list of positive numbers (item %zu)",
					       positive(p->short_factor[k]) ? "long_factor" : "short_factor", k);
		if (p->factor == 0 && isnan(p->attention_factor))
			return pe_fail(err, PE_ERR_PARAM,
				       "longrope scaling needs {factor} (or {attention_factor}) for its attention factor");
	}
	return 0;
}

/*
 * llama.cpp's rope_freqs value j from x = L0 inv0_j, th = 2 pi high and
 * tl = 2 pi low (lambda < L0 / high is th < x): 1, factor, or the blend's
 * 1 / ((1 - s) / f + s), s = (x / 2 pi - low) / (high - low), tested in the
 * converter's order (high first); exact, rounded to float32 and double.
 */
static void llama3_divisor(struct pe_rope *r, size_t j, const struct pe_mp *x,
			   const struct pe_mp *th, const struct pe_mp *tl, const struct pe_mp *f,
			   const struct pe_mp *rf)
{
	const struct pe_rope_params *p = &r->p;
	struct pe_mp s, t, one;

	if (pe_mp_cmp(th, x) < 0) {
		r->div64[j] = 1.0;
	} else if (pe_mp_cmp(tl, x) > 0) {
		r->div64[j] = p->factor;
	} else {
		pe_mp_set_d(&one, 1.0);
		pe_mp_div(&s, x, th);			/* x / (2 pi high) ... */
		pe_mp_set_d(&t, p->high_freq_factor);
		pe_mp_mul(&s, &s, &t);			/* ... times high = x / 2 pi */
		pe_mp_set_d(&t, p->low_freq_factor);
		pe_mp_sub(&s, &s, &t);
		pe_mp_set_d(&t, p->high_freq_factor - p->low_freq_factor);
		pe_mp_div(&s, &s, &t);
		pe_mp_sub(&t, &one, &s);
		pe_mp_mul(&t, &t, rf);
		pe_mp_add(&t, &t, &s);
		pe_mp_div(&t, &one, &t);
		r->div64[j] = pe_mp_to_d(&t);
		r->div32[j] = pe_mp_to_f32(&t);
		(void)f;
		return;
	}
	r->div32[j] = (float)r->div64[j];
}

/*
 * The exact inv_j as the real numbers of the formulas in rope.h, in
 * 256-bit arithmetic (core/mp.h): inv0_j = q^j with q = base^(-2/R), each
 * scaling applied to it exactly.  Prepares r->freq (and in exact mode the
 * correctly rounded inv32 and the step table) as it goes.
 */
static void compute_exact(struct pe_rope *r, int bits)
{
	const struct pe_rope_params *p = &r->p;
	struct pe_mp base, q, inv0, inv, one, zero, f, rf, t, u, twopi, x, lo, hi;
	uint64_t R = p->rotary_dim;
	unsigned char *reg = r->region;
	size_t j;

	pe_mp_set_d(&one, 1.0);
	pe_mp_set_d(&zero, 0.0);
	pe_mp_set_d(&f, p->factor > 0 ? p->factor : 1.0);
	pe_mp_div(&rf, &one, &f);
	pe_mp_set_d(&base, p->theta);
	if (p->scaling == PE_ROPE_DYNAMIC && r->seq_len > p->original_max) {
		/* theta ((f L / L0) - (f - 1))^(R/(R-2)) */
		pe_mp_set_u64(&t, r->seq_len);
		pe_mp_mul(&t, &t, &f);
		pe_mp_div_u64(&t, &t, p->original_max);
		pe_mp_sub(&u, &f, &one);
		pe_mp_sub(&t, &t, &u);
		pe_mp_log(&t, &t);
		pe_mp_set_u64(&u, R);
		pe_mp_mul(&t, &t, &u);
		pe_mp_div_u64(&t, &t, R - 2);
		pe_mp_exp(&t, &t);
		pe_mp_mul(&base, &base, &t);
	}
	pe_mp_log(&q, &base);
	q.sign = -q.sign;
	pe_mp_mul_2exp(&q, &q, 1);
	pe_mp_div_u64(&q, &q, R);
	pe_mp_exp(&q, &q);
	pe_mp_pi(&twopi);
	pe_mp_mul_2exp(&twopi, &twopi, 1);
	pe_mp_set_d(&lo, p->low_freq_factor);
	pe_mp_set_d(&hi, p->high_freq_factor);
	inv0 = one;
	for (j = 0; j < r->nfreq; j++, pe_mp_mul(&inv0, &inv0, &q)) {
		switch (p->scaling) {
		case PE_ROPE_NONE:
		case PE_ROPE_DYNAMIC:
			inv = inv0;
			reg[j] = p->scaling == PE_ROPE_DYNAMIC && r->seq_len > p->original_max
					 ? PE_REGION_RESCALED : PE_REGION_KEPT;
			break;
		case PE_ROPE_LINEAR:
			pe_mp_mul(&inv, &inv0, &rf);
			reg[j] = p->factor != 1 ? PE_REGION_INTERPOLATED : PE_REGION_KEPT;
			break;
		case PE_ROPE_PROPORTIONAL:
			reg[j] = p->factor != 1 ? PE_REGION_INTERPOLATED : PE_REGION_KEPT;
			if (j < p->rotated)
				pe_mp_mul(&inv, &inv0, &rf);
			else
				pe_mp_set_d(&inv, 0.0);
			if (j >= p->rotated)
				reg[j] = PE_REGION_UNROTATED;
			break;
		case PE_ROPE_YARN:
			/* ramp = clamp((j - low) / (high - low)); inv0 (ramp / f + 1 - ramp) */
			pe_mp_set_u64(&t, j);
			pe_mp_set_d(&u, r->yarn_low);
			pe_mp_sub(&t, &t, &u);
			pe_mp_set_d(&x, r->yarn_high);
			pe_mp_sub(&u, &x, &u);
			pe_mp_div(&t, &t, &u);
			reg[j] = pe_mp_cmp(&t, &zero) <= 0 ? PE_REGION_KEPT
			       : pe_mp_cmp(&t, &one) >= 0 ? PE_REGION_INTERPOLATED : PE_REGION_RAMPED;
			if (t.sign < 0)
				pe_mp_set_d(&t, 0.0);
			if (pe_mp_cmp(&t, &one) > 0)
				t = one;
			pe_mp_mul(&u, &t, &rf);
			pe_mp_sub(&t, &one, &t);
			pe_mp_add(&u, &u, &t);
			pe_mp_mul(&inv, &inv0, &u);
			break;
		case PE_ROPE_LLAMA3:
			/* lambda = 2 pi / inv0 compared with L0 / high and L0 / low as
			 * 2 pi high, 2 pi low against x = L0 inv0 */
			pe_mp_set_u64(&x, p->original_max);
			pe_mp_mul(&x, &x, &inv0);
			pe_mp_mul(&t, &twopi, &hi);
			pe_mp_mul(&u, &twopi, &lo);
			llama3_divisor(r, j, &x, &t, &u, &f, &rf);
			if (pe_mp_cmp(&u, &x) > 0) {	/* transformers' order */
				pe_mp_mul(&inv, &inv0, &rf);
				reg[j] = PE_REGION_INTERPOLATED;
			} else if (pe_mp_cmp(&t, &x) < 0) {
				inv = inv0;
				reg[j] = PE_REGION_KEPT;
			} else {
				reg[j] = PE_REGION_RAMPED;
				/* s = (x / 2 pi - low) / (high - low); inv0 ((1 - s) / f + s) */
				pe_mp_div(&t, &x, &twopi);
				pe_mp_sub(&t, &t, &lo);
				pe_mp_sub(&u, &hi, &lo);
				pe_mp_div(&t, &t, &u);
				pe_mp_sub(&u, &one, &t);
				pe_mp_mul(&u, &u, &rf);
				pe_mp_add(&u, &u, &t);
				pe_mp_mul(&inv, &inv0, &u);
			}
			break;
		case PE_ROPE_LONGROPE:
		default:
			pe_mp_set_d(&t, r->use_long ? p->long_factor[j] : p->short_factor[j]);
			pe_mp_div(&inv, &inv0, &t);
			reg[j] = r->use_long ? PE_REGION_LONG : PE_REGION_SHORT;
			break;
		}
		pe_freq_init(&r->freq[j], &inv, bits);
		if (p->precision != PE_ROPE_EXACT)
			continue;
		r->inv32[j] = pe_mp_to_f32(&inv);
		if (r->steps.t)
			pe_steps_set(&r->steps, j, &inv, &r->freq[j], r->attention);
	}
}

/* transformers' float32 CPU pipeline, operation by operation; pw: room
 * for nfreq floats */
static void compute_float32(struct pe_rope *r, float *pw)
{
	const struct pe_rope_params *p = &r->p;
	uint64_t R = p->rotary_dim;
	float f = (float)p->factor, inv, extrap, interp, lin, e, wl, llama, sm, smoothed;
	float lowwl, highwl;
	size_t j;

	/* proportional takes the powers of its rotated pairs only, as
	 * arange(0, 2 n, 2): that count decides torch.pow's vector tail */
	f_pow_frac(&p->torch, p->scaling == PE_ROPE_DYNAMIC ? r->dynamic_theta32 : (float)p->theta,
		   R, p->scaling == PE_ROPE_PROPORTIONAL ? (size_t)p->rotated : r->nfreq, pw);
	lowwl = (float)((double)p->original_max / p->low_freq_factor);
	highwl = (float)((double)p->original_max / p->high_freq_factor);
	for (j = 0; j < r->nfreq; j++) {
		switch (p->scaling) {
		case PE_ROPE_NONE:
		case PE_ROPE_DYNAMIC:
			inv = f_recip(pw[j]);
			break;
		case PE_ROPE_LINEAR:
			inv = f_div(f_recip(pw[j]), f);
			break;
		case PE_ROPE_PROPORTIONAL:
			/* cat(1 / base ** (arange(0, 2n, 2) / R), zeros) / factor */
			inv = f_div(j < p->rotated ? f_recip(pw[j]) : 0.0f, f);
			break;
		case PE_ROPE_YARN:
			extrap = f_recip(pw[j]);
			interp = f_recip(f_mul(f, pw[j]));
			lin = f_div(f_sub((float)j, (float)r->yarn_low),
				    (float)(r->yarn_high - r->yarn_low));
			lin = lin < 0 ? 0.0f : lin > 1 ? 1.0f : lin;
			e = f_sub(1.0f, lin);
			inv = f_add(f_mul(interp, f_sub(1.0f, e)), f_mul(extrap, e));
			break;
		case PE_ROPE_LLAMA3:
			inv = f_recip(pw[j]);
			wl = f_mul(f_recip(inv), (float)(2.0 * PE_PI));
			llama = wl > lowwl ? f_div(inv, f) : inv;
			sm = f_div(f_sub(f_mul(f_recip(wl), (float)p->original_max),
					 (float)p->low_freq_factor),
				   (float)(p->high_freq_factor - p->low_freq_factor));
			smoothed = f_add(f_div(f_mul(f_sub(1.0f, sm), llama), f), f_mul(sm, llama));
			inv = (!(wl < highwl) && !(wl > lowwl)) ? smoothed : llama;
			/* llama.cpp's converter: the same wavelength and s, then
			 * 1 / ((1 - s) / factor + s), high tested first */
			r->div32[j] = wl < highwl ? 1.0f : wl > lowwl ? f
				    : f_recip(f_add(f_div(f_sub(1.0f, sm), f), sm));
			break;
		case PE_ROPE_LONGROPE:
		default:
			inv = f_recip(f_mul((float)(r->use_long ? p->long_factor[j]
							       : p->short_factor[j]),
					    pw[j]));
			break;
		}
		r->inv32[j] = inv;
	}
}

int pe_rope_init(struct pe_rope *r, const struct pe_rope_params *p, struct pe_error *err)
{
	const struct pe_rope_params *q;
	int64_t last;
	double f, R, low, high;
	long double fmax = 0;
	size_t j;
	int t;

	memset(r, 0, sizeof *r);
	r->p = *p;
	q = &r->p;
	if (check_params(p, err) != 0)
		return -1;
	r->nfreq = (size_t)(p->rotary_dim / 2);
	last = p->offset + (int64_t)(p->positions - 1);
	r->seq_len = p->seq_len;
	if (r->seq_len == 0)
		r->seq_len = last + 1 > 0 ? (uint64_t)(last + 1) : 1;
	f = p->factor;
	R = (double)p->rotary_dim;

	r->attention = 1.0;
	if (q->scaling == PE_ROPE_YARN)
		r->attention = q->mscale != 0 && q->mscale_all_dim != 0
				       ? pe_rope_yarn_mscale(f, q->mscale) / pe_rope_yarn_mscale(f, q->mscale_all_dim)
				       : pe_rope_yarn_mscale(f, 1.0);
	if (q->scaling == PE_ROPE_LONGROPE && f > 1)
		r->attention = sqrt(1.0 + log(f) / log((double)q->original_max));
	if (!isnan(q->attention_factor))
		r->attention = q->attention_factor;
	r->attention32 = (float)r->attention;

	if (q->scaling == PE_ROPE_DYNAMIC) {
		/* Python's order, in double: base * ((f * L / L0) - (f - 1)) **
		 * (R / (R - 2)), L = max(seq_len, L0) (at L0, what the module's
		 * __init__ computes, and keeps while seq_len <= L0) */
		double L = (double)(r->seq_len > q->original_max ? r->seq_len : q->original_max);

		r->dynamic_theta = q->theta * pow((f * L / (double)q->original_max) - (f - 1),
						  R / (R - 2));
		r->dynamic_theta32 = (float)r->dynamic_theta;
		if (q->precision == PE_ROPE_FLOAT32 && r->seq_len > q->original_max) {
			/* beyond L0 the forward's float32 tensors (f_dynamic_base) */
			r->dynamic_theta32 = f_dynamic_base(q, r->seq_len);
			r->dynamic_theta = (double)r->dynamic_theta32;
		}
	}
	if (q->scaling == PE_ROPE_YARN) {
		low = yarn_cd(q->beta_fast, R, q->theta, (double)q->original_max);
		high = yarn_cd(q->beta_slow, R, q->theta, (double)q->original_max);
		if (q->truncate) {
			low = floor(low);
			high = ceil(high);
		}
		low = low > 0 ? low : 0;
		high = high < R - 1 ? high : R - 1;
		if (low == high)
			high += 0.001;
		r->yarn_low = low;
		r->yarn_high = high;
	}
	r->use_long = q->scaling == PE_ROPE_LONGROPE && r->seq_len > q->original_max;
	r->llama3_unordered = q->scaling == PE_ROPE_LLAMA3 &&
			      !(q->high_freq_factor > q->low_freq_factor);

	r->inv32 = malloc(r->nfreq * sizeof *r->inv32);
	r->freq = malloc(r->nfreq * sizeof *r->freq);
	r->region = malloc(r->nfreq);
	if (!r->inv32 || !r->freq || !r->region)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (q->scaling == PE_ROPE_LLAMA3) {
		r->div32 = malloc(r->nfreq * sizeof *r->div32);
		r->div64 = malloc(r->nfreq * sizeof *r->div64);
		if (!r->div32 || !r->div64)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	/* the step table: 2 PE_STEP doubles per frequency, 32 MiB at most */
	if (q->precision == PE_ROPE_EXACT && r->nfreq <= ((size_t)1 << 15) &&
	    pe_steps_alloc(&r->steps, r->nfreq) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	compute_exact(r, pe_angle_bits(q->offset, last));
	if (q->precision == PE_ROPE_FLOAT32) {
		if (pe_torch_check(&q->torch, err) != 0)
			return -1;
		/* inv32's room for the powers first */
		compute_float32(r, r->inv32);
	}
	if (q->scaling == PE_ROPE_DYNAMIC && !(r->dynamic_theta > 0 && r->dynamic_theta <= DBL_MAX &&
					      (q->precision == PE_ROPE_EXACT ||
					       r->dynamic_theta32 <= FLT_MAX)))
		return pe_fail(err, PE_ERR_PARAM,
			       "{factor} %g with sequence length %llu and {original_max_positions} %llu makes the dynamic base theta * (factor L / L0 - (factor - 1))^(R/(R-2)) %s",
			       f, (unsigned long long)r->seq_len, (unsigned long long)q->original_max,
			       r->dynamic_theta > 0 ? "overflow" : "not a positive number in float32");
	if (!(r->attention <= (double)FLT_MAX))
		return pe_fail(err, PE_ERR_PARAM, isnan(q->attention_factor)
			       ? "the attention factor (%g) is beyond float32's range: check {factor}, {mscale}, {mscale_all_dim} and {original_max_positions}"
			       : "{attention_factor} %g is beyond float32's range",
			       r->attention);
	for (j = 0; j < r->nfreq; j++) {
		if (!(r->freq[j].f <= fmax))
			fmax = r->freq[j].f;
		if (!((long double)r->inv32[j] <= fmax))
			fmax = (long double)r->inv32[j];
	}
	if (!(pe_angle_max(fmax, q->offset, last) <= PE_ANGLE_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{theta} %g%s gives frequencies up to %.3g and angles beyond 2^53 at position %lld (where they are no longer exact): raise {theta}%s or lower the positions",
			       q->theta, q->scaling == PE_ROPE_NONE ? "" : " with this scaling", (double)fmax,
			       (long long)(-q->offset > last ? q->offset : last),
			       q->scaling == PE_ROPE_NONE ? "" : q->scaling == PE_ROPE_LONGROPE
			       ? " or the scaling factors" : " or {factor}");
	for (t = 0; t < PE_ROPE_NTABLES; t++) {
		r->view[t].rope = r;
		r->view[t].table = (enum pe_rope_table)t;
	}
	return 0;
}

void pe_rope_free(struct pe_rope *r)
{
	free(r->inv32);
	free(r->freq);
	free(r->div32);
	free(r->div64);
	r->div32 = NULL;
	r->div64 = NULL;
	free(r->region);
	pe_steps_free(&r->steps);
	r->inv32 = NULL;
	r->freq = NULL;
	r->region = NULL;
}

static int pe_rope_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
			struct pe_error *err);
static int pe_rope_fill64(const void *ctx, uint64_t r0, size_t nrows, void *out,
			  struct pe_error *err);

int pe_rope_tensor(struct pe_rope *r, enum pe_rope_table table, struct pe_tensor *t,
		   struct pe_error *err)
{
	uint64_t shape[2] = { r->p.positions, r->p.rotary_dim };
	int ndim = 2;

	switch (table) {
	case PE_ROPE_INV_FREQ:
	case PE_ROPE_GGUF_FREQS:
	case PE_ROPE_GGUF_LONG:
	case PE_ROPE_GGUF_SHORT:
		shape[0] = r->nfreq;
		ndim = 1;
		break;
	case PE_ROPE_ORT_COS:
	case PE_ROPE_ORT_SIN:
		shape[1] = r->nfreq;
		break;
	default:
		break;
	}
	if (table == PE_ROPE_GGUF_FREQS && r->p.scaling != PE_ROPE_LLAMA3)
		return pe_fail(err, PE_ERR_PARAM, "rope_freqs is llama3 scaling's, not %s's",
			       pe_rope_scaling_names[r->p.scaling]);
	if ((table == PE_ROPE_GGUF_LONG || table == PE_ROPE_GGUF_SHORT) &&
	    r->p.scaling != PE_ROPE_LONGROPE)
		return pe_fail(err, PE_ERR_PARAM, "rope_factors_long/short are longrope's, not %s's",
			       pe_rope_scaling_names[r->p.scaling]);
	if (pe_tensor_init(t, table_names[table], PE_F32, pe_rope_fill, &r->view[table], 1, ndim,
			   shape, err) != 0)
		return -1;
	/* float32: the emulated values are the result */
	t->f32_exact = r->p.precision == PE_ROPE_FLOAT32;
	t->fill64 = t->f32_exact ? NULL : pe_rope_fill64;
	return 0;
}

/* put value v of frequency j into both of its columns */
static void put(float *row, size_t j, size_t half, enum pe_layout layout, float v)
{
	if (layout != PE_LAYOUT_INTERLEAVED) {
		row[j] = v;
		row[j + half] = v;
	} else {
		row[2 * j] = v;
		row[2 * j + 1] = v;
	}
}

/* exact cos/sin: one exact angle per PE_STEP rows, the rest by
 * sin(A + B) = sA cB + cA sB, cos(A + B) = cA cB - sA sB, a row at a time
 * over all frequencies, every value correctly rounded (pe_steps_row) */
static int fill_steps(const struct pe_rope_view *v, uint64_t r0, size_t nrows, void *out,
		      struct pe_error *err)
{
	const struct pe_rope *r = v->rope;
	size_t n = r->nfreq, R = (size_t)r->p.rotary_dim, i0, m, j, b;
	int want_cos = v->table == PE_ROPE_COS;
	double att = r->attention, *sa = malloc(2 * n * sizeof *sa), *ca = sa + n;
	float *fs = malloc(2 * n * sizeof *fs), *fc = fs + n, *val, *row;
	int64_t pos;

	if (!sa || !fs) {
		free(sa);
		free(fs);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	val = want_cos ? fc : fs;
	for (i0 = 0; i0 < nrows; i0 += PE_STEP) {
		m = nrows - i0 < PE_STEP ? nrows - i0 : PE_STEP;
		pos = r->p.offset + (int64_t)(r0 + i0);
		for (j = 0; j < n; j++)
			pe_sincos_pf(&r->freq[j], pos, &sa[j], &ca[j]);
		for (b = 0; b < m; b++) {
			pe_steps_row(&r->steps, r->freq, pos, b, sa, ca, att,
				     want_cos ? PE_STEP_COS : PE_STEP_SIN, fs, fc);
			row = (float *)out + (i0 + b) * R;
			if (r->p.layout != PE_LAYOUT_INTERLEAVED) {
				memcpy(row, val, n * sizeof *row);
				memcpy(row + n, val, n * sizeof *row);
			} else {
				for (j = 0; j < n; j++)
					row[2 * j] = row[2 * j + 1] = val[j];
			}
		}
	}
	free(sa);
	free(fs);
	return 0;
}

/* element g of the float32 angle tensor cos/sin is taken of: N x R
 * (cat(freqs, freqs)) in the half layout, N x R/2 interleaved */
static float f32_emb(const void *ctx, uint64_t g)
{
	const struct pe_rope *r = ctx;
	uint64_t w = r->p.layout != PE_LAYOUT_INTERLEAVED ? r->p.rotary_dim : r->nfreq;
	int64_t pos = r->p.offset + (int64_t)(g / w);

	return f_mul((float)pos, r->inv32[(size_t)(g % w % r->nfreq)]);
}

/* float32 cos/sin: torch's emb.cos() (or .sin()) times the attention
 * factor, rows [r0, r0 + nrows); polar: (torch.polar(1, freqs) * A).real
 * (.imag), a complex64 times a real scalar being each part times it */
static int fill_f32(const struct pe_rope_view *v, uint64_t r0, size_t nrows, float *out,
		    struct pe_error *err)
{
	const struct pe_rope *r = v->rope;
	size_t n = r->nfreq, R = (size_t)r->p.rotary_dim, i, j;
	enum pe_torch_unary op = v->table == PE_ROPE_COS ? PE_TORCH_COS : PE_TORCH_SIN;
	float *val, att = r->attention32, a;

	if (r->p.polar) {
		for (i = 0; i < nrows; i++)
			for (j = 0; j < n; j++) {
				a = f_mul((float)(r->p.offset + (int64_t)(r0 + i)), r->inv32[j]);
				put(out + i * R, j, n, r->p.layout,
				    f_mul(op == PE_TORCH_COS ? pe_glibc_cosf(a) : pe_glibc_sinf(a), att));
			}
		return 0;
	}
	if (r->p.layout != PE_LAYOUT_INTERLEAVED) {
		pe_torch_unary(&r->p.torch, op, f32_emb, r, r->p.positions * R, r0 * R, nrows * R,
			       out);
		for (i = 0; i < nrows * R; i++)
			out[i] = f_mul(out[i], att);
		return 0;
	}
	val = malloc(n * sizeof *val);
	if (!val)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (i = 0; i < nrows; i++) {
		pe_torch_unary(&r->p.torch, op, f32_emb, r, r->p.positions * n, (r0 + i) * n, n, val);
		for (j = 0; j < n; j++)
			out[i * R + 2 * j] = out[i * R + 2 * j + 1] = f_mul(val[j], att);
	}
	free(val);
	return 0;
}

/* The engines' caches (cos_cache, sin_cache, cos_sin_cache): the cos
 * (and sin) table's rows of the block, then frequency j's column of each,
 * j in the half layout, 2 j interleaved; in float or double. */
static int fill_cache(const struct pe_rope_view *v, uint64_t r0, size_t nrows, void *out,
		      int wide, struct pe_error *err)
{
	const struct pe_rope *r = v->rope;
	size_t n = r->nfreq, R = (size_t)r->p.rotary_dim, w = wide ? 8 : 4, i, j, k;
	size_t W = v->table == PE_ROPE_VLLM ? R : n, step = r->p.layout == PE_LAYOUT_INTERLEAVED ? 2 : 1;
	enum pe_rope_table part[2] = { v->table == PE_ROPE_ORT_SIN ? PE_ROPE_SIN : PE_ROPE_COS,
				       PE_ROPE_SIN };
	unsigned char *buf = malloc(nrows * R * w), *o = out;
	int rc = 0;

	if (!buf)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (k = 0; k < (v->table == PE_ROPE_VLLM ? 2u : 1u) && rc == 0; k++) {
		rc = (wide ? pe_rope_fill64 : pe_rope_fill)(&r->view[part[k]], r0, nrows, buf, err);
		for (i = 0; i < nrows && rc == 0; i++)
			for (j = 0; j < n; j++)
				memcpy(o + (i * W + k * n + j) * w, buf + (i * R + j * step) * w, w);
	}
	free(buf);
	return rc;
}

/* rope_freqs.weight and rope_factors_*.weight, values r0 .. r0 + n - 1 */
static void fill_gguf(const struct pe_rope_view *v, uint64_t r0, size_t nrows, void *out, int wide)
{
	const struct pe_rope *r = v->rope;
	const double *list = v->table == PE_ROPE_GGUF_LONG ? r->p.long_factor : r->p.short_factor;
	size_t i;

	for (i = 0; i < nrows; i++) {
		if (v->table == PE_ROPE_GGUF_FREQS) {
			if (wide)
				((double *)out)[i] = r->div64[r0 + i];
			else
				((float *)out)[i] = r->div32[r0 + i];
		} else if (wide) {
			((double *)out)[i] = list[r0 + i];
		} else {
			((float *)out)[i] = (float)list[r0 + i];	/* torch.tensor(list, float32) */
		}
	}
}

float pe_rope_exact(const struct pe_rope *r, size_t j, int64_t pos, int want_cos)
{
	double s, c, x;
	float val;

	/* att (s or c) within att err + 2^-53 |y|: pe_f32_sure's margin as
	 * in step_margin */
	pe_sincos_pf(&r->freq[j], pos, &s, &c);
	x = (want_cos ? c : s) * r->attention;
	if (!pe_f32_sure(x, r->attention * (r->freq[j].err + 0x1p-50) + 0x1p-1073, &val) &&
	    !pe_sincos_sure_fine(&r->freq[j], x, r->attention, &val))
		val = pe_sincos_pf_f32(&r->freq[j], pos, want_cos, r->attention);
	return val;
}

static int pe_rope_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_rope_view *v = ctx;
	const struct pe_rope *r = v->rope;
	enum pe_layout layout = r->p.layout;
	size_t n = r->nfreq, R = (size_t)r->p.rotary_dim, i, j;
	int f32 = r->p.precision == PE_ROPE_FLOAT32, want_cos = v->table == PE_ROPE_COS;
	float *row;
	int64_t pos;

	(void)err;
	if (v->table == PE_ROPE_INV_FREQ) {
		for (i = 0; i < nrows; i++)
			((float *)out)[i] = r->inv32[r0 + i];
		return 0;
	}
	if (v->table >= PE_ROPE_GGUF_FREQS) {
		fill_gguf(v, r0, nrows, out, 0);
		return 0;
	}
	if (v->table >= PE_ROPE_ORT_COS)
		return fill_cache(v, r0, nrows, out, 0, err);
	if (r->steps.t && (v->table == PE_ROPE_COS || v->table == PE_ROPE_SIN))
		return fill_steps(v, r0, nrows, out, err);
	if (f32 && v->table != PE_ROPE_ANGLES)
		return fill_f32(v, r0, nrows, out, err);
	for (i = 0; i < nrows; i++) {
		row = (float *)out + i * R;
		pos = r->p.offset + (int64_t)(r0 + i);
		for (j = 0; j < n; j++) {
			if (f32) {
				/* freqs = inv_freq @ position_ids in float32 */
				put(row, j, n, layout, f_mul((float)pos, r->inv32[j]));
				continue;
			}
			if (v->table == PE_ROPE_ANGLES) {
				put(row, j, n, layout, pe_angle_pf_f32(&r->freq[j], pos));
				continue;
			}
			put(row, j, n, layout, pe_rope_exact(r, j, pos, want_cos));
		}
	}
	return 0;
}

/* put value v of frequency j into both of its columns (double) */
static void put64(double *row, size_t j, size_t half, enum pe_layout layout, double v)
{
	if (layout != PE_LAYOUT_INTERLEAVED) {
		row[j] = v;
		row[j + half] = v;
	} else {
		row[2 * j] = v;
		row[2 * j + 1] = v;
	}
}

/* The exact tables' values correctly rounded to double (rope.h). */
static int pe_rope_fill64(const void *ctx, uint64_t r0, size_t nrows, void *out,
			  struct pe_error *err)
{
	const struct pe_rope_view *v = ctx;
	const struct pe_rope *r = v->rope;
	size_t n = r->nfreq, R = (size_t)r->p.rotary_dim, i, j;
	double *row;
	int64_t pos;

	if (v->table == PE_ROPE_INV_FREQ) {
		for (i = 0; i < nrows; i++)
			((double *)out)[i] = r->freq[r0 + i].f;	/* the nearest double */
		return 0;
	}
	if (v->table >= PE_ROPE_GGUF_FREQS) {
		fill_gguf(v, r0, nrows, out, 1);
		return 0;
	}
	if (v->table >= PE_ROPE_ORT_COS)
		return fill_cache(v, r0, nrows, out, 1, err);
	for (i = 0; i < nrows; i++) {
		row = (double *)out + i * R;
		pos = r->p.offset + (int64_t)(r0 + i);
		for (j = 0; j < n; j++)
			put64(row, j, n, r->p.layout,
			      v->table == PE_ROPE_ANGLES
				      ? pe_angle_pf_f64(&r->freq[j], pos)
				      : pe_sincos_pf_f64(&r->freq[j], pos, v->table == PE_ROPE_COS,
							 r->attention));
	}
	return 0;
}
