/*
 * The heatmap cell model (io/heatmap.h) without drawing or decoding an
 * image: the cells and pixels per cell the size rules give (worked by hand
 * from the rules in sink_png.c's comment), block means against their
 * closed forms, NaN and infinity in a block, the mode of an integer block,
 * and the grid of panels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
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

/* The cell model of a tensor of shape (ndim, shape) under g; fails the
 * test when it is refused. */
static void begin(struct pe_heatmap *h, enum pe_dtype dt, int ndim, uint64_t a, uint64_t b,
		  uint64_t c, unsigned size, int equal, int bare)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_tensor t;
	uint64_t shape[3] = { a, b, c };
	struct pe_heatmap_geom g = { .size = size, .aspect_equal = equal, .no_axes = bare };

	memset(h, 0, sizeof *h);
	assert_int_equal(pe_tensor_init(&t, "t", dt, no_fill, NULL, 0, ndim, shape, &err), 0);
	if (pe_heatmap_shape(h, &t, &err) != 0 || pe_heatmap_begin(h, &g, &err) != 0)
		fail_msg("refused: %s", err.msg);
}

static void assert_cells(const struct pe_heatmap *h, uint32_t gh, uint32_t gw, uint32_t kh,
			 uint32_t kw)
{
	if (h->gh != gh || h->gw != gw || h->kh != kh || h->kw != kw)
		fail_msg("cells %u x %u of %u x %u px, expected %u x %u of %u x %u", h->gh, h->gw,
			 h->kh, h->kw, gh, gw, kh, kw);
}

/* Sizes: whole pixels per cell when the matrix fits, averaged beyond, the
 * 1:4 rule for long or wide tables. */
static void test_sizes(void **state)
{
	struct pe_heatmap h;

	(void)state;
	/* 4 x 4, automatic: scaled up to 512 / 4 = 128 pixels a cell */
	begin(&h, PE_F32, 2, 4, 4, 0, 0, 0, 0);
	assert_cells(&h, 4, 4, 128, 128);
	pe_heatmap_free(&h);
	/* 3 x 3: floor(512 / 3) = 170 */
	begin(&h, PE_F32, 2, 3, 3, 0, 0, 0, 0);
	assert_cells(&h, 3, 3, 170, 170);
	pe_heatmap_free(&h);
	/* 4096 x 4096 automatic: averaged to 2048, one pixel a block of 2 x 2 */
	begin(&h, PE_F32, 2, 4096, 4096, 0, 0, 0, 0);
	assert_cells(&h, 2048, 2048, 1, 1);
	assert_int_equal(h.rb[1], 2);
	assert_non_null(h.sum);
	pe_heatmap_free(&h);
	/* 1,000,000 x 64: long side 2048 averaged, the short one 8 pixels a
	 * column (q = 8 of the 1:4 rule: 4 * 8 * 64 = 2048) */
	begin(&h, PE_F32, 2, 1000000, 64, 0, 0, 0, 0);
	assert_cells(&h, 2048, 64, 1, 8);
	assert_true(h.squeezed);
	pe_heatmap_free(&h);
	/* 5 x 300: 300 columns at 1 pixel, rows 15 pixels (3 x 15 x 5 <= 300
	 * <= 4 x 15 x 5 with q = 15, the largest q that keeps 1:4..1:3) */
	begin(&h, PE_F32, 2, 5, 300, 0, 0, 0, 0);
	assert_cells(&h, 5, 300, 15, 1);
	pe_heatmap_free(&h);
	/* --aspect equal keeps the strip */
	begin(&h, PE_F32, 2, 5, 300, 0, 0, 1, 0);
	assert_cells(&h, 5, 300, 1, 1);
	assert_false(h.squeezed);
	pe_heatmap_free(&h);
	/* --no-axes: one pixel per cell, no scaling up */
	begin(&h, PE_F32, 2, 256, 128, 0, 0, 0, 1);
	assert_cells(&h, 256, 128, 1, 1);
	assert_non_null(h.one);
	pe_heatmap_free(&h);
	/* a vector of 7 is one row of 7 cells, a strip at least 32 tall */
	begin(&h, PE_F32, 1, 7, 0, 0, 0, 0, 0);
	assert_int_equal(h.rows, 1);
	assert_int_equal(h.cols, 7);
	assert_true(h.ph >= PE_HEATMAP_STRIP_MIN);
	pe_heatmap_free(&h);
}

/* A 10 x 10 matrix v[i][j] = 10 i + j at size 5: each cell the mean of a
 * 2 x 2 block, 10 (2 i + 1/2) + 2 j + 1/2. */
static void test_block_means(void **state)
{
	struct pe_heatmap h;
	float v[100];
	uint32_t i, j;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = (float)i;
	begin(&h, PE_F32, 2, 10, 10, 0, 5, 0, 0);
	assert_cells(&h, 5, 5, 1, 1);
	/* in two blocks of rows, as a pump would give them */
	pe_heatmap_rows(&h, v, 3);
	pe_heatmap_rows(&h, v + 30, 7);
	for (i = 0; i < 5; i++)
		for (j = 0; j < 5; j++)
			assert_close(pe_heatmap_mean(&h, 0, i, j), 10 * (2 * i + 0.5) + 2 * j + 0.5,
				     0, 1e-15);
	assert_true(h.finite);
	assert_close(h.min, 0, 0, 0);
	assert_close(h.max, 99, 0, 0);
	pe_heatmap_free(&h);
}

/* NaN in a block makes its mean NaN; +inf alone is +inf; +inf and -inf
 * together are NaN (np.mean's rule); the extremes ignore them. */
static void test_nonfinite(void **state)
{
	struct pe_heatmap h;
	float v[16];
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		v[i] = 1;
	v[0] = NAN;	/* block (0, 0) */
	v[2] = INFINITY;	/* block (0, 1) */
	v[8] = INFINITY;	/* block (1, 0): +inf and -inf */
	v[9] = -INFINITY;
	begin(&h, PE_F32, 2, 4, 4, 0, 2, 0, 0);
	assert_cells(&h, 2, 2, 1, 1);
	pe_heatmap_rows(&h, v, 4);
	assert_true(isnan(pe_heatmap_mean(&h, 0, 0, 0)));
	assert_true(isinf(pe_heatmap_mean(&h, 0, 0, 1)) && pe_heatmap_mean(&h, 0, 0, 1) > 0);
	assert_true(isnan(pe_heatmap_mean(&h, 0, 1, 0)));
	assert_close(pe_heatmap_mean(&h, 0, 1, 1), 1, 0, 0);
	assert_close(h.min, 1, 0, 0);
	assert_close(h.max, 1, 0, 0);
	pe_heatmap_free(&h);
}

/* Integer blocks keep their most frequent id, ties to the one nearest the
 * block's centre: never a blend of ids. */
static void test_id_mode(void **state)
{
	static const int32_t v[16] = {
		3, 3, 5, 9,
		3, 7, 9, 9,
		1, 2, 4, 4,
		2, 1, 4, 6,
	};
	struct pe_heatmap h;

	(void)state;
	begin(&h, PE_I32, 2, 4, 4, 0, 2, 0, 0);
	assert_cells(&h, 2, 2, 1, 1);
	pe_heatmap_rows(&h, v, 2);
	pe_heatmap_rows(&h, v + 8, 2);
	assert_int_equal(pe_heatmap_id(&h, 0, 0, 0), 3);
	assert_int_equal(pe_heatmap_id(&h, 0, 0, 1), 9);
	assert_int_equal(pe_heatmap_id(&h, 0, 1, 1), 4);
	/* 1 and 2 twice each, all four cells equally far from the centre:
	 * the smaller */
	assert_int_equal(pe_heatmap_id(&h, 0, 1, 0), 1);
	assert_close(h.min, 1, 0, 0);
	assert_close(h.max, 9, 0, 0);
	pe_heatmap_free(&h);
}

/* H panels: the grid nearest to square, each panel's cells its own. */
static void test_panels(void **state)
{
	struct pe_heatmap h;
	float v[2 * 2 * 2] = { 1, 2, 3, 4, 10, 20, 30, 40 };

	(void)state;
	begin(&h, PE_F32, 3, 12, 64, 64, 0, 0, 0);
	assert_int_equal(h.nc, 4);
	assert_int_equal(h.nr, 3);
	/* 4 panels along the longer side share 512: 128 a panel */
	assert_cells(&h, 64, 64, 2, 2);
	pe_heatmap_free(&h);
	begin(&h, PE_F32, 3, 2, 2, 2, 0, 0, 0);
	assert_int_equal(h.nc * h.nr >= 2, 1);
	pe_heatmap_rows(&h, v, 4);
	assert_close(pe_heatmap_mean(&h, 0, 1, 1), 4, 0, 0);
	assert_close(pe_heatmap_mean(&h, 1, 0, 1), 20, 0, 0);
	pe_heatmap_free(&h);
}

/* Refusals name what is wrong. */
static void test_refused(void **state)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_heatmap h;
	struct pe_tensor t;
	uint64_t shape[3] = { 1025, 2, 2 };
	struct pe_heatmap_geom g = { .size = 2 };

	(void)state;
	memset(&h, 0, sizeof h);
	assert_int_equal(pe_tensor_init(&t, "t", PE_F32, no_fill, NULL, 0, 3, shape, &err), 0);
	assert_int_equal(pe_heatmap_shape(&h, &t, &err), -1);
	assert_non_null(strstr(err.msg, "at most 1024 heads"));
	pe_heatmap_free(&h);
	shape[0] = 12;
	assert_int_equal(pe_tensor_init(&t, "t", PE_F32, no_fill, NULL, 0, 3, shape, &err), 0);
	assert_int_equal(pe_heatmap_shape(&h, &t, &err), 0);
	assert_int_equal(pe_heatmap_begin(&h, &g, &err), -1);
	assert_non_null(strstr(err.msg, "need {size} 4 or more"));
	pe_heatmap_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_block_means),
		cmocka_unit_test(test_nonfinite),
		cmocka_unit_test(test_id_mode),
		cmocka_unit_test(test_panels),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
