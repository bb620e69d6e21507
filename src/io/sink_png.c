/*
 * png, svg, pdf: a heatmap of one tensor, with axis ticks, an optional
 * title and a colour bar, drawn with cairo (io/figure.h); PNG is 8-bit RGB.
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
 * round labels (pe_ticks() in io/ticks.h); every panel has its own.  The
 * axis titles, the title and the colour bar belong to the whole grid; the
 * colour bar's ticks are at round values (ids for integer results), and
 * NaN, -inf and +inf in the data get swatches under it (io/figure.h).
 *
 * Text chunks (PNG; the same texts are a PDF's Keywords and Subject and an
 * SVG's <desc>): tEXt "Software" = "posenc VERSION"; iTXt "posenc:meta" =
 * the parameters as JSON (io/metajson.h, the json format's "meta"); iTXt
 * "posenc:heatmap" = how to read the pixels back: {"cmap","vmin","vmax",
 * "nan","shape":[R,C],"heatmap":[x,y,w,h]}, then:
 *   "neginf":"#d9d9d9","posinf":"#000000"  the colours of -inf and +inf
 *                      (with axes; else they are the end colours);
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
 * The parts: io/heatmap.h (the cells), io/ticks.h (where ticks go),
 * io/figure.h (layout and drawing), io/png_write.h (libpng); this file
 * joins them as a sink and writes the text chunks.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/colormap.h"
#include "io/figure.h"
#include "io/fmt.h"
#include "io/heatmap.h"
#include "io/metajson.h"
#include "io/png_write.h"
#include "io/sink.h"
#include "io/ticks.h"
#include "version.h"

struct fig_sink {
	struct pe_sink base;
	FILE *fp;
	enum pe_fig_backend backend;
	struct pe_sink_opts o;
	const struct pe_meta *meta;
	struct pe_heatmap hm;
	struct pe_colorscale cs;
	struct pe_colorscale *pcs;	/* scale_each: one per panel */
	struct pe_fig_panel *panels;
	struct pe_fig fig;
	struct pe_fig_layout L;
	char *title, *xlabel, *ylabel;	/* cleaned to UTF-8 */
	unsigned char *row;		/* the bare PNG's row */
};

static int fig_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err)
{
	struct fig_sink *p = (struct fig_sink *)s;
	struct pe_heatmap_geom g = { .size = p->o.size, .aspect_equal = p->o.aspect_equal,
				       .no_axes = p->o.no_axes, .panel_cols = p->o.panel_cols };

	if (nt != 1)
		return pe_fail(err, PE_ERR_PARAM,
			       "png draws one matrix, this result has %zu (use safetensors or json)",
			       nt);
	p->meta = meta;
	if (t->ndim == 1) {
		/* its rows are drawn across: the column axis labels them */
		p->o.col_origin = p->o.row_origin;
		p->o.col_step = p->o.row_step;
	}
	if (pe_heatmap_shape(&p->hm, t, err) != 0)
		return -1;
	if ((!p->hm.vector && !pe_ticks_fit(p->o.row_origin, p->o.row_step, p->hm.rows)) ||
	    !pe_ticks_fit(p->o.col_origin, p->o.col_step, p->hm.cols))
		return pe_fail(err, PE_ERR_PARAM,
			       "png axis labels do not fit in 64 bits (row %lld + %llu x %llu, "
			       "column %lld + %llu x %llu)",
			       (long long)p->o.row_origin, (unsigned long long)(p->hm.rows - 1),
			       (unsigned long long)p->o.row_step, (long long)p->o.col_origin,
			       (unsigned long long)(p->hm.cols - 1),
			       (unsigned long long)p->o.col_step);
	return pe_heatmap_begin(&p->hm, &g, err);
}

static int fig_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	(void)err;
	pe_heatmap_rows(&((struct fig_sink *)s)->hm, data, nrows);
	return 0;
}

/* The "posenc:heatmap" text: how to map pixels back to values and
 * positions. */
static char *heatmap_json(const struct fig_sink *p)
{
	const struct pe_heatmap *h = &p->hm;
	const struct pe_fig_rect *a = p->L.area;
	char x[PE_FMT_BUF], y[PE_FMT_BUF], *s;
	/* ample: the numbers are at most 24 characters, a panel's four at
	 * most 11 each */
	size_t n = 720 + (size_t)h->panels * 128, k;
	uint64_t i;

	s = malloc(n);
	if (!s)
		return NULL;
	if (p->cs.discrete) {
		pe_fmt_i64(p->cs.lo, x);
		pe_fmt_i64(p->cs.hi, y);
	} else {
		pe_fmt_f64(p->cs.vmin, x);
		pe_fmt_f64(p->cs.vmax, y);
	}
	k = (size_t)snprintf(s, n, "{\"cmap\":\"%s\",\"vmin\":%s,\"vmax\":%s,\"nan\":\"#ff00ff\",",
			     pe_colormap_name(p->o.cmap), x, y);
	if (p->cs.inf_colours)
		k += (size_t)snprintf(s + k, n - k, "\"neginf\":\"#d9d9d9\",\"posinf\":\"#000000\",");
	k += (size_t)snprintf(s + k, n - k, "\"shape\":[");
	if (h->is3d)
		k += (size_t)snprintf(s + k, n - k, "%llu,", (unsigned long long)h->panels);
	k += (size_t)snprintf(s + k, n - k, "%llu,%llu],\"heatmap\":[%d,%d,%d,%d]",
			      (unsigned long long)h->rows, (unsigned long long)h->cols, (int)a[0].x,
			      (int)a[0].y, (int)a[0].w, (int)a[0].h);
	if (p->cs.discrete)
		k += (size_t)snprintf(s + k, n - k, ",\"scale\":\"discrete\",\"ids\":[%lld,%lld]",
				      (long long)p->cs.lo, (long long)p->cs.hi);
	if (h->squeezed) {
		pe_fmt_f64(a[0].h / (double)h->rows, x);
		pe_fmt_f64(a[0].w / (double)h->cols, y);
		k += (size_t)snprintf(s + k, n - k, ",\"cell\":[%s,%s]", x, y);
	}
	if (h->is3d) {
		k += (size_t)snprintf(s + k, n - k, ",\"panels\":[");
		for (i = 0; i < h->panels; i++)
			k += (size_t)snprintf(s + k, n - k, "%s[%d,%d,%d,%d]", i ? "," : "",
					      (int)a[i].x, (int)a[i].y, (int)a[i].w, (int)a[i].h);
		k += (size_t)snprintf(s + k, n - k, "]");
	}
	if (p->pcs) {
		k += (size_t)snprintf(s + k, n - k, ",\"scales\":[");
		for (i = 0; i < h->panels; i++) {
			pe_fmt_f64(p->pcs[i].vmin, x);
			pe_fmt_f64(p->pcs[i].vmax, y);
			k += (size_t)snprintf(s + k, n - k, "%s[%s,%s]", i ? "," : "", x, y);
		}
		k += (size_t)snprintf(s + k, n - k, "]");
	}
	if (!h->vector && (p->o.row_origin != 0 || p->o.row_step != 1))
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
static int id_range(struct fig_sink *p, double vmin, double vmax, struct pe_colorscale *cs,
		    struct pe_error *err)
{
	int64_t lo, hi;

	if (p->o.has_vmin && !(vmin >= INT32_MIN && vmin <= INT32_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{vmin} of an integer result must be from -2147483648 to 2147483647");
	if (p->o.has_vmax && !(vmax >= INT32_MIN && vmax <= INT32_MAX))
		return pe_fail(err, PE_ERR_PARAM,
			       "{vmax} of an integer result must be from -2147483648 to 2147483647");
	lo = (int64_t)floor(vmin);
	hi = (int64_t)ceil(vmax);
	if (hi < lo)
		hi = lo;
	return pe_colorscale_ids(cs, p->o.cmap, lo, hi, err);
}

/* The bare PNG a row at a time: no image in memory, whatever its size. */
static const unsigned char *bare_row(void *ctx, int y)
{
	struct fig_sink *p = ctx;
	const struct pe_heatmap *h = &p->hm;
	unsigned char *row = p->row, rgb[3];
	uint64_t k;
	uint32_t i, j, kk;
	int x0;

	memset(row, 0xff, (size_t)p->L.w * 3);
	for (k = 0; k < h->panels; k++) {
		const struct pe_fig_rect *a = &p->L.area[k];

		if (y < (int)a->y || y >= (int)(a->y + a->h))
			continue;
		i = h->vector ? 0 : (uint32_t)((y - (int)a->y) / (int)h->kh);
		x0 = (int)a->x;
		for (j = 0; j < h->gw; j++) {
			pe_cell_rgb(h, &p->cs, k, i, j, rgb);
			for (kk = 0; kk < h->kw; kk++)
				memcpy(row + 3 * ((size_t)x0 + j * h->kw + kk), rgb, 3);
		}
	}
	return row;
}

/* A colour scale over [vmin, vmax] (ids: whole ids), with the legend for
 * what no colour stands for when axes are drawn. */
static int scale(struct fig_sink *p, double vmin, double vmax, struct pe_colorscale *cs,
		 struct pe_error *err)
{
	if (p->hm.ids) {
		if (id_range(p, vmin, vmax, cs, err) != 0)
			return -1;
	} else {
		pe_colorscale_range(cs, p->o.cmap, vmin, vmax);
	}
	cs->inf_colours = !p->o.no_axes && !p->hm.ids;
	cs->has_nan = p->hm.has_nan;
	cs->has_ninf = p->hm.has_ninf;
	cs->has_pinf = p->hm.has_pinf;
	return 0;
}

static int build(struct fig_sink *p, struct pe_error *err)
{
	const struct pe_heatmap *h = &p->hm;
	char buf[64];
	uint64_t k;
	size_t n;

	p->panels = calloc((size_t)h->panels, sizeof *p->panels);
	if (!p->panels)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	/* text is UTF-8: options in another encoding are made valid first */
	if (p->o.title && !*p->o.title)
		p->o.title = NULL;	/* --title '': none */
	if ((p->o.title && !(p->title = pe_utf8_clean(p->o.title))) ||
	    (p->o.xlabel && !(p->xlabel = pe_utf8_clean(p->o.xlabel))) ||
	    (p->o.ylabel && !h->vector && !(p->ylabel = pe_utf8_clean(p->o.ylabel))))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (k = 0; k < h->panels; k++) {
		struct pe_fig_panel *q = &p->panels[k];

		q->hm = h;
		q->k = k;
		q->cs = p->pcs ? &p->pcs[k] : &p->cs;
		q->colorbar = p->pcs && !p->o.no_colorbar && !p->o.no_axes;
		q->row_origin = p->o.row_origin;
		q->row_step = p->o.row_step;
		q->col_origin = p->o.col_origin;
		q->col_step = p->o.col_step;
		q->grid = p->o.grid;
		q->grid_dims = p->o.grid_dims;
		q->grid_cols = p->o.grid_cols;
		if (h->is3d && !p->o.no_axes) {
			snprintf(buf, sizeof buf, "%s %lld", p->o.panel_label ? p->o.panel_label : "head",
				 (long long)(p->o.panel_origin + (int64_t)k));
			n = strlen(buf) + 1;
			if (!(q->title = malloc(n)))
				return pe_fail(err, PE_ERR_NOMEM, "out of memory");
			memcpy((char *)q->title, buf, n);
		}
	}
	p->fig.panels = p->panels;
	p->fig.n = (size_t)h->panels;
	p->fig.nc = h->nc;
	p->fig.nr = h->nr;
	p->fig.no_axes = p->o.no_axes;
	if (!p->o.no_axes) {
		p->fig.title = p->title;
		p->fig.xlabel = p->xlabel;
		p->fig.ylabel = p->ylabel;
		p->fig.colorbar = p->o.no_colorbar || p->pcs ? NULL : &p->cs;
	}
	return 0;
}

static int fig_end(struct pe_sink *s, struct pe_error *err)
{
	struct fig_sink *p = (struct fig_sink *)s;
	double vmin = p->hm.finite ? p->hm.min : 0, vmax = p->hm.finite ? p->hm.max : 1;
	char *meta = NULL, *hm = NULL, v[PE_FMT_BUF];
	struct pe_fig_doc doc;
	struct pe_png_text text[4];
	size_t nt = 0;
	int rc = -1;

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
	if (scale(p, vmin, vmax, &p->cs, err) != 0)
		return -1;
	if (p->o.scale_each && p->hm.panels > 1) {
		uint64_t k;

		if (!(p->pcs = calloc((size_t)p->hm.panels, sizeof *p->pcs)))
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		for (k = 0; k < p->hm.panels; k++) {
			const struct pe_extremes *e = &p->hm.ext[k];
			double lo = p->o.has_vmin ? p->o.vmin : e->finite ? e->min : 0;
			double hi = p->o.has_vmax ? p->o.vmax : e->finite ? e->max : 1;

			/* a constant head keeps a range, as the data's own does */
			if (!(lo < hi) && !p->o.has_vmin && !p->o.has_vmax)
				hi = lo + 1;
			if (!(lo < hi))
				return pe_fail(err, PE_ERR_PARAM,
					       "{%s} leaves head %llu an empty colour range",
					       p->o.has_vmin ? "vmin" : "vmax", (unsigned long long)k);
			if (scale(p, lo, hi, &p->pcs[k], err) != 0)
				return -1;
		}
	}
	if (build(p, err) != 0 || pe_fig_plan(&p->fig, &p->L, err) != 0)
		return -1;
	if (p->meta) {
		meta = pe_meta_json(p->meta);
	} else if ((meta = malloc(3)) != NULL) {
		memcpy(meta, "{}", 3);
	}
	hm = heatmap_json(p);
	if (!meta || !hm) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	doc.title = p->title;
	doc.meta = meta;
	doc.geometry = hm;
	if (p->backend == PE_FIG_PNG && p->o.no_axes) {
		p->row = malloc((size_t)p->L.w * 3);
		if (!p->row) {
			pe_fail(err, PE_ERR_NOMEM, "out of memory");
			goto out;
		}
		text[nt++] = (struct pe_png_text){ "Software", "posenc " POSENC_VERSION, 0 };
		text[nt++] = (struct pe_png_text){ "posenc:meta", meta, 1 };
		text[nt++] = (struct pe_png_text){ "posenc:heatmap", hm, 1 };
		rc = pe_png_write(p->fp, p->L.w, p->L.h, bare_row, p, text, nt, err);
	} else {
		rc = pe_fig_write(&p->fig, &p->L, p->backend, p->fp, &doc, err);
	}
out:
	free(meta);
	free(hm);
	return rc;
}

static void fig_destroy(struct pe_sink *s)
{
	struct fig_sink *p = (struct fig_sink *)s;
	uint64_t k;

	for (k = 0; p->panels && k < p->hm.panels; k++)
		free((char *)p->panels[k].title);
	free(p->panels);
	pe_heatmap_free(&p->hm);
	pe_colorscale_free(&p->cs);
	for (k = 0; p->pcs && k < p->hm.panels; k++)
		pe_colorscale_free(&p->pcs[k]);
	free(p->pcs);
	pe_fig_layout_free(&p->L);
	free(p->title);
	free(p->xlabel);
	free(p->ylabel);
	free(p->row);
	free(p);
}

static const struct pe_sink_ops fig_ops = {
	.begin = fig_begin,
	.tensor = pe_sink_nop_tensor,
	.rows = fig_rows,
	.end = fig_end,
	.destroy = fig_destroy,
};

static struct pe_sink *fig_new(FILE *fp, enum pe_fig_backend b, const struct pe_sink_opts *opts,
			       struct pe_error *err)
{
	struct fig_sink *p = calloc(1, sizeof *p);

	if (!p) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	p->base.ops = &fig_ops;
	p->fp = fp;
	p->backend = b;
	p->o = *opts;
	if (p->o.row_step == 0)
		p->o.row_step = 1;
	if (p->o.col_step == 0)
		p->o.col_step = 1;
	if (p->o.cmap < 0 || p->o.cmap >= pe_colormap_count())
		p->o.cmap = PE_CMAP_DEFAULT;
	return &p->base;
}

struct pe_sink *pe_sink_png_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	return fig_new(fp, PE_FIG_PNG, opts, err);
}

struct pe_sink *pe_sink_svg_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	return fig_new(fp, PE_FIG_SVG, opts, err);
}

struct pe_sink *pe_sink_pdf_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	return fig_new(fp, PE_FIG_PDF, opts, err);
}
