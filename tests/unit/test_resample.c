/*
 * Resampling against closed forms: constant grids stay constant, bilinear
 * reproduces a linear ramp at its source coordinates (exact coordinates:
 * to the last bit of the double sum), every mode is the identity on an
 * unchanged grid, PyTorch's float32 'nearest' rule where it departs from
 * floor(i in/out), Keys' weights at a known fraction, antialias weights
 * that sum to one, prefix rows copied, and the shape checks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/resample.h"
#include "testutil.h"

/* a table of k prefix rows and an h x w grid of d channels, f(row, y, x, c) */
static void make(struct pe_matrix *m, uint64_t k, uint64_t h, uint64_t w, uint64_t d,
		 double (*f)(uint64_t, uint64_t, uint64_t, uint64_t))
{
	struct pe_error err;
	uint64_t r, c;

	assert_int_equal(pe_matrix_alloc(m, k + h * w, d, &err), 0);
	for (r = 0; r < k + h * w; r++)
		for (c = 0; c < d; c++)
			m->v[r * d + c] = r < k ? (float)(-1.0 - (double)(r * d + c))
						: (float)f(r, (r - k) / w, (r - k) % w, c);
}

static float *run(const struct pe_matrix *m, const struct pe_resample_params *p)
{
	struct pe_resample r;
	struct pe_error err;
	uint64_t rows = p->prefix + p->h2 * p->w2;
	float *out = malloc((size_t)(rows * m->cols) * sizeof *out);

	assert_non_null(out);
	assert_int_equal(pe_resample_init(&r, p, m, &err), 0);
	assert_int_equal(pe_resample_fill(&r, 0, (size_t)rows, out, &err), 0);
	pe_resample_free(&r);
	return out;
}

static double constant(uint64_t r, uint64_t y, uint64_t x, uint64_t c)
{
	(void)r, (void)y, (void)x;
	return 0.3 + (double)c;
}

static double ramp(uint64_t r, uint64_t y, uint64_t x, uint64_t c)
{
	(void)r;
	return 0.25 * (double)y - 0.5 * (double)x + (double)c;
}

static double noise(uint64_t r, uint64_t y, uint64_t x, uint64_t c)
{
	(void)y, (void)x;
	return sin((double)(r * 7 + c * 13)) * 3;
}

static const uint64_t grids[][4] = { { 14, 14, 16, 16 }, { 14, 14, 37, 37 }, { 16, 16, 12, 12 },
				     { 24, 24, 7, 7 },	 { 7, 10, 9, 13 },   { 3, 8, 11, 2 },
				     { 1, 5, 4, 1 } };

static void test_constant(void **state)
{
	struct pe_resample_params p;
	struct pe_matrix m;
	size_t g, i, mode, aa;
	float *o;

	(void)state;
	for (g = 0; g < sizeof grids / sizeof grids[0]; g++) {
		make(&m, 1, grids[g][0], grids[g][1], 3, constant);
		for (mode = 0; mode < 3; mode++)
			for (aa = 0; aa < (mode == PE_INTERP_NEAREST ? 1u : 2u); aa++) {
				p = (struct pe_resample_params){ grids[g][0], grids[g][1], grids[g][2],
								 grids[g][3], 1, (enum pe_interp)mode,
								 (int)aa, PE_COORDS_EXACT };
				o = run(&m, &p);
				/* the weights sum to 1 (exactly, but for the
				 * double roundings): the constant comes back */
				for (i = 3; i < (1 + grids[g][2] * grids[g][3]) * 3; i++)
					assert_true(o[i] == (float)(0.3 + (double)(i % 3)));
				free(o);
				/* ATen's float32 weights: Keys' cubic evaluated in
				 * float32 cancels terms up to 8, so each weight is
				 * within 2^-21, their sum within 2^-19 an axis */
				p.coords = PE_COORDS_PYTORCH;
				o = run(&m, &p);
				for (i = 3; i < (1 + grids[g][2] * grids[g][3]) * 3; i++)
					assert_close(o[i], 0.3 + (double)(i % 3), 0, 0x1p-18);
				free(o);
			}
		pe_matrix_free(&m);
	}
}

/* bilinear reproduces a linear function at the clamped source coordinate
 * (i + 1/2) in/out - 1/2 */
static void test_ramp(void **state)
{
	struct pe_resample_params p;
	struct pe_matrix m;
	size_t g, y, x, c;
	double sy, sx, want;
	float *o;

	(void)state;
	for (g = 0; g < sizeof grids / sizeof grids[0]; g++) {
		make(&m, 0, grids[g][0], grids[g][1], 2, ramp);
		p = (struct pe_resample_params){ grids[g][0], grids[g][1], grids[g][2], grids[g][3],
						 0, PE_INTERP_BILINEAR, 0, PE_COORDS_EXACT };
		o = run(&m, &p);
		for (y = 0; y < grids[g][2]; y++)
			for (x = 0; x < grids[g][3]; x++)
				for (c = 0; c < 2; c++) {
					sy = ((double)y + 0.5) * (double)grids[g][0] / (double)grids[g][2] - 0.5;
					sx = ((double)x + 0.5) * (double)grids[g][1] / (double)grids[g][3] - 0.5;
					sy = fmin(fmax(sy, 0), (double)grids[g][0] - 1);
					sx = fmin(fmax(sx, 0), (double)grids[g][1] - 1);
					want = 0.25 * sy - 0.5 * sx + (double)c;
					assert_close(o[(y * grids[g][3] + x) * 2 + c], want, 1e-6, 1e-7);
				}
		free(o);
		pe_matrix_free(&m);
	}
}

/* the same grid: every mode and coordinate rule gives the input back */
static void test_identity(void **state)
{
	struct pe_resample_params p;
	struct pe_matrix m;
	size_t mode, aa, coords;
	float *o;

	(void)state;
	make(&m, 2, 5, 7, 4, noise);
	for (mode = 0; mode < 3; mode++)
		for (aa = 0; aa < (mode == PE_INTERP_NEAREST ? 1u : 2u); aa++)
			for (coords = 0; coords < 2; coords++) {
				p = (struct pe_resample_params){ 5, 7, 5, 7, 2, (enum pe_interp)mode, (int)aa,
								 (enum pe_coords)coords };
				o = run(&m, &p);
				assert_memory_equal(o, m.v, (size_t)(m.rows * m.cols) * sizeof *o);
				free(o);
			}
	pe_matrix_free(&m);
}

/* PyTorch's nearest: floor(fl(i * fl(in/out))), which is not floor(i in/out)
 * at 2 -> 82, i = 41 (fl(2/82) * 41 rounds below 1) and 6 -> 74, i = 37;
 * torch 2.13.0's F.interpolate(mode='nearest') gives these indices */
static void test_nearest_rule(void **state)
{
	const uint64_t want16[] = { 0, 0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 11, 12, 13 };
	struct pe_taps t;
	struct pe_error err;
	size_t i;

	(void)state;
	assert_int_equal(pe_taps_init(&t, 14, 16, PE_INTERP_NEAREST, 0, PE_COORDS_PYTORCH, &err), 0);
	for (i = 0; i < 16; i++) {
		assert_int_equal(t.n[i], 1);
		assert_int_equal(t.idx[i], want16[i]);
		assert_true(t.w[i] == 1.0);
	}
	pe_taps_free(&t);
	assert_int_equal(pe_taps_init(&t, 2, 82, PE_INTERP_NEAREST, 0, PE_COORDS_PYTORCH, &err), 0);
	assert_int_equal(t.idx[40], 0);
	assert_int_equal(t.idx[41], 0);	/* floor(41 * 2/82) = 1 */
	assert_int_equal(t.idx[42], 1);
	pe_taps_free(&t);
	assert_int_equal(pe_taps_init(&t, 6, 74, PE_INTERP_NEAREST, 0, PE_COORDS_PYTORCH, &err), 0);
	assert_int_equal(t.idx[37], 2);	/* floor(37 * 6/74) = 3 */
	pe_taps_free(&t);
	/* nearest has no antialias */
	assert_int_equal(pe_taps_init(&t, 6, 3, PE_INTERP_NEAREST, 1, PE_COORDS_PYTORCH, &err), -1);
	pe_taps_free(&t);
}

/* Keys' weights at t = 1/4 (14 -> 24... here 2 -> 4, output 1: source
 * 1.5 * 2/4 - 0.5 = 0.25): A = -0.75 gives -0.10546875, 0.87890625,
 * 0.26171875, -0.03515625 (exact in binary), taps -1, 0, 1, 2 clamped */
static void test_keys(void **state)
{
	const double w[4] = { -0.10546875, 0.87890625, 0.26171875, -0.03515625 };
	struct pe_taps t;
	struct pe_error err;
	size_t k, c;

	(void)state;
	for (c = 0; c < 2; c++) {
		assert_int_equal(pe_taps_init(&t, 2, 4, PE_INTERP_BICUBIC, 0, (enum pe_coords)c, &err), 0);
		assert_int_equal(t.n[1], 4);
		for (k = 0; k < 4; k++)
			assert_true(t.w[1 * t.max + k] == w[k]);
		assert_int_equal(t.idx[t.max + 0], 0);
		assert_int_equal(t.idx[t.max + 1], 0);
		assert_int_equal(t.idx[t.max + 2], 1);
		assert_int_equal(t.idx[t.max + 3], 1);
		pe_taps_free(&t);
	}
}

/* antialias: normalised weights; shrinking 12 -> 4 spreads bicubic over
 * 2 * 2 * 3 + 1 cells at most, and the triangle over 3 * 2 + 1 */
static void test_antialias(void **state)
{
	struct pe_taps t;
	struct pe_error err;
	size_t o, k, c, mode;
	double s;

	(void)state;
	for (mode = 0; mode < 2; mode++)
		for (c = 0; c < 2; c++) {
			assert_int_equal(pe_taps_init(&t, 12, 4, (enum pe_interp)mode, 1, (enum pe_coords)c, &err), 0);
			for (o = 0; o < 4; o++) {
				s = 0;
				for (k = 0; k < t.n[o]; k++)
					s += t.w[o * t.max + k];
				assert_close(s, 1.0, 1e-6, 0);
				assert_true(t.n[o] <= (mode == PE_INTERP_BICUBIC ? 13u : 7u));
				assert_true(t.n[o] >= (mode == PE_INTERP_BICUBIC ? 7u : 4u));
			}
			pe_taps_free(&t);
		}
}

/* prefix rows come out as they went in, the shape is checked */
static void test_prefix_and_shape(void **state)
{
	struct pe_resample_params p = { 4, 4, 6, 3, 3, PE_INTERP_BICUBIC, 1, PE_COORDS_PYTORCH };
	struct pe_resample r;
	struct pe_matrix m;
	struct pe_error err;
	float *o;

	(void)state;
	make(&m, 3, 4, 4, 5, noise);
	o = run(&m, &p);
	assert_memory_equal(o, m.v, 3 * 5 * sizeof *o);
	free(o);
	p.h = 5;
	assert_int_equal(pe_resample_init(&r, &p, &m, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "a 5x4 grid after 3 prefix rows needs 23 rows, the table has 19 (a 4x4 grid would fit)");
	pe_resample_free(&r);
	p.h = 4;
	p.prefix = 19;
	assert_int_equal(pe_resample_init(&r, &p, &m, &err), -1);
	assert_string_equal(err.msg, "19 prefix rows, but the table has 19 rows: none left for the grid");
	pe_resample_free(&r);
	pe_matrix_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_nearest_rule),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_antialias),
		cmocka_unit_test(test_prefix_and_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
