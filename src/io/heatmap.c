/*
 * The cell model of a heatmap (heatmap.h): the rules of sizes, shape,
 * panels and integer blocks are written at the top of sink_png.c.
 */
#include "io/heatmap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

#define AUTO_MIN PE_HEATMAP_AUTO_MIN
#define AUTO_MAX PE_HEATMAP_AUTO_MAX
#define STRIP_MIN PE_HEATMAP_STRIP_MIN
#define PANELS_MAX PE_HEATMAP_PANELS_MAX
#define BARE_GAP PE_HEATMAP_BARE_GAP
#define MODE_S PE_HEATMAP_MODE_S

/* Counts of the ids of one block: open addressing over twice as many
 * slots as samples; a slot belongs to this block when its gen is the
 * table's (so the table is never cleared between blocks). */
#define MODE_SLOTS (2 * MODE_S * MODE_S)
struct pe_mode_tab {
	int32_t key[MODE_SLOTS];
	uint32_t count[MODE_SLOTS], gen[MODE_SLOTS];
	uint32_t g;
};

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
static int begin_ids(struct pe_heatmap *p)
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

/* v into its panel's extremes e (the data's are theirs, at the end of
 * each block: pe_heatmap_rows()). */
static void track(struct pe_heatmap *p, struct pe_extremes *e, double v)
{
	if (!isfinite(v)) {
		if (isnan(v))
			p->has_nan = 1;
		else if (v < 0)
			p->has_ninf = 1;
		else
			p->has_pinf = 1;
		return;
	}
	if (!e->finite) {
		e->min = e->max = v;
		e->finite = 1;
	} else if (v < e->min) {
		e->min = v;
	} else if (v > e->max) {
		e->max = v;
	}
}

/* The data's extremes: those of the panels. */
static void extremes(struct pe_heatmap *p)
{
	uint64_t k;

	p->finite = 0;
	for (k = 0; k < p->panels; k++) {
		const struct pe_extremes *e = &p->ext[k];

		if (!e->finite)
			continue;
		if (!p->finite || e->min < p->min)
			p->min = e->min;
		if (!p->finite || e->max > p->max)
			p->max = e->max;
		p->finite = 1;
	}
}

static double value_at(const struct pe_heatmap *p, const void *data, size_t k)
{
	return p->dtype == PE_F32 ? (double)((const float *)data)[k]
				  : (double)((const int32_t *)data)[k];
}

/* The slot of v in this block, added with count 0 when new. */
static size_t mode_slot(struct pe_mode_tab *t, int32_t v)
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
static int32_t block_mode(const int32_t *samp, uint32_t nr, uint32_t nc, struct pe_mode_tab *t)
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

static void track_i32(struct pe_heatmap *p, struct pe_extremes *e, const int32_t *v, size_t n)
{
	int32_t lo = v[0], hi = v[0];
	size_t i;

	for (i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	track(p, e, lo);
	track(p, e, hi);
}

/*
 * Integer rows: each cell keeps its block's id (block_mode()) over the
 * rows and columns sample_at() picks; a band of cell rows is decided when
 * its last row has arrived, so only one band of samples is held.
 */
static void rows_i32(struct pe_heatmap *p, const int32_t *data, size_t nrows)
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
			track(p, &p->ext[0], data[k]);
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
		track_i32(p, &p->ext[r / p->rows], row, cols);
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

void pe_heatmap_rows(struct pe_heatmap *p, const void *data, size_t nrows)
{
	size_t k, c, cols = p->vector ? 1 : (size_t)p->cols;
	uint64_t r;
	uint32_t j;
	double *line, v, acc;
	float *one;

	struct pe_extremes *e;

	if (p->dtype == PE_I32) {
		rows_i32(p, data, nrows);
		extremes(p);
		return;
	}
	for (k = 0; k < nrows; k++) {
		r = p->seen + k;
		e = &p->ext[p->vector ? 0 : r / p->rows];
		if (p->vector) {
			v = value_at(p, data, k);
			track(p, e, v);
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
				track(p, e, v);
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
				track(p, e, v);
				line[c] += v;
			}
			continue;
		}
		for (j = 0; j < p->gw; j++) {
			acc = 0;
			for (c = (size_t)p->cb[j]; c < (size_t)p->cb[j + 1]; c++) {
				v = value_at(p, data, k * cols + c);
				track(p, e, v);
				acc += v;
			}
			line[j] += acc;
		}
	}
	p->seen += nrows;
	extremes(p);
}


int pe_heatmap_shape(struct pe_heatmap *p, const struct pe_tensor *t, struct pe_error *err)
{
	p->dtype = t->dtype;
	p->vector = t->ndim == 1;
	p->panels = t->ndim == 3 ? t->shape[0] : 1;
	p->is3d = t->ndim == 3;
	p->rows = p->vector ? 1 : t->ndim == 3 ? t->shape[1] : t->rows;
	p->cols = p->vector ? t->rows : t->cols;
	/* block arithmetic multiplies an index by a pixel count (< 2^14) */
	if (p->rows > PE_HEATMAP_MAX_SIDE || p->cols > PE_HEATMAP_MAX_SIDE)
		return pe_fail(err, PE_ERR_PARAM, "png draws at most 2^48 rows and columns, this result has %llu x %llu",
			       (unsigned long long)p->rows, (unsigned long long)p->cols);
	if (p->panels > PANELS_MAX)
		return pe_fail(err, PE_ERR_PARAM,
			       "png draws at most %d heads as panels, this result has %llu "
			       "(draw one with {head}, or write npy)",
			       PANELS_MAX, (unsigned long long)p->panels);
	p->ext = calloc((size_t)p->panels, sizeof *p->ext);
	if (!p->ext)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

int pe_heatmap_begin(struct pe_heatmap *p, const struct pe_heatmap_geom *g, struct pe_error *err)
{
	uint64_t size, n, L;
	size_t cells;
	struct fit f;
	double a;
	int equal;

	L = p->rows > p->cols ? p->rows : p->cols;
	/* the grid; n panels along its longer side share size */
	a = (double)p->cols / (double)p->rows;
	if (!g->aspect_equal)
		a = a > 4 ? 4 : a < 0.25 ? 0.25 : a;
	choose_grid(p->panels, a, &p->nc, &p->nr);
	if (g->panel_cols > 0) {
		p->nc = p->panels < g->panel_cols ? (uint32_t)p->panels : g->panel_cols;
		p->nr = (uint32_t)((p->panels + p->nc - 1) / p->nc);
	}
	n = p->nc > p->nr ? p->nc : p->nr;
	size = g->size;
	if (size == 0) {
		size = n * L + (g->no_axes ? (n - 1) * BARE_GAP : 0);
		if (size > AUTO_MAX)
			size = AUTO_MAX;
		else if (size < AUTO_MIN && !g->no_axes)
			size = AUTO_MIN;
	}
	if (g->no_axes)
		size = size > (n - 1) * BARE_GAP ? size - (n - 1) * BARE_GAP : 0;
	size /= n;
	if (size == 0)
		return pe_fail(err, PE_ERR_PARAM, "%llu png panels need {size} %llu or more",
			       (unsigned long long)p->panels,
			       (unsigned long long)(n + (g->no_axes ? (n - 1) * BARE_GAP : 0)));
	/* --no-axes draws the cells one to one, as imsave, when they fit */
	equal = p->vector || g->aspect_equal || (g->no_axes && L <= size);
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


double pe_heatmap_mean(const struct pe_heatmap *p, uint64_t k, uint32_t i, uint32_t j)
{
	size_t c = ((size_t)k * p->gh + i) * p->gw + j;
	double n;

	if (p->one)
		return (double)p->one[c];
	n = (double)(p->rb[i + 1] - p->rb[i]) * (double)(p->cb[j + 1] - p->cb[j]);
	return p->sum[c] / n;
}

int32_t pe_heatmap_id(const struct pe_heatmap *p, uint64_t k, uint32_t i, uint32_t j)
{
	return p->ids[((size_t)k * p->gh + i) * p->gw + j];
}

void pe_heatmap_free(struct pe_heatmap *p)
{
	free(p->ext);
	free(p->rb);
	free(p->cb);
	free(p->sum);
	free(p->one);
	free(p->ids);
	free(p->samp);
	free(p->cs);
	free(p->tab);
	memset(p, 0, sizeof *p);
}
