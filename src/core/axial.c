#include "core/axial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/mp.h"
#include "core/sleef32.h"

const char *const pe_axial_preset_names[] = {
	"pixtral", "qwen2-vl-vision", "llama4-vision", "flux", "wan", "hunyuan-video", "rope-vit", NULL
};
const char *const pe_axial_coord_names[] = { "t", "h", "w", NULL };
const char *const pe_axial_freqs_names[] = { "own", "alternate", NULL };
const char *const pe_axial_tensor_names[] = { "joint", "per-axis", "cross", NULL };
const char *const pe_axial_table_names[] = {
	"axial_cos", "axial_sin", "axial_angles", "axial_inv_freq", "axial_ids", "axial_cis",
	"axial_rot", NULL
};

void pe_axial_defaults(struct pe_axial_params *p)
{
	size_t a;

	memset(p, 0, sizeof *p);
	p->grid.t = 1;
	p->grid.h = p->grid.w = 14;
	p->grid.merge = 1;
	p->dim = 64;
	p->naxes = 2;
	p->axis[0] = PE_AXIAL_Y;
	p->axis[1] = PE_AXIAL_X;
	p->axis_dim[0] = p->axis_dim[1] = 32;
	for (a = 0; a < PE_AXIAL_MAX_AXES; a++) {
		p->theta[a] = 10000.0;
		p->scale[a] = 1.0;
	}
	p->layout = PE_LAYOUT_HALF;
	p->freqs = PE_AXIAL_OWN;
	p->precision = PE_AXIAL_EXACT;
	pe_torch_defaults(&p->torch);
	p->tensor = PE_AXIAL_JOINT;
}

/* blocks (y, x) or (x, y) of D/2 columns each */
static int two_halves(struct pe_axial_params *p, enum pe_axial_coord first, struct pe_error *err,
		      const char *model)
{
	if (p->dim % 4 != 0)
		return pe_fail(err, PE_ERR_PARAM,
			       "%s splits the head in two blocks of whole pairs: {dim} must be divisible by 4, got %llu",
			       model, (unsigned long long)p->dim);
	p->naxes = 2;
	p->axis[0] = first;
	p->axis[1] = first == PE_AXIAL_Y ? PE_AXIAL_X : PE_AXIAL_Y;
	p->axis_dim[0] = p->axis_dim[1] = p->dim / 2;
	return 0;
}

static int three_blocks(struct pe_axial_params *p, uint64_t t, uint64_t hw)
{
	p->naxes = 3;
	p->axis[0] = PE_AXIAL_T;
	p->axis[1] = PE_AXIAL_Y;
	p->axis[2] = PE_AXIAL_X;
	p->axis_dim[0] = t;
	p->axis_dim[1] = p->axis_dim[2] = hw;
	return 0;
}

int pe_axial_preset(struct pe_axial_params *p, enum pe_axial_preset preset, uint64_t dim,
		    struct pe_error *err)
{
	/* the head dims of the models' published configurations: Pixtral-12B's
	 * vision encoder 1024 / 16, Qwen2-VL's 1280 / 16, Llama 4's 1408 / 16,
	 * FLUX.1 and HunyuanVideo 3072 / 24, Wan 2.1 1536 / 12 and 5120 / 40,
	 * RoPE-ViT-B 768 / 12 */
	static const uint64_t dims[] = { 64, 80, 88, 128, 128, 128, 64 };
	size_t a;

	p->dim = dim ? dim : dims[preset];
	p->layout = PE_LAYOUT_INTERLEAVED;
	p->freqs = PE_AXIAL_OWN;
	p->tensor = PE_AXIAL_PER_AXIS;
	p->polar = 0;
	p->grid.merge = 1;
	p->grid.prefix = p->grid.suffix = 0;
	for (a = 0; a < PE_AXIAL_MAX_AXES; a++) {
		p->theta[a] = 10000.0;
		p->origin[a] = 0;
		p->scale[a] = 1.0;
	}
	switch (preset) {
	case PE_AXIAL_PIXTRAL:
		/* transformers' PixtralVisionRotaryEmbedding: inv_freq over the
		 * head, cat(inv[0::2], inv[1::2]); rows the even, columns the odd */
		p->layout = PE_LAYOUT_HALF;
		p->freqs = PE_AXIAL_ALTERNATE;
		p->tensor = PE_AXIAL_CROSS;
		return two_halves(p, PE_AXIAL_Y, err, "pixtral");
	case PE_AXIAL_QWEN2_VL:
		/* Qwen2VLVisionRotaryEmbedding: one set over head_dim / 2 for
		 * both; get_vision_position_ids' merge blocks */
		p->layout = PE_LAYOUT_HALF;
		p->tensor = PE_AXIAL_JOINT;
		p->grid.merge = 2;
		return two_halves(p, PE_AXIAL_Y, err, "qwen2-vl-vision");
	case PE_AXIAL_LLAMA4:
		/* Llama4VisionRotaryEmbedding: x + 1 and y + 1, the class token
		 * last with angles 0 */
		p->tensor = PE_AXIAL_JOINT;
		p->origin[0] = p->origin[1] = 1;
		p->grid.suffix = 1;
		return two_halves(p, PE_AXIAL_X, err, "llama4-vision");
	case PE_AXIAL_FLUX:
	case PE_AXIAL_HUNYUAN:
		if (p->dim != 128)
			return pe_fail(err, PE_ERR_PARAM,
				       "%s splits a head of 128 as 16, 56, 56: {dim} %llu needs its own {axes_dim}",
				       preset == PE_AXIAL_FLUX ? "flux" : "hunyuan-video",
				       (unsigned long long)p->dim);
		if (preset == PE_AXIAL_HUNYUAN)
			for (a = 0; a < PE_AXIAL_MAX_AXES; a++)
				p->theta[a] = 256.0;
		return three_blocks(p, 16, 56);
	case PE_AXIAL_WAN:
		/* WanRotaryPosEmbed (and Wan 2.1's rope_apply for its head dims):
		 * h = w = 2 (D // 6), t the rest */
		if (p->dim % 2 != 0 || p->dim < 12)
			return pe_fail(err, PE_ERR_PARAM,
				       "wan needs an even {dim} of at least 12, got %llu",
				       (unsigned long long)p->dim);
		return three_blocks(p, p->dim - 4 * (p->dim / 6), 2 * (p->dim / 6));
	case PE_AXIAL_ROPE_VIT:
		/* compute_axial_cis: [x f | y f], f over head_dim / 2, theta 100,
		 * torch.polar */
		for (a = 0; a < PE_AXIAL_MAX_AXES; a++)
			p->theta[a] = 100.0;
		p->polar = 1;
		return two_halves(p, PE_AXIAL_X, err, "rope-vit");
	case PE_AXIAL_NONE:
		break;
	}
	return 0;
}

/* ---- float32: PyTorch's operations ---- */

static float f_mul(float a, float b) { return a * b; }
/* `1.0 / t` is t.reciprocal() * 1.0 in torch */
static float f_recip(float a) { return 1.0f / a; }

/* 1 / theta ** (arange(0, d, 2, float32) / d), n values, one torch.pow */
static void f32_inv(const struct pe_torch *t, double theta, uint64_t d, size_t n, float *out)
{
	size_t k;

	for (k = 0; k < n; k++)
		out[k] = (float)(2 * k) / (float)d;
	pe_torch_pow_scalar(t, (float)theta, out, out, n);
	for (k = 0; k < n; k++)
		out[k] = f_recip(out[k]);
}

static float pos32(const struct pe_axial *ax, size_t a, int64_t c)
{
	float v = (float)c;

	return ax->p.scale[a] == 1.0 ? v : f_mul(v, ax->axis[a].scale32);
}

/* ---- exact: the real numbers, rounded once ---- */

/* cos and sin of c f, each correctly rounded */
static void exact_cs(const struct pe_freq *fr, int64_t c, float *vc, float *vs)
{
	double s, co;

	pe_sincos_pf(fr, c, &s, &co);
	if (!pe_f32_sure(s, fr->e32, vs) && !pe_sincos_sure_fine(fr, s, 1.0, vs))
		*vs = pe_sincos_pf_f32(fr, c, 0, 1.0);
	if (!pe_f32_sure(co, fr->e32, vc) && !pe_sincos_sure_fine(fr, co, 1.0, vc))
		*vc = pe_sincos_pf_f32(fr, c, 1, 1.0);
}

/* w of every block, exactly: own q_a^k with q_a = theta_a^(-2/d_a);
 * alternate Q^(n k + a) with Q = theta^(-2/D) */
static int exact_freqs(struct pe_axial *ax, struct pe_error *err)
{
	const struct pe_axial_params *p = &ax->p;
	struct pe_mp q, w, f, s;
	size_t a, k, j;
	uint64_t d;

	for (a = 0; a < p->naxes; a++) {
		struct pe_axial_axis *x = &ax->axis[a];
		int64_t lo = p->origin[a], hi = p->origin[a] + (int64_t)x->len - 1;
		int bits = pe_angle_bits(lo, hi);
		long double fmax = 0;

		d = p->freqs == PE_AXIAL_ALTERNATE ? p->dim : p->axis_dim[a];
		pe_mp_set_d(&q, p->theta[a]);
		pe_mp_log(&q, &q);
		q.sign = -q.sign;
		pe_mp_mul_2exp(&q, &q, 1);
		pe_mp_div_u64(&q, &q, d);
		pe_mp_set_d(&s, p->scale[a]);
		for (k = 0; k < x->pairs; k++) {
			/* w = exp(j ln q), j the index in its set */
			j = p->freqs == PE_AXIAL_ALTERNATE ? p->naxes * k + a : k;
			pe_mp_set_u64(&w, j);
			pe_mp_mul(&w, &w, &q);
			pe_mp_exp(&w, &w);
			x->inv32[k] = pe_mp_to_f32(&w);
			pe_mp_mul(&f, &w, &s);
			pe_freq_init(&x->freq[k], &f, bits);
			if (!(x->freq[k].f <= fmax))
				fmax = x->freq[k].f;
		}
		if (!(pe_angle_max(fmax, lo, hi) <= PE_ANGLE_MAX))
			return pe_fail(err, PE_ERR_PARAM,
				       "{theta} %g and {scale} %g give angles beyond 2^53 on the %s axis (where they are no longer exact)",
				       p->theta[a], p->scale[a], pe_axial_coord_names[p->axis[a]]);
	}
	return 0;
}

/* ---- the parameters ---- */

static int check(const struct pe_axial_params *p, struct pe_error *err)
{
	uint64_t sum = 0;
	size_t a;

	if (pe_grid_check(&p->grid, err) != 0)
		return -1;
	if (p->naxes < 1 || p->naxes > PE_AXIAL_MAX_AXES)
		return pe_fail(err, PE_ERR_PARAM, "{axes} must name 1 to 3 axes");
	for (a = 0; a < p->naxes; a++) {
		if (p->axis_dim[a] < 2 || p->axis_dim[a] % 2 != 0)
			return pe_fail(err, PE_ERR_PARAM,
				       "{axes_dim} must be even widths of at least 2 (whole rotation pairs), got %llu for axis %s",
				       (unsigned long long)p->axis_dim[a],
				       pe_axial_coord_names[p->axis[a]]);
		if (p->axis_dim[a] > PE_MAX_COLS)
			return pe_fail(err, PE_ERR_PARAM, "{axes_dim} %llu is too wide",
				       (unsigned long long)p->axis_dim[a]);
		sum += p->axis_dim[a];
		if (!(p->theta[a] > 0) || !isfinite(p->theta[a]))
			return pe_fail(err, PE_ERR_PARAM, "{theta} must be a positive number, got %g",
				       p->theta[a]);
		if (!(p->scale[a] > 0) || !isfinite(p->scale[a]))
			return pe_fail(err, PE_ERR_PARAM, "{scale} must be a positive number, got %g",
				       p->scale[a]);
		if (p->origin[a] < -PE_AXIAL_ORIGIN_MAX || p->origin[a] > PE_AXIAL_ORIGIN_MAX)
			return pe_fail(err, PE_ERR_PARAM, "{origin} must be within +-2^30, got %lld",
				       (long long)p->origin[a]);
	}
	if (sum != p->dim) {
		char list[96];
		size_t n = 0;

		for (a = 0; a < p->naxes; a++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%llu", a ? "," : "",
					      (unsigned long long)p->axis_dim[a]);
		return pe_fail(err, PE_ERR_PARAM,
			       "{axes_dim} %s sums to %llu, not the head dim {dim} %llu", list,
			       (unsigned long long)sum, (unsigned long long)p->dim);
	}
	if (p->freqs == PE_AXIAL_ALTERNATE)
		for (a = 1; a < p->naxes; a++) {
			if (p->axis_dim[a] != p->axis_dim[0])
				return pe_fail(err, PE_ERR_PARAM,
					       "{axis_freqs} alternate deals one set to the blocks in turn: {axes_dim} must be equal");
			if (p->theta[a] != p->theta[0])
				return pe_fail(err, PE_ERR_PARAM,
					       "{axis_freqs} alternate is one set: give one {theta}");
		}
	return 0;
}

static uint64_t extent(const struct pe_grid *g, enum pe_axial_coord c)
{
	return c == PE_AXIAL_T ? g->t : c == PE_AXIAL_Y ? g->h : g->w;
}

/* the largest |element| of the float32 tensor cos/sin are taken of: the
 * products are rounded monotonically, so the largest position times the
 * largest frequency */
static float max_angle(const struct pe_axial *ax)
{
	const struct pe_axial_params *p = &ax->p;
	float m = 0, fmax, v, lo, hi;
	size_t a, k;

	for (a = 0; a < p->naxes; a++) {
		const struct pe_axial_axis *x = &ax->axis[a];

		lo = fabsf(pos32(ax, a, p->origin[a]));
		hi = fabsf(pos32(ax, a, p->origin[a] + (int64_t)x->len - 1));
		fmax = 0;
		if (p->tensor == PE_AXIAL_CROSS && !p->polar) {
			for (k = 0; k < ax->ncross; k++)
				fmax = ax->cross32[k] > fmax ? ax->cross32[k] : fmax;
		} else {
			for (k = 0; k < x->pairs; k++)
				fmax = x->inv32[k] > fmax ? x->inv32[k] : fmax;
		}
		v = f_mul(lo > hi ? lo : hi, fmax);
		if (!(v <= m))
			m = v;
	}
	return m;
}

static float array_elem(const void *ctx, uint64_t g)
{
	return ((const float *)ctx)[g];
}

/* Every (block, coordinate, pair)'s cos, sin and angle, once. */
static int build_cache(struct pe_axial *ax, struct pe_error *err)
{
	const struct pe_axial_params *p = &ax->p;
	size_t a, k, n;
	uint64_t ci;

	for (a = 0; a < p->naxes; a++) {
		struct pe_axial_axis *x = &ax->axis[a];

		n = (size_t)x->len * x->pairs;
		x->cos = pe_alloc_big(n * sizeof *x->cos);
		x->sin = pe_alloc_big(n * sizeof *x->sin);
		x->ang = pe_alloc_big(n * sizeof *x->ang);
		if (!x->cos || !x->sin || !x->ang)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		for (ci = 0; ci < x->len; ci++) {
			int64_t c = p->origin[a] + (int64_t)ci;
			size_t o = (size_t)ci * x->pairs;

			for (k = 0; k < x->pairs; k++) {
				if (p->precision == PE_AXIAL_EXACT) {
					exact_cs(&x->freq[k], c, &x->cos[o + k], &x->sin[o + k]);
					x->ang[o + k] = pe_angle_pf_f32(&x->freq[k], c);
					continue;
				}
				x->ang[o + k] = f_mul(pos32(ax, a, c), x->inv32[k]);
				if (p->polar) {
					x->cos[o + k] = pe_glibc_cosf(x->ang[o + k]);
					x->sin[o + k] = pe_glibc_sinf(x->ang[o + k]);
				}
			}
		}
		if (p->precision == PE_AXIAL_FLOAT32 && !p->polar) {
			/* every element of the model's tensor is below SLEEF's
			 * 125 (or MKL computes each alone): a value depends on
			 * its angle only, so any grouping gives it */
			pe_torch_unary(&p->torch, PE_TORCH_COS, array_elem, x->ang, n, 0, n, x->cos);
			pe_torch_unary(&p->torch, PE_TORCH_SIN, array_elem, x->ang, n, 0, n, x->sin);
		}
	}
	return 0;
}

static int cacheable(const struct pe_axial *ax)
{
	const struct pe_axial_params *p = &ax->p;
	size_t bytes = 0, a;
	float m = ax->max_angle32;

	if (p->precision == PE_AXIAL_FLOAT32 && !p->polar && p->torch.vml == PE_TORCH_SLEEF &&
	    pe_sleef_trig_ph(&m, 1))
		return 0;
	for (a = 0; a < p->naxes; a++) {
		const struct pe_axial_axis *x = &ax->axis[a];

		if (x->len > PE_AXIAL_CACHE_BYTES / (3 * sizeof(float) * x->pairs))
			return 0;
		bytes += (size_t)x->len * x->pairs * 3 * sizeof(float);
	}
	return bytes <= PE_AXIAL_CACHE_BYTES;
}

int pe_axial_init(struct pe_axial *ax, const struct pe_axial_params *p, struct pe_error *err)
{
	size_t a, k, first = 0;
	float *all = NULL;

	memset(ax, 0, sizeof *ax);
	ax->p = *p;
	if (ax->p.layout == PE_LAYOUT_DEFAULT)
		ax->p.layout = PE_LAYOUT_HALF;
	if (check(p, err) != 0)
		return -1;
	if (p->precision == PE_AXIAL_FLOAT32 && pe_torch_check(&p->torch, err) != 0)
		return -1;
	ax->rows = pe_grid_tokens(&p->grid);
	ax->npairs = (size_t)(p->dim / 2);
	for (a = 0; a < p->naxes; a++) {
		struct pe_axial_axis *x = &ax->axis[a];

		x->pairs = (size_t)(p->axis_dim[a] / 2);
		x->first = first;
		first += x->pairs;
		x->len = extent(&p->grid, p->axis[a]);
		x->scale32 = (float)p->scale[a];
		x->inv32 = malloc(x->pairs * sizeof *x->inv32);
		x->freq = malloc(x->pairs * sizeof *x->freq);
		if (!x->inv32 || !x->freq)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	if (exact_freqs(ax, err) != 0)
		return -1;
	if (p->precision == PE_AXIAL_FLOAT32) {
		if (p->freqs == PE_AXIAL_ALTERNATE) {
			/* one torch.pow over the head's P exponents, dealt out */
			all = malloc(ax->npairs * sizeof *all);
			if (!all)
				return pe_fail(err, PE_ERR_NOMEM, "out of memory");
			f32_inv(&p->torch, p->theta[0], p->dim, ax->npairs, all);
			for (a = 0; a < p->naxes; a++)
				for (k = 0; k < ax->axis[a].pairs; k++)
					ax->axis[a].inv32[k] = all[p->naxes * k + a];
			free(all);
		} else {
			for (a = 0; a < p->naxes; a++)
				f32_inv(&p->torch, p->theta[a], p->axis_dim[a], ax->axis[a].pairs,
					ax->axis[a].inv32);
		}
	}
	/* cross: the module's buffer, every block's frequencies in order */
	ax->ncross = ax->npairs;
	ax->cross32 = malloc(ax->ncross * sizeof *ax->cross32);
	if (!ax->cross32)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (a = 0; a < p->naxes; a++)
		memcpy(ax->cross32 + ax->axis[a].first, ax->axis[a].inv32,
		       ax->axis[a].pairs * sizeof *ax->cross32);
	ax->max_angle32 = max_angle(ax);
	if (cacheable(ax)) {
		if (build_cache(ax, err) != 0)
			return -1;
		ax->cached = 1;
	}
	for (k = 0; k < PE_AXIAL_NTABLES; k++) {
		ax->view[k].ax = ax;
		ax->view[k].table = (enum pe_axial_table)k;
	}
	return 0;
}

void pe_axial_free(struct pe_axial *ax)
{
	size_t a;

	for (a = 0; a < PE_AXIAL_MAX_AXES; a++) {
		struct pe_axial_axis *x = &ax->axis[a];

		free(x->inv32);
		free(x->freq);
		free(x->cos);
		free(x->sin);
		free(x->ang);
		memset(x, 0, sizeof *x);
	}
	free(ax->cross32);
	ax->cross32 = NULL;
}

/* ---- rows ---- */

/* element g of the float32 tensor cos/sin are taken of (core/axial.h) */

/* the coordinate of block a of token n, or 0 with *in 0 for a prefix or
 * suffix token */
static int64_t coord(const struct pe_axial *ax, size_t a, uint64_t n, int *in)
{
	uint64_t c[3];

	*in = pe_grid_cell(&ax->p.grid, n, c);
	return *in ? ax->p.origin[a] + (int64_t)c[ax->p.axis[a]] : 0;
}

static float angle32(const struct pe_axial *ax, size_t a, uint64_t n, size_t k)
{
	int in;
	int64_t c = coord(ax, a, n, &in);

	return in ? f_mul(pos32(ax, a, c), ax->axis[a].inv32[k]) : 0.0f;
}

static size_t block_of(const struct pe_axial *ax, size_t j)
{
	size_t a = 0;

	while (a + 1 < ax->p.naxes && j >= ax->axis[a + 1].first)
		a++;
	return a;
}

/* joint: N x P, the pairs in order */
static float elem_joint(const void *ctx, uint64_t g)
{
	const struct pe_axial *ax = ctx;
	size_t j = (size_t)(g % ax->npairs), a = block_of(ax, j);

	return angle32(ax, a, g / ax->npairs, j - ax->axis[a].first);
}

struct elem_block {
	const struct pe_axial *ax;
	size_t a;
};

/* per-axis: block a's N x P_a */
static float elem_per_axis(const void *ctx, uint64_t g)
{
	const struct elem_block *b = ctx;
	size_t P = b->ax->axis[b->a].pairs;

	return angle32(b->ax, b->a, g / P, (size_t)(g % P));
}

/* cross: N x n x P, block b's coordinate times every frequency */
static float elem_cross(const void *ctx, uint64_t g)
{
	const struct pe_axial *ax = ctx;
	uint64_t W = ax->p.naxes * ax->ncross, r = g % W;
	size_t b = (size_t)(r / ax->ncross), m = (size_t)(r % ax->ncross);
	int in;
	int64_t c = coord(ax, b, g / W, &in);

	return in ? f_mul(pos32(ax, b, c), ax->cross32[m]) : 0.0f;
}

/* cos/sin of block a's pairs of token n, from the model's tensor */
static void torch_block(const struct pe_axial *ax, size_t a, uint64_t n, enum pe_torch_unary op,
			float *out)
{
	const struct pe_axial_axis *x = &ax->axis[a];
	struct elem_block b = { ax, a };
	uint64_t N = ax->rows;

	switch (ax->p.tensor) {
	case PE_AXIAL_JOINT:
		pe_torch_unary(&ax->p.torch, op, elem_joint, ax, N * ax->npairs,
			       n * ax->npairs + x->first, x->pairs, out);
		break;
	case PE_AXIAL_PER_AXIS:
		pe_torch_unary(&ax->p.torch, op, elem_per_axis, &b, N * x->pairs, n * x->pairs,
			       x->pairs, out);
		break;
	case PE_AXIAL_CROSS:
		pe_torch_unary(&ax->p.torch, op, elem_cross, ax, N * ax->p.naxes * ax->ncross,
			       (n * ax->p.naxes + a) * ax->ncross + x->first, x->pairs, out);
		break;
	}
}

#define WANT_COS 1
#define WANT_SIN 2
#define WANT_ANG 4

/* pair values of token n: cos, sin, angle of every pair in order */
static void pair_values(const struct pe_axial *ax, uint64_t n, int want, float *pc, float *ps,
			float *pa)
{
	const struct pe_axial_params *p = &ax->p;
	uint64_t c3[3];
	size_t a, k;

	if (!pe_grid_cell(&p->grid, n, c3)) {
		for (k = 0; k < ax->npairs; k++) {
			pc[k] = 1.0f;
			ps[k] = 0.0f;
			pa[k] = 0.0f;
		}
		return;
	}
	for (a = 0; a < p->naxes; a++) {
		const struct pe_axial_axis *x = &ax->axis[a];
		uint64_t ci = c3[p->axis[a]];
		int64_t c = p->origin[a] + (int64_t)ci;
		float *oc = pc + x->first, *os = ps + x->first, *oa = pa + x->first;

		if (ax->cached) {
			size_t o = (size_t)ci * x->pairs, sz = x->pairs * sizeof(float);

			if (want & WANT_COS)
				memcpy(oc, x->cos + o, sz);
			if (want & WANT_SIN)
				memcpy(os, x->sin + o, sz);
			if (want & WANT_ANG)
				memcpy(oa, x->ang + o, sz);
			continue;
		}
		for (k = 0; k < x->pairs; k++) {
			if (p->precision == PE_AXIAL_EXACT) {
				if (want & (WANT_COS | WANT_SIN))
					exact_cs(&x->freq[k], c, &oc[k], &os[k]);
				if (want & WANT_ANG)
					oa[k] = pe_angle_pf_f32(&x->freq[k], c);
				continue;
			}
			oa[k] = f_mul(pos32(ax, a, c), x->inv32[k]);
			if (p->polar) {
				oc[k] = pe_glibc_cosf(oa[k]);
				os[k] = pe_glibc_sinf(oa[k]);
			}
		}
		if (p->precision == PE_AXIAL_FLOAT32 && !p->polar) {
			if (want & WANT_COS)
				torch_block(ax, a, n, PE_TORCH_COS, oc);
			if (want & WANT_SIN)
				torch_block(ax, a, n, PE_TORCH_SIN, os);
		}
	}
}

static void put(float *row, size_t j, size_t P, enum pe_layout layout, float v)
{
	if (layout == PE_LAYOUT_INTERLEAVED) {
		row[2 * j] = v;
		row[2 * j + 1] = v;
	} else {
		row[j] = v;
		row[j + P] = v;
	}
}

static int fill_ids(const struct pe_axial *ax, uint64_t r0, size_t nrows, int32_t *out)
{
	size_t i, a, na = ax->p.naxes;
	int in;

	for (i = 0; i < nrows; i++)
		for (a = 0; a < na; a++)
			out[i * na + a] = (int32_t)coord(ax, a, r0 + i, &in);
	return 0;
}

static int axial_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_axial_view *v = ctx;
	const struct pe_axial *ax = v->ax;
	size_t P = ax->npairs, D = 2 * P, i, j, a;
	float *o = out, *pc, *ps, *pa, *row;
	int want;

	switch (v->table) {
	case PE_AXIAL_INV_FREQ:
		for (i = 0; i < nrows; i++) {
			j = (size_t)r0 + i;
			a = block_of(ax, j);
			o[i] = ax->axis[a].inv32[j - ax->axis[a].first];
		}
		return 0;
	case PE_AXIAL_IDS:
		return fill_ids(ax, r0, nrows, out);
	case PE_AXIAL_COS:
		want = WANT_COS;
		break;
	case PE_AXIAL_SIN:
		want = WANT_SIN;
		break;
	case PE_AXIAL_ANGLES:
		want = WANT_ANG;
		break;
	default:
		want = WANT_COS | WANT_SIN;
		break;
	}
	pc = malloc(3 * P * sizeof *pc);
	if (!pc)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	ps = pc + P;
	pa = ps + P;
	for (i = 0; i < nrows; i++) {
		pair_values(ax, r0 + i, want, pc, ps, pa);
		switch (v->table) {
		case PE_AXIAL_COS:
		case PE_AXIAL_SIN:
		case PE_AXIAL_ANGLES:
			row = o + i * D;
			for (j = 0; j < P; j++)
				put(row, j, P, ax->p.layout,
				    v->table == PE_AXIAL_COS ? pc[j] : v->table == PE_AXIAL_SIN ? ps[j] : pa[j]);
			break;
		case PE_AXIAL_CIS:
			row = o + i * D;
			for (j = 0; j < P; j++) {
				row[2 * j] = pc[j];
				row[2 * j + 1] = ps[j];
			}
			break;
		default:	/* rot: [[cos, -sin], [sin, cos]] */
			row = o + i * 2 * D;
			for (j = 0; j < P; j++) {
				row[4 * j] = pc[j];
				row[4 * j + 1] = -ps[j];
				row[4 * j + 2] = ps[j];
				row[4 * j + 3] = pc[j];
			}
			break;
		}
	}
	free(pc);
	return 0;
}

int pe_axial_tensor(struct pe_axial *ax, enum pe_axial_table table, struct pe_tensor *t,
		    struct pe_error *err)
{
	uint64_t shape[2] = { ax->rows, ax->p.dim };
	int ndim = 2;

	if (table == PE_AXIAL_INV_FREQ) {
		shape[0] = ax->npairs;
		ndim = 1;
	} else if (table == PE_AXIAL_IDS) {
		shape[1] = ax->p.naxes;
	} else if (table == PE_AXIAL_ROT) {
		shape[1] = 2 * ax->p.dim;
	}
	return pe_tensor_init(t, pe_axial_table_names[table], table == PE_AXIAL_IDS ? PE_I32 : PE_F32,
			      axial_fill, &ax->view[table], 1, ndim, shape, err);
}
