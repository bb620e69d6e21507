/*
 * Figures with cairo (figure.h).  Sizes follow matplotlib's defaults at
 * 100 dpi: 10 pt text (13.9 px), 12 pt titles, ticks 3.5 pt long and 0.8
 * pt wide pointing out, 3.5 pt between a tick and its label, 0.8 pt
 * frames, tab10 colours for series, lines 1.5 pt wide.
 */
#include "io/figure.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "io/colormap.h"
#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/png_write.h"
#include "io/ticks.h"
#include "version.h"

#define PT (100.0 / 72.0)	/* px per point at 100 dpi */
#define FS (10 * PT)		/* labels */
#define TFS (12 * PT)		/* titles */
#define TICK (3.5 * PT)
#define TICKPAD (3.5 * PT)
#define LINE (0.8 * PT)
#define LABELPAD (4 * PT)
#define PAD 10.0
#define PANEL_GAP 24.0
#define CB_PAD 16.0
#define CB_TICKS 3.5	/* lines of text between colour bar ticks, at least */
#define FONT "DejaVu Sans"

static const unsigned char NAN_RGB[3] = { 0xff, 0x00, 0xff };	/* magenta */
static const unsigned char NINF_RGB[3] = { 0xd9, 0xd9, 0xd9 };	/* light grey: a mask */
static const unsigned char PINF_RGB[3] = { 0x00, 0x00, 0x00 };	/* black */

/* matplotlib's tab10, the default colour cycle */
static const unsigned char TAB10[10][3] = {
	{ 0x1f, 0x77, 0xb4 }, { 0xff, 0x7f, 0x0e }, { 0x2c, 0xa0, 0x2c }, { 0xd6, 0x27, 0x28 },
	{ 0x94, 0x67, 0xbd }, { 0x8c, 0x56, 0x4b }, { 0xe3, 0x77, 0xc2 }, { 0x7f, 0x7f, 0x7f },
	{ 0xbc, 0xbd, 0x22 }, { 0x17, 0xbe, 0xcf },
};

/* ---- colours ---- */

void pe_colorscale_range(struct pe_colorscale *cs, int cmap, double vmin, double vmax)
{
	cs->cmap = cmap;
	cs->vmin = vmin;
	cs->vmax = vmax;
	cs->discrete = 0;
	pe_colormap_lut(cmap, cs->lut);
}

int pe_colorscale_ids(struct pe_colorscale *cs, int cmap, int64_t lo, int64_t hi,
		      struct pe_error *err)
{
	uint64_t n = (uint64_t)(hi - lo) + 1, b;

	pe_colorscale_range(cs, cmap, (double)lo, (double)hi);
	cs->discrete = 1;
	cs->lo = lo;
	cs->hi = hi;
	if (n > PE_PALETTE_MAX)
		return 0;
	cs->pal = malloc(3 * (size_t)n);
	if (!cs->pal)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (b = 0; b < n; b++)
		pe_colormap_resampled(cmap, n, b, cs->pal + 3 * b);
	return 0;
}

void pe_colorscale_free(struct pe_colorscale *cs)
{
	free(cs->pal);
	cs->pal = NULL;
}

/* The colour of id v: its band of hi - lo + 1, the ends for ids beyond. */
static void id_rgb(const struct pe_colorscale *cs, int64_t v, unsigned char rgb[3])
{
	uint64_t band = v <= cs->lo ? 0 : v >= cs->hi ? (uint64_t)(cs->hi - cs->lo)
						      : (uint64_t)(v - cs->lo);

	if (cs->pal)
		memcpy(rgb, cs->pal + 3 * band, 3);
	else
		pe_colormap_resampled(cs->cmap, (uint64_t)(cs->hi - cs->lo) + 1, band, rgb);
}

void pe_cell_rgb(const struct pe_heatmap *hm, const struct pe_colorscale *cs, uint64_t k,
		 uint32_t i, uint32_t j, unsigned char rgb[3])
{
	double mean;
	int idx;

	if (hm->ids) {
		id_rgb(cs, pe_heatmap_id(hm, k, i, j), rgb);
		return;
	}
	mean = pe_heatmap_mean(hm, k, i, j);
	if (isnan(mean)) {
		memcpy(rgb, NAN_RGB, 3);
		return;
	}
	if (isinf(mean) && cs->inf_colours) {
		memcpy(rgb, mean < 0 ? NINF_RGB : PINF_RGB, 3);
		return;
	}
	if (cs->vmin == cs->vmax)
		idx = 0;
	else if (hm->dtype == PE_F32)
		idx = pe_colormap_index_f32((float)mean, (float)cs->vmin,
					    (float)(cs->vmax - cs->vmin));
	else
		idx = pe_colormap_index_f64(mean, cs->vmin, cs->vmax - cs->vmin);
	memcpy(rgb, cs->lut + 3 * idx, 3);
}

/* ---- text ---- */

static void set_font(cairo_t *cr, double px)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	/* unhinted metrics: the same layout in every backend */
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, px);
}

static cairo_t *measure_cr;

/* At exit: the measuring context, then cairo's and fontconfig's caches,
 * so a leak checker sees only posenc's own allocations. */
static void release_fonts(void)
{
	cairo_destroy(measure_cr);
	measure_cr = NULL;
	cairo_debug_reset_static_data();
	FcFini();
}

/* A context to measure text with, made once. */
static cairo_t *measurer(void)
{
	cairo_surface_t *s;

	if (!measure_cr) {
		s = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1);
		measure_cr = cairo_create(s);
		cairo_surface_destroy(s);
		atexit(release_fonts);
	}
	return measure_cr;
}

double pe_fig_text_width(const char *s, double px)
{
	cairo_t *cr = measurer();
	cairo_text_extents_t e;

	if (!s || !*s)
		return 0;
	set_font(cr, px);
	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

/* Ascent and descent of the face at px. */
static void font_heights(double px, double *asc, double *desc)
{
	cairo_t *cr = measurer();
	cairo_font_extents_t fe;

	set_font(cr, px);
	cairo_font_extents(cr, &fe);
	*asc = fe.ascent;
	*desc = fe.descent;
}

/* The height a line of text takes: ascent + descent. */
static double text_h(double px)
{
	double a, d;

	font_heights(px, &a, &d);
	return a + d;
}

/*
 * s with its box (advance x ascent + descent) placed so that the point
 * (x, y) is at fraction ax of its width and ay of its height (0, 0: top
 * left); turned 90 degrees counter-clockwise when up (reading bottom to
 * top, the box's width then along y).
 */
static void draw_text(cairo_t *cr, const char *s, double px, double x, double y, double ax,
		      double ay, int up)
{
	double a, d, w;

	if (!s || !*s)
		return;
	set_font(cr, px);
	font_heights(px, &a, &d);
	w = pe_fig_text_width(s, px);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	if (up)
		cairo_rotate(cr, -1.5707963267948966);
	cairo_move_to(cr, -ax * w, -ay * (a + d) + a);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

/* ---- ticks at round values ---- */

size_t pe_nice_ticks(double lo, double hi, double len, double minpx, double *v, size_t max,
		     int *decimals)
{
	static const double mant[5] = { 1, 2, 2.5, 5, 10 };
	double span = hi - lo, want, raw, mag, step = 0, t0;
	size_t n = 0, m;
	int k;

	*decimals = 0;
	if (!(span > 0) || !isfinite(span) || max == 0 || !(len > 0))
		return 0;
	if (!(minpx > 1))
		minpx = 1;
	want = floor(len / minpx);
	if (want < 2)
		want = 2;
	raw = span / want;
	mag = pow(10, floor(log10(raw)));
	for (m = 0; m < 5; m++) {
		step = mant[m] * mag;
		if (step >= raw * (1 - 1e-9))
			break;
	}
	k = (int)-floor(log10(step) + 1e-9);
	*decimals = k > 0 ? k : 0;
	if (m == 2)	/* 2.5 x 10^k needs one digit more */
		*decimals = k + 1 > 0 ? k + 1 : 0;
	t0 = ceil(lo / step - 1e-9) * step;
	while (n < max) {
		double t = t0 + (double)n * step;

		if (t > hi + step * 1e-9)
			break;
		v[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	}
	return n;
}

/* A real tick label with d decimals; large or tiny magnitudes as %g. */
static void fmt_tick(double v, int d, char *buf, size_t n)
{
	double a = fabs(v);

	if (v != 0 && (a >= 1e6 || a < 1e-4))
		snprintf(buf, n, "%g", v);
	else
		snprintf(buf, n, "%.*f", d, v);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, n, "0");
}

/* ---- layout ---- */

/* A heatmap panel's axes: ticks as pe_ticks() gives them. */
struct hm_axes {
	struct pe_ticks r, c;
	int rows;		/* draws a row axis (not a vector) */
	double lab_w;		/* widest row label */
	double first_w, last_w;	/* first and last column labels drawn */
	uint64_t last_c;
};

static double hm_w(const struct pe_heatmap *hm)
{
	return (double)hm->kw * hm->gw;
}

static double hm_h(const struct pe_heatmap *hm)
{
	return (double)hm->ph;
}

static double label_w(int64_t origin, uint64_t step, uint64_t i)
{
	char buf[PE_FMT_BUF];

	pe_fmt_i64(pe_tick_label(origin, step, i), buf);
	return pe_fig_text_width(buf, FS);
}

static double imax_d(double a, double b)
{
	return a > b ? a : b;
}

static void hm_axes_of(const struct pe_fig_panel *p, struct hm_axes *ax)
{
	const struct pe_heatmap *hm = p->hm;
	double th = text_h(FS), w, minpx;
	uint64_t last;

	memset(ax, 0, sizeof *ax);
	ax->rows = !hm->vector;
	if (ax->rows) {
		/* labels 2.5 lines apart; a short axis (a wide matrix at 1:4)
		 * spaces them less, down to 1.5 lines, rather than label one row */
		minpx = hm_h(hm) / 3 < 1.5 * th ? 1.5 * th : hm_h(hm) / 3;
		ax->r = pe_ticks(hm->rows, p->row_origin, p->row_step, hm_h(hm),
				 minpx < 2.5 * th ? minpx : 2.5 * th);
		last = ax->r.first + (hm->rows - 1 - ax->r.first) / ax->r.every * ax->r.every;
		ax->lab_w = imax_d(label_w(p->row_origin, p->row_step, ax->r.first),
				   label_w(p->row_origin, p->row_step, last));
	}
	/* labels grow monotonically, so the widest is at an end */
	w = imax_d(label_w(p->col_origin, p->col_step, 0),
		   label_w(p->col_origin, p->col_step, hm->cols - 1));
	ax->c = pe_ticks(hm->cols, p->col_origin, p->col_step, hm_w(hm), w + 2 * FS);
	ax->last_c = ax->c.first + (hm->cols - 1 - ax->c.first) / ax->c.every * ax->c.every;
	ax->first_w = label_w(p->col_origin, p->col_step, ax->c.first);
	ax->last_w = label_w(p->col_origin, p->col_step, ax->last_c);
}

/* Pixel offset of the centre of cell i of n drawn across len. */
static double centre(uint64_t i, double len, uint64_t n)
{
	return ((double)i + 0.5) * len / (double)n;
}

/* The chart's data ranges, with matplotlib's 5% margins (on a log axis, of
 * the logarithms). */
struct range {
	double lo, hi;
};

static int usable(double v, int logax)
{
	return isfinite(v) && (!logax || v > 0);
}

static void chart_ranges(const struct pe_chart *c, struct range *x, struct range *y)
{
	size_t s, i;
	double lo, hi, m;
	int first_x = 1, first_y = 1;
	const struct pe_series *se;

	x->lo = x->hi = y->lo = y->hi = 0;
	for (s = 0; s < c->nseries; s++) {
		se = &c->series[s];
		for (i = 0; i < se->n; i++) {
			double xv = se->x[i], vals[3] = { se->y[i], se->lo ? se->lo[i] : (double)NAN,
							   se->hi ? se->hi[i] : (double)NAN };
			int k;

			if (!usable(xv, c->logx))
				continue;
			if (first_x || xv < x->lo)
				x->lo = xv;
			if (first_x || xv > x->hi)
				x->hi = xv;
			first_x = 0;
			if (se->step && i + 1 == se->n && !c->logx && xv + 1 > x->hi)
				x->hi = xv + 1;
			for (k = 0; k < 3; k++) {
				if (!usable(vals[k], c->logy))
					continue;
				if (first_y || vals[k] < y->lo)
					y->lo = vals[k];
				if (first_y || vals[k] > y->hi)
					y->hi = vals[k];
				first_y = 0;
			}
		}
	}
	if (first_x) {
		x->lo = c->logx ? 1 : 0;
		x->hi = c->logx ? 10 : 1;
	}
	if (first_y) {
		y->lo = c->logy ? 1 : 0;
		y->hi = c->logy ? 10 : 1;
	}
	if (c->logx) {
		x->lo = log10(x->lo);
		x->hi = log10(x->hi);
	}
	if (c->logy) {
		y->lo = log10(y->lo);
		y->hi = log10(y->hi);
	}
	if (x->hi == x->lo) {
		x->lo -= 0.5;
		x->hi += 0.5;
	}
	if (y->hi == y->lo) {
		m = fabs(y->lo) > 0 ? fabs(y->lo) * 0.1 : 0.5;
		y->lo -= m;
		y->hi += m;
	}
	lo = x->lo;
	hi = x->hi;
	x->lo = lo - 0.05 * (hi - lo);
	x->hi = hi + 0.05 * (hi - lo);
	lo = y->lo;
	hi = y->hi;
	y->lo = lo - 0.05 * (hi - lo);
	y->hi = hi + 0.05 * (hi - lo);
}

#define MAX_TICKS 64

/* An axis of a chart: tick values (as data, not logarithms) and labels. */
struct chart_axis {
	double v[MAX_TICKS];
	char lab[MAX_TICKS][32];
	size_t n;
	double lab_w;
};

static void chart_axis(struct range r, int logax, double len, double minpx,
		       struct chart_axis *a)
{
	int d, e, e0, e1, every;
	size_t i;

	a->n = 0;
	a->lab_w = 0;
	if (logax) {
		e0 = (int)ceil(r.lo - 1e-9);
		e1 = (int)floor(r.hi + 1e-9);
		every = 1;
		while ((double)every * len / (r.hi - r.lo) < minpx && every < 1000)
			every++;
		for (e = e0; e <= e1 && a->n < MAX_TICKS; e++) {
			if (e % every != 0)
				continue;
			a->v[a->n] = e;
			if (e >= -3 && e <= 4)
				snprintf(a->lab[a->n], 32, "%.*f", e < 0 ? -e : 0, pow(10, e));
			else
				snprintf(a->lab[a->n], 32, "1e%d", e);
			a->n++;
		}
	} else {
		a->n = pe_nice_ticks(r.lo, r.hi, len, minpx, a->v, MAX_TICKS, &d);
		for (i = 0; i < a->n; i++)
			fmt_tick(a->v[i], d, a->lab[i], 32);
	}
	for (i = 0; i < a->n; i++)
		a->lab_w = imax_d(a->lab_w, pe_fig_text_width(a->lab[i], FS));
}

/* A colour bar's ticks: ids, or round values of [vmin, vmax]. */
static double cbar_label_w(const struct pe_colorscale *cs, double len)
{
	struct chart_axis a;
	struct range r = { cs->vmin, cs->vmax };
	char buf[PE_FMT_BUF];
	double w;

	if (cs->discrete) {
		pe_fmt_i64(cs->lo, buf);
		w = pe_fig_text_width(buf, FS);
		pe_fmt_i64(cs->hi, buf);
		return imax_d(w, pe_fig_text_width(buf, FS));
	}
	chart_axis(r, 0, len, CB_TICKS * text_h(FS), &a);
	w = a.lab_w;
	if (cs->has_nan || cs->has_ninf || cs->has_pinf)
		w = imax_d(w, pe_fig_text_width("-inf", FS) + 16);
	return w;
}

/* How many swatches go under cs's colour bar. */
static int swatches(const struct pe_colorscale *cs)
{
	return cs->has_nan + (cs->inf_colours && cs->has_ninf) + (cs->inf_colours && cs->has_pinf);
}

/* Margins of one panel around its area. */
struct margins {
	double l, r, t, b;
};

static double chart_aw(const struct pe_fig *f)
{
	return f->chart_w ? f->chart_w : 560;
}

static double chart_ah(const struct pe_fig *f)
{
	return f->chart_h ? f->chart_h : 350;
}

static double cbar_w(double h)
{
	double w = h / 20;

	return w < 12 ? 12 : w > 30 ? 30 : round(w);
}

static void panel_margins(const struct pe_fig_panel *p, double aw, double ah, struct margins *m)
{
	double th = text_h(FS);
	struct hm_axes ax;
	struct range xr, yr;
	struct chart_axis xa, ya;
	double c0, cl;

	memset(m, 0, sizeof *m);
	if (p->title)
		m->t = text_h(TFS) + LABELPAD;
	if (p->chart) {
		chart_ranges(p->chart, &xr, &yr);
		chart_axis(yr, p->chart->logy, ah, 2.5 * th, &ya);
		chart_axis(xr, p->chart->logx, aw, 4 * FS, &xa);
		m->l = TICK + TICKPAD + ya.lab_w;
		m->b = TICK + TICKPAD + th;
		m->t = imax_d(m->t, th / 2);
		m->r = imax_d(m->r, xa.lab_w / 2);
	} else {
		hm_axes_of(p, &ax);
		if (ax.rows)
			m->l = TICK + TICKPAD + ax.lab_w;
		m->b = TICK + TICKPAD + th;
		c0 = centre(ax.c.first, aw, p->hm->cols);
		cl = centre(ax.last_c, aw, p->hm->cols);
		m->l = imax_d(m->l, ax.first_w / 2 - c0);
		m->r = imax_d(0, ax.last_w / 2 - (aw - cl));
		if (ax.rows)
			m->t = imax_d(m->t, th / 2);
	}
	if (p->colorbar && p->cs)
		m->r = imax_d(m->r, CB_PAD) + cbar_w(ah) + TICK + TICKPAD +
		       cbar_label_w(p->cs, ah);
	m->l = ceil(m->l);
	m->r = ceil(m->r);
	m->t = ceil(m->t);
	m->b = ceil(m->b);
}

static void area_size(const struct pe_fig *f, const struct pe_fig_panel *p, double *w, double *h)
{
	if (p->chart) {
		*w = chart_aw(f);
		*h = chart_ah(f);
	} else {
		*w = hm_w(p->hm);
		*h = hm_h(p->hm);
	}
}

void pe_fig_layout_free(struct pe_fig_layout *L)
{
	free(L->area);
	free(L->cbar);
	L->area = L->cbar = NULL;
}

/* The largest area of the panels: every panel's box holds it. */
static void largest_area(const struct pe_fig *f, double *aw, double *ah)
{
	double w, h;
	size_t k;

	*aw = *ah = 0;
	for (k = 0; k < f->n; k++) {
		area_size(f, &f->panels[k], &w, &h);
		*aw = imax_d(*aw, w);
		*ah = imax_d(*ah, h);
	}
}

static int plan_bare(const struct pe_fig *f, struct pe_fig_layout *L)
{
	double aw, ah, w, h;
	size_t k;

	largest_area(f, &aw, &ah);
	for (k = 0; k < f->n; k++) {
		area_size(f, &f->panels[k], &w, &h);
		L->area[k].x = (double)(k % f->nc) * (aw + PE_HEATMAP_BARE_GAP);
		L->area[k].y = (double)(k / f->nc) * (ah + PE_HEATMAP_BARE_GAP);
		L->area[k].w = w;
		L->area[k].h = h;
	}
	L->w = (int)((f->nc - 1) * (aw + PE_HEATMAP_BARE_GAP) + aw);
	L->h = (int)((f->nr - 1) * (ah + PE_HEATMAP_BARE_GAP) + ah);
	return 0;
}

/*
 * From left to right: the y-axis title, then the grid of panels (each its
 * row labels, ticks, area and its own colour bar), then the grid's colour
 * bar and its labels; top to bottom: the title, the grid (each panel its
 * title, area, column ticks and labels), the x-axis title.  Every panel of
 * the grid has the same box (the largest margins and area of them all),
 * so areas line up; margins are whole pixels, so heatmaps sit on pixels.
 */
int pe_fig_plan(const struct pe_fig *f, struct pe_fig_layout *L, struct pe_error *err)
{
	struct margins m, mm = { 0, 0, 0, 0 };
	double aw, ah, w, h, x0, y0, pitch_x, pitch_y, th = text_h(FS), right, bottom;
	double gx0, gx1, gy0, gy1, tw;
	size_t k;

	memset(L, 0, sizeof *L);
	L->fs = FS;
	L->tfs = TFS;
	L->area = calloc(f->n ? f->n : 1, sizeof *L->area);
	L->cbar = calloc(f->n ? f->n : 1, sizeof *L->cbar);
	if (!L->area || !L->cbar)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (cairo_status(measurer()) != CAIRO_STATUS_SUCCESS)
		return pe_fail(err, PE_ERR_DATA, "cannot draw text: %s",
			       cairo_status_to_string(cairo_status(measurer())));
	if (f->no_axes)
		return plan_bare(f, L);
	largest_area(f, &aw, &ah);
	for (k = 0; k < f->n; k++) {
		area_size(f, &f->panels[k], &w, &h);
		panel_margins(&f->panels[k], w, h, &m);
		mm.l = imax_d(mm.l, m.l);
		mm.r = imax_d(mm.r, m.r);
		mm.t = imax_d(mm.t, m.t);
		mm.b = imax_d(mm.b, m.b);
	}
	x0 = PAD + (f->ylabel ? ceil(th + LABELPAD) : 0);
	y0 = PAD + (f->title ? ceil(text_h(TFS) + 2 * LABELPAD) : 0);
	pitch_x = mm.l + aw + mm.r + PANEL_GAP;
	pitch_y = mm.t + ah + mm.b + PANEL_GAP;
	for (k = 0; k < f->n; k++) {
		area_size(f, &f->panels[k], &w, &h);
		L->area[k].x = x0 + (double)(k % f->nc) * pitch_x + mm.l;
		L->area[k].y = y0 + (double)(k / f->nc) * pitch_y + mm.t;
		L->area[k].w = w;
		L->area[k].h = h;
		if (f->panels[k].colorbar && f->panels[k].cs) {
			L->cbar[k].x = L->area[k].x + w + CB_PAD;
			L->cbar[k].y = L->area[k].y;
			L->cbar[k].w = cbar_w(h);
			L->cbar[k].h = h;
		}
	}
	gx0 = x0 + mm.l;
	gx1 = x0 + (double)(f->nc - 1) * pitch_x + mm.l + aw;
	gy0 = y0 + mm.t;
	gy1 = y0 + (double)(f->nr - 1) * pitch_y + mm.t + ah;
	right = x0 + (double)f->nc * pitch_x - PANEL_GAP;
	bottom = y0 + (double)f->nr * pitch_y - PANEL_GAP;
	if (f->colorbar) {
		L->shared.x = gx1 + imax_d(mm.r, 0) + CB_PAD;
		L->shared.y = gy0;
		L->shared.h = gy1 - gy0;
		L->shared.w = cbar_w(L->shared.h);
		right = imax_d(right, L->shared.x + L->shared.w + TICK + TICKPAD +
					       cbar_label_w(f->colorbar, L->shared.h));
	}
	/* the swatches of NaN and the infinities under a colour bar */
	for (k = 0; k <= f->n; k++) {
		const struct pe_fig_rect *r = k < f->n ? &L->cbar[k] : &L->shared;
		const struct pe_colorscale *cs = k < f->n ? f->panels[k].cs : f->colorbar;

		if (r->w > 0 && cs)
			bottom = imax_d(bottom, r->y + r->h + TICK + TICKPAD +
						(double)swatches(cs) * (th + 2));
	}
	if (f->xlabel) {
		L->xlabel_y = bottom + LABELPAD;
		bottom = L->xlabel_y + th;
		tw = pe_fig_text_width(f->xlabel, FS);
		right = imax_d(right, (gx0 + gx1) / 2 + tw / 2);
	}
	if (f->ylabel) {
		L->ylabel_x = PAD;
		tw = pe_fig_text_width(f->ylabel, FS);
		bottom = imax_d(bottom, (gy0 + gy1) / 2 + tw / 2);
	}
	if (f->title) {
		L->title_y = PAD;
		tw = pe_fig_text_width(f->title, TFS);
		right = imax_d(right, tw + PAD);
	}
	L->w = (int)ceil(right + PAD);
	L->h = (int)ceil(bottom + PAD);
	return 0;
}

/* ---- drawing ---- */

static void set_rgb(cairo_t *cr, const unsigned char c[3])
{
	cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

static void ink(cairo_t *cr)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
}

/* An image surface of w x h RGB pixels from a row function. */
static cairo_surface_t *pixels(int w, int h)
{
	return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
}

static void put(unsigned char *row, int x, const unsigned char rgb[3])
{
	uint32_t v = (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2];

	memcpy(row + 4 * (size_t)x, &v, 4);
}

/* Paint img (its own pixel size) at (x, y), never smoothed. */
static void paint_pixels(cairo_t *cr, cairo_surface_t *img, double x, double y)
{
	cairo_save(cr);
	cairo_set_source_surface(cr, img, x, y);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_rectangle(cr, x, y, cairo_image_surface_get_width(img),
			cairo_image_surface_get_height(img));
	cairo_fill(cr);
	cairo_restore(cr);
}

/* Panel k's cells as drawn, kh x kw pixels each (a vector's one row
 * fills the strip), into w x h xRGB pixels at d (rows stride bytes apart). */
static void cells_into(const struct pe_fig_panel *p, unsigned char *d, int stride, int w, int h)
{
	const struct pe_heatmap *hm = p->hm;
	unsigned char rgb[3];
	uint32_t i, j, kk;
	int y;

	for (i = 0; i < hm->gh; i++) {
		unsigned char *row = d + (size_t)stride * (size_t)i * hm->kh;
		int rows = hm->vector ? h : (int)hm->kh;

		for (j = 0; j < hm->gw; j++) {
			pe_cell_rgb(hm, p->cs, p->k, i, j, rgb);
			for (kk = 0; kk < hm->kw; kk++)
				put(row, (int)(j * hm->kw + kk), rgb);
		}
		for (y = 1; y < rows; y++)
			memcpy(row + (size_t)stride * (size_t)y, row, (size_t)w * 4);
	}
}

/*
 * A heatmap's pixels: an image painted unsmoothed at its own size.  On a
 * PNG canvas (an image surface, untransformed, the area on whole pixels)
 * that is a copy, so the cells are written into the canvas itself rather
 * than through an image as large (64 MiB less at 4096 x 4096).
 */
static int draw_cells(cairo_t *cr, const struct pe_fig_panel *p, const struct pe_fig_rect *a,
		      struct pe_error *err)
{
	int w = (int)a->w, h = (int)a->h;
	cairo_surface_t *t = cairo_get_target(cr), *img;
	cairo_matrix_t m;

	cairo_get_matrix(cr, &m);
	if (cairo_surface_get_type(t) == CAIRO_SURFACE_TYPE_IMAGE && m.xx == 1 && m.yy == 1 &&
	    m.xy == 0 && m.yx == 0 && m.x0 == 0 && m.y0 == 0 && a->x == floor(a->x) &&
	    a->y == floor(a->y)) {
		cairo_surface_flush(t);
		cells_into(p, cairo_image_surface_get_data(t) +
				      (size_t)cairo_image_surface_get_stride(t) * (size_t)a->y +
				      4 * (size_t)a->x,
			   cairo_image_surface_get_stride(t), w, h);
		cairo_surface_mark_dirty_rectangle(t, (int)a->x, (int)a->y, w, h);
		return 0;
	}
	img = pixels(w, h);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a %d x %d heatmap", w, h);
	}
	cairo_surface_flush(img);
	cells_into(p, cairo_image_surface_get_data(img), cairo_image_surface_get_stride(img), w, h);
	cairo_surface_mark_dirty(img);
	paint_pixels(cr, img, a->x, a->y);
	cairo_surface_destroy(img);
	return 0;
}

static void frame(cairo_t *cr, const struct pe_fig_rect *a)
{
	ink(cr);
	cairo_set_line_width(cr, LINE);
	cairo_rectangle(cr, a->x - LINE / 2, a->y - LINE / 2, a->w + LINE, a->h + LINE);
	cairo_stroke(cr);
}

static void tick_x(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x, y + TICK);
}

static void tick_y(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x - TICK, y);
}

static void draw_hm_axes(cairo_t *cr, const struct pe_fig_panel *p, const struct pe_fig_rect *a)
{
	const struct pe_heatmap *hm = p->hm;
	struct hm_axes ax;
	char buf[PE_FMT_BUF];
	uint64_t i;
	double c;

	hm_axes_of(p, &ax);
	ink(cr);
	cairo_set_line_width(cr, LINE);
	for (i = ax.c.first; i < hm->cols; i += ax.c.every) {
		c = a->x + centre(i, a->w, hm->cols);
		tick_x(cr, c, a->y + a->h + LINE / 2);
		pe_fmt_i64(pe_tick_label(p->col_origin, p->col_step, i), buf);
		draw_text(cr, buf, FS, c, a->y + a->h + TICK + TICKPAD, 0.5, 0, 0);
	}
	for (i = ax.r.first; ax.rows && i < hm->rows; i += ax.r.every) {
		c = a->y + centre(i, a->h, hm->rows);
		tick_y(cr, a->x - LINE / 2, c);
		pe_fmt_i64(pe_tick_label(p->row_origin, p->row_step, i), buf);
		draw_text(cr, buf, FS, a->x - TICK - TICKPAD, c, 1, 0.5, 0);
	}
	cairo_stroke(cr);
}

/* A colour bar in r for cs: the gradient (or one band per id), a frame,
 * ticks at round values (ids), and under it the swatches of NaN and the
 * infinities the data has. */
static int draw_cbar(cairo_t *cr, const struct pe_colorscale *cs, const struct pe_fig_rect *r,
		     struct pe_error *err)
{
	int w = (int)r->w, h = (int)r->h, y, x, stride;
	cairo_surface_t *img = pixels(w, h);
	unsigned char *d, rgb[3];
	struct chart_axis a;
	struct range rg = { cs->vmin, cs->vmax };
	uint64_t n, step, b;
	int64_t id;
	double yc, ybot, ytop, minpx = 2 * text_h(FS), sy;
	char buf[PE_FMT_BUF];
	size_t i;
	static const char *const names[3] = { "NaN", "-inf", "+inf" };
	const unsigned char *sw[3] = { NAN_RGB, NINF_RGB, PINF_RGB };
	int has[3] = { cs->has_nan, cs->has_ninf && cs->inf_colours,
		       cs->has_pinf && cs->inf_colours };

	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	cairo_surface_flush(img);
	d = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	n = cs->discrete ? (uint64_t)(cs->hi - cs->lo) + 1 : 256;
	for (y = 0; y < h; y++) {
		if (cs->discrete) {
			b = (2 * ((uint64_t)h - 1 - (uint64_t)y) + 1) * n / (2 * (uint64_t)h);
			id_rgb(cs, cs->lo + (int64_t)b, rgb);
		} else {
			int idx = (int)(((int64_t)(h - 1 - y) * 256 + 128) / h);

			memcpy(rgb, cs->lut + 3 * (idx > 255 ? 255 : idx), 3);
		}
		for (x = 0; x < w; x++)
			put(d + (size_t)stride * (size_t)y, x, rgb);
	}
	cairo_surface_mark_dirty(img);
	paint_pixels(cr, img, r->x, r->y);
	cairo_surface_destroy(img);
	frame(cr, r);
	ink(cr);
	cairo_set_line_width(cr, LINE);
	if (cs->discrete) {
		/* ids at band centres: both ends, and the multiples of a round
		 * step that leave room */
		ybot = r->y + r->h - r->h / (2.0 * (double)n);
		ytop = r->y + r->h - (2.0 * (double)(n - 1) + 1) * r->h / (2.0 * (double)n);
		pe_fmt_i64(cs->lo, buf);
		cairo_move_to(cr, r->x + r->w, ybot);
		cairo_line_to(cr, r->x + r->w + TICK, ybot);
		draw_text(cr, buf, FS, r->x + r->w + TICK + TICKPAD, ybot, 0, 0.5, 0);
		if (n > 1) {
			pe_fmt_i64(cs->hi, buf);
			cairo_move_to(cr, r->x + r->w, ytop);
			cairo_line_to(cr, r->x + r->w + TICK, ytop);
			draw_text(cr, buf, FS, r->x + r->w + TICK + TICKPAD, ytop, 0, 0.5, 0);
			step = pe_tick_step(n, r->h, minpx);
			id = cs->lo + (int64_t)((step - pe_mod_i64(cs->lo, step)) % step);
			for (; id < cs->hi; id += (int64_t)step) {
				if (id == cs->lo)
					continue;
				b = (uint64_t)(id - cs->lo);
				yc = r->y + r->h - (2.0 * (double)b + 1) * r->h / (2.0 * (double)n);
				if (ybot - yc < minpx || yc - ytop < minpx)
					continue;
				pe_fmt_i64(id, buf);
				cairo_move_to(cr, r->x + r->w, yc);
				cairo_line_to(cr, r->x + r->w + TICK, yc);
				draw_text(cr, buf, FS, r->x + r->w + TICK + TICKPAD, yc, 0, 0.5, 0);
			}
		}
		cairo_stroke(cr);
	} else if (cs->vmax > cs->vmin) {
		chart_axis(rg, 0, r->h, CB_TICKS * text_h(FS), &a);
		for (i = 0; i < a.n; i++) {
			yc = r->y + r->h - (a.v[i] - cs->vmin) / (cs->vmax - cs->vmin) * r->h;
			cairo_move_to(cr, r->x + r->w, yc);
			cairo_line_to(cr, r->x + r->w + TICK, yc);
			draw_text(cr, a.lab[i], FS, r->x + r->w + TICK + TICKPAD, yc, 0, 0.5, 0);
		}
		cairo_stroke(cr);
	}
	/* swatches of the values no colour of the map stands for */
	sy = r->y + r->h + TICK + TICKPAD + text_h(FS) / 2;
	ink(cr);
	for (i = 0; i < 3; i++) {
		if (!has[i])
			continue;
		set_rgb(cr, sw[i]);
		cairo_rectangle(cr, r->x, sy - 5, 10, 10);
		cairo_fill_preserve(cr);
		ink(cr);
		cairo_set_line_width(cr, LINE / 2);
		cairo_stroke(cr);
		draw_text(cr, names[i], FS, r->x + 14, sy, 0, 0.5, 0);
		sy += text_h(FS) + 2;
	}
	return 0;
}

/* ---- charts ---- */

struct chart_map {
	const struct pe_fig_rect *a;
	struct range xr, yr;
	int logx, logy;
};

static double map_x(const struct chart_map *m, double v)
{
	if (m->logx)
		v = log10(v);
	return m->a->x + (v - m->xr.lo) / (m->xr.hi - m->xr.lo) * m->a->w;
}

static double map_y(const struct chart_map *m, double v)
{
	if (m->logy)
		v = log10(v);
	return m->a->y + m->a->h - (v - m->yr.lo) / (m->yr.hi - m->yr.lo) * m->a->h;
}

/*
 * The path of a series.  Beyond four points per pixel column a curve is
 * drawn as each column's first, lowest, highest and last point (the
 * envelope a 1.5-pixel line shows anyway), so 10^5 or 10^7 points cost
 * the same to draw and to store in SVG or PDF.
 */
static void series_path(cairo_t *cr, const struct chart_map *m, const struct pe_series *s,
			const double *y)
{
	size_t i;
	int pen = 0, col = INT32_MIN, c;
	double px, py, lo = 0, hi = 0, last = 0, first_y = 0, cx = 0, nx;
	int decimate = s->n > 4 * (size_t)m->a->w && !s->step;

	for (i = 0; i < s->n; i++) {
		if (!usable(s->x[i], m->logx) || !usable(y[i], m->logy)) {
			if (decimate && col != INT32_MIN) {
				cairo_line_to(cr, cx, lo);
				cairo_line_to(cr, cx, hi);
				cairo_line_to(cr, cx, last);
			}
			pen = 0;
			col = INT32_MIN;
			continue;
		}
		px = map_x(m, s->x[i]);
		py = map_y(m, y[i]);
		if (s->step) {
			nx = i + 1 < s->n && usable(s->x[i + 1], m->logx) ? map_x(m, s->x[i + 1])
									    : map_x(m, s->x[i] + 1);
			if (pen)
				cairo_line_to(cr, px, py);
			else
				cairo_move_to(cr, px, py);
			cairo_line_to(cr, nx, py);
			pen = 1;
			continue;
		}
		if (!decimate) {
			if (pen)
				cairo_line_to(cr, px, py);
			else
				cairo_move_to(cr, px, py);
			pen = 1;
			continue;
		}
		c = (int)floor(px);
		if (c != col) {
			if (col != INT32_MIN) {
				cairo_line_to(cr, cx, lo);
				cairo_line_to(cr, cx, hi);
				cairo_line_to(cr, cx, last);
			}
			col = c;
			cx = px;
			lo = hi = last = first_y = py;
			if (pen)
				cairo_line_to(cr, px, first_y);
			else
				cairo_move_to(cr, px, first_y);
			pen = 1;
		} else {
			lo = py < lo ? py : lo;
			hi = py > hi ? py : hi;
			last = py;
		}
	}
	if (decimate && col != INT32_MIN) {
		cairo_line_to(cr, cx, lo);
		cairo_line_to(cr, cx, hi);
		cairo_line_to(cr, cx, last);
	}
}

static void band_path(cairo_t *cr, const struct chart_map *m, const struct pe_series *s)
{
	size_t i, j;
	int pen = 0;

	for (i = 0; i < s->n; i++) {
		if (!usable(s->x[i], m->logx) || !usable(s->hi[i], m->logy) ||
		    !usable(s->lo[i], m->logy))
			continue;
		if (pen)
			cairo_line_to(cr, map_x(m, s->x[i]), map_y(m, s->hi[i]));
		else
			cairo_move_to(cr, map_x(m, s->x[i]), map_y(m, s->hi[i]));
		pen = 1;
	}
	for (j = s->n; j-- > 0;) {
		if (!usable(s->x[j], m->logx) || !usable(s->hi[j], m->logy) ||
		    !usable(s->lo[j], m->logy))
			continue;
		cairo_line_to(cr, map_x(m, s->x[j]), map_y(m, s->lo[j]));
	}
	cairo_close_path(cr);
}

static void draw_legend(cairo_t *cr, const struct pe_chart *c, const struct pe_fig_rect *a)
{
	double th = text_h(FS), w = 0, h, x, y;
	size_t s, n = 0;

	for (s = 0; s < c->nseries; s++) {
		if (c->series[s].name) {
			w = imax_d(w, pe_fig_text_width(c->series[s].name, FS));
			n++;
		}
		if (c->series[s].lo && c->series[s].band_name) {
			w = imax_d(w, pe_fig_text_width(c->series[s].band_name, FS));
			n++;
		}
	}
	if (n == 0)
		return;
	w += 2 * 6 + 28 + 6;
	h = (double)n * (th + 2) + 2 * 5;
	x = a->x + a->w - w - 8;
	y = c->legend == PE_LEGEND_LOWER_RIGHT ? a->y + a->h - h - 8 : a->y + 8;
	cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill_preserve(cr);
	cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
	cairo_set_line_width(cr, LINE);
	cairo_stroke(cr);
	y += 5 + th / 2;
	for (s = 0; s < c->nseries; s++) {
		const unsigned char *col = TAB10[s % 10];

		if (c->series[s].name) {
			set_rgb(cr, col);
			cairo_set_line_width(cr, 1.5 * PT);
			cairo_move_to(cr, x + 6, y);
			cairo_line_to(cr, x + 6 + 28, y);
			cairo_stroke(cr);
			ink(cr);
			draw_text(cr, c->series[s].name, FS, x + 6 + 28 + 6, y, 0, 0.5, 0);
			y += th + 2;
		}
		if (c->series[s].lo && c->series[s].band_name) {
			cairo_set_source_rgba(cr, col[0] / 255.0, col[1] / 255.0, col[2] / 255.0, 0.25);
			cairo_rectangle(cr, x + 6, y - th / 3, 28, 2 * th / 3);
			cairo_fill(cr);
			ink(cr);
			draw_text(cr, c->series[s].band_name, FS, x + 6 + 28 + 6, y, 0, 0.5, 0);
			y += th + 2;
		}
	}
}

static void draw_chart(cairo_t *cr, const struct pe_chart *c, const struct pe_fig_rect *a)
{
	struct chart_map m = { a, { 0, 0 }, { 0, 0 }, c->logx, c->logy };
	struct chart_axis xa, ya;
	double th = text_h(FS), v;
	size_t i, s;

	chart_ranges(c, &m.xr, &m.yr);
	chart_axis(m.yr, c->logy, a->h, 2.5 * th, &ya);
	chart_axis(m.xr, c->logx, a->w, 4 * FS, &xa);
	/* x labels at least their widths apart: thin the ticks to fit */
	{
		double widest = xa.lab_w + 2 * FS;

		chart_axis(m.xr, c->logx, a->w, widest, &xa);
		if (xa.n > 0 && xa.lab_w + 2 * FS > widest)
			chart_axis(m.xr, c->logx, a->w, xa.lab_w + 2 * FS, &xa);
	}
	cairo_save(cr);
	cairo_rectangle(cr, a->x, a->y, a->w, a->h);
	cairo_clip(cr);
	for (i = 0; i < c->nshades; i++) {
		double x0 = map_x(&m, c->shades[i].x0), x1 = map_x(&m, c->shades[i].x1);

		cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, i % 2 ? 0.08 : 0.16);
		cairo_rectangle(cr, x0, a->y, x1 - x0, a->h);
		cairo_fill(cr);
		ink(cr);
		draw_text(cr, c->shades[i].label, FS, (x0 + x1) / 2, a->y + 4, 0.5, 0, 0);
	}
	for (s = 0; s < c->nseries; s++) {
		const struct pe_series *se = &c->series[s];
		const unsigned char *col = TAB10[s % 10];

		if (!se->lo || !se->hi)
			continue;
		cairo_set_source_rgba(cr, col[0] / 255.0, col[1] / 255.0, col[2] / 255.0, 0.25);
		band_path(cr, &m, se);
		cairo_fill(cr);
	}
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	for (s = 0; s < c->nseries; s++) {
		set_rgb(cr, TAB10[s % 10]);
		cairo_set_line_width(cr, 1.5 * PT);
		series_path(cr, &m, &c->series[s], c->series[s].y);
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	frame(cr, a);
	ink(cr);
	cairo_set_line_width(cr, LINE);
	for (i = 0; i < xa.n; i++) {
		v = a->x + (xa.v[i] - m.xr.lo) / (m.xr.hi - m.xr.lo) * a->w;
		tick_x(cr, v, a->y + a->h + LINE / 2);
		draw_text(cr, xa.lab[i], FS, v, a->y + a->h + TICK + TICKPAD, 0.5, 0, 0);
	}
	for (i = 0; i < ya.n; i++) {
		v = a->y + a->h - (ya.v[i] - m.yr.lo) / (m.yr.hi - m.yr.lo) * a->h;
		tick_y(cr, a->x - LINE / 2, v);
		draw_text(cr, ya.lab[i], FS, a->x - TICK - TICKPAD, v, 1, 0.5, 0);
	}
	cairo_stroke(cr);
	draw_legend(cr, c, a);
}

static int draw(cairo_t *cr, const struct pe_fig *f, const struct pe_fig_layout *L,
		struct pe_error *err)
{
	const struct pe_fig_panel *p;
	const struct pe_fig_rect *a;
	double gx0 = 1e300, gx1 = -1e300, gy0 = 1e300, gy1 = -1e300;
	size_t k;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	for (k = 0; k < f->n; k++) {
		p = &f->panels[k];
		a = &L->area[k];
		gx0 = a->x < gx0 ? a->x : gx0;
		gy0 = a->y < gy0 ? a->y : gy0;
		gx1 = a->x + a->w > gx1 ? a->x + a->w : gx1;
		gy1 = a->y + a->h > gy1 ? a->y + a->h : gy1;
		if (p->chart) {
			draw_chart(cr, p->chart, a);
		} else {
			if (draw_cells(cr, p, a, err) != 0)
				return -1;
			if (f->no_axes)
				continue;
			frame(cr, a);
			draw_hm_axes(cr, p, a);
		}
		if (p->title && !f->no_axes) {
			ink(cr);
			draw_text(cr, p->title, TFS, a->x + a->w / 2, a->y - (p->hm && !p->hm->vector ? text_h(FS) / 2 : 0) - LABELPAD, 0.5, 1, 0);
		}
		if (L->cbar[k].w > 0 && draw_cbar(cr, p->cs, &L->cbar[k], err) != 0)
			return -1;
	}
	if (f->no_axes)
		return 0;
	if (L->shared.w > 0 && draw_cbar(cr, f->colorbar, &L->shared, err) != 0)
		return -1;
	ink(cr);
	if (f->title) {
		double tw = pe_fig_text_width(f->title, TFS), x = (gx0 + gx1) / 2 - tw / 2;

		if (x + tw > L->w - PAD)
			x = L->w - PAD - tw;
		if (x < PAD)
			x = PAD;
		draw_text(cr, f->title, TFS, x, L->title_y, 0, 0, 0);
	}
	if (f->xlabel)
		draw_text(cr, f->xlabel, FS, (gx0 + gx1) / 2, L->xlabel_y, 0.5, 0, 0);
	if (f->ylabel)
		draw_text(cr, f->ylabel, FS, L->ylabel_x, (gy0 + gy1) / 2, 0.5, 0, 1);
	return 0;
}

/* ---- backends ---- */

/* s with & < > " escaped for XML text; malloc'd, or NULL. */
static char *xml_escape(const char *s)
{
	size_t n = 1;
	const char *p;
	char *out, *o;

	for (p = s; *p; p++)
		n += *p == '&' ? 5 : *p == '<' || *p == '>' ? 4 : *p == '"' ? 6 : 1;
	out = malloc(n);
	if (!out)
		return NULL;
	for (o = out, p = s; *p; p++) {
		const char *r = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
			      : *p == '"' ? "&quot;" : NULL;

		if (r) {
			memcpy(o, r, strlen(r));
			o += strlen(r);
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	return out;
}

/* Where cairo's stream writers put their bytes. */
struct stream {
	FILE *fp;
	struct pe_error werr;
	/* SVG: kept, then patched and written at the end */
	char *buf;
	size_t len, cap;
	int keep;
};

static cairo_status_t on_write(void *closure, const unsigned char *data, unsigned int n)
{
	struct stream *st = closure;

	if (st->keep) {
		if (st->len + n > st->cap) {
			size_t cap = st->cap ? 2 * st->cap : 1 << 16;
			char *b;

			while (cap < st->len + n)
				cap *= 2;
			b = realloc(st->buf, cap);
			if (!b) {
				pe_fail(&st->werr, PE_ERR_NOMEM, "out of memory");
				return CAIRO_STATUS_NO_MEMORY;
			}
			st->buf = b;
			st->cap = cap;
		}
		memcpy(st->buf + st->len, data, n);
		st->len += n;
		return CAIRO_STATUS_SUCCESS;
	}
	if (st->werr.code == PE_OK && pe_write(st->fp, data, n, &st->werr) != 0)
		return CAIRO_STATUS_WRITE_ERROR;
	return st->werr.code == PE_OK ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* The SVG as cairo wrote it, each <image> marked image-rendering:pixelated
 * (cairo 1.16 writes no such attribute, and browsers smooth an image
 * scaled without it), and a <title> and <desc> after the <svg> tag. */
static int write_svg(struct stream *st, const struct pe_fig_doc *doc, struct pe_error *err)
{
	static const char mark[] = "<image ";
	static const char style[] = "<image style=\"image-rendering:pixelated\" ";
	const char *p = st->buf, *end = st->buf + st->len, *q, *tag;
	char *t = NULL, *d = NULL;
	int rc = -1;

	tag = st->len ? memchr(p, '>', st->len) : NULL;
	/* the second '>' ends <svg ...> (the first ends <?xml ...?>) */
	if (tag)
		tag = memchr(tag + 1, '>', (size_t)(end - tag - 1));
	if (!tag)
		return pe_fail(err, PE_ERR_DATA, "svg: cairo wrote no document");
	tag++;
	if (pe_write(st->fp, p, (size_t)(tag - p), err) != 0)
		return -1;
	p = tag;
	if (doc && doc->title) {
		t = xml_escape(doc->title);
		if (!t || pe_write_str(st->fp, "\n<title>", err) != 0 ||
		    pe_write_str(st->fp, t, err) != 0 || pe_write_str(st->fp, "</title>", err) != 0)
			goto out;
	}
	if (doc && doc->meta) {
		d = xml_escape(doc->meta);
		if (!d || pe_write_str(st->fp, "\n<desc>", err) != 0 ||
		    pe_write_str(st->fp, d, err) != 0 || pe_write_str(st->fp, "</desc>", err) != 0)
			goto out;
	}
	while (p < end) {
		q = p;
		while (q < end && !((size_t)(end - q) >= sizeof mark - 1 &&
				     memcmp(q, mark, sizeof mark - 1) == 0))
			q++;
		if (pe_write(st->fp, p, (size_t)(q - p), err) != 0)
			goto out;
		if (q == end)
			break;
		if (pe_write_str(st->fp, style, err) != 0)
			goto out;
		p = q + sizeof mark - 1;
	}
	rc = 0;
out:
	if (rc != 0 && err->code == PE_OK)
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
	free(t);
	free(d);
	return rc;
}

/* An xRGB image's row as RGB bytes, for libpng. */
struct png_rows {
	const unsigned char *data;
	int stride, w;
	unsigned char *rgb;
};

static const unsigned char *png_row(void *ctx, int y)
{
	struct png_rows *r = ctx;
	const unsigned char *s = r->data + (size_t)r->stride * (size_t)y;
	uint32_t v;
	int x;

	for (x = 0; x < r->w; x++) {
		memcpy(&v, s + 4 * (size_t)x, 4);
		r->rgb[3 * x] = (unsigned char)(v >> 16);
		r->rgb[3 * x + 1] = (unsigned char)(v >> 8);
		r->rgb[3 * x + 2] = (unsigned char)v;
	}
	return r->rgb;
}

static size_t png_texts(const struct pe_fig_doc *doc, struct pe_png_text *t)
{
	size_t n = 0;

	t[n++] = (struct pe_png_text){ "Software", "posenc " POSENC_VERSION, 0 };
	if (doc && doc->meta)
		t[n++] = (struct pe_png_text){ "posenc:meta", doc->meta, 1 };
	if (doc && doc->geometry)
		t[n++] = (struct pe_png_text){ "posenc:heatmap", doc->geometry, 1 };
	if (doc && doc->title)
		t[n++] = (struct pe_png_text){ "Title", doc->title, 1 };
	return n;
}

static int cairo_failed(cairo_status_t s, const struct stream *st, struct pe_error *err)
{
	if (st->werr.code != PE_OK) {
		*err = st->werr;
		return -1;
	}
	if (s == CAIRO_STATUS_NO_MEMORY)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return pe_fail(err, PE_ERR_DATA, "cairo: %s", cairo_status_to_string(s));
}

int pe_fig_write(const struct pe_fig *f, const struct pe_fig_layout *L,
		 enum pe_fig_backend backend, FILE *fp, const struct pe_fig_doc *doc,
		 struct pe_error *err)
{
	struct stream st;
	cairo_surface_t *s;
	cairo_t *cr;
	cairo_status_t cs;
	struct pe_png_text text[4];
	struct png_rows pr;
	int rc = -1;

	memset(&st, 0, sizeof st);
	st.fp = fp;
	if (backend == PE_FIG_PNG) {
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, L->w, L->h);
	} else if (backend == PE_FIG_SVG) {
		st.keep = 1;
		s = cairo_svg_surface_create_for_stream(on_write, &st, L->w, L->h);
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	} else {
		s = cairo_pdf_surface_create_for_stream(on_write, &st, L->w * 0.72, L->h * 0.72);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
					       "posenc " POSENC_VERSION);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, "");
		if (doc && doc->title)
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, doc->title);
		if (doc && doc->meta)
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_KEYWORDS, doc->meta);
		if (doc && doc->geometry)
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_SUBJECT, doc->geometry);
	}
	if ((cs = cairo_surface_status(s)) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return cairo_failed(cs, &st, err);
	}
	cr = cairo_create(s);
	if (backend == PE_FIG_PDF)
		cairo_scale(cr, 0.72, 0.72);
	if (draw(cr, f, L, err) != 0)
		goto out;
	if ((cs = cairo_status(cr)) != CAIRO_STATUS_SUCCESS) {
		cairo_failed(cs, &st, err);
		goto out;
	}
	if (backend == PE_FIG_PNG) {
		cairo_surface_flush(s);
		pr.data = cairo_image_surface_get_data(s);
		pr.stride = cairo_image_surface_get_stride(s);
		pr.w = L->w;
		pr.rgb = malloc((size_t)L->w * 3);
		if (!pr.rgb) {
			pe_fail(err, PE_ERR_NOMEM, "out of memory");
			goto out;
		}
		rc = pe_png_write(fp, L->w, L->h, png_row, &pr, text, png_texts(doc, text), err);
		free(pr.rgb);
		goto out;
	}
	cairo_surface_finish(s);
	if ((cs = cairo_surface_status(s)) != CAIRO_STATUS_SUCCESS) {
		cairo_failed(cs, &st, err);
		goto out;
	}
	rc = backend == PE_FIG_SVG ? write_svg(&st, doc, err) : 0;
out:
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	free(st.buf);
	return rc;
}

char *pe_fig_geometry(const struct pe_fig *f, const struct pe_fig_layout *L)
{
	const struct pe_fig_panel *p0 = f->n ? &f->panels[0] : NULL;
	const struct pe_colorscale *cs = p0 && p0->cs ? p0->cs : NULL;
	char a[PE_FMT_BUF], b[PE_FMT_BUF], *s;
	size_t n = 512 + f->n * 160, k = 0, i;

	if (!p0 || !p0->hm || !cs)
		return NULL;
	s = malloc(n);
	if (!s)
		return NULL;
	pe_fmt_f64(cs->vmin, a);
	pe_fmt_f64(cs->vmax, b);
	k += (size_t)snprintf(s + k, n - k, "{\"cmap\":\"%s\",\"vmin\":%s,\"vmax\":%s,\"nan\":\"#ff00ff\",",
			      pe_colormap_name(cs->cmap), a, b);
	if (cs->inf_colours)
		k += (size_t)snprintf(s + k, n - k, "\"neginf\":\"#d9d9d9\",\"posinf\":\"#000000\",");
	k += (size_t)snprintf(s + k, n - k, "\"shape\":[%llu,%llu],\"heatmap\":[%d,%d,%d,%d]",
			      (unsigned long long)p0->hm->rows, (unsigned long long)p0->hm->cols,
			      (int)L->area[0].x, (int)L->area[0].y, (int)L->area[0].w,
			      (int)L->area[0].h);
	if (f->n > 1) {
		k += (size_t)snprintf(s + k, n - k, ",\"panels\":[");
		for (i = 0; i < f->n; i++)
			k += (size_t)snprintf(s + k, n - k, "%s[%d,%d,%d,%d]", i ? "," : "",
					      (int)L->area[i].x, (int)L->area[i].y,
					      (int)L->area[i].w, (int)L->area[i].h);
		k += (size_t)snprintf(s + k, n - k, "],\"scales\":[");
		for (i = 0; i < f->n; i++) {
			const struct pe_colorscale *c = f->panels[i].cs ? f->panels[i].cs : cs;

			pe_fmt_f64(c->vmin, a);
			pe_fmt_f64(c->vmax, b);
			k += (size_t)snprintf(s + k, n - k, "%s[%s,%s]", i ? "," : "", a, b);
		}
		k += (size_t)snprintf(s + k, n - k, "]");
	}
	snprintf(s + k, n - k, "}");
	return s;
}
