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
 * round labels (pe_ticks() in io/ticks.h); every panel has its own.
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

struct png_sink {
	struct pe_sink base;
	FILE *fp;
	struct pe_sink_opts o;
	const struct pe_meta *meta;
	struct pe_heatmap hm;
	struct pe_colorscale cs;
	struct pe_figure fig;
};

static int png_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err)
{
	struct png_sink *p = (struct png_sink *)s;
	struct pe_heatmap_geom g = { p->o.size, p->o.aspect_equal, p->o.no_axes };

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

static int png_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	(void)err;
	pe_heatmap_rows(&((struct png_sink *)s)->hm, data, nrows);
	return 0;
}

/* The "posenc:heatmap" text: how to map pixels back to values and
 * positions. */
static char *heatmap_json(const struct png_sink *p, const struct pe_figure_layout *L, double vmin,
			  double vmax)
{
	char a[PE_FMT_BUF], b[PE_FMT_BUF], *s;
	/* ample: the numbers are at most 24 characters, a panel's four at
	 * most 11 each */
	size_t n = 640 + (size_t)p->hm.panels * 64, k;
	uint64_t i;
	int x, y;

	s = malloc(n);
	if (!s)
		return NULL;
	if (p->hm.ids) {
		pe_fmt_i64(p->cs.lo, a);
		pe_fmt_i64(p->cs.hi, b);
	} else {
		pe_fmt_f64(vmin, a);
		pe_fmt_f64(vmax, b);
	}
	k = (size_t)snprintf(s, n, "{\"cmap\":\"%s\",\"vmin\":%s,\"vmax\":%s,\"nan\":\"#ff00ff\","
			     "\"shape\":[", pe_colormap_name(p->o.cmap), a, b);
	if (p->hm.is3d)
		k += (size_t)snprintf(s + k, n - k, "%llu,", (unsigned long long)p->hm.panels);
	k += (size_t)snprintf(s + k, n - k, "%llu,%llu],\"heatmap\":[%d,%d,%d,%d]",
			      (unsigned long long)p->hm.rows, (unsigned long long)p->hm.cols, L->hx,
			      L->hy, L->hw, L->hh);
	if (p->hm.ids)
		k += (size_t)snprintf(s + k, n - k, ",\"scale\":\"discrete\",\"ids\":[%lld,%lld]",
				      (long long)p->cs.lo, (long long)p->cs.hi);
	if (p->hm.squeezed) {
		pe_fmt_f64((double)L->hh / (double)p->hm.rows, a);
		pe_fmt_f64((double)L->hw / (double)p->hm.cols, b);
		k += (size_t)snprintf(s + k, n - k, ",\"cell\":[%s,%s]", a, b);
	}
	if (p->hm.is3d) {
		k += (size_t)snprintf(s + k, n - k, ",\"panels\":[");
		for (i = 0; i < p->hm.panels; i++) {
			pe_figure_panel_at(&p->fig, &p->hm, i, &x, &y);
			k += (size_t)snprintf(s + k, n - k, "%s[%d,%d,%d,%d]", i ? "," : "", x, y,
					      L->hw, L->hh);
		}
		k += (size_t)snprintf(s + k, n - k, "]");
	}
	if (!p->hm.vector && (p->o.row_origin != 0 || p->o.row_step != 1))
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
	p->cs.lo = (int64_t)floor(vmin);
	p->cs.hi = (int64_t)ceil(vmax);
	if (p->cs.hi < p->cs.lo)
		p->cs.hi = p->cs.lo;
	n = (uint64_t)(p->cs.hi - p->cs.lo) + 1;
	if (n > PE_PALETTE_MAX)
		return 0;
	p->cs.pal = malloc(3 * (size_t)n);
	if (!p->cs.pal)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (b = 0; b < n; b++)
		pe_colormap_resampled(p->o.cmap, n, b, p->cs.pal + 3 * b);
	return 0;
}


static const unsigned char *image_row(void *ctx, int y)
{
	const struct pe_figure *f = ctx;

	return f->img + (size_t)y * (size_t)f->w * 3;
}

static int png_end(struct pe_sink *s, struct pe_error *err)
{
	struct png_sink *p = (struct png_sink *)s;
	double vmin = p->hm.finite ? p->hm.min : 0, vmax = p->hm.finite ? p->hm.max : 1;
	char *meta = NULL, *hm = NULL, *title = NULL, v[PE_FMT_BUF];
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
	p->cs.cmap = p->o.cmap;
	p->cs.vmin = vmin;
	p->cs.vmax = vmax;
	p->cs.discrete = p->hm.ids != NULL;
	if (p->hm.ids && id_range(p, vmin, vmax, err) != 0)
		return -1;
	pe_colormap_lut(p->o.cmap, p->cs.lut);
	pe_figure_plan(&p->fig, &p->hm, &p->o, &p->cs);
	if (pe_figure_draw(&p->fig, &p->hm, &p->o, &p->cs, err) != 0)
		return -1;
	if (p->meta) {
		meta = pe_meta_json(p->meta);
	} else if ((meta = malloc(3)) != NULL) {
		memcpy(meta, "{}", 3);
	}
	hm = heatmap_json(p, &p->fig.L, vmin, vmax);
	/* iTXt is UTF-8: a title in another encoding is made valid first */
	title = p->o.title ? pe_utf8_clean(p->o.title) : NULL;
	if (!meta || !hm || (p->o.title && !title)) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	text[nt++] = (struct pe_png_text){ "Software", "posenc " POSENC_VERSION, 0 };
	text[nt++] = (struct pe_png_text){ "posenc:meta", meta, 1 };
	text[nt++] = (struct pe_png_text){ "posenc:heatmap", hm, 1 };
	if (title)
		text[nt++] = (struct pe_png_text){ "Title", title, 1 };
	rc = pe_png_write(p->fp, p->fig.w, p->fig.h, image_row, &p->fig, text, nt, err);
out:
	free(meta);
	free(hm);
	free(title);
	return rc;
}

static void png_destroy(struct pe_sink *s)
{
	struct png_sink *p = (struct png_sink *)s;

	pe_heatmap_free(&p->hm);
	pe_figure_free(&p->fig);
	free(p->cs.pal);
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
