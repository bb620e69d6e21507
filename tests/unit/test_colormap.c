/*
 * Colour maps: anchor colours from the published tables and control points
 * (bytes truncated as matplotlib's bytes=True), reversal, names, and
 * matplotlib's value-to-index rule at its edges.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "io/colormap.h"
#include "testutil.h"

struct anchor {
	const char *name;
	int index;
	unsigned char rgb[3];
};

/*
 * Expected bytes = floor(255 * c) of the published values:
 * viridis[0] (0.267004, 0.004874, 0.329415), viridis[255] (0.993248,
 * 0.906157, 0.143936); magma/inferno[0] (0.001462, 0.000466, 0.013866);
 * magma[255] (0.987053, 0.991438, 0.749504); coolwarm ends (0.2298057,
 * 0.298717966, 0.753683153) and (0.705673158, 0.01555616, 0.150232812);
 * RdBu ends #67001F and #053061 (ColorBrewer bytes, exact); gray 0 and 1.
 */
static const struct anchor anchors[] = {
	{ "viridis", 0, { 68, 1, 84 } },
	{ "viridis", 255, { 253, 231, 36 } },
	{ "magma", 0, { 0, 0, 3 } },
	{ "magma", 255, { 251, 252, 191 } },
	{ "inferno", 0, { 0, 0, 3 } },
	{ "coolwarm", 0, { 58, 76, 192 } },
	{ "coolwarm", 255, { 179, 3, 38 } },
	{ "rdbu", 0, { 103, 0, 31 } },
	{ "rdbu", 255, { 5, 48, 97 } },
	{ "rdbu_r", 0, { 5, 48, 97 } },
	{ "gray", 0, { 0, 0, 0 } },
	{ "gray", 255, { 255, 255, 255 } },
	{ "viridis_r", 0, { 253, 231, 36 } },
};

static void test_anchors(void **state)
{
	unsigned char lut[768];
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof anchors / sizeof anchors[0]; i++) {
		m = pe_colormap_by_name(anchors[i].name);
		assert_true(m >= 0);
		pe_colormap_lut(m, lut);
		if (memcmp(lut + 3 * anchors[i].index, anchors[i].rgb, 3) != 0)
			fail_msg("%s[%d] = (%u, %u, %u), expected (%u, %u, %u)", anchors[i].name,
				 anchors[i].index, lut[3 * anchors[i].index],
				 lut[3 * anchors[i].index + 1], lut[3 * anchors[i].index + 2],
				 anchors[i].rgb[0], anchors[i].rgb[1], anchors[i].rgb[2]);
	}
}

/* The listed maps' reversal is exact; gray's entries are monotone. */
static void test_reversed_and_monotone(void **state)
{
	static const char *const listed[] = { "viridis", "magma", "inferno", "plasma", "cividis" };
	unsigned char a[768], b[768];
	char name[32];
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "%s_r", listed[i]);
		pe_colormap_lut(pe_colormap_by_name(listed[i]), a);
		pe_colormap_lut(pe_colormap_by_name(name), b);
		for (k = 0; k < 256; k++)
			assert_memory_equal(a + 3 * k, b + 3 * (255 - k), 3);
	}
	pe_colormap_lut(pe_colormap_by_name("gray"), a);
	for (k = 1; k < 256; k++) {
		assert_true(a[3 * k] >= a[3 * (k - 1)]);
		assert_true(a[3 * k] == a[3 * k + 1] && a[3 * k] == a[3 * k + 2]);
	}
}

static void test_names(void **state)
{
	int i;

	(void)state;
	assert_int_equal(pe_colormap_by_name("viridis"), PE_CMAP_DEFAULT);
	assert_int_equal(pe_colormap_by_name("Viridis"), -1);
	assert_int_equal(pe_colormap_by_name("jet"), -1);
	assert_int_equal(pe_colormap_by_name(""), -1);
	assert_int_equal(pe_colormap_count(), 16);
	for (i = 0; i < pe_colormap_count(); i++)
		assert_int_equal(pe_colormap_by_name(pe_colormap_name(i)), i);
}

/* index = floor(256 x), 255 at x == 1, end colours outside, -1 for NaN. */
static void test_index_rule(void **state)
{
	(void)state;
	assert_int_equal(pe_colormap_index_f32(0.0f, 0.0f, 1.0f), 0);
	assert_int_equal(pe_colormap_index_f32(1.0f, 0.0f, 1.0f), 255);
	assert_int_equal(pe_colormap_index_f32(0.5f, 0.0f, 1.0f), 128);
	assert_int_equal(pe_colormap_index_f32(0.00390625f, 0.0f, 1.0f), 1);	/* 1/256 */
	assert_int_equal(pe_colormap_index_f32(0.0039f, 0.0f, 1.0f), 0);
	assert_int_equal(pe_colormap_index_f32(0.999f, 0.0f, 1.0f), 255);
	assert_int_equal(pe_colormap_index_f32(-0.001f, 0.0f, 1.0f), 0);
	assert_int_equal(pe_colormap_index_f32(7.0f, 0.0f, 1.0f), 255);
	assert_int_equal(pe_colormap_index_f32(INFINITY, 0.0f, 1.0f), 255);
	assert_int_equal(pe_colormap_index_f32(-INFINITY, 0.0f, 1.0f), 0);
	assert_int_equal(pe_colormap_index_f32(NAN, 0.0f, 1.0f), -1);
	/* -1..1: 0 is the middle, index 128 */
	assert_int_equal(pe_colormap_index_f32(0.0f, -1.0f, 2.0f), 128);
	assert_int_equal(pe_colormap_index_f64(5.0, 0.0, 10.0), 128);
	assert_int_equal(pe_colormap_index_f64(10.0, 0.0, 10.0), 255);
	assert_int_equal(pe_colormap_index_f64(-3.0, 0.0, 10.0), 0);
	assert_int_equal(pe_colormap_index_f64(NAN, 0.0, 10.0), -1);
	/* float32 arithmetic: (v - vmin) is rounded to float before dividing */
	assert_int_equal(pe_colormap_index_f32(0.1f, -0.9f, 2.0f), 128);
}

/*
 * Resampling into n colours, as plt.get_cmap(name, n).  Listed maps take
 * the 256-entry table at floor(256 * np.linspace(0, 1, n)[i]): for n = 99
 * numpy's linspace puts i = 49 at 0.49999999999999994 (entry 127), exact
 * fractions would give 128.  Segmented maps are interpolated again: gray
 * in 5 is floor(255 * (0, .25, .5, .75, 1)); coolwarm in 33 hits its 33
 * published control points (the middle one 0.865395197, 0.86541021,
 * 0.865395561 -> 220 220 220), rdbu in 11 its 11 ColorBrewer colours
 * (#F7F7F7 in the middle); one colour is the first.
 */
static void test_resampled(void **state)
{
	static const unsigned char gray5[5] = { 0, 63, 127, 191, 255 };
	unsigned char lut[768], rgb[3];
	int v = pe_colormap_by_name("viridis"), i;
	uint64_t n, k;

	(void)state;
	pe_colormap_lut(v, lut);
	pe_colormap_resampled(v, 99, 49, rgb);
	assert_memory_equal(rgb, lut + 3 * 127, 3);
	pe_colormap_resampled(v, 99, 50, rgb);
	assert_memory_equal(rgb, lut + 3 * 130, 3);	/* floor(256 * 50 / 98) */
	pe_colormap_resampled(v, 1, 0, rgb);
	assert_memory_equal(rgb, lut, 3);
	/* ends are the end colours, and 256 colours are the table itself,
	 * for every map (segmented ones through their own arithmetic) */
	for (i = 0; i < pe_colormap_count(); i++) {
		pe_colormap_lut(i, lut);
		for (n = 2; n <= 300; n += 7) {
			pe_colormap_resampled(i, n, 0, rgb);
			assert_memory_equal(rgb, lut, 3);
			pe_colormap_resampled(i, n, n - 1, rgb);
			assert_memory_equal(rgb, lut + 765, 3);
		}
		for (k = 0; k < 256; k++) {
			pe_colormap_resampled(i, 256, k, rgb);
			assert_memory_equal(rgb, lut + 3 * k, 3);
		}
	}
	for (k = 0; k < 5; k++) {
		pe_colormap_resampled(pe_colormap_by_name("gray"), 5, k, rgb);
		assert_true(rgb[0] == gray5[k] && rgb[1] == gray5[k] && rgb[2] == gray5[k]);
	}
	pe_colormap_resampled(pe_colormap_by_name("coolwarm"), 33, 16, rgb);
	assert_true(rgb[0] == 220 && rgb[1] == 220 && rgb[2] == 220);
	pe_colormap_resampled(pe_colormap_by_name("rdbu"), 11, 5, rgb);
	assert_true(rgb[0] == 247 && rgb[1] == 247 && rgb[2] == 247);
	pe_colormap_resampled(pe_colormap_by_name("rdbu_r"), 11, 0, rgb);
	assert_true(rgb[0] == 5 && rgb[1] == 48 && rgb[2] == 97);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anchors),
		cmocka_unit_test(test_reversed_and_monotone),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_index_rule),
		cmocka_unit_test(test_resampled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
