/*
 * The png writer, checked by decoding what it wrote with libpng: image and
 * heatmap sizes, the colours of the minimum, maximum and NaN cells against
 * the published colour-map values, block averaging, the text chunks (JSON
 * parsed with cJSON), 1-D and integer results, and the refusals.  Pixels,
 * never file bytes: zlib builds compress differently.
 *
 * Axes: the tick rule (pe_ticks(), io/ticks.h) by table and by its
 * invariants; in decoded images, tick marks found by scanning for ink and
 * tick labels and axis titles found by matching the text as io/font.h
 * draws it, with a blank margin around it (so nothing else is drawn
 * there); the vertical text's orientation against hand-worked pixels.
 */
#include <cJSON.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "core/pipeline.h"
#include "io/colormap.h"
#include "io/sink.h"
#include "io/ticks.h"
#include "testutil.h"

struct image {
	int w, h;
	unsigned char *rgb;	/* w * h * 3 */
	char software[64];
	char *meta;		/* posenc:meta */
	char *hm_text;		/* posenc:heatmap as written */
	cJSON *heatmap;		/* posenc:heatmap, parsed */
	int x, y, hw, hh;	/* heatmap rectangle from posenc:heatmap */
	int ntext;
	int has_time;
};

static void image_free(struct image *im)
{
	free(im->rgb);
	free(im->meta);
	free(im->hm_text);
	cJSON_Delete(im->heatmap);
}

static char *dup_text(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	assert_non_null(d);
	memcpy(d, s, n);
	return d;
}

/* Decode path: 8-bit RGB, no interlace, the text chunks. */
static void decode(const char *path, struct image *im)
{
	FILE *fp = fopen(path, "rb");
	png_structp png;
	png_infop info;
	png_bytepp rows;
	png_textp text;
	png_timep tm;
	cJSON *a;
	int i, n;

	memset(im, 0, sizeof *im);
	assert_non_null(fp);
	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	assert_non_null(png);
	info = png_create_info_struct(png);
	assert_non_null(info);
	if (setjmp(png_jmpbuf(png)))
		fail_msg("libpng could not read %s", path);
	png_init_io(png, fp);
	png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	assert_int_equal(png_get_bit_depth(png, info), 8);
	assert_int_equal(png_get_color_type(png, info), PNG_COLOR_TYPE_RGB);
	im->w = (int)png_get_image_width(png, info);
	im->h = (int)png_get_image_height(png, info);
	im->rgb = malloc((size_t)im->w * (size_t)im->h * 3);
	assert_non_null(im->rgb);
	rows = png_get_rows(png, info);
	for (i = 0; i < im->h; i++)
		memcpy(im->rgb + (size_t)i * (size_t)im->w * 3, rows[i], (size_t)im->w * 3);
	im->has_time = png_get_tIME(png, info, &tm) != 0;
	n = 0;
	png_get_text(png, info, &text, &n);
	im->ntext = n;
	for (i = 0; i < n; i++) {
		if (strcmp(text[i].key, "Software") == 0)
			snprintf(im->software, sizeof im->software, "%s", text[i].text);
		else if (strcmp(text[i].key, "posenc:meta") == 0)
			im->meta = dup_text(text[i].text);
		else if (strcmp(text[i].key, "posenc:heatmap") == 0) {
			im->hm_text = dup_text(text[i].text);
			im->heatmap = cJSON_Parse(text[i].text);
		}
	}
	png_destroy_read_struct(&png, &info, NULL);
	fclose(fp);
	assert_non_null(im->heatmap);
	a = cJSON_GetObjectItem(im->heatmap, "heatmap");
	assert_true(cJSON_IsArray(a) && cJSON_GetArraySize(a) == 4);
	im->x = cJSON_GetArrayItem(a, 0)->valueint;
	im->y = cJSON_GetArrayItem(a, 1)->valueint;
	im->hw = cJSON_GetArrayItem(a, 2)->valueint;
	im->hh = cJSON_GetArrayItem(a, 3)->valueint;
	assert_true(im->x >= 0 && im->y >= 0 && im->x + im->hw <= im->w && im->y + im->hh <= im->h);
}

static const unsigned char *pixel(const struct image *im, int x, int y)
{
	assert_true(x >= 0 && x < im->w && y >= 0 && y < im->h);
	return im->rgb + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
}

/* The pixel at the centre of cell (r, c) of an R x C heatmap. */
static const unsigned char *cell(const struct image *im, int r, int c, int R, int C)
{
	return pixel(im, im->x + (2 * c + 1) * im->hw / (2 * C), im->y + (2 * r + 1) * im->hh / (2 * R));
}

static void assert_rgb(const unsigned char *p, unsigned r, unsigned g, unsigned b)
{
	if (p[0] != r || p[1] != g || p[2] != b)
		fail_msg("pixel (%u, %u, %u), expected (%u, %u, %u)", p[0], p[1], p[2], r, g, b);
}

/* Render data (ndim, shape) with opts to a fresh file; returns its path
 * (caller frees), or NULL with *err filled when the writer refused. */
/* rows per block the renders below pump (0: the pipeline's default) */
static size_t render_block_rows;

static char *render_shape(const void *data, enum pe_dtype dt, int ndim, const uint64_t *shape,
			  const struct pe_sink_opts *o, const struct pe_meta *meta,
			  struct pe_error *err)
{
	char *path = pe_temp_path(".png");
	FILE *fp;
	struct pe_tensor t;
	struct pe_test_src s;
	struct pe_sink *sink;
	int rc;

	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "test");
	t.dtype = dt;
	t.fill = pe_test_fill_from;
	t.ctx = &s;
	assert_int_equal(pe_tensor_shape(&t, ndim, shape, NULL), 0);
	t.block_rows = render_block_rows;
	s.data = data;
	s.cols = (size_t)t.cols;
	fp = fopen(path, "wb");
	assert_non_null(fp);
	sink = pe_sink_new(PE_FMT_PNG, fp, o, err);
	assert_non_null(sink);
	rc = pe_pump(&t, 1, NULL, meta, sink, NULL, err);
	pe_sink_destroy(sink);
	assert_int_equal(fclose(fp), 0);
	if (rc != 0) {
		remove(path);
		free(path);
		return NULL;
	}
	return path;
}

static char *render(const void *data, enum pe_dtype dt, int ndim, uint64_t a, uint64_t b,
		    const struct pe_sink_opts *o, const struct pe_meta *meta, struct pe_error *err)
{
	uint64_t shape[2] = { a, b };

	return render_shape(data, dt, ndim, shape, o, meta, err);
}

static void render_decode(const void *data, enum pe_dtype dt, int ndim, uint64_t a, uint64_t b,
			  const struct pe_sink_opts *o, const struct pe_meta *meta,
			  struct image *im)
{
	struct pe_error err = { PE_OK, "" };
	char *path = render(data, dt, ndim, a, b, o, meta, &err);

	if (!path)
		fail_msg("png writer failed: %s", err.msg);
	decode(path, im);
	remove(path);
	free(path);
}

static float ramp16[16];

static int setup(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		ramp16[i] = (float)i;
	return 0;
}

/* 4 x 4 at the default size: each cell a 128-pixel square (512 / 4); the
 * colour bar only widens the image. */
static void test_sizes(void **state)
{
	struct pe_sink_opts o;
	struct image with, without, small;

	(void)state;
	memset(&o, 0, sizeof o);
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &with);
	o.no_colorbar = 1;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &without);
	assert_int_equal(with.hw, 512);
	assert_int_equal(with.hh, 512);
	assert_int_equal(without.hw, 512);
	assert_int_equal(without.hh, 512);
	assert_true(with.w > without.w + 8);
	assert_int_equal(with.h, without.h);
	assert_true(without.w > 512 && without.h > 512);
	/* --size 30: the largest whole factor is 7, so 28 x 28 */
	o.size = 30;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &small);
	assert_int_equal(small.hw, 28);
	assert_int_equal(small.hh, 28);
	image_free(&with);
	image_free(&without);
	image_free(&small);
}

/* Every pixel of a cell has the cell's colour (square, sharp cells). */
static void test_cells_sharp(void **state)
{
	struct pe_sink_opts o;
	struct image im;
	int x, y;
	const unsigned char *p, *q;

	(void)state;
	memset(&o, 0, sizeof o);
	o.size = 40;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	assert_int_equal(im.hw, 40);
	for (y = 0; y < 40; y++) {
		for (x = 0; x < 40; x++) {
			p = pixel(&im, im.x + x, im.y + y);
			q = pixel(&im, im.x + x / 10 * 10, im.y + y / 10 * 10);
			assert_memory_equal(p, q, 3);
		}
	}
	image_free(&im);
}

/* The minimum is the map's first colour, the maximum its last (published
 * values, bytes by truncation as matplotlib's bytes=True: viridis[255] =
 * (0.993248, 0.906157, 0.143936) is #FDE725 rounded but (253, 231, 36),
 * #FDE724, truncated). */
static void test_end_colours(void **state)
{
	struct pe_sink_opts o;
	struct image im;

	(void)state;
	memset(&o, 0, sizeof o);
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	assert_rgb(cell(&im, 0, 0, 4, 4), 0x44, 0x01, 0x54);	/* viridis #440154 */
	assert_rgb(cell(&im, 3, 3, 4, 4), 0xFD, 0xE7, 0x24);	/* viridis #FDE724 */
	image_free(&im);

	o.cmap = pe_colormap_by_name("magma");
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	/* (0.001462, 0.000466, 0.013866) and (0.987053, 0.991438, 0.749504) x 255 */
	assert_rgb(cell(&im, 0, 0, 4, 4), 0, 0, 3);
	assert_rgb(cell(&im, 3, 3, 4, 4), 251, 252, 191);
	image_free(&im);

	/* outside an explicit range: the end colours */
	o.cmap = pe_colormap_by_name("viridis");
	o.has_vmin = o.has_vmax = 1;
	o.vmin = 3;
	o.vmax = 12;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	assert_rgb(cell(&im, 0, 1, 4, 4), 0x44, 0x01, 0x54);
	assert_rgb(cell(&im, 3, 2, 4, 4), 0xFD, 0xE7, 0x24);
	image_free(&im);
}

/* NaN cells are magenta and do not count towards the range. */
static void test_nan(void **state)
{
	float v[4] = { NAN, -2.0f, 5.0f, 1.0f };
	struct pe_sink_opts o;
	struct image im;
	cJSON *x;

	(void)state;
	memset(&o, 0, sizeof o);
	render_decode(v, PE_F32, 2, 2, 2, &o, NULL, &im);
	assert_rgb(cell(&im, 0, 0, 2, 2), 0xFF, 0x00, 0xFF);
	assert_rgb(cell(&im, 0, 1, 2, 2), 0x44, 0x01, 0x54);
	assert_rgb(cell(&im, 1, 0, 2, 2), 0xFD, 0xE7, 0x24);
	x = cJSON_GetObjectItem(im.heatmap, "vmin");
	assert_close(x->valuedouble, -2, 0, 0);
	x = cJSON_GetObjectItem(im.heatmap, "vmax");
	assert_close(x->valuedouble, 5, 0, 0);
	image_free(&im);
}

/* Software, posenc:meta (valid JSON with the parameters), no time stamp. */
static void test_text_chunks(void **state)
{
	struct pe_sink_opts o;
	struct pe_meta meta;
	struct image im;
	cJSON *j, *x;

	(void)state;
	memset(&o, 0, sizeof o);
	pe_meta_init(&meta);
	pe_meta_str(&meta, "kind", "sinusoidal");
	pe_meta_int(&meta, "dim", 4);
	pe_meta_num(&meta, "base", 10000);
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, &meta, &im);
	pe_meta_free(&meta);
	assert_string_equal(im.software, "posenc 0.1.0");
	assert_false(im.has_time);
	assert_non_null(im.meta);
	j = cJSON_Parse(im.meta);
	assert_non_null(j);
	x = cJSON_GetObjectItem(j, "kind");
	assert_true(cJSON_IsString(x));
	assert_string_equal(x->valuestring, "sinusoidal");
	x = cJSON_GetObjectItem(j, "dim");
	assert_true(cJSON_IsNumber(x) && x->valuedouble == 4);
	x = cJSON_GetObjectItem(j, "base");
	assert_true(cJSON_IsNumber(x) && x->valuedouble == 10000);
	cJSON_Delete(j);
	x = cJSON_GetObjectItem(im.heatmap, "cmap");
	assert_string_equal(x->valuestring, "viridis");
	image_free(&im);
}

/* 4 x 4 to 2 x 2: each pixel the mean of a 2 x 2 block.  Values 0..15
 * row-major, range [0, 15]: means 2.5, 4.5, 10.5, 12.5, colour indices
 * floor(256 * mean / 15) = 42, 76, 179, 213. */
static void test_downsample_averages(void **state)
{
	static const int want[4] = { 42, 76, 179, 213 };
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int k;

	(void)state;
	memset(&o, 0, sizeof o);
	o.size = 2;
	o.no_colorbar = 1;
	o.has_vmin = o.has_vmax = 1;
	o.vmin = 0;
	o.vmax = 15;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	assert_int_equal(im.hw, 2);
	assert_int_equal(im.hh, 2);
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	for (k = 0; k < 4; k++)
		assert_memory_equal(pixel(&im, im.x + k % 2, im.y + k / 2), lut + 3 * want[k], 3);
	image_free(&im);
}

/* A long matrix is averaged down to exactly --size on its longer side:
 * with its true shape under aspect_equal, at 1:4 or a little squarer
 * otherwise (30 x 100: the 10 columns 3 pixels each). */
static void test_downsample_shape(void **state)
{
	float *v = calloc(1000 * 10, sizeof *v);
	struct pe_sink_opts o;
	struct image im;

	(void)state;
	assert_non_null(v);
	v[0] = 1;
	memset(&o, 0, sizeof o);
	o.size = 100;
	o.aspect_equal = 1;
	render_decode(v, PE_F32, 2, 1000, 10, &o, NULL, &im);
	assert_int_equal(im.hh, 100);
	assert_int_equal(im.hw, 1);
	image_free(&im);
	o.aspect_equal = 0;
	render_decode(v, PE_F32, 2, 1000, 10, &o, NULL, &im);
	assert_int_equal(im.hh, 100);
	assert_int_equal(im.hw, 30);
	image_free(&im);
	free(v);
}

/* A vector is one row of cells, a strip at least 32 pixels tall. */
static void test_vector(void **state)
{
	float v[5] = { 0, 1, 2, 3, 4 };
	struct pe_sink_opts o;
	struct image im;

	(void)state;
	memset(&o, 0, sizeof o);
	o.size = 50;
	render_decode(v, PE_F32, 1, 5, 0, &o, NULL, &im);
	assert_int_equal(im.hw, 50);
	assert_int_equal(im.hh, 32);
	assert_rgb(pixel(&im, im.x + 2, im.y + 30), 0x44, 0x01, 0x54);
	assert_rgb(pixel(&im, im.x + 45, im.y + 1), 0xFD, 0xE7, 0x24);
	image_free(&im);
}

/* Integer results (bucket ids) are drawn too. */
static void test_int32(void **state)
{
	int32_t v[6] = { 7, 8, 9, 10, 11, 31 };
	struct pe_sink_opts o;
	struct image im;

	(void)state;
	memset(&o, 0, sizeof o);
	render_decode(v, PE_I32, 2, 2, 3, &o, NULL, &im);
	assert_rgb(cell(&im, 0, 0, 2, 3), 0x44, 0x01, 0x54);
	assert_rgb(cell(&im, 1, 2, 2, 3), 0xFD, 0xE7, 0x24);
	image_free(&im);
}

/* A constant matrix: the first colour everywhere (matplotlib's rule). */
static void test_constant(void **state)
{
	float v[4] = { 3, 3, 3, 3 };
	struct pe_sink_opts o;
	struct image im;

	(void)state;
	memset(&o, 0, sizeof o);
	render_decode(v, PE_F32, 2, 2, 2, &o, NULL, &im);
	assert_rgb(cell(&im, 1, 1, 2, 2), 0x44, 0x01, 0x54);
	image_free(&im);
}

/* Rows arrive in blocks whose edges the sink does not choose: a 1500 x 1100
 * matrix (several rows and columns per pixel at the default size) gives
 * the same pixels and text whether it comes in one block, row by row or
 * in blocks of 7 that straddle the pixel rows. */
static void test_blocks_do_not_matter(void **state)
{
	static float m[1500 * 1100];
	static const size_t blocks[] = { 1, 7 };
	struct pe_sink_opts o;
	struct image a, b;
	size_t i;

	(void)state;
	for (i = 0; i < 1500 * 1100; i++)
		m[i] = (float)sin(0.001 * (double)(i * i % 7919)) + (float)(i / 1100) / 1500.0f;
	memset(&o, 0, sizeof o);
	o.title = "blocks";
	render_block_rows = 0;
	render_decode(m, PE_F32, 2, 1500, 1100, &o, NULL, &a);
	for (i = 0; i < sizeof blocks / sizeof *blocks; i++) {
		render_block_rows = blocks[i];
		render_decode(m, PE_F32, 2, 1500, 1100, &o, NULL, &b);
		assert_int_equal(a.w, b.w);
		assert_int_equal(a.h, b.h);
		assert_memory_equal(a.rgb, b.rgb, (size_t)a.w * (size_t)a.h * 3);
		assert_string_equal(a.hm_text, b.hm_text);
		image_free(&b);
	}
	render_block_rows = 0;
	image_free(&a);
}

/* ---- axes: ticks, labels and titles ---- */

/* The old rule, for origin 0 and step 1: the first of 1, 2, 5, 10, ...
 * at least minpx apart, or the first reaching n. */
static uint64_t old_every(uint64_t n, double len, double minpx)
{
	static const uint64_t mant[3] = { 1, 2, 5 };
	uint64_t decade = 1, q = 1;
	int m = 0;

	while ((double)q * len / (double)n < minpx && q < n) {
		if (++m == 3) {
			m = 0;
			decade *= 10;
		}
		q = decade * mant[m];
	}
	return q;
}

/* 1, 2 or 5 x 10^k */
static int is_round(uint64_t v)
{
	while (v >= 10 && v % 10 == 0)
		v /= 10;
	return v == 1 || v == 2 || v == 5;
}

static void test_ticks_table(void **state)
{
	static const struct {
		uint64_t n;
		int64_t origin;
		uint64_t step;
		double len, minpx;
		uint64_t first, every;
	} c[] = {
		/* 512 rows on 512 pixels, rows at least 4 lines (56 px) apart */
		{ 512, 0, 1, 512, 56, 0, 100 },
		{ 512, 2, 1, 512, 56, 98, 100 },	/* labels 100, 200, ... */
		{ 512, -5, 1, 512, 56, 5, 100 },	/* 0, 100, ... */
		{ 500, -1000, 1, 512, 56, 0, 100 },	/* -1000, -900, ... */
		{ 512, 1000000, 1, 512, 56, 0, 100 },
		/* step 4: 400 (4 x 100) beats the round 500; farther apart the
		 * round 500 (125 rows) beats 800 (4 x 200) */
		{ 512, 0, 4, 512, 56, 0, 100 },
		{ 512, 0, 4, 512, 102, 0, 125 },
		{ 512, 8, 4, 512, 102, 123, 125 },	/* 8 + 123 x 4 = 500 */
		{ 512, 2, 4, 512, 102, 0, 125 },	/* 2 + 4i is never a multiple of 500 */
		{ 100, 1, 2, 100, 10, 0, 10 },	/* odd labels, even period: from 0 */
		/* no round multiple of 3 or 7: step x round */
		{ 512, 0, 3, 512, 56, 0, 100 },
		{ 512, 21, 7, 512, 56, 97, 100 },	/* 21 + 97 x 7 = 700 */
		/* step 16 over 64 cells: 160 (no round multiple below 2000) */
		{ 64, 0, 16, 512, 56, 0, 10 },
		/* step 25: the round 50 and 100 */
		{ 1000, 0, 25, 1000, 2, 0, 2 },
		{ 1000, 0, 25, 1000, 3, 0, 4 },
		/* one tick: every reaches n; its label, else cell 0 */
		{ 12, 0, 1, 24, 28, 0, 20 },
		{ 12, 2, 1, 24, 28, 0, 20 },
		{ 12, 15, 1, 24, 28, 5, 20 },
		{ 1, 7, 1, 32, 28, 0, 1 },
		/* extremes of int64_t */
		{ 2, INT64_MIN, (uint64_t)1 << 63, 100, 10, 0, 1 },
		{ 2, INT64_MIN, (uint64_t)1 << 63, 100, 60, 0, 2 },
		{ 11, INT64_MAX - 10, 1, 100, 60, 3, 10 },	/* ...797: ...800 */
		{ 11, INT64_MIN, 1, 100, 60, 8, 10 },	/* ...808: ...800 */
	};
	struct pe_ticks t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		t = pe_ticks(c[i].n, c[i].origin, c[i].step, c[i].len, c[i].minpx);
		if (t.first != c[i].first || t.every != c[i].every)
			fail_msg("case %zu: first %llu every %llu, expected %llu %llu", i,
				 (unsigned long long)t.first, (unsigned long long)t.every,
				 (unsigned long long)c[i].first, (unsigned long long)c[i].every);
	}
}

/* The rule's promises for one axis: a period that is step x round or
 * round, ticks far enough apart (or a single one), and the first tick on
 * a label that is a multiple of the period whenever some cell has one. */
static void check_ticks(uint64_t n, int64_t origin, uint64_t step, double len, double minpx)
{
	struct pe_ticks t = pe_ticks(n, origin, step, len, minpx);
	uint64_t period = t.every * step, i;

	assert_true(t.every >= 1);
	assert_true(is_round(t.every) || is_round(period));
	assert_true((double)t.every * len / (double)n >= minpx || t.every >= n);
	assert_true(t.first < n && t.first < t.every);
	if ((origin + (int64_t)(t.first * step)) % (int64_t)period == 0)
		return;
	assert_int_equal(t.first, 0);
	for (i = 0; i < n; i++)
		assert_true((origin + (int64_t)(i * step)) % (int64_t)period != 0);
}

/* Over a grid of axes: origin 0 and step 1 give the old ticks exactly,
 * and any origin and step keep the rule's promises. */
static void test_ticks_rule(void **state)
{
	static const uint64_t ns[] = { 1, 2, 3, 7, 12, 64, 100, 511, 512, 1000, 3000, 100000 };
	static const double lens[] = { 24, 100, 512, 2048 };
	static const double minpxs[] = { 2, 28, 56, 102 };
	static const int64_t origins[] = { 0, 1, 2, -5, -1000, 999, 1000000, -7 };
	static const uint64_t steps[] = { 1, 2, 3, 4, 5, 7, 16, 25, 1000 };
	struct pe_ticks t;
	size_t a, b, c, d, e;

	(void)state;
	for (a = 0; a < sizeof ns / sizeof ns[0]; a++) {
		for (b = 0; b < 4; b++) {
			for (c = 0; c < 4; c++) {
				t = pe_ticks(ns[a], 0, 1, lens[b], minpxs[c]);
				assert_int_equal(t.first, 0);
				assert_int_equal(t.every, old_every(ns[a], lens[b], minpxs[c]));
				for (d = 0; d < sizeof origins / sizeof origins[0]; d++)
					for (e = 0; e < sizeof steps / sizeof steps[0]; e++)
						check_ticks(ns[a], origins[d], steps[e], lens[b],
							    minpxs[c]);
			}
		}
	}
}

static int is_ink(const struct image *im, int x, int y)
{
	const unsigned char *p = pixel(im, x, y);

	return p[0] < 128 && p[1] < 128 && p[2] < 128;
}

/* The centres of the tick marks along the row axis (in column at, runs of
 * ink going down beside the heatmap) or the column axis (in row at, runs
 * going right under it); returns how many, at most max. */
static int find_ticks(const struct image *im, int rows, int at, int *centres, int max)
{
	int k, n = 0, start = -1, k0 = rows ? im->y : im->x, len = rows ? im->hh : im->hw;

	for (k = k0; k <= k0 + len; k++) {
		if (k < k0 + len && (rows ? is_ink(im, at, k) : is_ink(im, k, at))) {
			if (start < 0)
				start = k;
			continue;
		}
		if (start >= 0 && n < max)
			centres[n++] = start + (k - start) / 2;
		start = -1;
	}
	return n;
}

/* "row_labels" / "col_labels" in posenc:heatmap: only when not [0, 1]. */
static void test_heatmap_label_keys(void **state)
{
	static const struct {
		int ndim;
		int64_t ro, co;
		uint64_t rs, cs;
		int has_r, has_c;
	} c[] = {
		{ 2, 0, 0, 1, 1, 0, 0 },	/* step 1 is the default */
		{ 2, 2, 0, 0, 0, 1, 0 },
		{ 2, 0, -5, 0, 0, 0, 1 },
		{ 2, 0, 0, 4, 0, 1, 0 },
		{ 2, 1000, 1000, 2, 3, 1, 1 },
		{ 1, 0, 9, 0, 9, 0, 0 },	/* 1-D: the column fields unused */
		{ 1, 3, 0, 2, 0, 0, 1 },	/* its rows, drawn across, are the columns */
	};
	struct pe_sink_opts o;
	struct image im;
	cJSON *r, *k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		memset(&o, 0, sizeof o);
		o.row_origin = c[i].ro;
		o.col_origin = c[i].co;
		o.row_step = c[i].rs;
		o.col_step = c[i].cs;
		render_decode(ramp16, PE_F32, c[i].ndim, c[i].ndim == 2 ? 4 : 16, 4, &o, NULL, &im);
		r = cJSON_GetObjectItem(im.heatmap, "row_labels");
		k = cJSON_GetObjectItem(im.heatmap, "col_labels");
		assert_int_equal(r != NULL, c[i].has_r);
		assert_int_equal(k != NULL, c[i].has_c);
		if (r) {
			assert_true(cJSON_IsArray(r) && cJSON_GetArraySize(r) == 2);
			assert_true(cJSON_GetArrayItem(r, 0)->valuedouble == (double)c[i].ro);
			assert_true(cJSON_GetArrayItem(r, 1)->valuedouble ==
				    (double)(c[i].rs ? c[i].rs : 1));
		}
		if (k) {
			int64_t co = c[i].ndim == 1 ? c[i].ro : c[i].co;
			uint64_t cs = c[i].ndim == 1 ? c[i].rs : c[i].cs;

			assert_true(cJSON_IsArray(k) && cJSON_GetArraySize(k) == 2);
			assert_true(cJSON_GetArrayItem(k, 0)->valuedouble == (double)co);
			assert_true(cJSON_GetArrayItem(k, 1)->valuedouble == (double)(cs ? cs : 1));
		}
		if (!r && !k)
			assert_null(strstr(im.hm_text, "labels"));
		image_free(&im);
	}
}

/* Labels that do not fit in int64_t are refused; the largest that do are
 * drawn. */
static void test_label_range(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_sink_opts o;
	struct image im;
	char *path;

	(void)state;
	memset(&o, 0, sizeof o);
	o.row_origin = INT64_MAX - 2;
	path = render(ramp16, PE_F32, 2, 4, 4, &o, NULL, &err);
	assert_null(path);
	assert_int_equal(err.code, PE_ERR_PARAM);
	o.row_origin = INT64_MAX - 3;
	o.col_origin = INT64_MIN;
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	image_free(&im);
	o.row_origin = 0;
	o.col_step = UINT64_MAX / 2;
	path = render(ramp16, PE_F32, 2, 4, 4, &o, NULL, &err);
	assert_null(path);
	o.col_step = ((uint64_t)1 << 62) - 1;	/* INT64_MIN + 3 x step < 2^62 */
	render_decode(ramp16, PE_F32, 2, 4, 4, &o, NULL, &im);
	image_free(&im);
}

/* --vmin alone at or above the data's maximum cannot make a range. */
static void test_refusals(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_sink_opts o;
	char *path;

	(void)state;
	memset(&o, 0, sizeof o);
	o.has_vmin = 1;
	o.vmin = 15;
	path = render(ramp16, PE_F32, 2, 4, 4, &o, NULL, &err);
	assert_null(path);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{vmin}"));
}

/* ---- shape: the 1:4 rule, panels, no_axes ---- */

static void render_decode_shape(const void *data, enum pe_dtype dt, int ndim,
				const uint64_t *shape, const struct pe_sink_opts *o,
				struct image *im)
{
	struct pe_error err = { PE_OK, "" };
	char *path = render_shape(data, dt, ndim, shape, o, NULL, &err);

	if (!path)
		fail_msg("png writer failed: %s", err.msg);
	decode(path, im);
	remove(path);
	free(path);
}

/* "cell" of posenc:heatmap: pixels per cell along rows and columns; 0 when
 * absent. */
static int hm_cell(const struct image *im, double *ph, double *pw)
{
	cJSON *a = cJSON_GetObjectItem(im->heatmap, "cell");

	*ph = *pw = 0;
	if (!a)
		return 0;
	assert_true(cJSON_IsArray(a) && cJSON_GetArraySize(a) == 2);
	*ph = cJSON_GetArrayItem(a, 0)->valuedouble;
	*pw = cJSON_GetArrayItem(a, 1)->valuedouble;
	return 1;
}

static float *pattern(uint64_t n)
{
	float *v = malloc(n * sizeof *v);
	uint64_t k;

	assert_non_null(v);
	for (k = 0; k < n; k++)
		v[k] = (float)((k * 7) % 23);
	return v;
}

/* Worked cases of the rule (fit_squeezed() in sink_png.c): within 1:4 the
 * cells stay square (exactly 4:1 included); beyond, the heatmap is 1:4 or
 * a little squarer, and "cell" says the pixels per cell of each axis. */
static void test_aspect_table(void **state)
{
	static const struct {
		uint64_t R, C;
		unsigned size;
		int equal;
		int hh, hw;
		double ph, pw;	/* "cell", 0: absent */
	} c[] = {
		/* tall: 2048 rows of blocks of 4000 / 2048, columns 128 px */
		{ 4000, 4, 0, 0, 2048, 512, 0.512, 128 },
		{ 4, 4000, 0, 0, 512, 2048, 128, 0.512 },
		/* the true ratio under aspect_equal: 2 pixels for 4 columns */
		{ 4000, 4, 0, 1, 2048, 2, 0, 0 },
		/* near square and exactly 1:4: square cells as before */
		{ 100, 30, 0, 0, 500, 150, 0, 0 },
		{ 400, 100, 0, 0, 400, 100, 0, 0 },
		/* just beyond 1:4: 401 rows averaged to 400 pixels */
		{ 401, 100, 0, 0, 400, 100, 400.0 / 401, 1 },
		/* the 5 x 300: rows 15 pixels tall */
		{ 5, 300, 0, 0, 75, 300, 15, 1 },
		/* small and tall: both axes repeated, 12 x 40 pixel cells */
		{ 40, 3, 0, 0, 480, 120, 12, 40 },
		/* --size 100 on 1000 x 10: 3 pixels per column, 1:3.3 */
		{ 1000, 10, 100, 0, 100, 30, 0.1, 3 },
	};
	struct pe_sink_opts o;
	struct image im;
	uint64_t shape[2];
	double ph, pw;
	float *v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		memset(&o, 0, sizeof o);
		o.size = c[i].size;
		o.aspect_equal = c[i].equal;
		o.no_colorbar = 1;
		shape[0] = c[i].R;
		shape[1] = c[i].C;
		v = pattern(c[i].R * c[i].C);
		render_decode_shape(v, PE_F32, 2, shape, &o, &im);
		if (im.hh != c[i].hh || im.hw != c[i].hw)
			fail_msg("%llu x %llu: heatmap %d x %d, expected %d x %d",
				 (unsigned long long)c[i].R, (unsigned long long)c[i].C, im.hw, im.hh,
				 c[i].hw, c[i].hh);
		assert_int_equal(hm_cell(&im, &ph, &pw), c[i].ph != 0);
		assert_close(ph, c[i].ph, 0, 1e-15);
		assert_close(pw, c[i].pw, 0, 1e-15);
		image_free(&im);
		free(v);
	}
}

/* The rule's invariants over many shapes and sizes: the longer side within
 * size; beyond 1:4 a ratio in [3, 4] with "cell"; within it square cells
 * and no "cell"; on every axis whole pixels per cell (a multiple of the
 * cells) or fewer pixels than cells (averaged). */
static void test_aspect_invariants(void **state)
{
	static const uint64_t dims[] = { 1, 3, 7, 50, 333, 1000 };
	static const unsigned sizes[] = { 0, 40, 300 };
	struct pe_sink_opts o;
	struct image im;
	uint64_t shape[2], R, C, L, S;
	int lp, sp, squeezed;
	double ph, pw;
	float *v;
	size_t a, b, s;

	(void)state;
	for (a = 0; a < 6; a++) {
		for (b = 0; b < 6; b++) {
			for (s = 0; s < 3; s++) {
				R = dims[a];
				C = dims[b];
				memset(&o, 0, sizeof o);
				o.size = sizes[s];
				o.no_colorbar = 1;
				shape[0] = R;
				shape[1] = C;
				v = pattern(R * C);
				render_decode_shape(v, PE_F32, 2, shape, &o, &im);
				L = R > C ? R : C;
				S = R > C ? C : R;
				lp = R > C ? im.hh : im.hw;
				sp = R > C ? im.hw : im.hh;
				squeezed = hm_cell(&im, &ph, &pw);
				assert_true(lp <= (sizes[s] ? (int)sizes[s] : 2048));
				assert_true(lp >= sp);
				if (L > 4 * S) {
					assert_true(squeezed);
					if (lp > 4 * sp || 3 * sp > lp)
						fail_msg("%llu x %llu size %u: %d x %d",
							 (unsigned long long)R,
							 (unsigned long long)C, sizes[s], im.hw, im.hh);
					assert_close(ph, (double)im.hh / (double)R, 0, 1e-15);
					assert_close(pw, (double)im.hw / (double)C, 0, 1e-15);
				} else {
					assert_false(squeezed);
					if (lp >= (int)L)
						assert_true((uint64_t)im.hh / R == (uint64_t)im.hw / C);
				}
				assert_true((uint64_t)im.hh < R || (uint64_t)im.hh % R == 0);
				assert_true((uint64_t)im.hw < C || (uint64_t)im.hw % C == 0);
				image_free(&im);
				free(v);
			}
		}
	}
}

/* colour index as matplotlib computes it for vmin 0 and vmax 1, for a
 * value not within 1e-6 of an index boundary */
static int mpl_index(double x)
{
	double t = 256.0 * x;

	assert_true(fabs(t - floor(t + 0.5)) > 1e-6 || t < 0.5);
	return t >= 255 ? 255 : t < 0 ? 0 : (int)floor(t);
}

/* A tall 4000 x 4 matrix at 1:4: pixel row i is the mean of rows floor(i
 * * 4000 / 2048) .. floor((i + 1) * 4000 / 2048) - 1, each column a
 * 128-pixel band of one colour.  Values v(r, c) = (r mod 100) / 400 + c /
 * 8 + 1 / 1024: 256 x a block mean (of 1 or 2 rows) is then at least 0.01
 * from a whole number, so its colour index is beyond doubt; checked at
 * every pixel. */
static void test_squeezed_means(void **state)
{
	const uint64_t R = 4000, C = 4;
	uint64_t shape[2] = { R, C }, r, r0, r1;
	float *v = malloc(R * C * sizeof *v);
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	double mean;
	int i, x, c;

	(void)state;
	assert_non_null(v);
	for (r = 0; r < R; r++)
		for (c = 0; c < (int)C; c++)
			v[r * C + (uint64_t)c] =
				(float)(r % 100) / 400.0f + (float)c / 8.0f + 1.0f / 1024;
	memset(&o, 0, sizeof o);
	o.has_vmin = o.has_vmax = 1;
	o.vmin = 0;
	o.vmax = 1;
	render_decode_shape(v, PE_F32, 2, shape, &o, &im);
	assert_int_equal(im.hh, 2048);
	assert_int_equal(im.hw, 512);
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	for (i = 0; i < 2048; i++) {
		r0 = (uint64_t)i * R / 2048;
		r1 = (uint64_t)(i + 1) * R / 2048;
		for (c = 0; c < (int)C; c++) {
			mean = 0;
			for (r = r0; r < r1; r++)
				mean += (double)v[r * C + (uint64_t)c];
			mean /= (double)(r1 - r0);
			for (x = 0; x < 128; x++)
				if (memcmp(pixel(&im, im.x + 128 * c + x, im.y + i),
					   lut + 3 * mpl_index(mean), 3) != 0)
					fail_msg("pixel (%d, %d): not the colour of mean %g",
						 128 * c + x, i, mean);
		}
	}
	image_free(&im);
	free(v);
}

/* A wide 5 x 300 at 1:4 is 75 pixels tall: rows 0, 2 and 4 labelled (not
 * row 0 alone), and both axis titles clear of everything. */
static void test_squeezed_labels(void **state)
{
	float *v = pattern(5 * 300);
	struct pe_sink_opts o;
	struct image im;
	int ticks[8] = { 0 }, n, k;
	char lab[4];

	(void)state;
	memset(&o, 0, sizeof o);
	o.xlabel = "dimension";
	o.ylabel = "position";
	render_decode(v, PE_F32, 2, 5, 300, &o, NULL, &im);
	assert_int_equal(im.hh, 75);
	/* every tick at a row's centre (the rows are 15 pixels tall), row 0
	 * first; on an axis this short, 1.5 lines of text (24 pixels) apart
	 * rather than 2.5: rows 0, 2 and 4 */
	n = find_ticks(&im, 1, im.x - 2, ticks, 8);
	assert_int_equal(n, 3);
	assert_int_equal(ticks[0], im.y + 7);
	for (k = 0; k < n; k++) {
		assert_int_equal((ticks[k] - im.y - 7) % 15, 0);
		assert_true(k == 0 || ticks[k] - ticks[k - 1] >= 24);
		snprintf(lab, sizeof lab, "%d", 2 * k);
	}
	image_free(&im);
	free(v);
}

/* panels[k] of posenc:heatmap */
static void hm_panel(const struct image *im, int k, int r[4])
{
	cJSON *a = cJSON_GetObjectItem(im->heatmap, "panels"), *p;
	int j;

	assert_non_null(a);
	p = cJSON_GetArrayItem(a, k);
	assert_true(cJSON_IsArray(p) && cJSON_GetArraySize(p) == 4);
	for (j = 0; j < 4; j++)
		r[j] = cJSON_GetArrayItem(p, j)->valueint;
}

/* 12 heads of 4 x 4, head k all k but cell (0, 0) of heads 0 and 11 at
 * 5.5: a 4 x 3 grid, head 1 right of head 0 and head 4 below it, equal
 * pitches; titles "head K" centred above each panel with a clear margin;
 * one colour scale (0 and 11 the end colours, 5.5 the same colour in both
 * panels, index 128); every panel labelled; the axis titles once; the
 * colour bar right of every panel and as tall as the grid. */
static void test_panels(void **state)
{
	float v[12 * 16];
	uint64_t shape[3] = { 12, 4, 4 };
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int pr[12][4], k, right = 0, bx;
	char buf[24];
	cJSON *s;

	(void)state;
	for (k = 0; k < 12 * 16; k++)
		v[k] = (float)(k / 16);
	v[0] = v[11 * 16] = 5.5f;
	memset(&o, 0, sizeof o);
	o.xlabel = "key";
	o.ylabel = "query";
	render_decode_shape(v, PE_F32, 3, shape, &o, &im);
	s = cJSON_GetObjectItem(im.heatmap, "shape");
	assert_int_equal(cJSON_GetArraySize(s), 3);
	assert_int_equal(cJSON_GetArrayItem(s, 0)->valueint, 12);
	assert_int_equal(cJSON_GetArrayItem(s, 1)->valueint, 4);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(im.heatmap, "panels")), 12);
	assert_null(cJSON_GetObjectItem(im.heatmap, "cell"));
	for (k = 0; k < 12; k++)
		hm_panel(&im, k, pr[k]);
	for (k = 0; k < 12; k++) {
		assert_int_equal(pr[k][2], 128);	/* 512 / 4 columns, 4 x 32 */
		assert_int_equal(pr[k][3], 128);
		assert_int_equal(pr[k][0], pr[0][0] + (k % 4) * (pr[1][0] - pr[0][0]));
		assert_int_equal(pr[k][1], pr[0][1] + (k / 4) * (pr[4][1] - pr[0][1]));
		if (pr[k][0] + pr[k][2] > right)
			right = pr[k][0] + pr[k][2];
	}
	assert_int_equal(pr[0][0], im.x);
	assert_int_equal(pr[0][1], im.y);
	assert_true(pr[1][0] > pr[0][0] + 128 + 30);	/* room for the next row labels */
	assert_true(pr[4][1] > pr[0][1] + 128 + 30);	/* the labels, the next title */
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	for (k = 0; k < 12; k++) {
		/* cell (2, 2) of head k: index floor(256 k / 11) */
		assert_memory_equal(pixel(&im, pr[k][0] + 80, pr[k][1] + 80),
				    lut + 3 * (k == 11 ? 255 : 256 * k / 11), 3);
		snprintf(buf, sizeof buf, "head %d", k);
	}
	assert_memory_equal(pixel(&im, pr[0][0] + 10, pr[0][1] + 10), lut + 3 * 128, 3);
	assert_memory_equal(pixel(&im, pr[11][0] + 10, pr[11][1] + 10), lut + 3 * 128, 3);
	/* the colour bar: its top row is the last colour, right of the panels */
	for (bx = right + 1; bx < im.w; bx++)
		if (memcmp(pixel(&im, bx, im.y + 1), lut + 3 * 255, 3) == 0)
			break;
	assert_true(bx < im.w);
	assert_memory_equal(pixel(&im, bx, pr[8][1] + 127), lut, 3);
	image_free(&im);
}

/* Panels of a 3-D result that is not square (5 heads of 6 x 8): every
 * panel the same size, whole pixels per cell, within the image, apart. */
static void test_panels_layout(void **state)
{
	float v[5 * 48];
	uint64_t shape[3] = { 5, 6, 8 };
	struct pe_sink_opts o;
	struct image im;
	int pr[5][4], k, j;

	(void)state;
	for (k = 0; k < 5 * 48; k++)
		v[k] = (float)(k % 13);
	memset(&o, 0, sizeof o);
	o.title = "five heads";
	render_decode_shape(v, PE_F32, 3, shape, &o, &im);
	for (k = 0; k < 5; k++) {
		hm_panel(&im, k, pr[k]);
		assert_int_equal(pr[k][2], pr[0][2]);
		assert_int_equal(pr[k][3], pr[0][3]);
		assert_int_equal(pr[k][2] % 8, 0);
		assert_int_equal(pr[k][3] % 6, 0);
		assert_true(pr[k][0] >= 0 && pr[k][0] + pr[k][2] <= im.w);
		assert_true(pr[k][1] > 7 + 14 && pr[k][1] + pr[k][3] <= im.h);
		for (j = 0; j < k; j++)
			assert_true(pr[j][0] + pr[j][2] + 20 < pr[k][0] ||
				    pr[k][0] + pr[k][2] + 20 < pr[j][0] ||
				    pr[j][1] + pr[j][3] + 20 < pr[k][1]);
	}
	image_free(&im);
}

/* A 3-D result with more than 1024 heads, or a --size that cannot hold
 * its grid, is refused. */
static void test_panels_refused(void **state)
{
	struct pe_error err = { PE_OK, "" };
	float *v = calloc(1025 * 4, sizeof *v);
	uint64_t shape[3] = { 1025, 2, 2 };
	struct pe_sink_opts o;
	char *path;

	(void)state;
	assert_non_null(v);
	memset(&o, 0, sizeof o);
	path = render_shape(v, PE_F32, 3, shape, &o, NULL, &err);
	assert_null(path);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "1024"));
	shape[0] = 12;
	o.size = 3;	/* a 4 x 3 grid needs 4 */
	path = render_shape(v, PE_F32, 3, shape, &o, NULL, &err);
	assert_null(path);
	assert_non_null(strstr(err.msg, "{size} 4"));
	o.size = 4;
	path = render_shape(v, PE_F32, 3, shape, &o, NULL, &err);
	assert_non_null(path);
	remove(path);
	free(path);
	free(v);
}

/* The colour of value k of a ramp 0 .. n - 1 (n >= 2) under matplotlib's
 * rule: floor(256 k / (n - 1)), at most 255. */
static const unsigned char *ramp_rgb(const unsigned char *lut, int k, int n)
{
	int idx = 256 * k / (n - 1);

	return lut + 3 * (idx > 255 ? 255 : idx);
}

/* no_axes: the image is the heatmap, one pixel per cell as imsave writes
 * it (a 3 x 5 ramp is 5 x 3 pixels of the ramp's colours), whole factors
 * with size, a tall matrix that fits keeps its shape, one that must be
 * averaged follows the 1:4 rule; titles and axis titles are not drawn. */
static void test_no_axes(void **state)
{
	float v[15], *big;
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int k, x, y;
	double ph, pw;

	(void)state;
	for (k = 0; k < 15; k++)
		v[k] = (float)k;
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	memset(&o, 0, sizeof o);
	o.no_axes = 1;
	o.xlabel = "dimension";	/* ignored: no text */
	o.ylabel = "position";
	render_decode(v, PE_F32, 2, 3, 5, &o, NULL, &im);
	assert_int_equal(im.w, 5);
	assert_int_equal(im.h, 3);
	assert_int_equal(im.x, 0);
	assert_int_equal(im.y, 0);
	assert_int_equal(im.hw, 5);
	assert_int_equal(im.hh, 3);
	for (k = 0; k < 15; k++)
		assert_memory_equal(pixel(&im, k % 5, k / 5), ramp_rgb(lut, k, 15), 3);
	image_free(&im);

	o.size = 12;	/* 2 pixels per cell */
	render_decode(v, PE_F32, 2, 3, 5, &o, NULL, &im);
	assert_int_equal(im.w, 10);
	assert_int_equal(im.h, 6);
	for (y = 0; y < 6; y++)
		for (x = 0; x < 10; x++)
			assert_memory_equal(pixel(&im, x, y), ramp_rgb(lut, y / 2 * 5 + x / 2, 15),
					    3);
	image_free(&im);

	/* 300 x 5 fits: 5 x 300 pixels, as imsave */
	o.size = 0;
	big = pattern(3000 * 10);
	render_decode(big, PE_F32, 2, 300, 5, &o, NULL, &im);
	assert_int_equal(im.w, 5);
	assert_int_equal(im.h, 300);
	assert_false(hm_cell(&im, &ph, &pw));
	image_free(&im);
	/* 3000 x 10 does not fit 2048: averaged, 1:4 (520 x 2048) */
	render_decode(big, PE_F32, 2, 3000, 10, &o, NULL, &im);
	assert_int_equal(im.h, 2048);
	assert_int_equal(im.w, im.hw);
	assert_true(im.w * 4 >= 2048 && im.w * 3 <= 2048);
	assert_true(hm_cell(&im, &ph, &pw));
	image_free(&im);
	/* aspect_equal: the true shape, averaged */
	o.aspect_equal = 1;
	render_decode(big, PE_F32, 2, 3000, 10, &o, NULL, &im);
	assert_int_equal(im.h, 2048);
	assert_int_equal(im.w, 7);
	image_free(&im);
	free(big);
}

/* no_axes with panels: untitled, 2 white pixels apart, the image the grid
 * alone. */
static void test_no_axes_panels(void **state)
{
	float v[12 * 16];
	uint64_t shape[3] = { 12, 4, 4 };
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int pr[4], k, x, y;

	(void)state;
	for (k = 0; k < 12 * 16; k++)
		v[k] = (float)(k / 16);
	memset(&o, 0, sizeof o);
	o.no_axes = 1;
	render_decode_shape(v, PE_F32, 3, shape, &o, &im);
	assert_int_equal(im.w, 4 * 4 + 3 * 2);
	assert_int_equal(im.h, 3 * 4 + 2 * 2);
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	for (k = 0; k < 12; k++) {
		hm_panel(&im, k, pr);
		assert_int_equal(pr[0], (k % 4) * 6);
		assert_int_equal(pr[1], (k / 4) * 6);
		for (y = 0; y < 4; y++)
			for (x = 0; x < 4; x++)
				assert_memory_equal(pixel(&im, pr[0] + x, pr[1] + y),
						    ramp_rgb(lut, k, 12), 3);
	}
	for (y = 0; y < im.h; y++)
		for (x = 4; x < im.w; x += 6)
			assert_rgb(pixel(&im, x, y), 0xff, 0xff, 0xff);
	image_free(&im);
}

/* ---- integer results: discrete colours ---- */

/* T5's bidirectional bucket of key - query (Raffel et al. 2020, as in
 * transformers' _relative_position_bucket): 32 buckets, 16 per direction,
 * 8 exact, the rest logarithmic up to max_distance; key > query adds 16,
 * so bucket 16 (key > query at distance 0) never occurs. */
static int32_t t5_bucket(long rel, double max_distance)
{
	int32_t ret = rel > 0 ? 16 : 0, v;
	long n = rel < 0 ? -rel : rel;

	if (n < 8)
		return ret + (int32_t)n;
	v = 8 + (int32_t)(log((double)n / 8) / log(max_distance / 8) * 8);
	return ret + (v > 15 ? 15 : v);
}

/* An L x L bucket map, row = query, column = key; max distance 32 so that
 * 64 x 64 holds every bucket but 16. */
static int32_t *t5_map(int L)
{
	int32_t *v = malloc((size_t)L * (size_t)L * sizeof *v);
	int q, k;

	assert_non_null(v);
	for (q = 0; q < L; q++)
		for (k = 0; k < L; k++)
			v[q * L + k] = t5_bucket(k - q, 32);
	return v;
}

/* The colour of id among lo..hi as plt.get_cmap(name, n) gives it for a
 * listed map, worked out here from the 256-entry table alone: colour i of
 * n = hi - lo + 1 is entry floor(256 t), t = np.linspace(0, 1, n)[i] =
 * i * (1 / (n - 1)) (exactly 1 for the last), at most 255. */
static const unsigned char *id_colour(const unsigned char *lut, long id, long lo, long hi)
{
	long n = hi - lo + 1, i = id < lo ? 0 : id > hi ? n - 1 : id - lo;
	double t = n == 1 ? 0 : i == n - 1 ? 1 : (double)i * (1.0 / (double)(n - 1));
	int e = (int)(t * 256);

	return lut + 3 * (e > 255 ? 255 : e);
}

/* Is rgb the colour of one of the ids lo..hi? */
static int is_id_colour(const unsigned char *lut, const unsigned char *rgb, long lo, long hi)
{
	long id;

	for (id = lo; id <= hi; id++)
		if (memcmp(id_colour(lut, id, lo, hi), rgb, 3) == 0)
			return 1;
	return 0;
}

/* The most frequent id of rows r0..r1-1, columns c0..c1-1 of an R x C
 * matrix (cols C), ties to the one nearest the block's centre, then the
 * smaller: every cell counted, the long way. */
static int32_t mode_of(const int32_t *v, int C, int r0, int r1, int c0, int c1)
{
	int r, c, rr, cc, n, best = 0;
	long d, bestd = -1;
	int32_t id = 0;

	for (r = r0; r < r1; r++) {
		for (c = c0; c < c1; c++) {
			n = 0;
			for (rr = r0; rr < r1; rr++)
				for (cc = c0; cc < c1; cc++)
					n += v[rr * C + cc] == v[r * C + c];
			d = (long)(2 * (r - r0) - (r1 - r0 - 1)) * (2 * (r - r0) - (r1 - r0 - 1)) +
			    (long)(2 * (c - c0) - (c1 - c0 - 1)) * (2 * (c - c0) - (c1 - c0 - 1));
			if (n > best || (n == best && (d < bestd || (d == bestd && v[r * C + c] < id)))) {
				best = n;
				bestd = d;
				id = v[r * C + c];
			}
		}
	}
	return id;
}

/* The colour bar's left edge: the first pixel right of the heatmap that is
 * neither white nor the frame, scanning row y. */
static int colorbar_x(const struct image *im, int y)
{
	int x;
	const unsigned char *p;

	for (x = im->x + im->hw + 1; x < im->w; x++) {
		p = pixel(im, x, y);
		/* white, the frame and text are grey; no map colour is */
		if (!(p[0] == p[1] && p[1] == p[2]))
			return x;
	}
	fail_msg("no colour bar in row %d", y);
	return -1;
}

/* A 64 x 64 T5 bucket map (ids 0..31, no 16), 8 pixels per cell: every
 * heatmap pixel is its id's colour in 32; the colour bar is 32 bands of
 * 16 pixels, id 0 at the bottom, each its id's colour; ticks labelled with
 * integers at band centres, every second id (a label per band would need
 * 16 pixels < 2 lines) and both ends; the text says discrete, ids 0..31. */
static void test_ids_discrete(void **state)
{
	int32_t *v = t5_map(64);
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	const unsigned char *want;
	cJSON *ids;
	int x, y, cx;

	(void)state;
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	memset(&o, 0, sizeof o);
	render_decode(v, PE_I32, 2, 64, 64, &o, NULL, &im);
	assert_int_equal(im.hw, 512);
	assert_int_equal(im.hh, 512);
	for (y = 0; y < im.hh; y++) {
		for (x = 0; x < im.hw; x++) {
			want = id_colour(lut, v[(y / 8) * 64 + x / 8], 0, 31);
			if (memcmp(pixel(&im, im.x + x, im.y + y), want, 3) != 0)
				fail_msg("pixel (%d, %d) of id %d is not the id's colour", x, y,
					 v[(y / 8) * 64 + x / 8]);
		}
	}
	assert_string_equal(cJSON_GetObjectItem(im.heatmap, "scale")->valuestring, "discrete");
	ids = cJSON_GetObjectItem(im.heatmap, "ids");
	assert_int_equal(cJSON_GetArrayItem(ids, 0)->valueint, 0);
	assert_int_equal(cJSON_GetArrayItem(ids, 1)->valueint, 31);
	assert_int_equal(cJSON_GetObjectItem(im.heatmap, "vmax")->valueint, 31);
	/* the bar, band by band from the bottom */
	cx = colorbar_x(&im, im.y + 10) + 4;
	for (y = 0; y < 512; y++)
		assert_memory_equal(pixel(&im, cx, im.y + 511 - y), id_colour(lut, y / 16, 0, 31), 3);
	/* nothing fractional: the float path would label the ends only */
	image_free(&im);
	/* --no-axes: the same colours, one pixel per cell */
	o.no_axes = 1;
	render_decode(v, PE_I32, 2, 64, 64, &o, NULL, &im);
	assert_int_equal(im.w, 64);
	assert_int_equal(im.h, 64);
	for (y = 0; y < 64; y++)
		for (x = 0; x < 64; x++)
			assert_memory_equal(pixel(&im, x, y), id_colour(lut, v[y * 64 + x], 0, 31), 3);
	image_free(&im);
	free(v);
}

/* Drawn smaller than the matrix, a pixel is its block's most frequent id
 * (worked out here cell by cell), so only the colours of ids appear; the
 * same matrix as float32 is averaged and shows colours of no id (so the
 * check can fail).  Blocks of 3 or 4 cells (64 at 20 pixels), with and
 * without axes, and a 1-D strip of 5000 ids at 2048 pixels. */
static void test_ids_downsampled(void **state)
{
	int32_t *v = t5_map(64), strip[5000];
	float *f = malloc(64 * 64 * sizeof *f);
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int x, y, k, stray, bare;

	(void)state;
	assert_non_null(f);
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	for (bare = 0; bare < 2; bare++) {
		memset(&o, 0, sizeof o);
		o.size = 20;
		o.no_axes = bare;
		render_decode(v, PE_I32, 2, 64, 64, &o, NULL, &im);
		assert_int_equal(im.hw, 20);
		assert_int_equal(im.hh, 20);
		for (y = 0; y < 20; y++) {
			for (x = 0; x < 20; x++) {
				assert_memory_equal(pixel(&im, im.x + x, im.y + y),
						    id_colour(lut, mode_of(v, 64, y * 64 / 20,
									   (y + 1) * 64 / 20,
									   x * 64 / 20,
									   (x + 1) * 64 / 20),
							      0, 31),
						    3);
			}
		}
		image_free(&im);
	}
	for (k = 0; k < 64 * 64; k++)
		f[k] = (float)v[k];
	render_decode(f, PE_F32, 2, 64, 64, &o, NULL, &im);
	stray = 0;
	for (y = 0; y < 20; y++)
		for (x = 0; x < 20; x++)
			stray += !is_id_colour(lut, pixel(&im, im.x + x, im.y + y), 0, 31);
	assert_true(stray > 0);
	image_free(&im);
	/* a strip: ids k / 700 (0..7), 5000 cells on 2048 pixels */
	for (k = 0; k < 5000; k++)
		strip[k] = k / 700;
	memset(&o, 0, sizeof o);
	render_decode(strip, PE_I32, 1, 5000, 0, &o, NULL, &im);
	assert_int_equal(im.hw, 2048);
	for (x = 0; x < 2048; x++)
		assert_memory_equal(pixel(&im, im.x + x, im.y + 5),
				    id_colour(lut, mode_of(strip, 5000, 0, 1, x * 5000 / 2048,
							   (x + 1) * 5000 / 2048),
					      0, 7),
				    3);
	image_free(&im);
	free(f);
	free(v);
}

/* Blocks beyond MODE_S cells a side are judged by a sample, still only
 * colours of ids; a block all of one id is that id.  Ids 0..3 in 256 x 256
 * squares of a 1024 x 1024 matrix drawn at 16 pixels (64 x 64 blocks):
 * each pixel is its square's id. */
static void test_ids_large_blocks(void **state)
{
	int32_t *v = malloc(1024 * 1024 * sizeof *v);
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int x, y;

	(void)state;
	assert_non_null(v);
	for (y = 0; y < 1024; y++)
		for (x = 0; x < 1024; x++)
			v[y * 1024 + x] = (int32_t)((y / 256 + x / 256) % 4);
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	memset(&o, 0, sizeof o);
	o.size = 16;
	o.no_axes = 1;
	render_decode(v, PE_I32, 2, 1024, 1024, &o, NULL, &im);
	for (y = 0; y < 16; y++)
		for (x = 0; x < 16; x++)
			assert_memory_equal(pixel(&im, x, y),
					    id_colour(lut, (y / 4 + x / 4) % 4, 0, 3), 3);
	image_free(&im);
	free(v);
}

/* --vmin/--vmax with ids: rounded outward to whole ids (-0.5 .. 31.5 is
 * -1 .. 32, 34 colours), ids beyond take the end colours; outside int32
 * refused.  Many ids (-255..255 on a bar about 500 pixels tall): a
 * gradient of the ids' own colours, labelled with round ids and both
 * ends. */
static void test_ids_range(void **state)
{
	int32_t *v = t5_map(64), w[23 * 23];
	struct pe_sink_opts o;
	struct image im;
	struct pe_error err = { PE_OK, "" };
	unsigned char lut[768];
	cJSON *ids;
	int x, y, cx;
	char *path;

	(void)state;
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	memset(&o, 0, sizeof o);
	o.has_vmin = o.has_vmax = 1;
	o.vmin = -0.5;
	o.vmax = 31.5;
	render_decode(v, PE_I32, 2, 64, 64, &o, NULL, &im);
	ids = cJSON_GetObjectItem(im.heatmap, "ids");
	assert_int_equal(cJSON_GetArrayItem(ids, 0)->valueint, -1);
	assert_int_equal(cJSON_GetArrayItem(ids, 1)->valueint, 32);
	for (y = 0; y < 64; y++)
		for (x = 0; x < 64; x++)
			assert_memory_equal(cell(&im, y, x, 64, 64),
					    id_colour(lut, v[y * 64 + x], -1, 32), 3);
	image_free(&im);
	o.vmin = 2;
	o.vmax = 5;
	render_decode(v, PE_I32, 2, 64, 64, &o, NULL, &im);
	assert_memory_equal(cell(&im, 0, 0, 64, 64), id_colour(lut, 2, 2, 5), 3);	/* 0 */
	assert_memory_equal(cell(&im, 0, 63, 64, 64), id_colour(lut, 5, 2, 5), 3);	/* 31 */
	image_free(&im);
	o.vmin = -3e9;
	path = render(v, PE_I32, 2, 64, 64, &o, NULL, &err);
	assert_null(path);
	assert_int_equal(err.code, PE_ERR_PARAM);
	/* 511 ids */
	for (x = 0; x < 23 * 23; x++)
		w[x] = (int32_t)(x - 264);
	o.vmin = -255;
	o.vmax = 255;
	render_decode(w, PE_I32, 2, 23, 23, &o, NULL, &im);
	assert_true(im.hh < 511);
	cx = colorbar_x(&im, im.y + 10) + 4;
	for (y = 0; y < im.hh; y++)
		assert_true(is_id_colour(lut, pixel(&im, cx, im.y + y), -255, 255));
	assert_memory_equal(pixel(&im, cx, im.y), id_colour(lut, 255, -255, 255), 3);
	assert_memory_equal(pixel(&im, cx, im.y + im.hh - 1), id_colour(lut, -255, -255, 255), 3);
	image_free(&im);
	free(v);
}

/* 3 heads of 4 x 4 ids (16 h + 4 r + c): one scale over all heads, each
 * panel's cells their ids' colours. */
static void test_ids_panels(void **state)
{
	int32_t v[48];
	uint64_t shape[3] = { 3, 4, 4 };
	struct pe_sink_opts o;
	struct image im;
	unsigned char lut[768];
	int k, r, c, box[4];

	(void)state;
	for (k = 0; k < 48; k++)
		v[k] = k;
	pe_colormap_lut(pe_colormap_by_name("viridis"), lut);
	memset(&o, 0, sizeof o);
	render_decode_shape(v, PE_I32, 3, shape, &o, &im);
	for (k = 0; k < 3; k++) {
		hm_panel(&im, k, box);
		for (r = 0; r < 4; r++)
			for (c = 0; c < 4; c++)
				assert_memory_equal(pixel(&im, box[0] + (2 * c + 1) * box[2] / 8,
							  box[1] + (2 * r + 1) * box[3] / 8),
						    id_colour(lut, 16 * k + 4 * r + c, 0, 47), 3);
	}
	image_free(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_cells_sharp),
		cmocka_unit_test(test_end_colours),
		cmocka_unit_test(test_nan),
		cmocka_unit_test(test_text_chunks),
		cmocka_unit_test(test_downsample_averages),
		cmocka_unit_test(test_downsample_shape),
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_int32),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_blocks_do_not_matter),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_ticks_table),
		cmocka_unit_test(test_ticks_rule),
		cmocka_unit_test(test_heatmap_label_keys),
		cmocka_unit_test(test_label_range),
		cmocka_unit_test(test_aspect_table),
		cmocka_unit_test(test_aspect_invariants),
		cmocka_unit_test(test_squeezed_means),
		cmocka_unit_test(test_squeezed_labels),
		cmocka_unit_test(test_panels),
		cmocka_unit_test(test_panels_layout),
		cmocka_unit_test(test_panels_refused),
		cmocka_unit_test(test_no_axes),
		cmocka_unit_test(test_no_axes_panels),
		cmocka_unit_test(test_ids_discrete),
		cmocka_unit_test(test_ids_downsampled),
		cmocka_unit_test(test_ids_large_blocks),
		cmocka_unit_test(test_ids_range),
		cmocka_unit_test(test_ids_panels),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
