/*
 * heatmap.h - the cell model of a heatmap: how a matrix (or H panels of
 * one, or a vector) is cut into the cells drawn, and the cells' values
 * accumulated as the rows stream in.  No colours, no pixels of an image,
 * no text: figure.h draws what this holds.
 *
 * Calling sequence:
 *   struct pe_heatmap h = { 0 };
 *   pe_heatmap_shape(&h, tensor, err)          what is drawn: panels, rows,
 *       columns of one panel (a vector is one row)
 *   pe_heatmap_begin(&h, &geom, err)           the grid, the blocks and
 *       the buffers (at most the heatmap's size, never the whole table)
 *   pe_heatmap_rows(&h, data, nrows)           in order, until every row
 *       of the tensor has arrived
 *   pe_heatmap_mean(&h, k, i, j) / pe_heatmap_id(&h, k, i, j)   the cells
 *   pe_heatmap_free(&h)                        in every case
 *
 * The rules (what a cell is, the sizes, the 1:4 shape, panels, the mode of
 * an integer block) are those written at the top of sink_png.c.
 */
#ifndef PE_HEATMAP_H
#define PE_HEATMAP_H

#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"

#define PE_HEATMAP_AUTO_MIN 512
#define PE_HEATMAP_AUTO_MAX 2048
#define PE_HEATMAP_STRIP_MIN 32
#define PE_HEATMAP_PANELS_MAX 1024
#define PE_HEATMAP_BARE_GAP 2	/* white pixels between panels with no_axes */
#define PE_HEATMAP_MAX_SIDE ((uint64_t)1 << 48)
#define PE_HEATMAP_MODE_S 16	/* an id block's mode looks at up to MODE_S x MODE_S cells */

/* How the cells are sized: the sink options that decide it. */
struct pe_heatmap_geom {
	unsigned size;		/* longest side in pixels, 0: automatic */
	int aspect_equal;	/* no 1:4 rule */
	int no_axes;		/* bare pixels: one per cell when they fit */
	uint32_t panel_cols;	/* panels: at most this many a row (0: the grid
				 * nearest to square) */
};

struct pe_mode_tab;

/* The finite extremes of some values. */
struct pe_extremes {
	double min, max;
	int finite;
};

struct pe_heatmap {
	enum pe_dtype dtype;
	int vector;		/* 1-D: rows arrive one value each, drawn as one row */
	int is3d;		/* a 3-D result: H panels */
	uint64_t panels;	/* 1, or H of a 3-D result */
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
	int32_t *ids;		/* integer results: panels * gh * gw, each the mode of its block */
	double min, max;	/* finite data extremes */
	int finite;		/* a finite value was seen */
	struct pe_extremes *ext;	/* each panel's */
	int has_nan, has_ninf, has_pinf;	/* NaN, -inf, +inf were seen */
	/* private: the current band of id samples */
	int32_t *samp;
	uint64_t *cs;
	struct pe_mode_tab *tab;
	uint32_t next;
};

/* What t is drawn as (dtype, vector, panels, rows, cols); refuses
 * (PE_ERR_PARAM) more than PE_HEATMAP_PANELS_MAX panels and sides beyond
 * 2^48.  Returns 0 or -1. */
int pe_heatmap_shape(struct pe_heatmap *h, const struct pe_tensor *t, struct pe_error *err);

/*
 * Lay the cells out (the grid of panels, the cells per panel and their
 * pixels) and allocate what accumulates them.  Refuses (PE_ERR_PARAM) a
 * size too small for the panels; PE_ERR_NOMEM when out of memory.
 * Returns 0 or -1; pe_heatmap_free() in either case.
 */
int pe_heatmap_begin(struct pe_heatmap *h, const struct pe_heatmap_geom *g, struct pe_error *err);

/* The next nrows rows of the tensor (its dtype, row-major). */
void pe_heatmap_rows(struct pe_heatmap *h, const void *data, size_t nrows);

/* Cell (i, j) of panel k: the mean of its block (NaN when the block
 * holds a NaN, or +inf and -inf together). */
double pe_heatmap_mean(const struct pe_heatmap *h, uint64_t k, uint32_t i, uint32_t j);

/* Cell (i, j) of panel k of an integer result: its block's mode. */
int32_t pe_heatmap_id(const struct pe_heatmap *h, uint64_t k, uint32_t i, uint32_t j);

void pe_heatmap_free(struct pe_heatmap *h);

#endif
