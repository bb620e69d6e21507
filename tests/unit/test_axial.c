/*
 * Axial RoPE and patch grids: the worked cases of the research notes
 * (rope-2026.md section C: Pixtral, Qwen2-VL's merge order, Llama 4's
 * 1-based coordinates and class token, FLUX's, Wan's and HunyuanVideo's
 * frequencies, RoPE-ViT), every table against closed forms in long
 * double, the rows copied from the per-coordinate values against the
 * values computed where they are written, the float32 recipe's pieces
 * (torch.polar is glibc's cosf) and the parameter errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/axial.h"
#include "testutil.h"

static void *fill_all(const struct pe_tensor *t)
{
	struct pe_error err;
	void *v = malloc((size_t)(t->rows * t->cols) * 4);

	assert_non_null(v);
	assert_int_equal(t->fill(t->ctx, 0, (size_t)t->rows, v, &err), 0);
	return v;
}

static float *table(struct pe_axial *ax, enum pe_axial_table which, struct pe_tensor *t)
{
	struct pe_error err;

	assert_int_equal(pe_axial_tensor(ax, which, t, &err), 0);
	return fill_all(t);
}

static void init_ok(struct pe_axial *ax, const struct pe_axial_params *p)
{
	struct pe_error err;

	if (pe_axial_init(ax, p, &err) != 0)
		fail_msg("pe_axial_init: %s", err.msg);
}

static void preset(struct pe_axial_params *p, enum pe_axial_preset which, uint64_t dim)
{
	struct pe_error err;

	pe_axial_defaults(p);
	if (pe_axial_preset(p, which, dim, &err) != 0)
		fail_msg("pe_axial_preset: %s", err.msg);
}

/* ---- grids ---- */

static void test_grid_orders(void **state)
{
	/* Qwen2-VL, grid (4, 6), merge 2: the first 8 tokens (notes C.2) */
	static const uint64_t first8[8][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 },
					       { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 } };
	struct pe_grid g = { 2, 4, 6, 2, 3, 1 };
	struct pe_error err;
	uint64_t c[3], r, n = 0, seen[2 * 4 * 6] = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(pe_grid_check(&g, &err), 0);
	assert_true(pe_grid_cells(&g) == 48 && pe_grid_tokens(&g) == 52);
	for (i = 0; i < 8; i++) {
		assert_int_equal(pe_grid_cell(&g, 3 + i, c), 1);
		assert_true(c[0] == 0 && c[1] == first8[i][0] && c[2] == first8[i][1]);
	}
	/* the second frame repeats the first's order */
	assert_int_equal(pe_grid_cell(&g, 3 + 24 + 5, c), 1);
	assert_true(c[0] == 1 && c[1] == 0 && c[2] == 3);
	assert_int_equal(pe_grid_cell(&g, 2, c), 0);	/* prefix */
	assert_int_equal(pe_grid_cell(&g, 51, c), 0);	/* suffix */
	/* every cell once, and its row back */
	for (r = 0; r < 52; r++) {
		if (!pe_grid_cell(&g, r, c))
			continue;
		assert_true(pe_grid_row(&g, c[0], c[1], c[2]) == r);
		seen[(c[0] * 4 + c[1]) * 6 + c[2]]++;
		n++;
	}
	assert_true(n == 48);
	for (i = 0; i < 48; i++)
		assert_true(seen[i] == 1);
	/* raster */
	g.merge = 1;
	assert_int_equal(pe_grid_cell(&g, 3 + 7, c), 1);
	assert_true(c[0] == 0 && c[1] == 1 && c[2] == 1);
	/* not divisible into merge blocks */
	g.merge = 4;
	assert_int_equal(pe_grid_check(&g, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "{grid} 4x6 is not divisible into {merge} 4 x 4 blocks"));
}

static void test_grid_parse(void **state)
{
	struct pe_grid g = { 0 };
	int nd;

	(void)state;
	assert_int_equal(pe_grid_parse("14x15", &g, &nd), 0);
	assert_true(nd == 2 && g.t == 1 && g.h == 14 && g.w == 15);
	assert_int_equal(pe_grid_parse("3x4x5", &g, &nd), 0);
	assert_true(nd == 3 && g.t == 3 && g.h == 4 && g.w == 5);
	assert_int_equal(pe_grid_parse("14", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("0x4", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("2x3x4x5", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("4x", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("x4", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("4x-4", &g, &nd), -1);
	assert_int_equal(pe_grid_parse("4x67108865", &g, &nd), -1);	/* 2^26 + 1 */
	assert_int_equal(pe_grid_parse("4x67108864", &g, &nd), 0);
}

/* ---- the worked cases ---- */

static void expect_angles(const float *row, const double *want, size_t n, int interleaved)
{
	size_t j;

	for (j = 0; j < n; j++) {
		float a = interleaved ? row[2 * j] : row[j];
		float b = interleaved ? row[2 * j + 1] : row[j + n];

		assert_true(a == (float)want[j] && b == (float)want[j]);
	}
}

static void test_pixtral(void **state)
{
	/* D 8, theta 1e4, 4 x 4: freqs [1, 0.1, 0.01, 0.001], rows the even,
	 * columns the odd; patch (1, 2) has angles [1, 0.01, 0.2, 0.002] and
	 * cos [0.5403023, 0.99995, 0.9800666, 0.999998] */
	static const double inv[4] = { 1, 0.01, 0.1, 0.001 };
	static const double ang[4] = { 1, 0.01, 0.2, 0.002 };
	static const float cos6[4] = { 0.5403023f, 0.99995f, 0.9800666f, 0.999998f };
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v;
	size_t j;

	(void)state;
	preset(&p, PE_AXIAL_PIXTRAL, 8);
	p.grid.h = p.grid.w = 4;
	init_ok(&ax, &p);
	assert_true(ax.rows == 16);
	v = table(&ax, PE_AXIAL_INV_FREQ, &t);
	assert_true(t.ndim == 1 && t.rows == 4);
	for (j = 0; j < 4; j++)
		assert_true(v[j] == (float)inv[j]);
	free(v);
	v = table(&ax, PE_AXIAL_ANGLES, &t);
	expect_angles(v + 6 * 8, ang, 4, 0);
	free(v);
	v = table(&ax, PE_AXIAL_COS, &t);
	assert_memory_equal(v + 6 * 8, cos6, sizeof cos6);
	assert_memory_equal(v + 6 * 8 + 4, cos6, sizeof cos6);	/* cat(x, x) */
	free(v);
	pe_axial_free(&ax);
}

static void test_qwen2_vl(void **state)
{
	/* D 8: inv [1, 0.01] for both; cell (1, 2) turns by [1, 0.01, 2, 0.02] */
	static const double ang[4] = { 1, 0.01, 2, 0.02 };
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	int32_t *id;
	float *v;
	uint64_t r;

	(void)state;
	preset(&p, PE_AXIAL_QWEN2_VL, 8);
	p.grid.h = 4;
	p.grid.w = 6;
	init_ok(&ax, &p);
	id = (int32_t *)table(&ax, PE_AXIAL_IDS, &t);
	assert_true(t.dtype == PE_I32 && t.cols == 2 && t.rows == 24);
	assert_true(id[2 * 2] == 1 && id[2 * 2 + 1] == 0);	/* token 2: (1, 0) */
	assert_true(id[2 * 6] == 1 && id[2 * 6 + 1] == 2);	/* token 6: (1, 2) */
	free(id);
	r = pe_grid_row(&p.grid, 0, 1, 2);
	assert_true(r == 6);
	v = table(&ax, PE_AXIAL_ANGLES, &t);
	expect_angles(v + r * 8, ang, 4, 0);
	free(v);
	pe_axial_free(&ax);
}

static void test_llama4(void **state)
{
	/* D 8, side 3: rope_freq [1, 0.01]; id 1 (x 1, y 0) turns by
	 * [2, 0.02, 1, 0.01], id 4 (1, 1) by [2, 0.02, 2, 0.02]; the class
	 * token last, by 0 */
	static const double a1[4] = { 2, 0.02, 1, 0.01 }, a4[4] = { 2, 0.02, 2, 0.02 };
	static const float cls[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v;
	size_t j;

	(void)state;
	preset(&p, PE_AXIAL_LLAMA4, 8);
	p.grid.h = p.grid.w = 3;
	init_ok(&ax, &p);
	assert_true(ax.rows == 10);
	v = table(&ax, PE_AXIAL_ANGLES, &t);
	expect_angles(v + 1 * 8, a1, 4, 1);
	expect_angles(v + 4 * 8, a4, 4, 1);
	free(v);
	v = table(&ax, PE_AXIAL_CIS, &t);
	for (j = 0; j < 4; j++) {
		assert_true(v[8 + 2 * j] == (float)cos(a1[j]));
		assert_true(v[8 + 2 * j + 1] == (float)sin(a1[j]));
	}
	assert_memory_equal(v + 9 * 8, cls, sizeof cls);
	free(v);
	pe_axial_free(&ax);
}

static void test_flux(void **state)
{
	/* axis 0: 1, 0.3162278, 0.1, ...; axes 1 and 2: 1, 0.7196857,
	 * 0.5179474, ..., 1.3894953e-4; token (r 1, c 2): axis 1's first pair
	 * turns by 1, axis 2's by 2 */
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v;

	(void)state;
	preset(&p, PE_AXIAL_FLUX, 0);
	p.grid.h = p.grid.w = 4;
	p.grid.prefix = 2;
	init_ok(&ax, &p);
	v = table(&ax, PE_AXIAL_INV_FREQ, &t);
	assert_true(t.rows == 64);
	assert_close(v[1], 0.3162278, 1e-7, 0);
	assert_close(v[2], 0.1, 1e-8, 0);
	assert_true(v[8] == 1.0f && v[36] == 1.0f);
	assert_close(v[9], 0.7196857, 1e-7, 0);
	assert_close(v[10], 0.5179474, 1e-7, 0);
	/* the notes' 1.3894953e-4 is the float32 pipeline's, an ulp (1.5e-11)
	 * below 10000^(-54/56) = 1.3894954943731e-4 rounded */
	assert_true(v[35] == (float)1.3894954943731e-4);
	free(v);
	v = table(&ax, PE_AXIAL_ANGLES, &t);
	assert_true(t.rows == 18);
	assert_true(v[(2 + 6) * 128 + 16] == 1.0f && v[(2 + 6) * 128 + 72] == 2.0f);
	assert_true(v[(2 + 6) * 128 + 0] == 0.0f);	/* t = 0 */
	free(v);
	pe_axial_free(&ax);
	p.precision = PE_AXIAL_FLOAT32;
	p.torch.cpu = PE_TORCH_AVX2;
	init_ok(&ax, &p);
	v = table(&ax, PE_AXIAL_INV_FREQ, &t);
	assert_true(v[35] == 1.3894953e-4f);
	free(v);
	pe_axial_free(&ax);
	p.precision = PE_AXIAL_EXACT;
	init_ok(&ax, &p);
	/* text tokens (prefix) do not turn: BFL's pe [[1, -0], [0, 1]] */
	v = table(&ax, PE_AXIAL_ROT, &t);
	assert_true(t.cols == 256);
	assert_true(v[0] == 1.0f && v[1] == 0.0f && signbit(v[1]) && v[2] == 0.0f && v[3] == 1.0f);
	free(v);
	pe_axial_free(&ax);
}

static void test_wan_hunyuan(void **state)
{
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v;

	(void)state;
	/* Wan, D 128: blocks 44, 42, 42; t 1, 0.6579332, 0.4328761, ...,
	 * 1.5199e-4 (22); h 1, 0.6449467, 0.4159562, ..., 1.5505e-4 (21) */
	preset(&p, PE_AXIAL_WAN, 0);
	assert_true(p.axis_dim[0] == 44 && p.axis_dim[1] == 42 && p.axis_dim[2] == 42);
	p.grid.t = 2;
	p.grid.h = p.grid.w = 3;
	init_ok(&ax, &p);
	v = table(&ax, PE_AXIAL_INV_FREQ, &t);
	assert_close(v[1], 0.6579332, 1e-7, 0);
	assert_close(v[2], 0.4328761, 1e-7, 0);
	assert_close(v[21], 1.5199e-4, 1e-8, 0);
	assert_true(v[22] == 1.0f);
	assert_close(v[23], 0.6449467, 1e-7, 0);
	assert_close(v[24], 0.4159562, 1e-7, 0);
	assert_close(v[42], 1.5505e-4, 1e-8, 0);
	free(v);
	pe_axial_free(&ax);
	/* HunyuanVideo: theta 256; t 1, 0.5, 0.25, 0.125; h 1, 0.8203354, 0.6729501 */
	preset(&p, PE_AXIAL_HUNYUAN, 0);
	p.grid.t = 2;
	init_ok(&ax, &p);
	v = table(&ax, PE_AXIAL_INV_FREQ, &t);
	assert_true(v[1] == 0.5f && v[2] == 0.25f && v[3] == 0.125f);
	assert_close(v[9], 0.8203354, 1e-7, 0);
	assert_close(v[10], 0.6729501, 1e-7, 0);
	free(v);
	pe_axial_free(&ax);
}

static void test_rope_vit(void **state)
{
	/* D 8, theta 100, W 4: f [1, 0.1]; token 6 is (x 2, y 1) and turns by
	 * [2, 0.2, 1, 0.1] */
	static const double ang[4] = { 2, 0.2, 1, 0.1 };
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v;

	(void)state;
	preset(&p, PE_AXIAL_ROPE_VIT, 8);
	p.grid.h = 3;
	p.grid.w = 4;
	init_ok(&ax, &p);
	v = table(&ax, PE_AXIAL_ANGLES, &t);
	expect_angles(v + 6 * 8, ang, 4, 1);
	free(v);
	pe_axial_free(&ax);
}

/* ---- every value against the closed form ---- */

/* A general form with three blocks of their own widths and thetas, an
 * origin, a scale, merge order, prefix and suffix tokens, both layouts:
 * cos, sin and angles within an ulp of long double, ids exact. */
static void test_closed_form(void **state)
{
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *vc, *vs, *va;
	int32_t *id;
	uint64_t r, c3[3];
	size_t a, k, col;
	int lay;

	(void)state;
	for (lay = 0; lay < 2; lay++) {
		pe_axial_defaults(&p);
		p.grid.t = 3;
		p.grid.h = 4;
		p.grid.w = 6;
		p.grid.merge = 2;
		p.grid.prefix = 2;
		p.grid.suffix = 1;
		p.naxes = 3;
		p.axis[0] = PE_AXIAL_X;
		p.axis[1] = PE_AXIAL_T;
		p.axis[2] = PE_AXIAL_Y;
		p.axis_dim[0] = 10;
		p.axis_dim[1] = 4;
		p.axis_dim[2] = 18;
		p.dim = 32;
		p.theta[0] = 100;
		p.theta[1] = 10000;
		p.theta[2] = 500000;
		p.origin[0] = -3;
		p.origin[1] = 7;
		p.origin[2] = 1;
		p.scale[0] = 0.75;
		p.scale[2] = 1.0 / 3.0;
		p.layout = lay ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
		init_ok(&ax, &p);
		vc = table(&ax, PE_AXIAL_COS, &t);
		vs = table(&ax, PE_AXIAL_SIN, &t);
		va = table(&ax, PE_AXIAL_ANGLES, &t);
		id = (int32_t *)table(&ax, PE_AXIAL_IDS, &t);
		assert_true(t.rows == 2 + 72 + 1 && t.cols == 3);
		for (r = 0; r < ax.rows; r++) {
			int in = pe_grid_cell(&p.grid, r, c3);
			size_t j = 0;

			for (a = 0; a < 3; a++) {
				long double c = in ? (long double)(p.origin[a] + (int64_t)c3[p.axis[a]]) : 0;

				assert_true(id[r * 3 + a] == (int32_t)c);
				for (k = 0; k < p.axis_dim[a] / 2; k++, j++) {
					long double w = powl((long double)p.theta[a],
							     -2.0L * (long double)k / (long double)p.axis_dim[a]);
					long double x = c * (long double)p.scale[a] * w;

					col = lay ? 2 * j : j;
					assert_true(pe_ulp_diff(vc[r * 32 + col], (float)cosl(x)) <= 1);
					assert_true(pe_ulp_diff(vs[r * 32 + col], (float)sinl(x)) <= 1);
					assert_true(pe_ulp_diff(va[r * 32 + col], (float)x) <= 1);
					col = lay ? 2 * j + 1 : j + 16;
					assert_true(vc[r * 32 + col] == vc[r * 32 + (lay ? 2 * j : j)]);
				}
			}
		}
		free(vc);
		free(vs);
		free(va);
		free(id);
		pe_axial_free(&ax);
	}
}

/* The rows copied from the per-coordinate values are the values computed
 * where they are written (the path of tables too large to cache, and of
 * SLEEF beyond 125), for every preset, exact and float32. */
static void test_cache_same_bytes(void **state)
{
	static const enum pe_axial_table tabs[] = { PE_AXIAL_COS, PE_AXIAL_SIN, PE_AXIAL_ANGLES,
						    PE_AXIAL_ROT };
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v, *w;
	struct pe_error err;
	int pr, prec;
	size_t i;

	(void)state;
	for (pr = 0; pr <= PE_AXIAL_ROPE_VIT; pr++)
		for (prec = 0; prec < 2; prec++) {
			preset(&p, (enum pe_axial_preset)pr, 0);
			p.grid.t = pr == PE_AXIAL_WAN || pr == PE_AXIAL_HUNYUAN ? 3 : 1;
			p.grid.h = 6;
			p.grid.w = 10;
			p.grid.prefix = 1;
			if (prec && pr == PE_AXIAL_WAN)
				continue;
			if (prec) {
				p.precision = PE_AXIAL_FLOAT32;
				p.torch.cpu = PE_TORCH_AVX2;
			}
			init_ok(&ax, &p);
			assert_int_equal(ax.cached, 1);
			for (i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
				v = table(&ax, tabs[i], &t);
				ax.cached = 0;
				w = malloc((size_t)(t.rows * t.cols) * sizeof *w);
				assert_non_null(w);
				assert_int_equal(t.fill(t.ctx, 0, (size_t)t.rows, w, &err), 0);
				ax.cached = 1;
				assert_memory_equal(v, w, (size_t)(t.rows * t.cols) * sizeof *v);
				free(v);
				free(w);
			}
			pe_axial_free(&ax);
		}
}

/* float32 with torch.polar (RoPE-ViT) is glibc's cosf and sinf of the
 * float32 angle fl(fl(c) inv), inv = 1 / pow(100, k / (D/4)) */
static void test_float32_polar(void **state)
{
	struct pe_axial_params p;
	struct pe_axial ax;
	struct pe_tensor t;
	float *v, *inv, a;
	uint64_t r;
	size_t k;

	(void)state;
	preset(&p, PE_AXIAL_ROPE_VIT, 0);
	p.precision = PE_AXIAL_FLOAT32;
	init_ok(&ax, &p);
	inv = table(&ax, PE_AXIAL_INV_FREQ, &t);
	v = table(&ax, PE_AXIAL_CIS, &t);
	assert_true(inv[0] == 1.0f && inv[16] == 1.0f);
	for (r = 0; r < 196; r++)
		for (k = 0; k < 32; k++) {
			float c = (float)(k < 16 ? r % 14 : r / 14);

			a = c * inv[k];
			assert_true(v[r * 64 + 2 * k] == pe_glibc_cosf(a));
			assert_true(v[r * 64 + 2 * k + 1] == pe_glibc_sinf(a));
		}
	free(v);
	free(inv);
	pe_axial_free(&ax);
}

/* FLUX in float32 (BFL's rope) against the exact table (diffusers' float64):
 * the float32 angle's rounding moves cos by up to 2.6e-6 along a 56-wide
 * axis at position 63 (notes C.5) */
static void test_flux_float32_gap(void **state)
{
	struct pe_axial_params p;
	struct pe_axial ex, f3;
	struct pe_tensor t;
	float *ve, *vf;
	double m = 0, d;
	size_t j, r = 63 * 64;	/* row 63, column 0 */

	(void)state;
	preset(&p, PE_AXIAL_FLUX, 0);
	p.grid.h = p.grid.w = 64;
	init_ok(&ex, &p);
	p.precision = PE_AXIAL_FLOAT32;
	p.torch.cpu = PE_TORCH_AVX2;
	init_ok(&f3, &p);
	ve = table(&ex, PE_AXIAL_COS, &t);
	vf = table(&f3, PE_AXIAL_COS, &t);
	for (j = 16; j < 72; j++) {
		d = fabs((double)ve[r * 128 + j] - (double)vf[r * 128 + j]);
		m = d > m ? d : m;
	}
	assert_close(m, 2.59e-6, 0.1e-6, 0);
	free(ve);
	free(vf);
	pe_axial_free(&ex);
	pe_axial_free(&f3);
}

static void expect_error(const struct pe_axial_params *p, const char *text)
{
	struct pe_axial ax;
	struct pe_error err;

	assert_int_equal(pe_axial_init(&ax, p, &err), -1);
	pe_axial_free(&ax);
	assert_int_equal(err.code, PE_ERR_PARAM);
	if (!strstr(err.msg, text))
		fail_msg("message '%s' lacks '%s'", err.msg, text);
}

static void test_errors(void **state)
{
	struct pe_axial_params p;
	struct pe_error err;

	(void)state;
	pe_axial_defaults(&p);
	p.axis_dim[1] = 30;
	expect_error(&p, "{axes_dim} 32,30 sums to 62, not the head dim {dim} 64");
	pe_axial_defaults(&p);
	p.axis_dim[0] = 31;
	p.axis_dim[1] = 33;
	expect_error(&p, "even widths");
	pe_axial_defaults(&p);
	p.freqs = PE_AXIAL_ALTERNATE;
	p.axis_dim[0] = 16;
	p.axis_dim[1] = 48;
	expect_error(&p, "must be equal");
	pe_axial_defaults(&p);
	p.freqs = PE_AXIAL_ALTERNATE;
	p.theta[1] = 100;
	expect_error(&p, "give one {theta}");
	pe_axial_defaults(&p);
	p.grid.merge = 4;
	expect_error(&p, "{grid} 14x14 is not divisible into {merge} 4 x 4 blocks");
	pe_axial_defaults(&p);
	p.theta[0] = 1e-30;
	expect_error(&p, "beyond 2^53");
	pe_axial_defaults(&p);
	p.scale[1] = 0;
	expect_error(&p, "{scale} must be a positive number");
	pe_axial_defaults(&p);
	p.origin[0] = ((int64_t)1 << 30) + 1;
	expect_error(&p, "{origin} must be within");
	/* a preset's split needs its head */
	pe_axial_defaults(&p);
	assert_int_equal(pe_axial_preset(&p, PE_AXIAL_FLUX, 64, &err), -1);
	assert_non_null(strstr(err.msg, "{dim} 64 needs its own {axes_dim}"));
	assert_int_equal(pe_axial_preset(&p, PE_AXIAL_PIXTRAL, 66, &err), -1);
	assert_non_null(strstr(err.msg, "{dim} must be divisible by 4, got 66"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_orders),
		cmocka_unit_test(test_grid_parse),
		cmocka_unit_test(test_pixtral),
		cmocka_unit_test(test_qwen2_vl),
		cmocka_unit_test(test_llama4),
		cmocka_unit_test(test_flux),
		cmocka_unit_test(test_wan_hunyuan),
		cmocka_unit_test(test_rope_vit),
		cmocka_unit_test(test_closed_form),
		cmocka_unit_test(test_cache_same_bytes),
		cmocka_unit_test(test_float32_polar),
		cmocka_unit_test(test_flux_float32_gap),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
