/*
 * A heatmap's figure (figure.h), drawn with the bitmap font of io/font.h:
 * the layout and the drawing written at the top of sink_png.c.
 */
#include "io/figure.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "io/colormap.h"
#include "io/font.h"
#include "io/ticks.h"

#define PANEL_GAP 8	/* font pixels between one panel's labels and the next */

static const unsigned char NAN_RGB[3] = { 0xff, 0x00, 0xff };	/* magenta */
static const unsigned char BG_RGB[3] = { 0xff, 0xff, 0xff };
static const unsigned char INK_RGB[3] = { 0x00, 0x00, 0x00 };
static const unsigned char FRAME_RGB[3] = { 0x40, 0x40, 0x40 };

/* What every drawing step reads. */
struct fig {
	const struct pe_heatmap *hm;
	const struct pe_sink_opts *o;
	const struct pe_colorscale *cs;
	struct pe_figure *f;
	int titled;		/* panels titled "head K" (3-D, not with no_axes) */
};


static void fill_rect(struct fig *p, int x, int y, int w, int h, const unsigned char *rgb)
{
	pe_rgb_fill(p->f->img, p->f->w, p->f->h, x, y, w, h, rgb);
}

static void frame(struct fig *p, int x, int y, int w, int h)
{
	fill_rect(p, x - 1, y - 1, w + 2, 1, FRAME_RGB);
	fill_rect(p, x - 1, y + h, w + 2, 1, FRAME_RGB);
	fill_rect(p, x - 1, y, 1, h, FRAME_RGB);
	fill_rect(p, x + w, y, 1, h, FRAME_RGB);
}

static int64_t label_of(const struct pe_figure_axis *a, uint64_t i)
{
	return pe_tick_label(a->origin, a->step, i);
}

static int label_w(const struct pe_figure_axis *a, uint64_t i, int fs)
{
	char buf[PE_FMT_BUF];

	pe_fmt_i64(label_of(a, i), buf);
	return pe_font_width(buf, fs);
}

static void axis_init(struct pe_figure_axis *a, uint64_t n, int64_t origin, uint64_t step)
{
	memset(a, 0, sizeof *a);
	a->n = n;
	a->origin = origin;
	a->step = step;
}

static void axis_ticks(struct pe_figure_axis *a, double len, double minpx)
{
	struct pe_ticks t = pe_ticks(a->n, a->origin, a->step, len, minpx);

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
void pe_figure_panel_at(const struct pe_figure *f, const struct pe_heatmap *hm, uint64_t k,
			int *x, int *y)
{
	*x = f->L.hx + (int)(k % hm->nc) * f->L.px;
	*y = f->L.hy + (int)(k / hm->nc) * f->L.py;
}

/* no_axes: the heatmaps alone, panels PE_HEATMAP_BARE_GAP pixels apart. */
static void plan_bare(struct fig *p, struct pe_figure_layout *L)
{
	L->px = L->hw + PE_HEATMAP_BARE_GAP;
	L->py = L->hh + PE_HEATMAP_BARE_GAP;
	L->gw = (int)(p->hm->nc - 1) * L->px + L->hw;
	L->gh = (int)(p->hm->nr - 1) * L->py + L->hh;
	p->f->w = L->gw;
	p->f->h = L->gh;
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
static void plan(struct fig *p, double vmin, double vmax, struct pe_figure_layout *L)
{
	int title_w, right, bottom, lastc, left, ylab, xw, yw, w0, off0, top, cb_bottom;
	int lext, rext, ptr, lastc_rel, bound;
	double minpx;
	char buf[32];

	memset(L, 0, sizeof *L);
	L->hw = (int)(p->hm->kw * p->hm->gw);
	L->hh = (int)p->hm->ph;
	if (p->o->no_axes) {
		plan_bare(p, L);
		return;
	}
	L->fs = imax((int)p->hm->nc * L->hw, (int)p->hm->nr * L->hh) >= 160 ? 2 : 1;
	L->th = PE_GLYPH_H * L->fs;
	L->pad = 5 * L->fs;
	L->tick = 2 * L->fs + 1;
	L->gap = 2 * L->fs;
	ylab = p->o->ylabel && !p->hm->vector;
	/* where tick labels may start, right of the y-axis title */
	left = L->pad + (ylab ? L->th + 2 * L->gap : 0);
	if (p->titled) {
		panel_title(p->hm->panels - 1, buf);	/* the widest */
		L->ptw = text_w(buf, L->fs);
	}

	axis_init(&L->r, p->hm->rows, p->o->row_origin, p->o->row_step);
	if (!p->hm->vector) {
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
	axis_init(&L->c, p->hm->cols, p->o->col_origin, p->o->col_step);
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
	L->hy = L->pad + (p->o->title ? L->th + 2 * L->gap : 0) + (L->ptw ? L->th + L->gap : 0) +
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
	L->gw = (int)(p->hm->nc - 1) * L->px + L->hw;
	L->gh = (int)(p->hm->nr - 1) * L->py + L->hh;

	/* the last column label may reach past the heatmap's right edge */
	lastc = L->hx + (int)(p->hm->nc - 1) * L->px + lastc_rel;
	right = L->hx + L->gw + 1;
	if (lastc > right)
		right = lastc;
	ptr = L->ptw ? L->hx + (int)(p->hm->nc - 1) * L->px + L->hw / 2 - L->ptw / 2 + L->ptw : 0;
	if (ptr > right)
		right = ptr;
	bottom = L->hy + L->gh + 1 + L->tick + L->gap + L->th;

	cb_bottom = 0;
	if (!p->o->no_colorbar) {
		L->ch = L->gh < 5 * L->th ? 5 * L->th : L->gh;
		L->cw = 8 * L->fs;
		L->cx = L->hx + L->gw + 1 + 5 * L->fs;
		/* beside the labels under the last row, or under the rows above */
		if ((L->ch > L->gh || p->hm->nr > 1) && lastc + L->gap > L->cx)
			L->cx = lastc + L->gap;
		if (p->hm->nr > 1 && ptr + L->gap > L->cx)
			L->cx = ptr + L->gap;
		if (p->hm->dtype == PE_I32) {
			/* the widest id label is one of the ends */
			pe_fmt_i64(p->cs->lo, L->vmin_s);
			pe_fmt_i64(p->cs->hi, L->vmax_s);
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

	if (p->o->xlabel) {
		xw = text_w(p->o->xlabel, L->fs);
		L->xl_x = L->hx + L->gw / 2 - xw / 2;
		if (L->xl_x < left)
			L->xl_x = left;
		L->xl_y = L->hy + L->gh + 1 + L->tick + L->gap + L->th + 2 * L->gap;
		/* below a colour bar taller than the heatmap if it would reach it */
		if (!p->o->no_colorbar && L->xl_x + xw + L->gap > L->cx &&
		    L->xl_y < cb_bottom + 2 * L->gap)
			L->xl_y = cb_bottom + 2 * L->gap;
		bottom = L->xl_y + L->th;
		if (L->xl_x + xw > right)
			right = L->xl_x + xw;
	}
	if (ylab) {
		yw = text_w(p->o->ylabel, L->fs);
		top = p->o->title ? L->pad + L->th + 2 * L->gap : L->pad;
		L->yl_x = L->pad;
		L->yl_y = L->hy + L->gh / 2 - yw / 2;
		if (L->yl_y < top)
			L->yl_y = top;
		if (L->yl_y + yw > bottom)
			bottom = L->yl_y + yw;
	}
	title_w = p->o->title ? text_w(p->o->title, L->fs) + 2 * L->pad : 0;
	right += L->pad;
	p->f->w = right > title_w ? right : title_w;
	p->f->h = bottom + L->pad;
}

/* The title centred over the heatmaps, moved left or right to fit. */
static void draw_title(struct fig *p, const struct pe_figure_layout *L)
{
	int tw = pe_font_width(p->o->title, L->fs);
	int x = L->hx + L->gw / 2 - tw / 2;

	if (x + tw > p->f->w - L->pad)
		x = p->f->w - L->pad - tw;
	if (x < L->pad)
		x = L->pad;
	pe_font_draw(p->f->img, p->f->w, p->f->h, x, L->pad, p->o->title, L->fs, INK_RGB);
}

static void draw_axis_titles(struct fig *p, const struct pe_figure_layout *L)
{
	if (p->o->xlabel)
		pe_font_draw(p->f->img, p->f->w, p->f->h, L->xl_x, L->xl_y, p->o->xlabel, L->fs, INK_RGB);
	if (p->o->ylabel && !p->hm->vector)
		pe_font_draw_up(p->f->img, p->f->w, p->f->h, L->yl_x, L->yl_y, p->o->ylabel, L->fs,
				INK_RGB);
}

/* The colour of id v: its band of hi - lo + 1, the ends for ids beyond. */
static void id_rgb(const struct fig *p, int32_t v, unsigned char rgb[3])
{
	uint64_t band = v <= p->cs->lo ? 0 : v >= p->cs->hi ? (uint64_t)(p->cs->hi - p->cs->lo) : (uint64_t)(v - p->cs->lo);

	if (p->cs->pal)
		memcpy(rgb, p->cs->pal + 3 * band, 3);
	else
		pe_colormap_resampled(p->o->cmap, (uint64_t)(p->cs->hi - p->cs->lo) + 1, band, rgb);
}

/* Panel k's cells with their top-left corner at (ox, oy). */
static void draw_heatmap(struct fig *p, const struct pe_figure_layout *L, uint64_t k, int ox, int oy,
			 const unsigned char *lut, double vmin, double vmax)
{
	float vminf = (float)vmin, scalef = (float)(vmax - vmin);
	double scale = vmax - vmin, mean, n;
	const double *sum = p->hm->sum ? p->hm->sum + (size_t)k * p->hm->gh * p->hm->gw : NULL;
	const float *one = p->hm->one ? p->hm->one + (size_t)k * p->hm->gh * p->hm->gw : NULL;
	uint32_t i, j;
	int idx, y0, y1;
	const unsigned char *rgb;
	unsigned char id_c[3];

	for (i = 0; i < p->hm->gh; i++) {
		y0 = oy + (int)(i * p->hm->kh);
		y1 = p->hm->vector ? oy + L->hh : y0 + (int)p->hm->kh;
		for (j = 0; j < p->hm->gw; j++) {
			if (p->hm->ids) {
				id_rgb(p, p->hm->ids[((size_t)k * p->hm->gh + i) * p->hm->gw + j], id_c);
				fill_rect(p, ox + (int)(j * p->hm->kw), y0, (int)p->hm->kw, y1 - y0, id_c);
				continue;
			}
			n = (double)(p->hm->rb[i + 1] - p->hm->rb[i]) * (double)(p->hm->cb[j + 1] - p->hm->cb[j]);
			mean = one ? (double)one[(size_t)i * p->hm->gw + j] : sum[(size_t)i * p->hm->gw + j] / n;
			if (isnan(mean))
				idx = -1;
			else if (vmin == vmax)
				idx = 0;
			else if (p->hm->dtype == PE_F32)
				idx = pe_colormap_index_f32((float)mean, vminf, scalef);
			else
				idx = pe_colormap_index_f64(mean, vmin, scale);
			rgb = idx < 0 ? NAN_RGB : lut + 3 * idx;
			fill_rect(p, ox + (int)(j * p->hm->kw), y0, (int)p->hm->kw, y1 - y0, rgb);
		}
	}
	if (!p->o->no_axes)
		frame(p, ox, oy, L->hw, L->hh);
}

/* Panel k's ticks and labels, its heatmap at (ox, oy), and its title. */
static void draw_axes(struct fig *p, const struct pe_figure_layout *L, uint64_t k, int ox, int oy)
{
	char buf[PE_FMT_BUF];
	uint64_t i;
	int c, tw;

	for (i = L->r.first; L->r.every && i < L->r.n; i += L->r.every) {
		c = oy + centre(i, L->hh, L->r.n);
		fill_rect(p, ox - 1 - L->tick, c - L->fs / 2, L->tick, L->fs, INK_RGB);
		pe_fmt_i64(label_of(&L->r, i), buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->f->img, p->f->w, p->f->h, ox - 1 - L->tick - L->gap - tw, c - L->th / 2,
			     buf, L->fs, INK_RGB);
	}
	for (i = L->c.first; i < L->c.n; i += L->c.every) {
		c = ox + centre(i, L->hw, L->c.n);
		fill_rect(p, c - L->fs / 2, oy + L->hh + 1, L->fs, L->tick, INK_RGB);
		pe_fmt_i64(label_of(&L->c, i), buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->f->img, p->f->w, p->f->h, c - tw / 2, oy + L->hh + 1 + L->tick + L->gap,
			     buf, L->fs, INK_RGB);
	}
	if (L->ptw) {
		panel_title(k, buf);
		tw = text_w(buf, L->fs);
		pe_font_draw(p->f->img, p->f->w, p->f->h, ox + L->hw / 2 - tw / 2,
			     oy - L->th / 2 - 1 - L->gap - L->th, buf, L->fs, INK_RGB);
	}
}

static void cb_label(struct fig *p, const struct pe_figure_layout *L, int y, const char *s)
{
	int x = L->cx + L->cw + 1;

	fill_rect(p, x, y - L->fs / 2, L->tick, L->fs, INK_RGB);
	pe_font_draw(p->f->img, p->f->w, p->f->h, x + L->tick + 2 * L->gap, y - L->th / 2, s, L->fs, INK_RGB);
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
static void draw_id_colorbar(struct fig *p, const struct pe_figure_layout *L)
{
	uint64_t n = (uint64_t)(p->cs->hi - p->cs->lo) + 1, step, b, ch = (uint64_t)L->ch;
	int64_t id;
	double minpx = 2.0 * L->th;
	unsigned char rgb[3];
	char buf[PE_FMT_BUF];
	int y, yc, ytop, ybot;

	for (y = 0; y < L->ch; y++) {
		b = (2 * (ch - 1 - (uint64_t)y) + 1) * n / (2 * ch);
		id_rgb(p, (int32_t)(p->cs->lo + (int64_t)b), rgb);
		fill_rect(p, L->cx, L->hy + y, L->cw, 1, rgb);
	}
	frame(p, L->cx, L->hy, L->cw, L->ch);
	ybot = L->hy + L->ch - 1 - (int)(ch / (2 * n));
	ytop = L->hy + L->ch - 1 - (int)(((2 * (n - 1) + 1) * ch) / (2 * n));
	cb_label(p, L, ybot, L->vmin_s);
	if (n == 1)
		return;
	cb_label(p, L, ytop, L->vmax_s);
	step = pe_tick_step(n, L->ch, minpx);
	/* the first multiple of step above lo */
	id = p->cs->lo + (int64_t)((step - pe_mod_i64(p->cs->lo, step)) % step);
	for (; id < p->cs->hi; id += (int64_t)step) {
		if (id == p->cs->lo)
			continue;
		b = (uint64_t)(id - p->cs->lo);
		yc = L->hy + L->ch - 1 - (int)(((2 * b + 1) * ch) / (2 * n));
		if (ybot - yc < minpx || yc - ytop < minpx)
			continue;
		pe_fmt_i64(id, buf);
		cb_label(p, L, yc, buf);
	}
}

static void draw_colorbar(struct fig *p, const struct pe_figure_layout *L, const unsigned char *lut,
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


void pe_figure_plan(struct pe_figure *f, const struct pe_heatmap *hm,
		    const struct pe_sink_opts *opts, const struct pe_colorscale *cs)
{
	struct fig p = { hm, opts, cs, f, hm->is3d && !opts->no_axes };

	plan(&p, cs->vmin, cs->vmax, &f->L);
}

int pe_figure_draw(struct pe_figure *f, const struct pe_heatmap *hm,
		   const struct pe_sink_opts *opts, const struct pe_colorscale *cs,
		   struct pe_error *err)
{
	struct fig fp = { hm, opts, cs, f, hm->is3d && !opts->no_axes }, *p = &fp;
	const struct pe_figure_layout *L = &f->L;
	uint64_t k;
	int x, y;

	f->img = pe_alloc_big((size_t)f->w * (size_t)f->h * 3);
	if (!f->img)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a %d x %d image", f->w, f->h);
	memset(f->img, BG_RGB[0], (size_t)f->w * (size_t)f->h * 3);
	for (k = 0; k < hm->panels; k++) {
		pe_figure_panel_at(f, hm, k, &x, &y);
		draw_heatmap(p, L, k, x, y, cs->lut, cs->vmin, cs->vmax);
		if (!opts->no_axes)
			draw_axes(p, L, k, x, y);
	}
	if (!opts->no_axes) {
		if (!opts->no_colorbar && cs->discrete)
			draw_id_colorbar(p, L);
		else if (!opts->no_colorbar)
			draw_colorbar(p, L, cs->lut, cs->vmin, cs->vmax);
		if (opts->title)
			draw_title(p, L);
		draw_axis_titles(p, L);
	}
	return 0;
}

void pe_figure_free(struct pe_figure *f)
{
	free(f->img);
	f->img = NULL;
}
