/*
 * figure.h - figures drawn with cairo: heatmap panels (the cells of
 * heatmap.h in a colour scale) and line charts (named series), in a grid
 * of panels with ticks, labels, titles and colour bars, written as PNG,
 * SVG or PDF from one drawing code path.  Text is DejaVu Sans (found
 * through fontconfig, matplotlib's default face) at matplotlib's sizes for
 * a figure at 100 dpi: 10 pt labels, 12 pt titles.  Knows nothing of
 * commands or options.
 *
 * Calling sequence:
 *   struct pe_fig f = { panels, n, ... };   what to draw (caller-owned)
 *   pe_fig_plan(&f, &L, err)                where everything goes: every
 *       panel's area (heatmap areas on whole pixels), the image's size
 *   pe_fig_write(&f, &L, backend, fp, &doc, err)   draw and encode
 *   pe_fig_layout_free(&L)
 *
 * Pixels: a heatmap keeps its cells' colours exactly (each cell a block of
 * whole pixels of one colour, nearest-neighbour, never smoothed: PDF
 * images are marked /Interpolate false and SVG ones image-rendering:
 * pixelated, and both are embedded at the drawn size, so a viewer at 100%
 * needs no scaling).  NaN is magenta; with axes, -inf and +inf have colours
 * of their own and a legend entry under the colour bar (a causal mask is
 * visible, not the first colour); with no_axes they take the end colours,
 * as plt.imsave gives them.
 *
 * Units: one unit is one PNG pixel; SVG is in px (the same numbers), PDF
 * in points at 72 per inch, so the page is the PNG's size at 100 dpi, as
 * matplotlib sizes a figure.
 */
#ifndef PE_FIGURE_H
#define PE_FIGURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "io/heatmap.h"

#define PE_PALETTE_MAX 65536

enum pe_fig_backend { PE_FIG_PNG, PE_FIG_SVG, PE_FIG_PDF };

/* How values become colours: a map (io/colormap.h) over [vmin, vmax], or
 * (discrete) the ids lo..hi each in one colour of the map resampled into
 * hi - lo + 1. */
struct pe_colorscale {
	int cmap;
	double vmin, vmax;
	int discrete;
	int64_t lo, hi;
	unsigned char *pal;	/* 3 (hi - lo + 1) bytes when that is at most
				 * PE_PALETTE_MAX, else NULL (colours one by one) */
	unsigned char lut[768];
	int inf_colours;	/* -inf and +inf their own colours (else the ends) */
	int has_nan, has_ninf, has_pinf;	/* legend entries under the colour bar */
};

/* Set cs for a map and a range (the lut), or for ids lo..hi (the palette;
 * PE_ERR_NOMEM when out of memory).  Free with pe_colorscale_free(). */
void pe_colorscale_range(struct pe_colorscale *cs, int cmap, double vmin, double vmax);
int pe_colorscale_ids(struct pe_colorscale *cs, int cmap, int64_t lo, int64_t hi,
		      struct pe_error *err);
void pe_colorscale_free(struct pe_colorscale *cs);

/* The colour of cell (i, j) of panel k of hm in cs. */
void pe_cell_rgb(const struct pe_heatmap *hm, const struct pe_colorscale *cs, uint64_t k,
		 uint32_t i, uint32_t j, unsigned char rgb[3]);

/* One curve of a line chart: y[i] at x[i] (i < n; NaN points are gaps),
 * optionally a band lo[i]..hi[i] shaded behind it (mean +- std), or drawn
 * as steps (y[i] from x[i] to x[i + 1], the last one a unit wide, as a
 * bucket per integer distance). */
struct pe_series {
	const char *name;	/* legend text; NULL: not in the legend */
	const double *x, *y;
	size_t n;
	const double *lo, *hi;	/* NULL: no band */
	const char *band_name;	/* the band's legend text ("+- std") */
	int step;
};

/* A region of x shaded behind the curves, labelled at its top (explain's
 * frequency regions). */
struct pe_shade {
	double x0, x1;
	const char *label;
};

/*
 * A line chart: series against x, ticks at round numbers (1, 2, 2.5, 5 x
 * 10^k; decades on a log axis), a legend in the upper (or lower) right
 * when any series or band is named.  Log axes drop points that are not positive.
 * How another command draws its curves (explain's wavelengths, audit's
 * error per position, diff's error per row):
 *
 *   double pos[n], err[n];   ...
 *   struct pe_series s = { "max |error|", pos, err, n };
 *   struct pe_chart c = { &s, 1 };
 *   c.logy = 1; c.xlabel = "position"; c.ylabel = "error";
 *   pe_emit_chart(&e_out, &c, "audit: bfloat16 error per position", meta, err)
 *
 * (cli/emit.h: the output options, the format from -o, the figure options
 * applied, the file written atomically.)
 */
struct pe_chart {
	const struct pe_series *series;
	size_t nseries;
	const struct pe_shade *shades;
	size_t nshades;
	int logx, logy;
	const char *xlabel, *ylabel;
	int legend;		/* its corner: PE_LEGEND_UPPER_RIGHT (0), or LOWER_RIGHT
				 * where the curves rise to the right */
};

enum { PE_LEGEND_UPPER_RIGHT, PE_LEGEND_LOWER_RIGHT };

/* One panel: panel k of a heatmap, or a chart. */
struct pe_fig_panel {
	const char *title;	/* above the panel; NULL: none */
	const struct pe_heatmap *hm;
	uint64_t k;
	const struct pe_colorscale *cs;
	int colorbar;		/* its own colour bar, right of it */
	/* tick labels: row i is row_origin + i * row_step (steps >= 1) */
	int64_t row_origin, col_origin;
	uint64_t row_step, col_step;
	const struct pe_chart *chart;	/* instead of hm */
};

struct pe_fig {
	const struct pe_fig_panel *panels;
	size_t n;
	uint32_t nc, nr;	/* the grid; panel p at column p % nc, row p / nc */
	const char *title, *xlabel, *ylabel;	/* NULL: none (any UTF-8; cleaned) */
	const struct pe_colorscale *colorbar;	/* one colour bar for the grid, or NULL */
	int no_axes;		/* heatmaps alone, PE_HEATMAP_BARE_GAP apart */
	unsigned chart_w, chart_h;	/* a chart's plot area (0: 560 x 350) */
};

struct pe_fig_rect {
	double x, y, w, h;
};

struct pe_fig_layout {
	int w, h;
	struct pe_fig_rect *area;	/* per panel: the heatmap (whole pixels) or plot area */
	struct pe_fig_rect *cbar;	/* per panel: its colour bar (w 0: none) */
	struct pe_fig_rect shared;	/* the grid's colour bar (w 0: none) */
	double title_y, xlabel_y, ylabel_x;	/* baselines / left edge */
	double fs, tfs;			/* label and title font sizes */
};

/* Lay f out into L (allocated here; pe_fig_layout_free() in every case).
 * Returns 0 or -1 (PE_ERR_NOMEM, or PE_ERR_DATA when the font cannot be
 * loaded). */
int pe_fig_plan(const struct pe_fig *f, struct pe_fig_layout *L, struct pe_error *err);
void pe_fig_layout_free(struct pe_fig_layout *L);

/* What the file says about itself: PNG text chunks; PDF Title, Subject and
 * Keywords (meta, geometry); SVG a <title> and <desc>. */
struct pe_fig_doc {
	const char *title;	/* Title (UTF-8, cleaned) */
	const char *meta;	/* posenc:meta JSON */
	const char *geometry;	/* posenc:heatmap JSON, or NULL */
};

/* Draw the planned figure and write it to fp in the backend's format.
 * Returns 0 or -1 (a write error carries the output's message); on
 * failure fp holds part of a file and the caller aborts it. */
int pe_fig_write(const struct pe_fig *f, const struct pe_fig_layout *L,
		 enum pe_fig_backend backend, FILE *fp, const struct pe_fig_doc *doc,
		 struct pe_error *err);

/* How to read a figure of heatmap panels back, as the posenc:heatmap text
 * of io/sink_png.c: {"cmap","vmin","vmax","nan",("neginf","posinf"),
 * "shape":[R,C],"heatmap":[x,y,w,h]} of panel 0, and with several panels
 * "panels":[[x,y,w,h],...] and "scales":[[vmin,vmax],...].  malloc'd, or
 * NULL (no heatmap panel, or out of memory). */
char *pe_fig_geometry(const struct pe_fig *f, const struct pe_fig_layout *L);

/* Ticks at round values over [lo, hi] for an axis len units long, at
 * least minpx apart: at most max values into v, their count returned;
 * *decimals the digits after the point their labels need. */
size_t pe_nice_ticks(double lo, double hi, double len, double minpx, double *v, size_t max,
		     int *decimals);

/* The width of s at font size px (DejaVu Sans), for layouts and tests. */
double pe_fig_text_width(const char *s, double px);

#endif
