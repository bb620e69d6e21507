/*
 * The figure's layout and ticks (io/figure.h) without drawing or decoding
 * an image: round ticks against hand-worked tables, and layouts of
 * heatmaps, panels and charts checked for what a reader needs -- every
 * heatmap on whole pixels and inside the image, nothing overlapping, room
 * for the widest label (measured with the real font) left of each area,
 * the colour bar right of every panel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "io/colormap.h"
#include "io/figure.h"
#include "io/heatmap.h"
#include "testutil.h"

static int no_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	(void)ctx;
	(void)r0;
	(void)nrows;
	(void)out;
	(void)err;
	return -1;
}

static void begin(struct pe_heatmap *h, int ndim, uint64_t a, uint64_t b, uint64_t c)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_tensor t;
	uint64_t shape[3] = { a, b, c };
	struct pe_heatmap_geom g = { 0 };

	memset(h, 0, sizeof *h);
	assert_int_equal(pe_tensor_init(&t, "t", PE_F32, no_fill, NULL, 0, ndim, shape, &err), 0);
	assert_int_equal(pe_heatmap_shape(h, &t, &err), 0);
	assert_int_equal(pe_heatmap_begin(h, &g, &err), 0);
}

struct tick_case {
	double lo, hi, len, minpx;
	size_t n;
	double first, last;
	int decimals;
};

/* Round steps of 1, 2, 2.5, 5 x 10^k, the first tick the first multiple
 * of the step at or above lo. */
static void test_nice_ticks(void **state)
{
	static const struct tick_case cases[] = {
		/* [-1, 1] on 500 px, >= 50 apart: at most 10 ticks -> step 0.2 */
		{ -1, 1, 500, 50, 11, -1, 1, 1 },
		/* [0.27, 1] on 384 px, 40 apart: 9 wanted, raw 0.081 -> 0.1: 0.3 .. 1 */
		{ 0.27, 1, 384, 40, 8, 0.3, 1, 1 },
		/* [0, 31]: raw 31 / 10 = 3.1 -> 5 */
		{ 0, 31, 500, 50, 7, 0, 30, 0 },
		/* [-45.25, 0] on 500: raw 4.525 -> 5 */
		{ -45.25, 0, 500, 50, 10, -45, 0, 0 },
		/* a step of 2.5 needs one more decimal: [0, 10] wanting 4 */
		{ 0, 10, 200, 50, 5, 0, 10, 1 },
		/* tiny spans */
		{ 0.99999, 0.999995, 300, 50, 6, 0.99999, 0.999995, 6 },
	};
	double v[64];
	size_t i, n;
	int d;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = pe_nice_ticks(cases[i].lo, cases[i].hi, cases[i].len, cases[i].minpx, v, 64, &d);
		if (n != cases[i].n)
			fail_msg("case %zu: %zu ticks, expected %zu", i, n, cases[i].n);
		assert_close(v[0], cases[i].first, 1e-12, 1e-12);
		assert_close(v[n - 1], cases[i].last, 1e-12, 1e-12);
		assert_int_equal(d, cases[i].decimals);
	}
	/* nothing for an empty or non-finite range */
	assert_int_equal(pe_nice_ticks(1, 1, 100, 10, v, 64, &d), 0);
	assert_int_equal(pe_nice_ticks(0, INFINITY, 100, 10, v, 64, &d), 0);
}

static int inside(const struct pe_fig_rect *r, int w, int h)
{
	return r->x >= 0 && r->y >= 0 && r->x + r->w <= w && r->y + r->h <= h;
}

static int overlap(const struct pe_fig_rect *a, const struct pe_fig_rect *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h &&
	       b->y < a->y + a->h;
}

/* One heatmap: whole pixels, room left for the widest row label and the
 * y-axis title, the colour bar to the right, the title on top. */
static void test_one_heatmap(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_heatmap h;
	struct pe_colorscale cs;
	struct pe_fig_panel p;
	struct pe_fig f;
	struct pe_fig_layout L;
	const struct pe_fig_rect *a;

	(void)state;
	begin(&h, 2, 256, 128, 0);
	memset(&cs, 0, sizeof cs);
	pe_colorscale_range(&cs, 0, -1, 1);
	memset(&p, 0, sizeof p);
	p.hm = &h;
	p.cs = &cs;
	p.row_origin = 1000;	/* labels 1000..1255: wider than 0..255 */
	p.row_step = p.col_step = 1;
	memset(&f, 0, sizeof f);
	f.panels = &p;
	f.n = f.nc = f.nr = 1;
	f.title = "a title";
	f.xlabel = "dimension";
	f.ylabel = "position";
	f.colorbar = &cs;
	assert_int_equal(pe_fig_plan(&f, &L, &err), 0);
	a = &L.area[0];
	assert_true(a->x == floor(a->x) && a->y == floor(a->y));
	assert_close(a->w, h.kw * h.gw, 0, 0);
	assert_close(a->h, h.ph, 0, 0);
	assert_true(inside(a, L.w, L.h));
	/* the row labels ("1250" the widest) and the rotated y title fit left */
	assert_true(a->x >= pe_fig_text_width("1250", L.fs) + L.fs * 1.17 + 10);
	/* the title and half a row label fit above */
	assert_true(a->y >= L.tfs);
	assert_true(L.shared.w > 0 && L.shared.x > a->x + a->w);
	assert_true(inside(&L.shared, L.w, L.h));
	assert_close(L.shared.h, a->h, 0, 0);
	assert_true(L.xlabel_y > a->y + a->h + L.fs);
	pe_fig_layout_free(&L);
	pe_heatmap_free(&h);
	pe_colorscale_free(&cs);
}

/* 12 heads: a 4 x 3 grid of equal boxes, none overlapping another or the
 * colour bar, titles above each. */
static void test_panels(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_heatmap h;
	struct pe_colorscale cs;
	struct pe_fig_panel p[12];
	struct pe_fig f;
	struct pe_fig_layout L;
	size_t i, j;

	(void)state;
	begin(&h, 3, 12, 64, 64);
	memset(&cs, 0, sizeof cs);
	pe_colorscale_range(&cs, 0, -40, 0);
	memset(p, 0, sizeof p);
	for (i = 0; i < 12; i++) {
		p[i].hm = &h;
		p[i].k = i;
		p[i].cs = &cs;
		p[i].row_step = p[i].col_step = 1;
		p[i].title = "head 10";
	}
	memset(&f, 0, sizeof f);
	f.panels = p;
	f.n = 12;
	f.nc = h.nc;
	f.nr = h.nr;
	f.colorbar = &cs;
	assert_int_equal(pe_fig_plan(&f, &L, &err), 0);
	for (i = 0; i < 12; i++) {
		assert_true(inside(&L.area[i], L.w, L.h));
		assert_false(overlap(&L.area[i], &L.shared));
		/* a title's height between a panel and the one above */
		if (i >= 4)
			assert_true(L.area[i].y - (L.area[i - 4].y + L.area[i - 4].h) > L.tfs + L.fs);
		for (j = 0; j < i; j++)
			assert_false(overlap(&L.area[i], &L.area[j]));
	}
	assert_close(L.area[1].x - L.area[0].x, L.area[3].x - L.area[2].x, 0, 0);
	assert_close(L.area[4].x, L.area[0].x, 0, 0);
	pe_fig_layout_free(&L);
	pe_heatmap_free(&h);
}

/* no_axes: the areas alone, PE_HEATMAP_BARE_GAP apart, the image their
 * bounding box. */
static void test_bare(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_heatmap h;
	struct pe_fig_panel p[2];
	struct pe_fig f;
	struct pe_fig_layout L;

	(void)state;
	begin(&h, 3, 2, 10, 20);
	memset(p, 0, sizeof p);
	p[0].hm = p[1].hm = &h;
	p[1].k = 1;
	memset(&f, 0, sizeof f);
	f.panels = p;
	f.n = 2;
	f.nc = h.nc;
	f.nr = h.nr;
	f.no_axes = 1;
	assert_int_equal(pe_fig_plan(&f, &L, &err), 0);
	assert_close(L.area[0].x, 0, 0, 0);
	assert_close(L.area[0].y, 0, 0, 0);
	if (f.nc == 2)
		assert_close(L.area[1].x, L.area[0].w + PE_HEATMAP_BARE_GAP, 0, 0);
	else
		assert_close(L.area[1].y, L.area[0].h + PE_HEATMAP_BARE_GAP, 0, 0);
	assert_int_equal(L.w, (int)(L.area[1].x + L.area[1].w));
	assert_int_equal(L.h, (int)(L.area[1].y + L.area[1].h));
	pe_fig_layout_free(&L);
	pe_heatmap_free(&h);
}

/* A chart: its plot area at the asked size, room for the y tick labels of
 * a log axis (1e-05 the widest) on the left. */
static void test_chart(void **state)
{
	static const double x[4] = { 0, 1, 2, 3 }, y[4] = { 1e-5, 1e-3, 1e-1, 10 };
	struct pe_error err = { PE_OK, "" };
	struct pe_series s = { "error", x, y, 4, NULL, NULL, NULL, 0 };
	struct pe_chart c;
	struct pe_fig_panel p;
	struct pe_fig f;
	struct pe_fig_layout L;

	(void)state;
	memset(&c, 0, sizeof c);
	c.series = &s;
	c.nseries = 1;
	c.logy = 1;
	memset(&p, 0, sizeof p);
	p.chart = &c;
	memset(&f, 0, sizeof f);
	f.panels = &p;
	f.n = f.nc = f.nr = 1;
	f.chart_w = 400;
	f.chart_h = 250;
	f.xlabel = "position";
	assert_int_equal(pe_fig_plan(&f, &L, &err), 0);
	assert_close(L.area[0].w, 400, 0, 0);
	assert_close(L.area[0].h, 250, 0, 0);
	assert_true(L.area[0].x >= pe_fig_text_width("1e-05", L.fs));
	assert_true(inside(&L.area[0], L.w, L.h));
	assert_true(L.xlabel_y > L.area[0].y + L.area[0].h);
	pe_fig_layout_free(&L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks),
		cmocka_unit_test(test_one_heatmap),
		cmocka_unit_test(test_panels),
		cmocka_unit_test(test_bare),
		cmocka_unit_test(test_chart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
