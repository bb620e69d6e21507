#include "core/grid2d.h"

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

double pe_grid2d_freq(const struct pe_grid2d *g, size_t k)
{
	return g->freq[k].f;
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
		return pe_fail(err, PE_ERR_USAGE,
			       "--preset %s needs --dim divisible by 4 (a [sin|cos] pair per axis), got %llu",
			       p->preset == PE_GRID2D_MAE ? "mae" : "timm", (unsigned long long)p->dim);
	if (p->height == 0 || p->width == 0)
		return pe_fail(err, PE_ERR_USAGE, "the grid must have positive sides");
	if (!(p->base > 0) || !isfinite(p->base))
		return pe_fail(err, PE_ERR_USAGE, "--base must be a positive number");
	if (p->height > ((uint64_t)1 << 26) || p->width > ((uint64_t)1 << 26))
		return pe_fail(err, PE_ERR_USAGE, "the grid sides must be at most 2^26");
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
		return pe_fail(err, PE_ERR_USAGE,
			       "--base %g gives frequencies up to %.3g and angles beyond 2^53 (where they are no longer exact): raise --base or shrink the grid",
			       p->base, (double)fmax);
	return 0;
}

void pe_grid2d_free(struct pe_grid2d *g)
{
	free(g->freq);
	g->freq = NULL;
}

int pe_grid2d_tensor(const struct pe_grid2d *g, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2] = { g->rows, g->p.dim };

	return pe_tensor_init(t, "sincos2d", PE_F32, pe_grid2d_fill, g, 1, 2, shape, err);
}

int pe_grid2d_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_grid2d *g = ctx;
	size_t q = g->nfreq, dim = (size_t)g->p.dim, i, k, i4;
	uint64_t tok;
	int64_t row, col, first, second;
	double s1, c1, s2, c2;
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
		for (k = 0; k < q; k++) {
			const struct pe_freq *fr = &g->freq[k];
			float v[4];	/* sin, cos of first; sin, cos of second */

			pe_sincos_pf(fr, first, &s1, &c1);
			pe_sincos_pf(fr, second, &s2, &c2);
			for (i4 = 0; i4 < 4; i4++) {
				double x = i4 == 0 ? s1 : i4 == 1 ? c1 : i4 == 2 ? s2 : c2;

				if (!pe_f32_sure(x, fr->e32, &v[i4]) &&
				    !pe_sincos_sure_fine(fr, x, 1.0, &v[i4]))
					v[i4] = pe_sincos_pf_f32(fr, i4 < 2 ? first : second, i4 % 2, 1.0);
			}
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
