/*
 * png: a heatmap of one tensor, 8-bit RGB, with axis ticks, an optional
 * title and a colour bar, drawn with io/font.h.
 *
 * What is drawn: a matrix R x C with rows (positions) top to bottom and
 * columns (dimensions) left to right, as matplotlib's imshow shows it; a
 * 3-D result H x N x M (its rows arrive as H * N stacked rows) is a grid of
 * H panels of N x M, titled "head K", in the columns x rows nearest to
 * square (ceil(sqrt(H)) columns for square panels), with one colour scale
 * (the data's range over all heads) and one colour bar; a 1-D result of K
 * values is one row of K cells, a strip at least STRIP_MIN pixels tall (it
 * has no row axis, so no shape rule: 32 pixels hold the colours without
 * making a vector look like a matrix).  At most PANELS_MAX panels.
 *
 * Size: the heatmap's longer side is at most opts->size pixels.  When the
 * matrix fits, each cell becomes a k x k square of one colour, k the
 * largest whole factor that fits (never stretched or smoothed); when it
 * does not, the longer side becomes exactly size pixels and each pixel is
 * the mean of its block of cells (block edges at floor(i * R / H)).  Without
 * --size: small matrices (longer side under AUTO_MIN) are scaled up by a
 * whole factor to about AUTO_MIN pixels, larger ones keep one pixel per
 * cell up to AUTO_MAX, beyond which they are averaged down to AUTO_MAX.
 * Panels: n = max(columns, rows) panels share size along the grid's longer
 * side (each panel's budget is size / n, and the automatic size is that of
 * one matrix of n N x n M cells).
 *
 * Shape (unless opts->aspect_equal): a matrix longer than 4 times its
 * width (or wider than 4 times its height) is drawn at 1:4 rather than as
 * a sliver: its long axis averaged down, or its short axis repeated, each
 * axis by the rule above on its own, so cells are rectangles of whole
 * pixels (fit_squeezed() says how the ratio stays in [3, 4] with uniform
 * cells).
 *
 * opts->no_axes: the heatmap's pixels alone, as matplotlib's imsave
 * writes them: no margins, frame, text or colour bar.  Without --size a
 * matrix keeps one pixel per cell up to AUTO_MAX (no scaling up); a matrix
 * that fits one or more whole pixels per cell keeps its true shape (imsave
 * writes it so); one that must be averaged follows the shape rule.  Panels
 * are drawn on the same grid, BARE_GAP white pixels apart, untitled, and
 * size counts the gaps.
 *
 * Memory: the cells are accumulated as the rows stream in, into a sum
 * buffer of at most the heatmap's size (never the whole table), while the
 * data's minimum and maximum are tracked; colours are chosen at the end,
 * so the colour range can default to the data's range.
 *
 * Colours are matplotlib's (io/colormap.h): a float32 table gives exactly
 * the pixels matplotlib.pyplot.imsave gives it.  NaN cells are NAN_RGB;
 * values outside [vmin, vmax] take the end colours.  An averaged pixel is
 * its block's mean, as np.mean would give it: one NaN in the block makes
 * it NaN, and so do +inf and -inf together (one of them alone gives that
 * end's colour).
 *
 * Integer results (ids: buckets, index maps) are drawn in discrete
 * colours, as matplotlib's imshow with plt.get_cmap(name, n): the ids lo ..
 * hi (the data's extremes, or --vmin rounded down and --vmax rounded up)
 * take the n = hi - lo + 1 colours of the map resampled into n
 * (pe_colormap_resampled()), one flat colour each, ids beyond the range
 * the end colours.  An averaged pixel would blend ids into the colour of
 * an id that is not there, so a block of ids is drawn as its most frequent
 * id instead (block_mode(): ties to the one nearest the block's centre),
 * counted over at most MODE_S x MODE_S cells evenly spread over the block
 * (every cell up to MODE_S x MODE_S, i.e. a 32768-square matrix at 2048
 * pixels; beyond, a sample) and decided band by band as rows stream in,
 * so memory stays one band of samples.  The colour bar has one band per
 * id labelled with ids (draw_id_colorbar()); --no-axes pixels are the
 * same colours.
 *
 * Axes: tick labels are the cells' real indices, origin + i * step
 * (struct pe_sink_opts; a 1-D result has only the column axis), ticks at
 * round labels (pe_png_ticks() in io/sink_png.h); every panel has its own.
 * An x-axis title goes centred under the column labels, a y-axis title
 * left of the row labels turned to read bottom to top (both once, centred
 * on the grid of panels); each of them, the title, the panel titles, the
 * tick labels and the colour bar get their own room, so no text covers
 * another or a heatmap.  A 1-D result has no row axis, so no y-axis title
 * either.
 *
 * Text chunks: tEXt "Software" = "posenc VERSION"; iTXt "posenc:meta" =
 * the parameters as JSON (io/metajson.h, the json format's "meta"); iTXt
 * "posenc:heatmap" = how to read the pixels back: {"cmap","vmin","vmax",
 * "nan","shape":[R,C],"heatmap":[x,y,w,h]}, then:
 *   "scale":"discrete","ids":[lo,hi]  an integer result: ids lo..hi in
 *                      hi - lo + 1 colours (vmin, vmax are lo, hi), a
 *                      smaller image's pixel the mode of its block;
 *   "cell":[ph,pw]     pixels per cell along rows and columns (hh / R and
 *                      hw / C; a fraction on an averaged axis), only when
 *                      the shape rule made the cells non-square;
 *   "panels":[[x,y,w,h],...]  a 3-D result's heatmaps, head 0 first; then
 *                      "shape" is [H,N,M] and "heatmap" is head 0's;
 *   "row_labels":[origin,step]  when row r stands for position origin +
 *                      r * step rather than r (each panel's rows alike),
 *                      and likewise "col_labels";
 * each only when it applies, so an image without the new features has the
 * text it had.  Along an axis of n cells drawn h pixels long: h >= n is a
 * whole multiple k of n and cell r fills pixels k r .. k r + k - 1; h < n
 * means pixel i is the mean (ids: the mode) of cells floor(i n / h) ..
 * floor((i + 1) n / h) - 1 (a 1-D strip's one row fills its height).  iTXt "Title" when a title
 * is given.  No time stamp: the same input gives the same image and text.
 *
 * libpng reports errors by longjmp; the setjmp stays in write_png() and no
 * jump crosses into the rest of posenc.
 */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "io/colormap.h"
#include "io/fmt.h"
#include "io/font.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/sink.h"
#include "io/sink_png.h"
#include "version.h"

#define AUTO_MIN 512
#define AUTO_MAX 2048
#define STRIP_MIN 32
#define PANELS_MAX 1024
#define BARE_GAP 2	/* white pixels between panels with no_axes */
#define PANEL_GAP 8	/* font pixels between one panel's labels and the next */
#define MODE_S 16	/* an id block's mode looks at up to MODE_S x MODE_S cells */
#define PALETTE_MAX 65536	/* ids in a precomputed palette; more are coloured one by one */

static const unsigned char NAN_RGB[3] = { 0xff, 0x00, 0xff };	/* magenta */
static const unsigned char BG_RGB[3] = { 0xff, 0xff, 0xff };
static const unsigned char INK_RGB[3] = { 0x00, 0x00, 0x00 };
static const unsigned char FRAME_RGB[3] = { 0x40, 0x40, 0x40 };

/* Counts of the ids of one block: open addressing over twice as many
 * slots as samples; a slot belongs to this block when its gen is the
 * table's (so the table is never cleared between blocks). */
#define MODE_SLOTS (2 * MODE_S * MODE_S)
struct mode_tab {
	int32_t key[MODE_SLOTS];
	uint32_t count[MODE_SLOTS], gen[MODE_SLOTS];
	uint32_t g;
};

struct png_sink {
	struct pe_sink base;
	FILE *fp;
	struct pe_sink_opts o;
	const struct pe_meta *meta;
	enum pe_dtype dtype;
	int vector;		/* 1-D: rows arrive one value each, drawn as one row */
	uint64_t panels;	/* 1, or H of a 3-D result */
	int is3d;		/* a 3-D result: H panels */
	int titled;		/* panels titled "head K" (3-D, not with no_axes) */
	uint64_t rows, cols;	/* one panel's matrix as drawn (N x M; 1 x K for 1-D) */
	uint64_t seen;		/* rows received (of all panels) */
	uint32_t nc, nr;	/* the grid of panels: columns, rows */
	uint32_t gh, gw;	/* a panel's cells after averaging */
	uint32_t kh, kw;	/* pixels per cell along rows / columns (1 when averaged) */
	uint32_t ph;		/* pixel height of a panel (kh * gh, or more for a strip) */
	int squeezed;		/* the 1:4 rule changed the shape (cells not square) */
	uint64_t *rb, *cb;	/* block edges: rows rb[i]..rb[i+1]-1 form cell row i */
	double *sum;		/* panels * gh * gw block sums (float results) */
	float *one;		/* instead, at one value a cell (gh = rows, gw =
				 * cols): the values, exactly, in half the memory */
	/* integer results: each cell's id, the mode of its block */
	int32_t *ids;		/* panels * gh * gw */
	int32_t *samp;		/* the current band's samples, MODE_S x MODE_S per cell */
	uint64_t *cs;		/* gw x MODE_S sampled columns (indices into a row) */
	struct mode_tab *tab;	/* block_mode()'s counts */
	uint32_t next;		/* the next sample of the current band (or 1-D block) */
	int64_t lo, hi;		/* the ids drawn in the first and last colour */
	unsigned char *pal;	/* 3 (hi - lo + 1) bytes when that is at most PALETTE_MAX */
	double min, max;	/* finite data extremes */
	int finite;		/* a finite value was seen */
	/* the image */
	int w, h;
	unsigned char *img;
	struct pe_error werr;	/* why a libpng write callback failed */
};

#define PE_PNG_MAX_SIDE ((uint64_t)1 << 48)

/* Block index of i when n items form g blocks with edges floor(j * n / g). */
static uint32_t block_of(uint64_t i, uint64_t n, uint32_t g)
{
	return (uint32_t)(((i + 1) * g - 1) / n);
}

static uint64_t *block_edges(uint64_t n, uint32_t g)
{
	uint64_t *e = malloc(((size_t)g + 1) * sizeof *e);
	uint32_t j;

	if (e)
		for (j = 0; j <= g; j++)
			e[j] = (uint64_t)j * n / g;
	return e;
}

/* Do the labels origin .. origin + (n - 1) * step (n >= 1) fit in int64_t? */
static int labels_fit(int64_t origin, uint64_t step, uint64_t n)
{
	uint64_t room = origin >= 0 ? (uint64_t)(INT64_MAX - origin)
				    : (uint64_t)INT64_MAX + (uint64_t)(-(origin + 1)) + 1;

	return n == 1 || (step <= UINT64_MAX / (n - 1) && (n - 1) * step <= room);
}

/* How one matrix R x C is drawn: gh x gw cells of kh x kw pixels. */
struct fit {
	uint32_t gh, gw, kh, kw;
	int squeezed;
};

/* n cells on px pixels: whole pixels per cell when px >= n (px is then a
 * multiple of n), else px blocks averaged. */
static void fit_axis(uint64_t n, uint64_t px, uint32_t *g, uint32_t *k)
{
	if (px >= n) {
		*g = (uint32_t)n;
		*k = (uint32_t)(px / n);
	} else {
		*g = (uint32_t)px;
		*k = 1;
	}
}

/* Square cells, the longer side at most size. */
static void fit_equal(uint64_t R, uint64_t C, uint64_t size, struct fit *f)
{
	uint64_t longest = R > C ? R : C;

	memset(f, 0, sizeof *f);
	if (longest <= size) {
		f->kh = f->kw = (uint32_t)(size / longest);
		f->gh = (uint32_t)R;
		f->gw = (uint32_t)C;
		return;
	}
	f->kh = f->kw = 1;
	f->gh = (uint32_t)((R * size + longest / 2) / longest);
	f->gw = (uint32_t)((C * size + longest / 2) / longest);
	if (f->gh == 0)
		f->gh = 1;
	if (f->gw == 0)
		f->gw = 1;
}

/*
 * The 1:4 rule for a matrix whose long side L exceeds 4 x its short side
 * S.  The long axis alone would take PL0 pixels (a whole factor of L, or
 * size when averaged).  When S >= PL0 / 4 the short axis is averaged to
 * ceil(PL0 / 4) pixels; otherwise it is repeated q whole pixels per cell,
 * and the long axis gets min(PL0, 4 q S) pixels (a whole factor of L when
 * that is at least L, else averaged).  Of q = 1 .. floor(PL0 / 4S) + 1 the
 * one with the longest long side whose ratio is between 3 and 4 wins (the
 * smaller q on a tie, the ratio nearer 4); q = 1 always qualifies (4S
 * pixels, averaged, exactly 1:4).  Uniform whole-pixel cells rule out an
 * exact 1:4 in general; this keeps the ratio in [3, 4] and the long side
 * as close to size as that allows.
 */
static void fit_squeezed(uint64_t R, uint64_t C, uint64_t size, struct fit *f)
{
	uint64_t L = R > C ? R : C, S = R > C ? C : R, PL0, PL, PS, q, T, pl;
	uint32_t gl, kl, gs, ks;

	memset(f, 0, sizeof *f);
	PL0 = L <= size ? size / L * L : size;
	if (4 * S >= PL0) {
		PS = (PL0 + 3) / 4;
		PL = PL0;
	} else {
		PL = PS = 0;
		for (q = 1; q <= PL0 / (4 * S) + 1; q++) {
			T = 4 * q * S < PL0 ? 4 * q * S : PL0;
			pl = T >= L ? T / L * L : T;
			if (pl >= 3 * q * S && pl > PL) {
				PL = pl;
				PS = q * S;
			}
		}
	}
	fit_axis(L, PL, &gl, &kl);
	fit_axis(S, PS, &gs, &ks);
	f->gh = R > C ? gl : gs;
	f->kh = R > C ? kl : ks;
	f->gw = R > C ? gs : gl;
	f->kw = R > C ? ks : kl;
	f->squeezed = 1;
}

/* A matrix R x C (R, C >= 1) in at most size pixels on its longer side. */
static void fit_matrix(uint64_t R, uint64_t C, uint64_t size, int equal, struct fit *f)
{
	uint64_t L = R > C ? R : C, S = R > C ? C : R;

	if (equal || (L + 3) / 4 <= S)
		fit_equal(R, C, size, f);
	else
		fit_squeezed(R, C, size, f);
}

/* Panels of (drawn) width / height about a in nc columns: the grid nearest
 * to square (the wider one on a tie, as ceil(sqrt(H)) columns for square
 * panels). */
static void choose_grid(uint64_t H, double a, uint32_t *nc, uint32_t *nr)
{
	double best = HUGE_VAL, d;
	uint64_t c, r;

	for (c = 1; c <= H; c++) {
		r = (H + c - 1) / c;
		d = (double)c * a / (double)r;
		if (d < 1)
			d = 1 / d;
		/* within rounding of the best so far counts as a tie */
		if (d <= best * (1 + 1e-9)) {
			if (d < best)
				best = d;
			*nc = (uint32_t)c;
			*nr = (uint32_t)r;
		}
	}
}

/* Samples of a block of len cells: all of them up to MODE_S, else MODE_S. */
static uint32_t nsamp(uint64_t len)
{
	return len < MODE_S ? (uint32_t)len : MODE_S;
}

/* Sample k of a block of len cells starting at first: evenly spaced, at the
 * centres of nsamp(len) equal parts (every cell when len <= MODE_S). */
static uint64_t sample_at(uint64_t first, uint64_t len, uint32_t k)
{
	return first + (2 * (uint64_t)k + 1) * len / (2 * (uint64_t)nsamp(len));
}

/* Integer results keep ids, not sums: a cell's block of ids and the
 * columns sampled from it (see block_mode()). */
static int begin_ids(struct png_sink *p)
{
	uint32_t j, k;

	p->ids = malloc((size_t)p->panels * p->gh * p->gw * sizeof *p->ids);
	p->samp = malloc((size_t)p->gw * MODE_S * MODE_S * sizeof *p->samp);
	p->cs = malloc((size_t)p->gw * MODE_S * sizeof *p->cs);
	p->tab = calloc(1, sizeof *p->tab);
	if (!p->ids || !p->samp || !p->cs || !p->tab)
		return -1;
	for (j = 0; j < p->gw; j++)
		for (k = 0; k < nsamp(p->cb[j + 1] - p->cb[j]); k++)
			p->cs[(size_t)j * MODE_S + k] = sample_at(p->cb[j], p->cb[j + 1] - p->cb[j], k);
	return 0;
}

static int png_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err)
{
	struct png_sink *p = (struct png_sink *)s;
	uint64_t size, n, L;
	size_t cells;
	struct fit f;
	double a;
	int equal;

	if (nt != 1)
		return pe_fail(err, PE_ERR_PARAM,
			       "png draws one matrix, this result has %zu (use safetensors or json)",
			       nt);
	p->meta = meta;
	p->dtype = t->dtype;
	p->vector = t->ndim == 1;
	if (p->vector) {
		/* its rows are drawn across: the column axis labels them */
		p->o.col_origin = p->o.row_origin;
		p->o.col_step = p->o.row_step;
	}
	p->panels = t->ndim == 3 ? t->shape[0] : 1;
	p->is3d = t->ndim == 3;
	p->titled = p->is3d && !p->o.no_axes;
	p->rows = p->vector ? 1 : t->ndim == 3 ? t->shape[1] : t->rows;
	p->cols = p->vector ? t->rows : t->cols;
	/* block arithmetic multiplies an index by a pixel count (< 2^14) */
	if (p->rows > PE_PNG_MAX_SIDE || p->cols > PE_PNG_MAX_SIDE)
		return pe_fail(err, PE_ERR_PARAM, "png draws at most 2^48 rows and columns, this result has %llu x %llu",
			       (unsigned long long)p->rows, (unsigned long long)p->cols);
	if (p->panels > PANELS_MAX)
		return pe_fail(err, PE_ERR_PARAM,
			       "png draws at most %d heads as panels, this result has %llu "
			       "(draw one with {head}, or write npy)",
			       PANELS_MAX, (unsigned long long)p->panels);
	if ((!p->vector && !labels_fit(p->o.row_origin, p->o.row_step, p->rows)) ||
	    !labels_fit(p->o.col_origin, p->o.col_step, p->cols))
		return pe_fail(err, PE_ERR_PARAM,
			       "png axis labels do not fit in 64 bits (row %lld + %llu x %llu, "
			       "column %lld + %llu x %llu)",
			       (long long)p->o.row_origin, (unsigned long long)(p->rows - 1),
			       (unsigned long long)p->o.row_step, (long long)p->o.col_origin,
			       (unsigned long long)(p->cols - 1),
			       (unsigned long long)p->o.col_step);
	L = p->rows > p->cols ? p->rows : p->cols;
	/* the grid; n panels along its longer side share size */
	a = (double)p->cols / (double)p->rows;
	if (!p->o.aspect_equal)
		a = a > 4 ? 4 : a < 0.25 ? 0.25 : a;
	choose_grid(p->panels, a, &p->nc, &p->nr);
	n = p->nc > p->nr ? p->nc : p->nr;
	size = p->o.size;
	if (size == 0) {
		size = n * L + (p->o.no_axes ? (n - 1) * BARE_GAP : 0);
		if (size > AUTO_MAX)
			size = AUTO_MAX;
		else if (size < AUTO_MIN && !p->o.no_axes)
			size = AUTO_MIN;
	}
	if (p->o.no_axes)
		size = size > (n - 1) * BARE_GAP ? size - (n - 1) * BARE_GAP : 0;
	size /= n;
	if (size == 0)
		return pe_fail(err, PE_ERR_PARAM, "%llu png panels need {size} %llu or more",
			       (unsigned long long)p->panels,
			       (unsigned long long)(n + (p->o.no_axes ? (n - 1) * BARE_GAP : 0)));
	/* --no-axes draws the cells one to one, as imsave, when they fit */
	equal = p->vector || p->o.aspect_equal || (p->o.no_axes && L <= size);
	fit_matrix(p->rows, p->cols, size, equal, &f);
	p->gh = f.gh;
	p->gw = f.gw;
	p->kh = f.kh;
	p->kw = f.kw;
	p->squeezed = f.squeezed;
	p->ph = p->kh * p->gh;
	if (p->vector && p->ph < STRIP_MIN)
		p->ph = STRIP_MIN;
	p->rb = block_edges(p->rows, p->gh);
	p->cb = block_edges(p->cols, p->gw);
	if (p->rb && p->cb && p->dtype == PE_I32) {
		if (begin_ids(p) != 0)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory for a %u x %u heatmap",
				       p->gw, p->gh);
		return 0;
	}
	/* 64 MiB at 4096 x 4096: huge pages save the faults (core/mem.h) */
	cells = (size_t)p->panels * p->gh * p->gw;
	if (p->gh == p->rows && p->gw == p->cols)
		p->one = pe_alloc_big(cells * sizeof *p->one);
	else if ((p->sum = pe_alloc_big(cells * sizeof *p->sum)) != NULL)
		memset(p->sum, 0, cells * sizeof *p->sum);
	if (!p->rb || !p->cb || (!p->sum && !p->one))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a %u x %u heatmap", p->gw,
			       p->gh);
	return 0;
}

static void track(struct png_sink *p, double v)
{
	if (!isfinite(v))
		return;
	if (!p->finite) {
		p->min = p->max = v;
		p->finite = 1;
	} else if (v < p->min) {
		p->min = v;
	} else if (v > p->max) {
		p->max = v;
	}
}

static double value_at(const struct png_sink *p, const void *data, size_t k)
{
	return p->dtype == PE_F32 ? (double)((const float *)data)[k]
				  : (double)((const int32_t *)data)[k];
}

/* The slot of v in this block, added with count 0 when new. */
static size_t mode_slot(struct mode_tab *t, int32_t v)
{
	size_t h = ((uint32_t)v * 2654435761u) >> 23;	/* 9 bits: MODE_SLOTS = 512 */

	while (t->gen[h] == t->g && t->key[h] != v)
		h = (h + 1) % MODE_SLOTS;
	if (t->gen[h] != t->g) {
		t->gen[h] = t->g;
		t->key[h] = v;
		t->count[h] = 0;
	}
	return h;
}

/*
 * The id drawn for a block of ids, from its nr x nc samples (rows stride
 * apart): the most frequent id.  A mean would draw ids that are not there
 * (the mean of buckets 3 and 5 is bucket 4's colour) and the centre cell
 * alone aliases; the mode keeps what covers most of the block, so a
 * bucket map's regions keep their ids and their borders fall where most
 * of a block lies.  Ties go to the tied id nearest the block's centre,
 * then to the smaller, so a block of all-different ids (an index map)
 * shows its centre cell, as nearest-neighbour sampling would.
 */
static int32_t block_mode(const int32_t *samp, uint32_t nr, uint32_t nc, struct mode_tab *t)
{
	uint32_t a, b, c, best = 0, ties = 0, same = 1;
	int32_t id = samp[0], v;
	long d, bestd = -1, da, db;

	for (a = 0; a < nr && same; a++)
		for (b = 0; b < nc && same; b++)
			same = samp[(size_t)a * MODE_S + b] == id;
	if (same)
		return id;
	if (++t->g == 0) {
		memset(t->gen, 0, sizeof t->gen);
		t->g = 1;
	}
	/* counts grow by one, so an id at the final best count got there
	 * after best last grew: ties counts exactly the ids at best */
	for (a = 0; a < nr; a++) {
		for (b = 0; b < nc; b++) {
			v = samp[(size_t)a * MODE_S + b];
			c = ++t->count[mode_slot(t, v)];
			if (c > best) {
				best = c;
				ties = 1;
				id = v;
			} else if (c == best) {
				ties++;
			}
		}
	}
	if (ties == 1)
		return id;
	for (a = 0; a < nr; a++) {
		for (b = 0; b < nc; b++) {
			v = samp[(size_t)a * MODE_S + b];
			if (t->count[mode_slot(t, v)] != best)
				continue;
			da = 2 * (long)a - (long)(nr - 1);
			db = 2 * (long)b - (long)(nc - 1);
			d = da * da + db * db;
			if (bestd < 0 || d < bestd || (d == bestd && v < id)) {
				bestd = d;
				id = v;
			}
		}
	}
	return id;
}

static void track_i32(struct png_sink *p, const int32_t *v, size_t n)
{
	int32_t lo = v[0], hi = v[0];
	size_t i;

	for (i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	track(p, lo);
	track(p, hi);
}

/*
 * Integer rows: each cell keeps its block's id (block_mode()) over the
 * rows and columns sample_at() picks; a band of cell rows is decided when
 * its last row has arrived, so only one band of samples is held.
 */
static void rows_i32(struct png_sink *p, const int32_t *data, size_t nrows)
{
	size_t k, cols = (size_t)p->cols;
	uint64_t r, rr, bh, bw;
	uint32_t i, j, t;
	int32_t *row_ids, *cell;
	const int32_t *row;

	for (k = 0; k < nrows; k++) {
		r = p->seen + k;
		if (p->vector) {
			/* value r is column r of one row: a block is a run of values */
			track(p, data[k]);
			j = p->gw == p->cols ? (uint32_t)r : block_of(r, p->cols, p->gw);
			bw = p->cb[j + 1] - p->cb[j];
			if (r == p->cb[j])
				p->next = 0;
			if (p->next < nsamp(bw) && r == sample_at(p->cb[j], bw, p->next))
				p->samp[(size_t)j * MODE_S * MODE_S + p->next++] = data[k];
			if (r == p->cb[j + 1] - 1)
				p->ids[j] = block_mode(p->samp + (size_t)j * MODE_S * MODE_S, 1,
						       nsamp(bw), p->tab);
			continue;
		}
		row = data + k * cols;
		track_i32(p, row, cols);
		rr = r % p->rows;
		i = p->gh == p->rows ? (uint32_t)rr : block_of(rr, p->rows, p->gh);
		bh = p->rb[i + 1] - p->rb[i];
		if (rr == p->rb[i])
			p->next = 0;
		if (p->next < nsamp(bh) && rr == sample_at(p->rb[i], bh, p->next)) {
			for (j = 0; j < p->gw; j++) {
				cell = p->samp + ((size_t)j * MODE_S + p->next) * MODE_S;
				bw = p->cb[j + 1] - p->cb[j];
				for (t = 0; t < nsamp(bw); t++)
					cell[t] = row[p->cs[(size_t)j * MODE_S + t]];
			}
			p->next++;
		}
		if (rr != p->rb[i + 1] - 1)
			continue;
		row_ids = p->ids + ((size_t)(r / p->rows) * p->gh + i) * p->gw;
		for (j = 0; j < p->gw; j++)
			row_ids[j] = block_mode(p->samp + (size_t)j * MODE_S * MODE_S, nsamp(bh),
						nsamp(p->cb[j + 1] - p->cb[j]), p->tab);
	}
	p->seen += nrows;
}

static int png_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct png_sink *p = (struct png_sink *)s;
	size_t k, c, cols = p->vector ? 1 : (size_t)p->cols;
	uint64_t r;
	uint32_t j;
	double *line, v, acc;
	float *one;

	(void)err;
	if (p->dtype == PE_I32) {
		rows_i32(p, data, nrows);
		return 0;
	}
	for (k = 0; k < nrows; k++) {
		r = p->seen + k;
		if (p->vector) {
			v = value_at(p, data, k);
			track(p, v);
			if (p->one)
				p->one[r] = (float)v;
			else
				p->sum[p->gw == p->cols ? r : block_of(r, p->cols, p->gw)] += v;
			continue;
		}
		if (p->one) {	/* row r is row r mod N of panel r / N */
			one = p->one + (size_t)r * cols;
			for (c = 0; c < cols; c++) {
				v = value_at(p, data, k * cols + c);
				track(p, v);
				one[c] = (float)v;
			}
			continue;
		}
		/* row r is row r mod N of panel r / N */
		line = p->sum + ((size_t)(r / p->rows) * p->gh +
				 (p->gh == p->rows ? r % p->rows : block_of(r % p->rows, p->rows, p->gh))) *
					p->gw;
		if (p->gw == p->cols) {
			for (c = 0; c < cols; c++) {
				v = value_at(p, data, k * cols + c);
				track(p, v);
				line[c] += v;
			}
			continue;
		}
		for (j = 0; j < p->gw; j++) {
			acc = 0;
			for (c = (size_t)p->cb[j]; c < (size_t)p->cb[j + 1]; c++) {
				v = value_at(p, data, k * cols + c);
				track(p, v);
				acc += v;
			}
			line[j] += acc;
		}
	}
	p->seen += nrows;
	return 0;
}

/* ---- drawing ---- */

static void fill_rect(struct png_sink *p, int x, int y, int w, int h, const unsigned char *rgb)
{
	pe_rgb_fill(p->img, p->w, p->h, x, y, w, h, rgb);
}

static void frame(struct png_sink *p, int x, int y, int w, int h)
{
	fill_rect(p, x - 1, y - 1, w + 2, 1, FRAME_RGB);
	fill_rect(p, x - 1, y + h, w + 2, 1, FRAME_RGB);
	fill_rect(p, x - 1, y, 1, h, FRAME_RGB);
	fill_rect(p, x + w, y, 1, h, FRAME_RGB);
}

/* The smallest of 1, 2, 5, 10, 20, 50, ... whose ticks over n indices
 * drawn across len pixels are at least minpx apart, or the first that
 * reaches n (one tick). */
static uint64_t tick_step(uint64_t n, double len, double minpx)
{
	static const int mant[3] = { 1, 2, 5 };
	uint64_t decade = 1, step = 1;
	int m = 0;

	while ((double)step * len / (double)n < minpx && step < n) {
		if (++m == 3) {
			m = 0;
			decade *= 10;
		}
		step = decade * (uint64_t)mant[m];
	}
	return step;
}

/* v mod m in [0, m), m >= 1. */
static uint64_t mod_i64(int64_t v, uint64_t m)
{
	uint64_t mag;

	if (v >= 0)
		return (uint64_t)v % m;
	mag = (uint64_t)(-(v + 1)) + 1;
	return (m - mag % m) % m;
}

struct pe_png_ticks pe_png_ticks(uint64_t n, int64_t origin, uint64_t step, double len,
				 double minpx)
{
	static const int mant[3] = { 1, 2, 5 };
	struct pe_png_ticks t;
	uint64_t decade, round, q;
	int m, done = 0;

	/* The periods step x (1, 2, 5 x 10^k) always include one that fits
	 * (tick_step() finds it); a round period 1, 2, 5 x 10^k that step
	 * divides (500 for step 4) is taken instead when it is smaller. */
	t.every = tick_step(n, len, minpx);
	for (decade = 1; !done && decade <= UINT64_MAX / 50; decade *= 10) {
		for (m = 0; m < 3 && !done; m++) {
			round = decade * (uint64_t)mant[m];
			q = round / step;
			if (q >= t.every) {
				done = 1;
			} else if (q > 0 && round % step == 0 &&
				   (double)q * len / (double)n >= minpx) {
				t.every = q;
				done = 1;
			}
		}
	}
	/* Labels multiple of T = every x step: origin + i x step = j x T needs
	 * step | origin, then i = -(origin / step) mod every. */
	t.first = 0;
	if (step <= (uint64_t)INT64_MAX && mod_i64(origin, step) == 0) {
		t.first = (t.every - mod_i64(origin / (int64_t)step, t.every)) % t.every;
		if (t.first >= n)
			t.first = 0;
	}
	return t;
}

/* One axis: cell i is labelled origin + i * step; ticks as in
 * pe_png_ticks(), none when every is 0. */
struct axis {
	uint64_t n, first, every, last;	/* last: the last tick */
	int64_t origin;
	uint64_t step;
	int lab_w;	/* room for a label (pixels) */
};

static int64_t label_of(const struct axis *a, uint64_t i)
{
	/* labels_fit() has checked that origin + i * step is an int64_t */
	uint64_t d = i * a->step, mag;

	if (a->origin >= 0)
		return a->origin + (int64_t)d;
	mag = (uint64_t)(-(a->origin + 1)) + 1;
	if (d >= mag)
		return (int64_t)(d - mag);
	return -(int64_t)(mag - d - 1) - 1;
}

static int label_w(const struct axis *a, uint64_t i, int fs)
{
	char buf[PE_FMT_BUF];

	pe_fmt_i64(label_of(a, i), buf);
	return pe_font_width(buf, fs);
}

static void axis_init(struct axis *a, uint64_t n, int64_t origin, uint64_t step)
{
	memset(a, 0, sizeof *a);
	a->n = n;
	a->origin = origin;
	a->step = step;
}

static void axis_ticks(struct axis *a, double len, double minpx)
{
	struct pe_png_ticks t = pe_png_ticks(a->n, a->origin, a->step, len, minpx);

	a->first = t.first;
	a->every = t.every;
	a->last = t.first + (a->n - 1 - t.first) / t.every * t.every;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* The colour bar's end labels: 4 significant digits, more when 4 would
 * make two different ends read the same (no "-0"). */
static void fmt_ends(double lo, double hi, char *a, char *b)
{
	int prec;

	if (lo == 0)
		lo = 0;
	if (hi == 0)
		hi = 0;
	for (prec = 4; prec <= 17; prec++) {
		snprintf(a, 32, "%.*g", prec, lo);
		snprintf(b, 32, "%.*g", prec, hi);
		if (strcmp(a, b) != 0)
			break;
	}
}

struct layout {
	int fs, th, pad, tick, gap;
	int hx, hy, hw, hh;	/* heatmap (of the first panel) */
	int px, py;		/* from one panel's heatmap to the next: across, down */
	int gw, gh;		/* from the first heatmap's corner to the last one's far edges */
	int ptw;		/* width of the widest panel title; 0: no panel titles */
	int cx, cw, ch;		/* colour bar (top at hy) */
	struct axis r, c;	/* rows (every 0: no ticks), columns */
	int cblab_w;
	int xl_x, xl_y, yl_x, yl_y;	/* top-left corners of the axis titles */
	char vmin_s[PE_FMT_BUF], vmax_s[PE_FMT_BUF];
};

static int text_w(const char *s, int fs)
{
	return pe_font_width(s, fs);
}

/* Pixel offset from hx (or hy) of the centre of cell i on an axis of n
 * cells drawn across len pixels. */
static int centre(uint64_t i, int len, uint64_t n)
{
	return (int)(((double)i + 0.5) * len / (double)n);
}

static void panel_title(uint64_t k, char *buf)
{
	snprintf(buf, 32, "head %llu", (unsigned long long)k);
}

/* Top-left corner of panel k's heatmap. */
static void panel_at(const struct png_sink *p, const struct layout *L, uint64_t k, int *x, int *y)
{
	*x = L->hx + (int)(k % p->nc) * L->px;
	*y = L->hy + (int)(k / p->nc) * L->py;
}

/* no_axes: the heatmaps alone, panels BARE_GAP pixels apart. */
static void plan_bare(struct png_sink *p, struct layout *L)
{
	L->px = L->hw + BARE_GAP;
	L->py = L->hh + BARE_GAP;
	L->gw = (int)(p->nc - 1) * L->px + L->hw;
	L->gh = (int)(p->nr - 1) * L->py + L->hh;
	p->w = L->gw;
	p->h = L->gh;
}

/*
 * From left to right: the y-axis title, the row labels, the ticks, the
 * heatmap, the colour bar and its labels; top to bottom: the title, the
 * heatmap, the column ticks and labels, the x-axis title.  The column
 * labels may reach left of the heatmap and past its right edge, the y-axis
 * title above and below it when it is longer than the heatmap is tall:
 * each of these grows the image or moves the heatmap rather than overlap.
 *
 * Panels: each panel is a heatmap with its own ticks and labels and its
 * title above, centred; the panels sit on a grid whose pitch holds the
 * widest of them (labels and title included) plus PANEL_GAP.  The axis
 * titles, the title and the colour bar belong to the whole grid; the
 * colour bar keeps clear of the labels and titles of every row of panels.
 * One panel without a title is the plain heatmap.
 */
static void plan(struct png_sink *p, double vmin, double vmax, struct layout *L)
{
	int title_w, right, bottom, lastc, left, ylab, xw, yw, w0, off0, top, cb_bottom;
	int lext, rext, ptr, lastc_rel, bound;
	double minpx;
	char buf[32];

	memset(L, 0, sizeof *L);
	L->hw = (int)(p->kw * p->gw);
	L->hh = (int)p->ph;
	if (p->o.no_axes) {
		plan_bare(p, L);
		return;
	}
	L->fs = imax((int)p->nc * L->hw, (int)p->nr * L->hh) >= 160 ? 2 : 1;
	L->th = PE_GLYPH_H * L->fs;
	L->pad = 5 * L->fs;
	L->tick = 2 * L->fs + 1;
	L->gap = 2 * L->fs;
	ylab = p->o.ylabel && !p->vector;
	/* where tick labels may start, right of the y-axis title */
	left = L->pad + (ylab ? L->th + 2 * L->gap : 0);
	if (p->titled) {
		panel_title(p->panels - 1, buf);	/* the widest */
		L->ptw = text_w(buf, L->fs);
	}

	axis_init(&L->r, p->rows, p->o.row_origin, p->o.row_step);
	if (!p->vector) {
		/* row labels 4 lines apart; an axis under 12 lines tall (a wide
		 * matrix at 1:4) that has room for 2 labels 2 lines apart
		 * spaces them less, down to 2 lines, rather than label one row */
		minpx = 4.0 * L->th;
		if (L->hh >= 5 * L->th && L->hh < 12 * L->th)
			minpx = L->hh / 3.0 < 2.0 * L->th ? 2.0 * L->th : L->hh / 3.0;
		axis_ticks(&L->r, L->hh, minpx);
		/* the widest label drawn, and at least the last row's as before
		 * (rows 0..n-1 keep their layout when only 0 is drawn) */
		L->r.lab_w = imax(imax(label_w(&L->r, L->r.first, L->fs),
				       label_w(&L->r, L->r.last, L->fs)),
				  label_w(&L->r, L->r.n - 1, L->fs));
	}
	/* labels grow or shrink monotonically, so the widest is at an end */
	axis_init(&L->c, p->cols, p->o.col_origin, p->o.col_step);
	L->c.lab_w = imax(label_w(&L->c, 0, L->fs), label_w(&L->c, L->c.n - 1, L->fs));
	axis_ticks(&L->c, L->hw, L->c.lab_w + 4 * L->th);

	L->hx = left + (L->r.every ? L->r.lab_w + L->gap + L->tick : 0) + 1;
	/* the first column label must not run into the y-axis title or off
	 * the image (a gap's margin) */
	w0 = label_w(&L->c, L->c.first, L->fs);
	off0 = centre(L->c.first, L->hw, L->c.n);
	if (L->hx + off0 - w0 / 2 < (ylab ? left : L->gap))
		L->hx = (ylab ? left : L->gap) + w0 / 2 - off0;
	/* nor the panel titles, centred over a heatmap narrower than they are */
	bound = ylab ? left : L->pad;
	if (L->ptw && L->hx + L->hw / 2 - L->ptw / 2 < bound)
		L->hx = bound - L->hw / 2 + L->ptw / 2;
	L->hy = L->pad + (p->o.title ? L->th + 2 * L->gap : 0) + (L->ptw ? L->th + L->gap : 0) +
		L->th / 2 + 1;

	/* one panel's reach left and right of its heatmap's left edge */
	lastc_rel = centre(L->c.last, L->hw, L->c.n) + L->c.lab_w / 2 + 1;
	rext = imax(L->hw + 1, lastc_rel);
	lext = imax(L->r.every ? L->r.lab_w + L->gap + L->tick + 1 : 1, w0 / 2 - off0);
	if (L->ptw) {
		rext = imax(rext, L->hw / 2 - L->ptw / 2 + L->ptw);
		lext = imax(lext, L->ptw / 2 - L->hw / 2);
	}
	L->px = lext + rext + PANEL_GAP * L->fs;
	/* the labels under a panel, a margin, the next title, the row labels'
	 * reach above its heatmap */
	L->py = L->hh + 1 + L->tick + L->gap + L->th + 3 * L->gap + (L->ptw ? L->th + L->gap : 0) +
		L->th / 2 + 1;
	L->gw = (int)(p->nc - 1) * L->px + L->hw;
	L->gh = (int)(p->nr - 1) * L->py + L->hh;

	/* the last column label may reach past the heatmap's right edge */
	lastc = L->hx + (int)(p->nc - 1) * L->px + lastc_rel;
	right = L->hx + L->gw + 1;
	if (lastc > right)
		right = lastc;
	ptr = L->ptw ? L->hx + (int)(p->nc - 1) * L->px + L->hw / 2 - L->ptw / 2 + L->ptw : 0;
	if (ptr > right)
		right = ptr;
	bottom = L->hy + L->gh + 1 + L->tick + L->gap + L->th;

	cb_bottom = 0;
	if (!p->o.no_colorbar) {
		L->ch = L->gh < 5 * L->th ? 5 * L->th : L->gh;
		L->cw = 8 * L->fs;
		L->cx = L->hx + L->gw + 1 + 5 * L->fs;
		/* beside the labels under the last row, or under the rows above */
		if ((L->ch > L->gh || p->nr > 1) && lastc + L->gap > L->cx)
			L->cx = lastc + L->gap;
		if (p->nr > 1 && ptr + L->gap > L->cx)
			L->cx = ptr + L->gap;
		if (p->dtype == PE_I32) {
			/* the widest id label is one of the ends */
			pe_fmt_i64(p->lo, L->vmin_s);
			pe_fmt_i64(p->hi, L->vmax_s);
		} else {
			fmt_ends(vmin, vmax, L->vmin_s, L->vmax_s);
		}
		L->cblab_w = text_w(L->vmin_s, L->fs);
		if (text_w(L->vmax_s, L->fs) > L->cblab_w)
			L->cblab_w = text_w(L->vmax_s, L->fs);
		right = imax(right, L->cx + L->cw + 1 + L->tick + 2 * L->gap + L->cblab_w);
		cb_bottom = L->hy + L->ch + 1 + L->th / 2;
		if (cb_bottom > bottom)
			bottom = cb_bottom;
	}

	if (p->o.xlabel) {
		xw = text_w(p->o.xlabel, L->fs);
		L->xl_x = L->hx + L->gw / 2 - xw / 2;
		if (L->xl_x < left)
			L->xl_x = left;
		L->xl_y = L->hy + L->gh + 1 + L->tick + L->gap + L->th + 2 * L->gap;
		/* below a colour bar taller than the heatmap if it would reach it */
		if (!p->o.no_colorbar && L->xl_x + xw + L->gap > L->cx &&
		    L->xl_y < cb_bottom + 2 * L->gap)
			L->xl_y = cb_bottom + 2 * L->gap;
		bottom = L->xl_y + L->th;
		if (L->xl_x + xw > right)
			right = L->xl_x + xw;
	}
	if (ylab) {
		yw = text_w(p->o.ylabel, L->fs);
		top = p->o.title ? L->pad + L->th + 2 * L->gap : L->pad;
		L->yl_x = L->pad;
		L->yl_y = L->hy + L->gh / 2 - yw / 2;
		if (L->yl_y < top)
			L->yl_y = top;
		if (L->yl_y + yw > bottom)
			bottom = L->yl_y + yw;
	}
	title_w = p->o.title ? text_w(p->o.title, L->fs) + 2 * L->pad : 0;
	right += L->pad;
	p->w = right > title_w ? right : title_w;
	p->h = bottom + L->pad;
}

/* The title centred over the heatmaps, moved left or right to fit. */
static void draw_title(struct png_sink *p, const struct layout *L)
{
	int tw = pe_font_width(p->o.title, L->fs);
	int x = L->hx + L->gw / 2 - tw / 2;

	if (x + tw > p->w - L->pad)
		x = p->w - L->pad - tw;
	if (x < L->pad)
		x = L->pad;
	pe_font_draw(p->img, p->w, p->h, x, L->pad, p->o.title, L->fs, INK_RGB);
}

static void draw_axis_titles(struct png_sink *p, const struct layout *L)
{
	if (p->o.xlabel)
		pe_font_draw(p->img, p->w, p->h, L->xl_x, L->xl_y, p->o.xlabel, L->fs, INK_RGB);
	if (p->o.ylabel && !p->vector)
		pe_font_draw_up(p->img, p->w, p->h, L->yl_x, L->yl_y, p->o.ylabel, L->fs,
				INK_RGB);
}

/* The colour of id v: its band of hi - lo + 1, the ends for ids beyond. */
static void id_rgb(const struct png_sink *p, int32_t v, unsigned char rgb[3])
{
	uint64_t band = v <= p->lo ? 0 : v >= p->hi ? (uint64_t)(p->hi - p->lo) : (uint64_t)(v - p->lo);

	if (p->pal)
		memcpy(rgb, p->pal + 3 * band, 3);
	else
		pe_colormap_resampled(p->o.cmap, (uint64_t)(p->hi - p->lo) + 1, band, rgb);
}

/* Panel k's cells with their top-left corner at (ox, oy). */
static void draw_heatmap(struct png_sink *p, const struct layout *L, uint64_t k, int ox, int oy,
			 const unsigned char *lut, double vmin, double vmax)
{
	float vminf = (float)vmin, scalef = (float)(vmax - vmin);
	double scale = vmax - vmin, mean, n;
	const double *sum = p->sum ? p->sum + (size_t)k * p->gh * p->gw : NULL;
	const float *one = p->one ? p->one + (size_t)k * p->gh * p->gw : NULL;
	uint32_t i, j;
	int idx, y0, y1;
	const unsigned char *rgb;
	unsigned char id_c[3];

	for (i = 0; i < p->gh; i++) {
		y0 = oy + (int)(i * p->kh);
		y1 = p->vector ? oy + L->hh : y0 + (int)p->kh;
		for (j = 0; j < p->gw; j++) {
			if (p->ids) {
				id_rgb(p, p->ids[((size_t)k * p->gh + i) * p->gw + j], id_c);
				fill_rect(p, ox + (int)(j * p->kw), y0, (int)p->kw, y1 - y0, id_c);
				continue;
			}
			n = (double)(p->rb[i + 1] - p->rb[i]) * (double)(p->cb[j + 1] - p->cb[j]);
			mean = one ? (double)one[(size_t)i * p->gw + j] : sum[(size_t)i * p->gw + j] / n;
			if (isnan(mean))
				idx = -1;
			else if (vmin == vmax)
				idx = 0;
			else if (p->dtype == PE_F32)
				idx = pe_colormap_index_f32((float)mean, vminf, scalef);
			else
				idx = pe_colormap_index_f64(mean, vmin, scale);
			rgb = idx < 0 ? NAN_RGB : lut + 3 * idx;
			fill_rect(p, ox + (int)(j * p->kw), y0, (int)p->kw, y1 - y0, rgb);
		}
	}
	if (!p->o.no_axes)
		frame(p, ox, oy, L->hw, L->hh);
}

/* Panel k's ticks and labels, its heatmap at (ox, oy), and its title. */
static void draw_axes(struct png_sink *p, const struct layout *L, uint64_t k, int ox, int oy)
{
	char buf[PE_FMT_BUF];
	uint64_t i;
	int c, tw;

	for (i = L->r.first; L->r.every && i < L->r.n; i += L->r.every) {
		c = oy + centre(i, L->hh, L->r.n);
		fill_rect(p, ox - 1 - L->tick, c - L->fs / 2, L->tick, L->fs, INK_RGB);
		pe_fmt_i64(label_of(&L->r, i), buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->img, p->w, p->h, ox - 1 - L->tick - L->gap - tw, c - L->th / 2,
			     buf, L->fs, INK_RGB);
	}
	for (i = L->c.first; i < L->c.n; i += L->c.every) {
		c = ox + centre(i, L->hw, L->c.n);
		fill_rect(p, c - L->fs / 2, oy + L->hh + 1, L->fs, L->tick, INK_RGB);
		pe_fmt_i64(label_of(&L->c, i), buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->img, p->w, p->h, c - tw / 2, oy + L->hh + 1 + L->tick + L->gap,
			     buf, L->fs, INK_RGB);
	}
	if (L->ptw) {
		panel_title(k, buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->img, p->w, p->h, ox + L->hw / 2 - tw / 2,
			     oy - L->th / 2 - 1 - L->gap - L->th, buf, L->fs, INK_RGB);
	}
}

static void cb_label(struct png_sink *p, const struct layout *L, int y, const char *s)
{
	int x = L->cx + L->cw + 1;

	fill_rect(p, x, y - L->fs / 2, L->tick, L->fs, INK_RGB);
	pe_font_draw(p->img, p->w, p->h, x + L->tick + 2 * L->gap, y - L->th / 2, s, L->fs, INK_RGB);
}

/*
 * An id colour bar: one flat band per id, lo at the bottom, pixel row y
 * (from the bottom) in band floor((y + 1/2) n / ch), so n <= ch bands are
 * each at least a pixel tall and more ids (thinner than a pixel) become a
 * gradient of their own colours.  Ticks at band centres, labelled with ids:
 * every id whose multiple of the step 1, 2, 5, 10, 20, ... fits a label
 * and its spacing per label, and always both ends (an id too near an end
 * to be read beside it is left out).
 */
static void draw_id_colorbar(struct png_sink *p, const struct layout *L)
{
	uint64_t n = (uint64_t)(p->hi - p->lo) + 1, step, b, ch = (uint64_t)L->ch;
	int64_t id;
	double minpx = 2.0 * L->th;
	unsigned char rgb[3];
	char buf[PE_FMT_BUF];
	int y, yc, ytop, ybot;

	for (y = 0; y < L->ch; y++) {
		b = (2 * (ch - 1 - (uint64_t)y) + 1) * n / (2 * ch);
		id_rgb(p, (int32_t)(p->lo + (int64_t)b), rgb);
		fill_rect(p, L->cx, L->hy + y, L->cw, 1, rgb);
	}
	frame(p, L->cx, L->hy, L->cw, L->ch);
	ybot = L->hy + L->ch - 1 - (int)(ch / (2 * n));
	ytop = L->hy + L->ch - 1 - (int)(((2 * (n - 1) + 1) * ch) / (2 * n));
	cb_label(p, L, ybot, L->vmin_s);
	if (n == 1)
		return;
	cb_label(p, L, ytop, L->vmax_s);
	step = tick_step(n, L->ch, minpx);
	/* the first multiple of step above lo */
	id = p->lo + (int64_t)((step - mod_i64(p->lo, step)) % step);
	for (; id < p->hi; id += (int64_t)step) {
		if (id == p->lo)
			continue;
		b = (uint64_t)(id - p->lo);
		yc = L->hy + L->ch - 1 - (int)(((2 * b + 1) * ch) / (2 * n));
		if (ybot - yc < minpx || yc - ytop < minpx)
			continue;
		pe_fmt_i64(id, buf);
		cb_label(p, L, yc, buf);
	}
}

static void draw_colorbar(struct png_sink *p, const struct layout *L, const unsigned char *lut,
			  double vmin, double vmax)
{
	int y, idx, y0;

	for (y = 0; y < L->ch; y++) {
		idx = (int)(((int64_t)(L->ch - 1 - y) * 256 + 128) / L->ch);
		if (idx > 255)
			idx = 255;
		fill_rect(p, L->cx, L->hy + y, L->cw, 1, lut + 3 * idx);
	}
	frame(p, L->cx, L->hy, L->cw, L->ch);
	cb_label(p, L, L->hy, L->vmax_s);
	cb_label(p, L, L->hy + L->ch - 1, L->vmin_s);
	if (vmin < 0 && vmax > 0) {
		y0 = L->hy + (int)((vmax / (vmax - vmin)) * L->ch);
		if (y0 - L->hy >= L->th + L->gap && L->hy + L->ch - y0 >= L->th + L->gap)
			cb_label(p, L, y0, "0");
	}
}

/* ---- PNG output ---- */

static void on_write(png_structp png, png_bytep data, size_t n)
{
	struct png_sink *p = png_get_io_ptr(png);

	if (pe_write(p->fp, data, n, &p->werr) != 0)
		png_error(png, "write failed");
}

static void on_flush(png_structp png)
{
	(void)png;
}

static void on_error(png_structp png, png_const_charp msg)
{
	struct png_sink *p = png_get_error_ptr(png);

	if (p->werr.code == PE_OK)
		pe_fail(&p->werr, PE_ERR_DATA, "png: %s", msg);
	png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static void set_text(png_text *t, int itxt, const char *key, const char *text)
{
	memset(t, 0, sizeof *t);
	t->compression = itxt ? PNG_ITXT_COMPRESSION_NONE : PNG_TEXT_COMPRESSION_NONE;
	t->key = (png_charp)key;
	t->text = (png_charp)text;
	t->lang = (png_charp)"";
	t->lang_key = (png_charp)"";
}

static int write_png(struct png_sink *p, const char *meta, const char *heatmap,
		     const char *title, struct pe_error *err)
{
	png_structp png;
	png_infop info;
	png_text text[4];
	int n = 0, y;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, p, on_error, on_warning);
	if (!png)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	info = png_create_info_struct(png);
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		*err = p->werr;
		return -1;
	}
	png_set_write_fn(png, p, on_write, on_flush);
	/*
	 * Deflate is most of the time spent here.  A heatmap's pixels are at
	 * most a few hundred colours repeated in runs, which LZ77 matches as
	 * they are: a row filter turns them into differences that repeat
	 * less, so no filter is both the fastest and (from level 2) the
	 * smallest.  Measured at 4096 x 4096 on 2 busy cores (zlib 1.2.13,
	 * seconds in png_write_row and png_write_end, median of 7 runs, of 3
	 * for libpng's default; then the file in MB), bench/case_png.py flags:
	 *
	 *                     level 1   level 2   level 3   level 4   libpng's
	 *                     none      none      none      none      6, all
	 *   sinusoidal 4096   0.50 17.7 0.51 15.2 0.85 13.4 0.65 13.4 1.92 20.1
	 *   cosine sim. 256   0.28  7.8 0.21  4.8 0.19  2.9 0.20  2.1 0.72  1.9
	 *   learned (noise)        -    0.74 24.3      -    1.01 24.3      -
	 *
	 * With the "up" filter at level 3 (posenc before): 0.83 20.7, 0.24 3.5
	 * and 1.45 36.6; sub, avg and paeth (median of 3) were slower than no
	 * filter from level 2 on, or within 3%, and larger for the sinusoid.
	 * Level 2 unfiltered is the fastest for the sinusoid and the noise and
	 * within 10% of it for the similarity; its sinusoidal file is 27%
	 * smaller than before, the similarity one 40% larger (1024 x 1024
	 * sinusoidal: 0.026 s 0.86 MB, before 0.046 s 1.29 MB).
	 */
	png_set_compression_level(png, 2);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	set_text(&text[n++], 0, "Software", "posenc " POSENC_VERSION);
	set_text(&text[n++], 1, "posenc:meta", meta);
	set_text(&text[n++], 1, "posenc:heatmap", heatmap);
	if (title)
		set_text(&text[n++], 1, "Title", title);
	png_set_text(png, info, text, n);
	png_write_info(png, info);
	for (y = 0; y < p->h; y++)
		png_write_row(png, p->img + (size_t)y * (size_t)p->w * 3);
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return 0;
}

/* The "posenc:heatmap" text: how to map pixels back to values and
 * positions. */
static char *heatmap_json(const struct png_sink *p, const struct layout *L, double vmin,
			  double vmax)
{
	char a[PE_FMT_BUF], b[PE_FMT_BUF], *s;
	/* ample: the numbers are at most 24 characters, a panel's four at
	 * most 11 each */
	size_t n = 640 + (size_t)p->panels * 64, k;
	uint64_t i;
	int x, y;

	s = malloc(n);
	if (!s)
		return NULL;
	if (p->ids) {
		pe_fmt_i64(p->lo, a);
		pe_fmt_i64(p->hi, b);
	} else {
		pe_fmt_f64(vmin, a);
		pe_fmt_f64(vmax, b);
	}
	k = (size_t)snprintf(s, n, "{\"cmap\":\"%s\",\"vmin\":%s,\"vmax\":%s,\"nan\":\"#ff00ff\","
			     "\"shape\":[", pe_colormap_name(p->o.cmap), a, b);
	if (p->is3d)
		k += (size_t)snprintf(s + k, n - k, "%llu,", (unsigned long long)p->panels);
	k += (size_t)snprintf(s + k, n - k, "%llu,%llu],\"heatmap\":[%d,%d,%d,%d]",
			      (unsigned long long)p->rows, (unsigned long long)p->cols, L->hx,
			      L->hy, L->hw, L->hh);
	if (p->ids)
		k += (size_t)snprintf(s + k, n - k, ",\"scale\":\"discrete\",\"ids\":[%lld,%lld]",
				      (long long)p->lo, (long long)p->hi);
	if (p->squeezed) {
		pe_fmt_f64((double)L->hh / (double)p->rows, a);
		pe_fmt_f64((double)L->hw / (double)p->cols, b);
		k += (size_t)snprintf(s + k, n - k, ",\"cell\":[%s,%s]", a, b);
	}
	if (p->is3d) {
		k += (size_t)snprintf(s + k, n - k, ",\"panels\":[");
		for (i = 0; i < p->panels; i++) {
			panel_at(p, L, i, &x, &y);
			k += (size_t)snprintf(s + k, n - k, "%s[%d,%d,%d,%d]", i ? "," : "", x, y,
					      L->hw, L->hh);
		}
		k += (size_t)snprintf(s + k, n - k, "]");
	}
	if (!p->vector && (p->o.row_origin != 0 || p->o.row_step != 1))
		k += (size_t)snprintf(s + k, n - k, ",\"row_labels\":[%lld,%llu]",
				      (long long)p->o.row_origin, (unsigned long long)p->o.row_step);
	if (p->o.col_origin != 0 || p->o.col_step != 1)
		k += (size_t)snprintf(s + k, n - k, ",\"col_labels\":[%lld,%llu]",
				      (long long)p->o.col_origin, (unsigned long long)p->o.col_step);
	snprintf(s + k, n - k, "}");
	return s;
}

/*
 * An integer result's colours: the ids lo..hi, each one colour of the map
 * resampled into hi - lo + 1 (pe_colormap_resampled()); lo and hi are the
 * data's extremes, or --vmin rounded down and --vmax rounded up (so the
 * range holds every id asked for), within int32.
 */
static int id_range(struct png_sink *p, double vmin, double vmax, struct pe_error *err)
{
	uint64_t n, b;

	if (p->o.has_vmin && !(vmin >= INT32_MIN && vmin <= INT32_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{vmin} of an integer result must be from -2147483648 to 2147483647");
	if (p->o.has_vmax && !(vmax >= INT32_MIN && vmax <= INT32_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{vmax} of an integer result must be from -2147483648 to 2147483647");
	p->lo = (int64_t)floor(vmin);
	p->hi = (int64_t)ceil(vmax);
	if (p->hi < p->lo)
		p->hi = p->lo;
	n = (uint64_t)(p->hi - p->lo) + 1;
	if (n > PALETTE_MAX)
		return 0;
	p->pal = malloc(3 * (size_t)n);
	if (!p->pal)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (b = 0; b < n; b++)
		pe_colormap_resampled(p->o.cmap, n, b, p->pal + 3 * b);
	return 0;
}

static int png_end(struct pe_sink *s, struct pe_error *err)
{
	struct png_sink *p = (struct png_sink *)s;
	struct layout L;
	unsigned char lut[768];
	double vmin = p->finite ? p->min : 0, vmax = p->finite ? p->max : 1;
	char *meta = NULL, *hm = NULL, *title = NULL, v[PE_FMT_BUF];
	uint64_t k;
	int rc = -1, x, y;

	if (p->o.has_vmin)
		vmin = p->o.vmin;
	if (p->o.has_vmax)
		vmax = p->o.vmax;
	if ((p->o.has_vmin || p->o.has_vmax) && !(vmin < vmax)) {
		pe_fmt_f64(p->o.has_vmin ? vmax : vmin, v);
		return pe_fail(err, PE_ERR_PARAM,
			       p->o.has_vmin ? "{vmin} must be below the data's maximum %s (or give {vmax})"
					     : "{vmax} must be above the data's minimum %s (or give {vmin})",
			       v);
	}
	if (p->ids && id_range(p, vmin, vmax, err) != 0)
		return -1;
	plan(p, vmin, vmax, &L);
	p->img = pe_alloc_big((size_t)p->w * (size_t)p->h * 3);
	if (!p->img)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a %d x %d image", p->w, p->h);
	memset(p->img, BG_RGB[0], (size_t)p->w * (size_t)p->h * 3);
	pe_colormap_lut(p->o.cmap, lut);
	for (k = 0; k < p->panels; k++) {
		panel_at(p, &L, k, &x, &y);
		draw_heatmap(p, &L, k, x, y, lut, vmin, vmax);
		if (!p->o.no_axes)
			draw_axes(p, &L, k, x, y);
	}
	if (!p->o.no_axes) {
		if (!p->o.no_colorbar && p->ids)
			draw_id_colorbar(p, &L);
		else if (!p->o.no_colorbar)
			draw_colorbar(p, &L, lut, vmin, vmax);
		if (p->o.title)
			draw_title(p, &L);
		draw_axis_titles(p, &L);
	}
	if (p->meta) {
		meta = pe_meta_json(p->meta);
	} else if ((meta = malloc(3)) != NULL) {
		memcpy(meta, "{}", 3);
	}
	hm = heatmap_json(p, &L, vmin, vmax);
	/* iTXt is UTF-8: a title in another encoding is made valid first */
	title = p->o.title ? pe_utf8_clean(p->o.title) : NULL;
	if (!meta || !hm || (p->o.title && !title)) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = write_png(p, meta, hm, title, err);
out:
	free(meta);
	free(hm);
	free(title);
	return rc;
}

static void png_destroy(struct pe_sink *s)
{
	struct png_sink *p = (struct png_sink *)s;

	free(p->rb);
	free(p->cb);
	free(p->sum);
	free(p->one);
	free(p->ids);
	free(p->samp);
	free(p->cs);
	free(p->tab);
	free(p->pal);
	free(p->img);
	free(p);
}

static const struct pe_sink_ops png_ops = {
	.begin = png_begin,
	.tensor = pe_sink_nop_tensor,
	.rows = png_rows,
	.end = png_end,
	.destroy = png_destroy,
};

struct pe_sink *pe_sink_png_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	struct png_sink *p = calloc(1, sizeof *p);

	if (!p) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	p->base.ops = &png_ops;
	p->fp = fp;
	p->o = *opts;
	if (p->o.row_step == 0)
		p->o.row_step = 1;
	if (p->o.col_step == 0)
		p->o.col_step = 1;
	if (p->o.cmap < 0 || p->o.cmap >= pe_colormap_count())
		p->o.cmap = PE_CMAP_DEFAULT;
	return &p->base;
}
