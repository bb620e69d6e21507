/*
 * figure.h - a heatmap's figure: where everything goes (the layout) and
 * drawing it into an 8-bit RGB image.  Reads the cell model (heatmap.h),
 * the figure options (io/sink.h) and the colour scale; knows nothing of
 * files or formats.
 *
 * Calling sequence:
 *   pe_figure_plan(&f, hm, opts, cs)     the layout and the image's size
 *   pe_figure_draw(&f, hm, opts, cs, e)  the image (f.img, f.w x f.h)
 *   pe_figure_panel_at(&f, k, &x, &y)    where panel k's heatmap went
 *   pe_figure_free(&f)
 */
#ifndef PE_FIGURE_H
#define PE_FIGURE_H

#include <stdint.h>

#include "core/err.h"
#include "io/fmt.h"
#include "io/heatmap.h"
#include "io/sink.h"

/* How values become colours: a map, and the range or (discrete) the ids
 * lo..hi each in one colour of the map resampled into hi - lo + 1. */
struct pe_colorscale {
	int cmap;
	double vmin, vmax;
	int discrete;
	int64_t lo, hi;
	unsigned char *pal;	/* 3 (hi - lo + 1) bytes when that is at most
				 * PE_PALETTE_MAX, else NULL (colours one by one) */
	unsigned char lut[768];
};

#define PE_PALETTE_MAX 65536

/* One axis: cell i is labelled origin + i * step; ticks as in
 * pe_ticks() (io/ticks.h), none when every is 0. */
struct pe_figure_axis {
	uint64_t n, first, every, last;	/* last: the last tick */
	int64_t origin;
	uint64_t step;
	int lab_w;	/* room for a label (pixels) */
};

struct pe_figure_layout {
	int fs, th, pad, tick, gap;
	int hx, hy, hw, hh;	/* heatmap (of the first panel) */
	int px, py;		/* from one panel's heatmap to the next: across, down */
	int gw, gh;		/* from the first heatmap's corner to the last one's far edges */
	int ptw;		/* width of the widest panel title; 0: no panel titles */
	int cx, cw, ch;		/* colour bar (top at hy) */
	struct pe_figure_axis r, c;	/* rows (every 0: no ticks), columns */
	int cblab_w;
	int xl_x, xl_y, yl_x, yl_y;	/* top-left corners of the axis titles */
	char vmin_s[PE_FMT_BUF], vmax_s[PE_FMT_BUF];
};


struct pe_figure {
	int w, h;
	unsigned char *img;	/* w * h * 3 after pe_figure_draw */
	struct pe_figure_layout L;
};

/* The layout of hm's figure as opts ask, colours as cs (vmin < vmax, or
 * lo <= hi when discrete): sets L, w and h. */
void pe_figure_plan(struct pe_figure *f, const struct pe_heatmap *hm,
		    const struct pe_sink_opts *opts, const struct pe_colorscale *cs);

/* Draw the planned figure into f->img (allocated here).  Returns 0 or -1
 * (PE_ERR_NOMEM). */
int pe_figure_draw(struct pe_figure *f, const struct pe_heatmap *hm,
		   const struct pe_sink_opts *opts, const struct pe_colorscale *cs,
		   struct pe_error *err);

/* Top-left corner of panel k's heatmap. */
void pe_figure_panel_at(const struct pe_figure *f, const struct pe_heatmap *hm, uint64_t k,
			int *x, int *y);

void pe_figure_free(struct pe_figure *f);

#endif
