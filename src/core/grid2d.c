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

long double pe_grid2d_freq(const struct pe_grid2d_params *p, size_t k)
{
	return powl((long double)p->base, -(long double)k / (long double)(p->dim / 4));
}

int pe_grid2d_init(struct pe_grid2d *g, const struct pe_grid2d_params *p, struct pe_error *err)
{
	uint64_t big;
	size_t k;
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
	for (k = 0; k < g->nfreq; k++)
		if (!(pe_grid2d_freq(p, k) <= fmax))
			fmax = pe_grid2d_freq(p, k);
	if (!(pe_angle_max(fmax, 0, (int64_t)big - 1) <= PE_ANGLE_MAX))
		return pe_fail(err, PE_ERR_USAGE,
			       "--base %g gives frequencies up to %.3g and angles beyond 2^53 (where they are no longer exact): raise --base or shrink the grid",
			       p->base, (double)fmax);
	for (k = 0; k < g->nfreq; k++)
		pe_freq_init(&g->freq[k], pe_grid2d_freq(p, k), pe_angle_bits(0, (int64_t)big - 1));
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
	size_t q = g->nfreq, dim = (size_t)g->p.dim, i, k;
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
			pe_sincos_pf(&g->freq[k], first, &s1, &c1);
			pe_sincos_pf(&g->freq[k], second, &s2, &c2);
			if (g->p.preset == PE_GRID2D_MAE) {
				o[k] = (float)s1;
				o[q + k] = (float)c1;
				o[2 * q + k] = (float)s2;
				o[3 * q + k] = (float)c2;
			} else {
				o[k] = (float)s1;
				o[q + k] = (float)s2;
				o[2 * q + k] = (float)c1;
				o[3 * q + k] = (float)c2;
			}
		}
	}
	return 0;
}
