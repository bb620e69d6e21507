#include "core/resample.h"

#include "core/simd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pe_interp_names[] = { "bicubic", "bilinear", "nearest", NULL };
const char *const pe_coords_names[] = { "pytorch", "exact", NULL };

/* Keys' cubic convolution (ATen's cubic_convolution1 for |x| <= 1 and
 * cubic_convolution2 for 1 <= |x| <= 2), in double */
static double keys1(double x, double a)
{
	return ((a + 2) * x - (a + 3)) * x * x + 1;
}

static double keys2(double x, double a)
{
	return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

/*
 * The same in float32, as the torch 2.13.0 wheel's compiled kernels
 * evaluate them -- which multiply-adds its compiler fused was found by
 * reading the wheel's weights back through impulse inputs (F.interpolate
 * of one-hot rows: each output is a weight, exactly) for every in, out
 * pair of 2..38 and 2..37 in steps of 3 and 5 (40,560 weights a mode,
 * under the AVX2 and AVX-512 kernels alike): in the weights of plain
 * bicubic, cubic_convolution1's first step and cubic_convolution2's first
 * two are fused; in the antialias filter (a function of its own) every
 * step is.  Each other choice misses some of them.
 */
static float keys1_plain(float x, float a)
{
	float t = fmaf(a + 2.0f, x, -(a + 3.0f));

	t = t * x;
	return t * x + 1.0f;
}

static float keys2_plain(float x, float a)
{
	float t = fmaf(a, x, -5.0f * a);

	t = fmaf(t, x, 8.0f * a);
	return t * x - 4.0f * a;
}

static float keys1_aa(float x, float a)
{
	float t = fmaf(a + 2.0f, x, -(a + 3.0f));

	return fmaf(t * x, x, 1.0f);
}

static float keys2_aa(float x, float a)
{
	return fmaf(fmaf(fmaf(a, x, -5.0f * a), x, 8.0f * a), x, -4.0f * a);
}

/* Pillow's filters (antialias), in double and in float32 */
static double filter_d(enum pe_interp m, double x)
{
	x = fabs(x);
	if (m == PE_INTERP_BILINEAR)
		return x < 1 ? 1 - x : 0;
	if (x < 1)
		return keys1(x, -0.5);
	return x < 2 ? keys2(x, -0.5) : 0;
}

static float filter_f(enum pe_interp m, float x)
{
	x = fabsf(x);
	if (m == PE_INTERP_BILINEAR)
		return x < 1.0f ? (float)(1.0 - (double)x) : 0.0f;
	if (x < 1.0f)
		return keys1_aa(x, -0.5f);
	return x < 2.0f ? keys2_aa(x, -0.5f) : 0.0f;
}

static void put(struct pe_taps *t, uint64_t o, uint64_t idx, double w)
{
	uint32_t k = t->n[o]++;

	t->idx[o * t->max + k] = (uint32_t)idx;
	t->w[o * t->max + k] = w;
}

static uint64_t clampi(int64_t v, uint64_t in)
{
	return v < 0 ? 0 : (uint64_t)v > in - 1 ? in - 1 : (uint64_t)v;
}

/* ATen's source coordinate (i + 0.5) scale - 0.5 for a float32 image: the
 * product and the subtraction one fused multiply-add in the wheel */
static float src_f(float scale, uint64_t i)
{
	return fmaf(scale, (float)i + 0.5f, -0.5f);
}

/* guard_index_and_lambda: the index (at most in - 1) and the fraction */
static int64_t guard_f(float x, uint64_t in, float *lambda)
{
	int64_t i = (int64_t)floorf(x);

	if (i > (int64_t)in - 1)
		i = (int64_t)in - 1;
	*lambda = fminf(fmaxf(x - (float)i, 0.0f), 1.0f);
	return i;
}

/* floor(a / b) for b > 0 */
static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void taps_nearest(struct pe_taps *t)
{
	float scale = (float)t->in / (float)t->out;
	uint64_t o;

	for (o = 0; o < t->out; o++)
		put(t, o, clampi((int64_t)floorf((float)o * scale), t->in), 1.0);
}

static void taps_linear(struct pe_taps *t, enum pe_coords c)
{
	uint64_t o, i0, in = t->in, out = t->out;
	float scale = (float)in / (float)out, x, l1;
	int64_t num, den = 2 * (int64_t)out, rem;

	for (o = 0; o < out; o++) {
		if (in == out) {
			put(t, o, o, 1.0);
			put(t, o, o, 0.0);
			continue;
		}
		if (c == PE_COORDS_PYTORCH) {
			x = src_f(scale, o);
			if (x < 0)
				x = 0;
			i0 = (uint64_t)guard_f(x, in, &l1);
			put(t, o, i0, (double)(1.0f - l1));
			put(t, o, i0 + (i0 < in - 1), (double)l1);
			continue;
		}
		num = (2 * (int64_t)o + 1) * (int64_t)in - (int64_t)out;
		if (num < 0)
			num = 0;
		i0 = (uint64_t)(num / den);
		rem = num - (int64_t)i0 * den;
		put(t, o, i0, (double)(den - rem) / (double)den);
		put(t, o, i0 + (i0 < in - 1), (double)rem / (double)den);
	}
}

static void taps_cubic(struct pe_taps *t, enum pe_coords c)
{
	uint64_t o, in = t->in, out = t->out;
	float scale = (float)in / (float)out, l, x2;
	int64_t idx, num, den = 2 * (int64_t)out, rem, k;
	double w[4], tt, ut;

	for (o = 0; o < out; o++) {
		if (c == PE_COORDS_PYTORCH) {
			idx = guard_f(src_f(scale, o), in, &l);
			x2 = (float)(1.0 - (double)l);
			w[0] = keys2_plain((float)((double)l + 1.0), -0.75f);
			w[1] = keys1_plain(l, -0.75f);
			w[2] = keys1_plain(x2, -0.75f);
			w[3] = keys2_plain((float)((double)x2 + 1.0), -0.75f);
		} else {
			num = (2 * (int64_t)o + 1) * (int64_t)in - (int64_t)out;
			idx = floordiv(num, den);
			rem = num - idx * den;
			tt = (double)rem / (double)den;
			ut = (double)(den - rem) / (double)den;
			w[0] = keys2(tt + 1, -0.75);
			w[1] = keys1(tt, -0.75);
			w[2] = keys1(ut, -0.75);
			w[3] = keys2(ut + 1, -0.75);
		}
		for (k = 0; k < 4; k++)
			put(t, o, clampi(idx + k - 1, in), w[k]);
	}
}

/* _compute_indices_min_size_weights_aa, for a float32 image: the centre,
 * support and 1/scale rounded to float32 from double products, each
 * filter argument likewise, the weights summed and divided in float32 */
static void taps_aa_pytorch(struct pe_taps *t, enum pe_interp m, int isz, float *w)
{
	uint64_t o, in = t->in, out = t->out;
	float scale = (float)in / (float)out, center, support, invscale, total;
	int64_t xmin, xsize, j, maxis;

	support = scale >= 1.0f ? (float)((isz * 0.5) * (double)scale) : (float)(isz * 0.5);
	invscale = scale >= 1.0f ? (float)(1.0 / (double)scale) : 1.0f;
	maxis = (int64_t)ceil((double)support) * 2 + 1;
	for (o = 0; o < out; o++) {
		center = (float)((double)scale * ((double)o + 0.5));
		xmin = (int64_t)((double)(center - support) + 0.5);
		if (xmin < 0)
			xmin = 0;
		xsize = (int64_t)((double)(center + support) + 0.5);
		if (xsize > (int64_t)in)
			xsize = (int64_t)in;
		xsize -= xmin;
		xsize = xsize < 0 ? 0 : xsize > maxis ? maxis : xsize;
		total = 0.0f;
		for (j = 0; j < xsize; j++) {
			w[j] = filter_f(m, (float)(((double)((float)(j + xmin) - center) + 0.5) *
						   (double)invscale));
			total += w[j];
		}
		for (j = 0; j < xsize; j++)
			put(t, o, (uint64_t)(xmin + j), (double)(total != 0.0f ? w[j] / total : w[j]));
	}
}

/* the same with exact coordinates: over the denominator D = 2 out, the
 * centre is C = (2o + 1) in, the support S = isz in (shrinking) or isz out,
 * and the filter argument of cell j is (j D - C + out) / (2 in) or / D */
static void taps_aa_exact(struct pe_taps *t, enum pe_interp m, int isz)
{
	uint64_t o, in = t->in, out = t->out;
	int64_t D = 2 * (int64_t)out, S = isz * (int64_t)(in >= out ? in : out), C, v, xmin, xmax, j;
	double den = in >= out ? 2.0 * (double)in : (double)D, total, w;
	size_t k0;

	for (o = 0; o < out; o++) {
		C = (2 * (int64_t)o + 1) * (int64_t)in;
		v = C - S + (int64_t)out;
		xmin = v > 0 ? v / D : 0;
		xmax = (C + S + (int64_t)out) / D;
		if (xmax > (int64_t)in)
			xmax = (int64_t)in;
		total = 0;
		k0 = t->n[o];
		for (j = xmin; j < xmax; j++) {
			w = filter_d(m, (double)(j * D - C + (int64_t)out) / den);
			total += w;
			put(t, o, (uint64_t)j, w);
		}
		for (j = (int64_t)k0; j < (int64_t)t->n[o]; j++)
			if (total != 0)
				t->w[o * t->max + (size_t)j] /= total;
	}
}

int pe_taps_init(struct pe_taps *t, uint64_t in, uint64_t out, enum pe_interp interp,
		 int antialias, enum pe_coords coords, struct pe_error *err)
{
	int isz = interp == PE_INTERP_BICUBIC ? 4 : 2;
	double support;
	float *w;

	memset(t, 0, sizeof *t);
	t->in = in;
	t->out = out;
	if (in == 0 || out == 0 || in > PE_RESAMPLE_MAX_SIDE || out > PE_RESAMPLE_MAX_SIDE)
		return pe_fail(err, PE_ERR_PARAM, "grid sides must be 1 to 2^24");
	if (antialias && interp == PE_INTERP_NEAREST)
		return pe_fail(err, PE_ERR_PARAM,
			       "{antialias} applies to bilinear and bicubic (as torch.nn.functional.interpolate)");
	/* antialias on an axis that keeps its size: ATen leaves it alone */
	if (antialias && in == out)
		antialias = 0, interp = PE_INTERP_NEAREST;
	if (!antialias) {
		t->max = interp == PE_INTERP_BICUBIC ? 4 : interp == PE_INTERP_BILINEAR ? 2 : 1;
	} else {
		/* at least ATen's 2 ceil(support) + 1 (its support rounded to
		 * float32 up to 2^-20 above ours); out times this stays below
		 * 2 isz in + 3 out */
		support = in >= out ? isz * 0.5 * (double)in / (double)out : isz * 0.5;
		t->max = (size_t)ceil(support * (1 + 0x1p-20)) * 2 + 3;
	}
	t->n = calloc(out, sizeof *t->n);
	t->idx = malloc(out * t->max * sizeof *t->idx);
	t->w = malloc(out * t->max * sizeof *t->w);
	if (!t->n || !t->idx || !t->w)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (antialias && coords == PE_COORDS_PYTORCH) {
		w = malloc(t->max * sizeof *w);
		if (!w)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		taps_aa_pytorch(t, interp, isz, w);
		free(w);
	} else if (antialias)
		taps_aa_exact(t, interp, isz);
	else if (interp == PE_INTERP_NEAREST)
		taps_nearest(t);
	else if (interp == PE_INTERP_BILINEAR)
		taps_linear(t, coords);
	else
		taps_cubic(t, coords);
	return 0;
}

void pe_taps_free(struct pe_taps *t)
{
	free(t->n);
	free(t->idx);
	free(t->w);
	memset(t, 0, sizeof *t);
}

int pe_resample_init(struct pe_resample *r, const struct pe_resample_params *p,
		     const struct pe_matrix *in, struct pe_error *err)
{
	uint64_t cells, side;

	memset(r, 0, sizeof *r);
	r->p = *p;
	r->in = in;
	if (p->prefix >= in->rows)
		return pe_fail(err, PE_ERR_DATA, "%llu prefix rows, but the table has %llu rows: none left for the grid",
			       (unsigned long long)p->prefix, (unsigned long long)in->rows);
	if (p->h == 0 || p->w == 0 || p->h2 == 0 || p->w2 == 0)
		return pe_fail(err, PE_ERR_PARAM, "grid sides must be positive");
	if (p->h > PE_RESAMPLE_MAX_SIDE || p->w > PE_RESAMPLE_MAX_SIDE ||
	    p->h2 > PE_RESAMPLE_MAX_SIDE || p->w2 > PE_RESAMPLE_MAX_SIDE)
		return pe_fail(err, PE_ERR_PARAM, "grid sides must be at most 2^24");
	cells = p->h * p->w;
	if (in->rows - p->prefix != cells) {
		char fit[64] = "";

		side = (uint64_t)sqrt((double)(in->rows - p->prefix));
		while (side * side > in->rows - p->prefix)
			side--;
		while ((side + 1) * (side + 1) <= in->rows - p->prefix)
			side++;
		if (in->rows == cells)
			snprintf(fit, sizeof fit, " (it fits with 0 prefix rows)");
		else if (side * side == in->rows - p->prefix)
			snprintf(fit, sizeof fit, " (a %llux%llu grid would fit)", (unsigned long long)side,
				 (unsigned long long)side);
		return pe_fail(err, PE_ERR_DATA,
			       "a %llux%llu grid after %llu prefix rows needs %llu rows, the table has %llu%s",
			       (unsigned long long)p->h, (unsigned long long)p->w,
			       (unsigned long long)p->prefix, (unsigned long long)(p->prefix + cells),
			       (unsigned long long)in->rows, fit);
	}
	if (p->h2 * p->w2 > (PE_MAX_ELEMS / in->cols) - p->prefix)
		return pe_fail(err, PE_ERR_PARAM, "the resampled table is too large to address");
	if (pe_taps_init(&r->ty, p->h, p->h2, p->interp, p->antialias, p->coords, err) != 0 ||
	    pe_taps_init(&r->tx, p->w, p->w2, p->interp, p->antialias, p->coords, err) != 0)
		return -1;
	return 0;
}

void pe_resample_free(struct pe_resample *r)
{
	pe_taps_free(&r->ty);
	pe_taps_free(&r->tx);
}

int pe_resample_tensor(const struct pe_resample *r, const char *name, struct pe_tensor *t,
		       struct pe_error *err)
{
	uint64_t shape[2] = { r->p.prefix + r->p.h2 * r->p.w2, r->in->cols };

	return pe_tensor_init(t, name, PE_F32, pe_resample_fill, r, 1, 2, shape, err);
}

/* Row q of the grid: sum_a wy sum_b wx in, in double (products of a
 * float32 value and a double weight, sums in input order), rounded once. */
PE_VECTOR_KERNEL
static void cell(const struct pe_resample *r, uint64_t y, uint64_t x, double *acc, double *row,
		 float *out)
{
	const struct pe_taps *ty = &r->ty, *tx = &r->tx;
	size_t d = (size_t)r->in->cols, c, a, b;
	const float *src;
	double wy, wx;

	memset(acc, 0, d * sizeof *acc);
	for (a = 0; a < ty->n[y]; a++) {
		wy = ty->w[y * ty->max + a];
		memset(row, 0, d * sizeof *row);
		for (b = 0; b < tx->n[x]; b++) {
			wx = tx->w[x * tx->max + b];
			src = r->in->v + (size_t)(r->p.prefix + (uint64_t)ty->idx[y * ty->max + a] * r->p.w +
						  tx->idx[x * tx->max + b]) * d;
			for (c = 0; c < d; c++)
				row[c] += wx * (double)src[c];
		}
		for (c = 0; c < d; c++)
			acc[c] += wy * row[c];
	}
	for (c = 0; c < d; c++)
		out[c] = (float)acc[c];
}

int pe_resample_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_resample *r = ctx;
	size_t d = (size_t)r->in->cols, i;
	double *acc = malloc(2 * d * sizeof *acc);
	float *o = out;
	uint64_t q;

	if (!acc)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (i = 0; i < nrows; i++, o += d) {
		if (r0 + i < r->p.prefix) {
			memcpy(o, r->in->v + (size_t)(r0 + i) * d, d * sizeof *o);
			continue;
		}
		q = r0 + i - r->p.prefix;
		cell(r, q / r->p.w2, q % r->p.w2, acc, acc + d, o);
	}
	free(acc);
	return 0;
}
