#include "core/grid.h"

#include <stdio.h>
#include <string.h>

#include "core/parse.h"
#include "core/tensor.h"

static uint64_t merge_of(const struct pe_grid *g)
{
	return g->merge > 1 ? g->merge : 1;
}

int pe_grid_check(const struct pe_grid *g, struct pe_error *err)
{
	uint64_t m = merge_of(g);

	if (g->t == 0 || g->h == 0 || g->w == 0 || g->t > PE_GRID_SIDE_MAX ||
	    g->h > PE_GRID_SIDE_MAX || g->w > PE_GRID_SIDE_MAX)
		return pe_fail(err, PE_ERR_PARAM, "{grid} sides must be 1 to 2^26");
	if (g->h % m || g->w % m)
		return pe_fail(err, PE_ERR_PARAM,
			       "{grid} %llux%llu is not divisible into {merge} %llu x %llu blocks",
			       (unsigned long long)g->h, (unsigned long long)g->w,
			       (unsigned long long)m, (unsigned long long)m);
	/* each side below 2^26: T H W below 2^78 would not fit; refuse past 2^60 */
	if (g->t * g->h > PE_MAX_ELEMS / g->w)
		return pe_fail(err, PE_ERR_PARAM, "{grid} %llux%llux%llu has too many cells",
			       (unsigned long long)g->t, (unsigned long long)g->h,
			       (unsigned long long)g->w);
	if (g->prefix > PE_MAX_ELEMS || g->suffix > PE_MAX_ELEMS ||
	    pe_grid_cells(g) > PE_MAX_ELEMS - g->prefix - g->suffix)
		return pe_fail(err, PE_ERR_PARAM, "{prefix_tokens} and {suffix_tokens} make too many tokens");
	return 0;
}

uint64_t pe_grid_cells(const struct pe_grid *g)
{
	return g->t * g->h * g->w;
}

uint64_t pe_grid_tokens(const struct pe_grid *g)
{
	return g->prefix + pe_grid_cells(g) + g->suffix;
}

int pe_grid_cell(const struct pe_grid *g, uint64_t row, uint64_t c[3])
{
	uint64_t hw = g->h * g->w, m = merge_of(g), i, b, in, bw;

	if (row < g->prefix || row - g->prefix >= pe_grid_cells(g))
		return 0;
	i = row - g->prefix;
	c[0] = i / hw;
	i %= hw;
	if (m == 1) {
		c[1] = i / g->w;
		c[2] = i % g->w;
		return 1;
	}
	b = i / (m * m);	/* the block, in raster order of blocks */
	in = i % (m * m);	/* the cell inside it, row by row */
	bw = g->w / m;
	c[1] = b / bw * m + in / m;
	c[2] = b % bw * m + in % m;
	return 1;
}

int pe_grid_cell_name(const struct pe_grid *g, int dims, uint64_t row, char *buf, size_t n)
{
	uint64_t c[3];

	if (row >= pe_grid_tokens(g) || !pe_grid_cell(g, row, c))
		return 0;
	if (dims == 3)
		snprintf(buf, n, "(%llu,%llu,%llu)", (unsigned long long)c[0], (unsigned long long)c[1],
			 (unsigned long long)c[2]);
	else
		snprintf(buf, n, "(%llu,%llu)", (unsigned long long)c[1], (unsigned long long)c[2]);
	return 1;
}

uint64_t pe_grid_row(const struct pe_grid *g, uint64_t t, uint64_t y, uint64_t x)
{
	uint64_t m = merge_of(g), i;

	if (m == 1)
		i = y * g->w + x;
	else
		i = (y / m * (g->w / m) + x / m) * m * m + y % m * m + x % m;
	return g->prefix + t * g->h * g->w + i;
}

static int image_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_grid_image *im = ctx;
	const struct pe_grid *g = im->grid;
	float *o = out;
	uint64_t r, x;

	(void)err;
	/* row r of the image is frame t0 + r / H, grid row r % H */
	for (r = r0; r < r0 + nrows; r++)
		for (x = 0; x < g->w; x++)
			*o++ = im->v[pe_grid_row(g, im->t0 + r / g->h, r % g->h, x)];
	return 0;
}

int pe_grid_image_tensor(const struct pe_grid_image *im, const char *name, struct pe_tensor *t,
			 struct pe_error *err)
{
	const struct pe_grid *g = im->grid;
	uint64_t shape[3] = { im->nt, g->h, g->w };

	if (im->nt == 0 || im->t0 + im->nt > g->t)
		return pe_fail(err, PE_ERR_PARAM, "{frame} must be within the grid's %llu frames",
			       (unsigned long long)g->t);
	if (im->nt == 1)
		return pe_tensor_init(t, name, PE_F32, image_fill, im, 1, 2, shape + 1, err);
	return pe_tensor_init(t, name, PE_F32, image_fill, im, 1, 3, shape, err);
}

int pe_grid_parse(const char *s, struct pe_grid *g, int *ndims)
{
	uint64_t v[3];
	const char *p = s, *x;
	int n = 0;

	if (!s)
		return -1;
	for (;;) {
		x = strchr(p, 'x');
		if (n == 3 || pe_parse_digits(p, x ? (size_t)(x - p) : strlen(p), &v[n]) != 0 ||
		    v[n] == 0 || v[n] > PE_GRID_SIDE_MAX)
			return -1;
		n++;
		if (!x)
			break;
		p = x + 1;
	}
	if (n < 2)
		return -1;
	g->t = n == 3 ? v[0] : 1;
	g->h = v[n - 2];
	g->w = v[n - 1];
	*ndims = n;
	return 0;
}
