/*
 * 2-D sin/cos grids: the MAE D = 4, grid 2 golden table (research notes
 * section 8), timm's channel order, non-square grids against the closed
 * form in long double (1 ulp), the per-coordinate table against values
 * computed one by one, and the divisibility error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grid2d.h"
#include "testutil.h"

static float *fill(const struct pe_grid2d_params *p, struct pe_grid2d *g, struct pe_tensor *t)
{
	struct pe_error err;
	float *v;

	assert_int_equal(pe_grid2d_init(g, p, &err), 0);
	assert_int_equal(pe_grid2d_tensor(g, t, &err), 0);
	v = malloc((size_t)(t->rows * t->cols) * sizeof *v);
	assert_non_null(v);
	assert_int_equal(t->fill(t->ctx, 0, (size_t)t->rows, v, &err), 0);
	return v;
}

static void test_mae_golden(void **state)
{
	/* cls row, then (r, c) = (0,0), (0,1), (1,0), (1,1): [sin c, cos c, sin r, cos r] */
	const float s1 = (float)sin(1.0), c1 = (float)cos(1.0);
	const float want[5][4] = { { 0, 0, 0, 0 }, { 0, 1, 0, 1 }, { s1, c1, 0, 1 },
				   { 0, 1, s1, c1 }, { s1, c1, s1, c1 } };
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_tensor t;
	float *v;

	(void)state;
	pe_grid2d_defaults(&p);
	p.height = p.width = 2;
	p.dim = 4;
	p.cls_token = 1;
	v = fill(&p, &g, &t);
	assert_true(t.rows == 5 && t.cols == 4);
	assert_memory_equal(v, want, sizeof want);
	free(v);
	pe_grid2d_free(&g);
}

static void test_timm_order(void **state)
{
	const float s1 = (float)sin(1.0), c1 = (float)cos(1.0);
	/* token (0, 1): [sin r, sin c, cos r, cos c] */
	const float want[4] = { 0, s1, 1, c1 };
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_tensor t;
	float *v;

	(void)state;
	pe_grid2d_defaults(&p);
	p.preset = PE_GRID2D_TIMM;
	p.height = 2;
	p.width = 3;
	p.dim = 4;
	v = fill(&p, &g, &t);
	assert_true(t.rows == 6);
	assert_memory_equal(v + 4, want, sizeof want);
	free(v);
	pe_grid2d_free(&g);
}

/* a 5 x 7 grid, D = 16, both presets, against long double */
static void test_non_square(void **state)
{
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_tensor t;
	float *v;
	size_t r, c, k, q = 4;
	int preset;

	(void)state;
	for (preset = 0; preset < 2; preset++) {
		pe_grid2d_defaults(&p);
		p.preset = (enum pe_grid2d_preset)preset;
		p.height = 5;
		p.width = 7;
		p.dim = 16;
		v = fill(&p, &g, &t);
		assert_true(t.rows == 35);
		for (r = 0; r < 5; r++)
			for (c = 0; c < 7; c++) {
				const float *o = v + (r * 7 + c) * 16;

				for (k = 0; k < q; k++) {
					long double w = powl(10000.0L, -(long double)k / (long double)q);
					long double a = preset == 0 ? (long double)c : (long double)r;
					long double b = preset == 0 ? (long double)r : (long double)c;

					if (preset == 0) {
						assert_true(pe_ulp_diff(o[k], (float)sinl(a * w)) <= 1);
						assert_true(pe_ulp_diff(o[q + k], (float)cosl(a * w)) <= 1);
						assert_true(pe_ulp_diff(o[2 * q + k], (float)sinl(b * w)) <= 1);
						assert_true(pe_ulp_diff(o[3 * q + k], (float)cosl(b * w)) <= 1);
					} else {
						assert_true(pe_ulp_diff(o[k], (float)sinl(a * w)) <= 1);
						assert_true(pe_ulp_diff(o[q + k], (float)sinl(b * w)) <= 1);
						assert_true(pe_ulp_diff(o[2 * q + k], (float)cosl(a * w)) <= 1);
						assert_true(pe_ulp_diff(o[3 * q + k], (float)cosl(b * w)) <= 1);
					}
				}
			}
		free(v);
		pe_grid2d_free(&g);
	}
}

/* The rows copied from the per-coordinate table are the values computed
 * one by one (the path for sides too long for the table), both presets,
 * with a cls token, on a grid whose sides differ. */
static void test_axis_table_same_bytes(void **state)
{
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_tensor t;
	struct pe_error err;
	float *v, *w;
	int preset;

	(void)state;
	for (preset = 0; preset < 2; preset++) {
		pe_grid2d_defaults(&p);
		p.preset = preset ? PE_GRID2D_TIMM : PE_GRID2D_MAE;
		p.height = 37;
		p.width = 300;
		p.dim = 256;
		p.cls_token = 1;
		v = fill(&p, &g, &t);
		assert_non_null(g.axis);
		free(g.axis);
		g.axis = NULL;
		w = malloc((size_t)(t.rows * t.cols) * sizeof *w);
		assert_non_null(w);
		assert_int_equal(t.fill(t.ctx, 0, (size_t)t.rows, w, &err), 0);
		assert_memory_equal(v, w, (size_t)(t.rows * t.cols) * sizeof *v);
		free(v);
		free(w);
		pe_grid2d_free(&g);
	}
}

static void test_bad_dim(void **state)
{
	struct pe_grid2d_params p;
	struct pe_grid2d g;
	struct pe_error err;

	(void)state;
	pe_grid2d_defaults(&p);
	p.dim = 6;
	assert_int_equal(pe_grid2d_init(&g, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "divisible by 4"));
	assert_non_null(strstr(err.msg, "got 6"));
	pe_grid2d_free(&g);
	p.dim = 8;
	p.width = 0;
	assert_int_equal(pe_grid2d_init(&g, &p, &err), -1);
	pe_grid2d_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mae_golden),
		cmocka_unit_test(test_timm_order),
		cmocka_unit_test(test_non_square),
		cmocka_unit_test(test_axis_table_same_bytes),
		cmocka_unit_test(test_bad_dim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
