#include "core/grid2d.h"

#include "core/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pe_grid2d_defaults(struct pe_grid2d_params *p)
{
	memset(p, 0, sizeof *p);
	p->preset = PE_GRID2D_MAE;
	p->height = p->width = 14;
	p->dim = 768;
	p->base = 10000.0;
}

/* sin and cos of pos w, each correctly rounded to float32. */
static void axis_pair(const struct pe_freq *fr, int64_t pos, float *vs, float *vc)
{
	double s, c;

	pe_sincos_pf(fr, pos, &s, &c);
	if (!pe_f32_sure(s, fr->e32, vs) && !pe_sincos_sure_fine(fr, s, 1.0, vs))
		*vs = pe_sincos_pf_f32(fr, pos, 0, 1.0);
	if (!pe_f32_sure(c, fr->e32, vc) && !pe_sincos_sure_fine(fr, c, 1.0, vc))
		*vc = pe_sincos_pf_f32(fr, pos, 1, 1.0);
}

/*
 * Every token's row is four runs of q values, each the sin or cos of one
 * coordinate; there are only max(H, W) coordinates, so their values are
 * computed once, at start-up, and each row is then four copies: a 256 x 256
 * grid at D = 1024 is 64 M values from 256 x 512 computed ones.  Up to
 * AXIS_TABLE_BYTES; a longer side (absurd for a ViT) computes every value.
 */
#define AXIS_TABLE_BYTES ((size_t)64 << 20)

static int axis_table(struct pe_grid2d *g, uint64_t big)
{
	size_t q = g->nfreq, pos, k;

	if (big > AXIS_TABLE_BYTES / (2 * q * sizeof(float)))
		return 0;
	g->axis = pe_alloc_big((size_t)big * 2 * q * sizeof *g->axis);
	if (!g->axis)
		return -1;
	for (pos = 0; pos < big; pos++)
		for (k = 0; k < q; k++)
			axis_pair(&g->freq[k], (int64_t)pos, &g->axis[pos * 2 * q + k],
				  &g->axis[pos * 2 * q + q + k]);
	return 0;
}

int pe_grid2d_init(struct pe_grid2d *g, const struct pe_grid2d_params *p, struct pe_error *err)
{
	uint64_t big;
	struct pe_mp f, q;
	size_t k;
	int bits;
	long double fmax = 0;

	memset(g, 0, sizeof *g);
	g->p = *p;
	if (p->dim == 0 || p->dim % 4 != 0)
		return pe_fail(err, PE_ERR_PARAM,
			       "{preset} %s needs {dim} divisible by 4 (a [sin|cos] pair per axis), got %llu",
			       p->preset == PE_GRID2D_MAE ? "mae" : "timm", (unsigned long long)p->dim);
	if (p->height == 0 || p->width == 0)
		return pe_fail(err, PE_ERR_PARAM, "the grid must have positive sides");
	if (!(p->base > 0) || !isfinite(p->base))
		return pe_fail(err, PE_ERR_PARAM, "{base} must be a positive number");
	if (p->height > ((uint64_t)1 << 26) || p->width > ((uint64_t)1 << 26))
		return pe_fail(err, PE_ERR_PARAM, "the grid sides must be at most 2^26");
	g->rows = p->height * p->width + (p->cls_token ? 1 : 0);
	g->nfreq = (size_t)(p->dim / 4);
	g->freq = malloc(g->nfreq * sizeof *g->freq);
	if (!g->freq)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	big = p->height > p->width ? p->height : p->width;
	bits = pe_angle_bits(0, (int64_t)big - 1);
	/* w_k = base^(-k/q) = w^k, w = e^(-ln(base) / q), exactly (core/mp.h) */
	pe_mp_set_d(&q, p->base);
	pe_mp_log(&q, &q);
	q.sign = -q.sign;
	pe_mp_div_u64(&q, &q, g->nfreq);
	pe_mp_exp(&q, &q);
	pe_mp_set_d(&f, 1.0);
	for (k = 0; k < g->nfreq; k++) {
		pe_freq_init(&g->freq[k], &f, bits);
		pe_mp_mul(&f, &f, &q);
		if (!(g->freq[k].f <= fmax))
			fmax = g->freq[k].f;
	}
	if (!(pe_angle_max(fmax, 0, (int64_t)big - 1) <= PE_ANGLE_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{base} %g gives frequencies up to %.3g and angles beyond 2^53 (where they are no longer exact): raise {base} or shrink the grid",
			       p->base, (double)fmax);
	if (axis_table(g, big) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

void pe_grid2d_free(struct pe_grid2d *g)
{
	free(g->freq);
	free(g->axis);
	g->freq = NULL;
	g->axis = NULL;
}

static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err);

int pe_grid2d_tensor(const struct pe_grid2d *g, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { g->rows, g->p.dim };

	if (pe_tensor_init(t, "sincos2d", PE_F32, pe_grid2d_fill, g, 1, 2, shape, err) != 0)
		return -1;
	t->fill64 = fill64;
	return 0;
}

int pe_grid2d_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_grid2d *g = ctx;
	size_t q = g->nfreq, dim = (size_t)g->p.dim, i, k;
	uint64_t tok;
	int64_t row, col, first, second;
	const float *a1, *a2;
	float *o;

	(void)err;
	for (i = 0; i < nrows; i++) {
		o = (float *)out + i * dim;
		tok = r0 + i;
		if (g->p.cls_token) {
			if (tok == 0) {
				memset(o, 0, dim * sizeof *o);
				continue;
			}
			tok--;
		}
		row = (int64_t)(tok / g->p.width);
		col = (int64_t)(tok % g->p.width);
		/* mae: column block first; timm: row first */
		first = g->p.preset == PE_GRID2D_MAE ? col : row;
		second = g->p.preset == PE_GRID2D_MAE ? row : col;
		if (g->axis) {
			a1 = g->axis + (size_t)first * 2 * q;	/* sin | cos of first */
			a2 = g->axis + (size_t)second * 2 * q;
			if (g->p.preset == PE_GRID2D_MAE) {
				memcpy(o, a1, 2 * q * sizeof *o);
				memcpy(o + 2 * q, a2, 2 * q * sizeof *o);
			} else {
				memcpy(o, a1, q * sizeof *o);
				memcpy(o + q, a2, q * sizeof *o);
				memcpy(o + 2 * q, a1 + q, q * sizeof *o);
				memcpy(o + 3 * q, a2 + q, q * sizeof *o);
			}
			continue;
		}
		for (k = 0; k < q; k++) {
			const struct pe_freq *fr = &g->freq[k];
			float v[4];	/* sin, cos of first; sin, cos of second */

			axis_pair(fr, first, &v[0], &v[1]);
			axis_pair(fr, second, &v[2], &v[3]);
			if (g->p.preset == PE_GRID2D_MAE) {
				o[k] = v[0];
				o[q + k] = v[1];
				o[2 * q + k] = v[2];
				o[3 * q + k] = v[3];
			} else {
				o[k] = v[0];
				o[q + k] = v[2];
				o[2 * q + k] = v[1];
				o[3 * q + k] = v[3];
			}
		}
	}
	return 0;
}

/* The values correctly rounded to double (core/angle.h), laid out as
 * pe_grid2d_fill lays them out. */
static int fill64(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_grid2d *g = ctx;
	size_t q = g->nfreq, dim = (size_t)g->p.dim, i, k;
	int mae = g->p.preset == PE_GRID2D_MAE;
	uint64_t tok;
	int64_t first, second;
	double *o;

	(void)err;
	for (i = 0; i < nrows; i++) {
		o = (double *)out + i * dim;
		tok = r0 + i;
		if (g->p.cls_token) {
			if (tok == 0) {
				memset(o, 0, dim * sizeof *o);
				continue;
			}
			tok--;
		}
		first = (int64_t)(mae ? tok % g->p.width : tok / g->p.width);
		second = (int64_t)(mae ? tok / g->p.width : tok % g->p.width);
		for (k = 0; k < q; k++) {
			const struct pe_freq *fr = &g->freq[k];

			o[k] = pe_sincos_pf_f64(fr, first, 0, 1.0);
			o[(mae ? 1 : 2) * q + k] = pe_sincos_pf_f64(fr, first, 1, 1.0);
			o[(mae ? 2 : 1) * q + k] = pe_sincos_pf_f64(fr, second, 0, 1.0);
			o[3 * q + k] = pe_sincos_pf_f64(fr, second, 1, 1.0);
		}
	}
	return 0;
}
