/*
 * core/skew against direct emulations of the buffer tricks written here
 * (allocate the padded buffer, flatten, reinterpret with another row
 * length, slice), which is how tensor2tensor, Music Transformer and
 * lucidrains compute them: bidirectional and causal, forward and inverse,
 * the causal --raw leftovers, broadcast rows, 2-D grids (per image row and
 * per image column, then the sum) on random inputs for L = 1..40; the
 * research notes' worked examples (a), (b), (c); round trips; index maps;
 * shape errors.  Comparisons are bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/skew.h"
#include "testutil.h"

#define MAXL 40

/* ---- the emulations (row-major buffers, pad values as given) ---- */

/* bidir forward: append a pad column (L x 2L), flatten, append L-1 pads,
 * view (L+1) x (2L-1), keep rows 0..L-1 and columns L-1..2L-2. */
static float *emu_bidir_fwd(const float *r, size_t L, float pad)
{
	size_t c2 = 2 * L - 1, n = (L + 1) * c2, i, k;
	float *buf = malloc(n * sizeof *buf), *a = malloc(L * L * sizeof *a);

	assert_true(buf && a);
	for (k = 0; k < n; k++)
		buf[k] = pad;
	for (i = 0; i < L; i++)	/* row i of the L x 2L padded matrix */
		memcpy(buf + i * 2 * L, r + i * c2, c2 * sizeof *buf);
	for (i = 0; i < L; i++)
		for (k = 0; k < L; k++)
			a[i * L + k] = buf[i * c2 + (L - 1) + k];
	free(buf);
	return a;
}

/* causal forward: prepend a pad column (L x (L+1)), view (L+1) x L, drop
 * the first row. */
static float *emu_causal_fwd(const float *r, size_t L, float pad)
{
	size_t n = L * (L + 1), i;
	float *buf = malloc(n * sizeof *buf), *a = malloc(L * L * sizeof *a);

	assert_true(buf && a);
	for (i = 0; i < L; i++) {
		buf[i * (L + 1)] = pad;
		memcpy(buf + i * (L + 1) + 1, r + i * L, L * sizeof *buf);
	}
	memcpy(a, buf + L, L * L * sizeof *a);	/* rows 1..L of the (L+1) x L view */
	free(buf);
	return a;
}

/* bidir inverse (t2t unmasked): append L-1 pad columns (L x (2L-1)),
 * flatten, prepend L pads, view L x 2L, drop the first column. */
static float *emu_bidir_inv(const float *a, size_t L, float pad)
{
	size_t c2 = 2 * L - 1, n = 2 * L * L, i, k;
	float *buf = malloc(n * sizeof *buf), *r = malloc(L * c2 * sizeof *r);

	assert_true(buf && r);
	for (k = 0; k < n; k++)
		buf[k] = pad;
	for (i = 0; i < L; i++)
		memcpy(buf + L + i * c2, a + i * L, L * sizeof *buf);
	for (i = 0; i < L; i++)
		for (k = 0; k < c2; k++)
			r[i * c2 + k] = buf[i * 2 * L + 1 + k];
	free(buf);
	return r;
}

/* causal inverse (t2t masked): prepend a pad row ((L+1) x L), view
 * L x (L+1), drop the first column. */
static float *emu_causal_inv(const float *a, size_t L, float pad)
{
	size_t n = (L + 1) * L, i, k;
	float *buf = malloc(n * sizeof *buf), *r = malloc(L * L * sizeof *r);

	assert_true(buf && r);
	for (k = 0; k < L; k++)
		buf[k] = pad;
	memcpy(buf + L, a, L * L * sizeof *buf);
	for (i = 0; i < L; i++)
		for (k = 0; k < L; k++)
			r[i * L + k] = buf[i * (L + 1) + 1 + k];
	free(buf);
	return r;
}

/* ---- helpers ---- */

static uint64_t seed = 20181212;

static float *random_matrix(size_t rows, size_t cols)
{
	float *v = malloc(rows * cols * sizeof *v);
	size_t k;

	assert_non_null(v);
	for (k = 0; k < rows * cols; k++)	/* nonzero, distinct: a pad cannot pass for a value */
		v[k] = (float)((double)(pe_test_rand(&seed) >> 11) / 9007199254740992.0 + 0.5);
	return v;
}

static struct pe_matrix wrap(float *v, uint64_t rows, uint64_t cols)
{
	struct pe_matrix m = { rows, cols, v };

	return m;
}

/* The whole result of s, filled at once; and row by row (as shards and
 * workers ask for it) must be the same bytes. */
static void *result(const struct pe_skew *s, struct pe_tensor *t)
{
	struct pe_error err;
	size_t esz, n, r;
	unsigned char *v, *w;

	assert_int_equal(pe_skew_tensor(s, "skew", t, &err), 0);
	assert_true(t->parallel);
	esz = pe_dtype_size(t->dtype);
	n = (size_t)(t->rows * t->cols);
	v = malloc(n * esz);
	w = malloc(n * esz);
	assert_true(v && w);
	assert_int_equal(t->fill(t->ctx, 0, (size_t)t->rows, v, &err), 0);
	for (r = 0; r < t->rows; r++)
		assert_int_equal(t->fill(t->ctx, r, 1, w + r * t->cols * esz, &err), 0);
	assert_memory_equal(v, w, n * esz);
	free(w);
	return v;
}

static float *run1(const struct pe_skew_params *p, const float *in, uint64_t rows, uint64_t cols,
		   uint64_t want_rows, uint64_t want_cols)
{
	struct pe_matrix m = wrap((float *)in, rows, cols);
	struct pe_skew s;
	struct pe_tensor t;
	struct pe_error err;
	float *v;

	if (pe_skew_init(&s, p, &m, &err) != 0)
		fail_msg("pe_skew_init: %s", err.msg);
	v = result(&s, &t);
	assert_true(t.dtype == PE_F32 && t.rows == want_rows && t.cols == want_cols);
	return v;
}

static int32_t *run_index(const struct pe_skew_params *p, uint64_t L, uint64_t want_cols)
{
	struct pe_skew s;
	struct pe_tensor t;
	struct pe_error err;
	int32_t *v;

	if (pe_skew_init_index(&s, p, L, &err) != 0)
		fail_msg("pe_skew_init_index: %s", err.msg);
	v = result(&s, &t);
	assert_true(t.dtype == PE_I32 && t.rows == L && t.cols == want_cols);
	return v;
}

static struct pe_skew_params params(enum pe_skew_mode mode, int inverse, int raw, float fill)
{
	struct pe_skew_params p;

	memset(&p, 0, sizeof p);
	p.mode = mode;
	p.inverse = inverse;
	p.raw = raw;
	p.fill = fill;
	p.index_fill = -1;
	return p;
}

static void same_bits(const float *got, const float *want, size_t n, const char *what, size_t L)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (memcmp(&got[k], &want[k], sizeof *got) != 0)
			fail_msg("%s, L = %zu: element %zu is %.9g, want %.9g", what, L, k,
				 (double)got[k], (double)want[k]);
}

/* ---- the tests ---- */

static void test_bidir_forward(void **state)
{
	size_t L;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		float *r = random_matrix(L, 2 * L - 1), *want = emu_bidir_fwd(r, L, NAN), *got;
		struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);

		got = run1(&p, r, L, 2 * L - 1, L, L);
		same_bits(got, want, L * L, "bidir forward", L);	/* no pad (NaN) read */
		free(got);
		p.raw = 1;	/* the trick never reads its pads: raw is the same */
		got = run1(&p, r, L, 2 * L - 1, L, L);
		same_bits(got, want, L * L, "bidir forward --raw", L);
		free(got);
		free(want);
		free(r);
	}
}

static void test_causal_forward(void **state)
{
	size_t L, i, j;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		float *r = random_matrix(L, L), *trick = emu_causal_fwd(r, L, 0.0f), *got;
		float *want = malloc(L * L * sizeof *want);
		struct pe_skew_params p = params(PE_SKEW_CAUSAL, 0, 1, 0);

		assert_non_null(want);
		got = run1(&p, r, L, L, L, L);
		same_bits(got, trick, L * L, "causal forward --raw", L);
		free(got);
		p = params(PE_SKEW_CAUSAL, 0, 0, -INFINITY);
		for (i = 0; i < L; i++)
			for (j = 0; j < L; j++)
				want[i * L + j] = j <= i ? trick[i * L + j] : -INFINITY;
		got = run1(&p, r, L, L, L, L);
		same_bits(got, want, L * L, "causal forward --fill -inf", L);
		free(got);
		free(want);
		free(trick);
		free(r);
	}
}

static void test_inverse(void **state)
{
	size_t L, i, c;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		size_t c2 = 2 * L - 1;
		float *a = random_matrix(L, L), *got;
		float *bz = emu_bidir_inv(a, L, 0.0f), *bnan = emu_bidir_inv(a, L, NAN);
		float *cz = emu_causal_inv(a, L, 0.0f), *want = malloc(L * c2 * sizeof *want);
		struct pe_skew_params p = params(PE_SKEW_BIDIR, 1, 0, 0);

		assert_non_null(want);
		got = run1(&p, a, L, L, L, c2);
		same_bits(got, bz, L * c2, "bidir inverse (fill 0)", L);
		free(got);
		p.raw = 1;
		got = run1(&p, a, L, L, L, c2);
		same_bits(got, bz, L * c2, "bidir inverse --raw", L);
		free(got);
		/* the cells the trick fills from its pads are exactly the fill's */
		p = params(PE_SKEW_BIDIR, 1, 0, 7.5f);
		for (i = 0; i < L * c2; i++)
			want[i] = isnan(bnan[i]) ? 7.5f : bnan[i];
		got = run1(&p, a, L, L, L, c2);
		same_bits(got, want, L * c2, "bidir inverse --fill 7.5", L);
		free(got);
		/* causal: raw is t2t's masked procedure; else c >= L-1-i only */
		p = params(PE_SKEW_CAUSAL, 1, 1, 0);
		got = run1(&p, a, L, L, L, L);
		same_bits(got, cz, L * L, "causal inverse --raw", L);
		free(got);
		p = params(PE_SKEW_CAUSAL, 1, 0, NAN);
		for (i = 0; i < L; i++)
			for (c = 0; c < L; c++)
				want[i * L + c] = c + i + 1 >= L ? cz[i * L + c] : NAN;
		got = run1(&p, a, L, L, L, L);
		same_bits(got, want, L * L, "causal inverse --fill nan", L);
		free(got);
		free(want);
		free(cz);
		free(bnan);
		free(bz);
		free(a);
	}
}

/* inverse(forward(R)) = R on the band, fill elsewhere; forward(inverse(A)) = A. */
static void test_round_trips(void **state)
{
	size_t L, i, c;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		size_t c2 = 2 * L - 1;
		float *r = random_matrix(L, c2), *a = random_matrix(L, L), *fwd, *back, *rel;
		struct pe_skew_params pf = params(PE_SKEW_BIDIR, 0, 0, 0);
		struct pe_skew_params pi = params(PE_SKEW_BIDIR, 1, 0, -3.0f);

		fwd = run1(&pf, r, L, c2, L, L);
		back = run1(&pi, fwd, L, L, L, c2);
		for (i = 0; i < L; i++)
			for (c = 0; c < c2; c++) {
				int band = c + 1 + i >= L && c + 1 + i < 2 * L;	/* L-1-i <= c <= 2L-2-i */

				if (back[i * c2 + c] != (band ? r[i * c2 + c] : -3.0f))
					fail_msg("bidir round trip, L = %zu: (%zu, %zu)", L, i, c);
			}
		free(fwd);
		free(back);
		back = run1(&pi, a, L, L, L, c2);
		fwd = run1(&pf, back, L, c2, L, L);
		same_bits(fwd, a, L * L, "bidir forward(inverse(A))", L);
		free(fwd);
		free(back);
		/* causal: R's top-left triangle is lost, A's upper triangle too */
		pf = params(PE_SKEW_CAUSAL, 0, 0, 0);
		pi = params(PE_SKEW_CAUSAL, 1, 0, 0);
		fwd = run1(&pf, a, L, L, L, L);
		back = run1(&pi, fwd, L, L, L, L);
		for (i = 0; i < L; i++)
			for (c = 0; c < L; c++)
				if (back[i * L + c] != (c + 1 + i >= L ? a[i * L + c] : 0.0f))
					fail_msg("causal round trip, L = %zu: (%zu, %zu)", L, i, c);
		free(fwd);
		free(back);
		back = run1(&pi, a, L, L, L, L);	/* A's lower triangle, relative */
		fwd = run1(&pf, back, L, L, L, L);
		for (i = 0; i < L; i++)
			for (c = 0; c < L; c++)
				assert_true(fwd[i * L + c] == (c <= i ? a[i * L + c] : 0.0f));
		/* a masked (zero) upper triangle comes back from t2t's procedure
		 * as the fill-0 inverse */
		pi.raw = 1;
		rel = run1(&pi, fwd, L, L, L, L);
		same_bits(rel, back, L * L, "causal --raw inverse of a masked A", L);
		free(rel);
		free(fwd);
		free(back);
		free(a);
		free(r);
	}
}

static void test_broadcast(void **state)
{
	size_t L, i;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		size_t c2 = 2 * L - 1;
		float *b = random_matrix(1, c2), *rows = malloc(L * c2 * sizeof *rows), *want, *got;
		struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);

		assert_non_null(rows);
		for (i = 0; i < L; i++)
			memcpy(rows + i * c2, b, c2 * sizeof *b);
		p.broadcast = 1;
		want = emu_bidir_fwd(rows, L, NAN);
		got = run1(&p, b, 1, c2, L, L);
		same_bits(got, want, L * L, "bidir --broadcast (one row)", L);
		free(got);
		got = run1(&p, b, c2, 1, L, L);	/* a 1-D array: one column */
		same_bits(got, want, L * L, "bidir --broadcast (one column)", L);
		free(got);
		free(want);
		/* causal: the first L values, with the trick's leftovers under raw */
		p = params(PE_SKEW_CAUSAL, 0, 1, 0);
		p.broadcast = 1;
		for (i = 0; i < L; i++)
			memcpy(rows + i * L, b, L * sizeof *b);
		want = emu_causal_fwd(rows, L, 0.0f);
		got = run1(&p, b, 1, L, L, L);
		same_bits(got, want, L * L, "causal --broadcast --raw", L);
		free(got);
		free(want);
		free(rows);
		free(b);
	}
}

/* Research notes section 4 (a) and (b): R[i][c] = 10 i + c. */
static void test_worked_examples(void **state)
{
	float r3[15], r4[16], *got;
	const float a3[9] = { 2, 3, 4, 11, 12, 13, 20, 21, 22 };
	const float inv3[15] = { 0, 0, 2, 3, 4, 0, 11, 12, 13, 0, 20, 21, 22, 0, 0 };
	const float c4[16] = { 3, 0, 0, 0, 12, 13, 0, 0, 21, 22, 23, 0, 30, 31, 32, 33 };
	const float raw4[16] = { 3, 0, 10, 11, 12, 13, 0, 20, 21, 22, 23, 0, 30, 31, 32, 33 };
	const int32_t idx4[16] = { 3, -1, -1, -1, 2, 3, -1, -1, 1, 2, 3, -1, 0, 1, 2, 3 };
	const float dist[5] = { -2, -1, 0, 1, 2 }, toe[9] = { 0, 1, 2, -1, 0, 1, -2, -1, 0 };
	struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);
	int32_t *idx;
	int i, c;

	(void)state;
	for (i = 0; i < 3; i++)
		for (c = 0; c < 5; c++)
			r3[i * 5 + c] = (float)(10 * i + c);
	for (i = 0; i < 4; i++)
		for (c = 0; c < 4; c++)
			r4[i * 4 + c] = (float)(10 * i + c);
	got = run1(&p, r3, 3, 5, 3, 3);
	assert_memory_equal(got, a3, sizeof a3);
	p.inverse = 1;
	free(got);
	got = run1(&p, a3, 3, 3, 3, 5);
	assert_memory_equal(got, inv3, sizeof inv3);
	free(got);
	p = params(PE_SKEW_BIDIR, 0, 0, 0);
	p.broadcast = 1;
	got = run1(&p, dist, 1, 5, 3, 3);
	assert_memory_equal(got, toe, sizeof toe);
	free(got);
	p = params(PE_SKEW_CAUSAL, 0, 0, 0);
	got = run1(&p, r4, 4, 4, 4, 4);
	assert_memory_equal(got, c4, sizeof c4);
	free(got);
	p.raw = 1;
	got = run1(&p, r4, 4, 4, 4, 4);
	assert_memory_equal(got, raw4, sizeof raw4);
	free(got);
	p = params(PE_SKEW_CAUSAL, 0, 0, 0);
	idx = run_index(&p, 4, 4);
	assert_memory_equal(idx, idx4, sizeof idx4);
	free(idx);
}

/* The index maps: what the trick returns when every input value is its
 * own column and every pad is -1. */
static void test_index_maps(void **state)
{
	size_t L, i, c;

	(void)state;
	for (L = 1; L <= MAXL; L++) {
		size_t c2 = 2 * L - 1;
		float *r = malloc(L * c2 * sizeof *r), *a = malloc(L * L * sizeof *a), *e;
		struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);
		int32_t *idx;

		assert_true(r && a);
		for (i = 0; i < L; i++) {
			for (c = 0; c < c2; c++)
				r[i * c2 + c] = (float)c;
			for (c = 0; c < L; c++)
				a[i * L + c] = (float)c;
		}
		e = emu_bidir_fwd(r, L, -1.0f);
		idx = run_index(&p, L, L);
		for (i = 0; i < L * L; i++)
			assert_int_equal(idx[i], (int32_t)e[i]);
		free(idx);
		free(e);
		p.inverse = 1;
		p.index_fill = -1;
		e = emu_bidir_inv(a, L, -1.0f);
		idx = run_index(&p, L, c2);
		for (i = 0; i < L * c2; i++)
			assert_int_equal(idx[i], (int32_t)e[i]);
		free(idx);
		free(e);
		p = params(PE_SKEW_CAUSAL, 0, 0, 0);
		p.index_fill = -7;
		e = emu_causal_fwd(a, L, -1.0f);
		idx = run_index(&p, L, L);
		for (i = 0; i < L; i++)
			for (c = 0; c < L; c++)
				assert_int_equal(idx[i * L + c], c <= i ? (int32_t)e[i * L + c] : -7);
		free(idx);
		free(e);
		p.inverse = 1;
		e = emu_causal_inv(a, L, -1.0f);
		idx = run_index(&p, L, L);
		for (i = 0; i < L; i++)
			for (c = 0; c < L; c++)
				assert_int_equal(idx[i * L + c], c + i + 1 >= L ? (int32_t)e[i * L + c] : -7);
		free(idx);
		free(e);
		free(a);
		free(r);
	}
}

/* ---- 2-D ---- */

/* lucidrains' relative_logits_1d, emulated: the width term skews each image
 * row's W queries (their R_w rows) with the bidir trick and repeats it for
 * every key row; the height term does the same per image column with R_h
 * and the roles of the axes swapped back; then the float32 sum. */
static float *emu_2d(const float *rh, const float *rw, size_t H, size_t W)
{
	size_t n = H * W, x, y, xk, yk;
	float *out = malloc(n * n * sizeof *out), *q = malloc((H > W ? H : W) * (2 * (H > W ? H : W)) * sizeof *q);
	float *tw = malloc(n * n * sizeof *tw), *th = malloc(n * n * sizeof *th);

	assert_true(out && q && tw && th);
	for (x = 0; x < H; x++) {
		float *s;

		for (y = 0; y < W; y++)
			memcpy(q + y * (2 * W - 1), rw + (x * W + y) * (2 * W - 1), (2 * W - 1) * sizeof *q);
		s = emu_bidir_fwd(q, W, NAN);	/* [query col][key col] */
		for (y = 0; y < W; y++)
			for (xk = 0; xk < H; xk++)
				for (yk = 0; yk < W; yk++)
					tw[(x * W + y) * n + xk * W + yk] = s[y * W + yk];
		free(s);
	}
	for (y = 0; y < W; y++) {
		float *s;

		for (x = 0; x < H; x++)
			memcpy(q + x * (2 * H - 1), rh + (x * W + y) * (2 * H - 1), (2 * H - 1) * sizeof *q);
		s = emu_bidir_fwd(q, H, NAN);	/* [query row][key row] */
		for (x = 0; x < H; x++)
			for (xk = 0; xk < H; xk++)
				for (yk = 0; yk < W; yk++)
					th[(x * W + y) * n + xk * W + yk] = s[x * H + xk];
		free(s);
	}
	for (x = 0; x < n * n; x++)
		out[x] = tw[x] + th[x];
	free(q);
	free(tw);
	free(th);
	return out;
}

static float *run2(const struct pe_skew_params *p, size_t H, size_t W, const float *rh,
		   uint64_t rh_rows, const float *rw, uint64_t rw_rows)
{
	struct pe_matrix mh = wrap((float *)rh, rh_rows, 2 * H - 1);
	struct pe_matrix mw = wrap((float *)rw, rw_rows, 2 * W - 1);
	struct pe_skew s;
	struct pe_tensor t;
	struct pe_error err;
	float *v;

	if (pe_skew_init_2d(&s, p, H, W, &mh, &mw, &err) != 0)
		fail_msg("pe_skew_init_2d: %s", err.msg);
	v = result(&s, &t);
	assert_true(t.dtype == PE_F32 && t.rows == H * W && t.cols == H * W);
	return v;
}

static void test_2d_random(void **state)
{
	size_t H, W;

	(void)state;
	for (H = 1; H <= 6; H++)
		for (W = 1; W <= 6; W++) {
			float *rh = random_matrix(H * W, 2 * H - 1), *rw = random_matrix(H * W, 2 * W - 1);
			float *want = emu_2d(rh, rw, H, W), *got;
			struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);

			got = run2(&p, H, W, rh, H * W, rw, H * W);
			same_bits(got, want, H * W * H * W, "2-D random", H * 10 + W);
			free(got);
			free(want);
			free(rh);
			free(rw);
		}
}

/* Example (c) and non-square grids with different broadcast rows: A
 * depends on (drow, dcol) of key - query and changes with drow. */
static void test_2d_offsets(void **state)
{
	static const size_t grids[][2] = { { 2, 2 }, { 2, 3 }, { 3, 2 }, { 1, 4 }, { 4, 1 } };
	const float ex_c[16] = { 0, 1, 10, 11, -1, 0, 9, 10, -10, -9, 0, 1, -11, -10, -1, 0 };
	size_t g;

	(void)state;
	for (g = 0; g < sizeof grids / sizeof grids[0]; g++) {
		size_t H = grids[g][0], W = grids[g][1], n = H * W, a, b, k;
		float bh[7], bw[7], *got;
		struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);

		for (k = 0; k < 2 * H - 1; k++)
			bh[k] = 10.0f * (float)((int)k - (int)(H - 1));
		for (k = 0; k < 2 * W - 1; k++)
			bw[k] = (float)((int)k - (int)(W - 1));
		p.broadcast = 1;
		got = run2(&p, H, W, bh, 1, bw, 1);
		if (H == 2 && W == 2)
			assert_memory_equal(got, ex_c, sizeof ex_c);
		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++) {
				int drow = (int)(b / W) - (int)(a / W), dcol = (int)(b % W) - (int)(a % W);

				if (got[a * n + b] != (float)(10 * drow + dcol))
					fail_msg("%zu x %zu grid: A[%zu][%zu] = %g, want 10 * %d + %d", H, W, a,
						 b, (double)got[a * n + b], drow, dcol);
			}
		free(got);
	}
}

/* ---- errors ---- */

static void expect_data_error(const struct pe_skew_params *p, uint64_t rows, uint64_t cols,
			      const char *msg)
{
	float *v = calloc((size_t)(rows * cols), sizeof *v);
	struct pe_matrix m = wrap(v, rows, cols);
	struct pe_skew s;
	struct pe_error err = { PE_OK, "" };

	assert_int_equal(pe_skew_init(&s, p, &m, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, msg);
	free(v);
}

/* pe_skew_fill_rows against the result itself: with a nan fill and finite
 * inputs, exactly the rows it names hold a nan, for every 1-D form. */
static void test_fill_rows(void **state)
{
	struct pe_skew_params p;
	struct pe_skew s;
	struct pe_tensor t;
	struct pe_matrix m;
	struct pe_error err;
	uint64_t rows, cols, r0, r1, i, k;
	size_t L;
	int mode, inverse, raw, broadcast, has;
	float *in, *out;

	(void)state;
	for (mode = PE_SKEW_BIDIR; mode <= PE_SKEW_CAUSAL; mode++)
		for (inverse = 0; inverse <= 1; inverse++)
			for (raw = 0; raw <= 1; raw++)
				for (broadcast = 0; broadcast <= !inverse; broadcast++)
					for (L = 1; L <= 12; L++) {
						p = params((enum pe_skew_mode)mode, inverse, raw, NAN);
						p.broadcast = broadcast;
						pe_skew_input_shape(&p, L, &rows, &cols);
						in = random_matrix((size_t)rows, (size_t)cols);
						m = wrap(in, rows, cols);
						if (pe_skew_init(&s, &p, &m, &err) != 0)
							fail_msg("pe_skew_init: %s", err.msg);
						out = result(&s, &t);
						pe_skew_fill_rows(&s, &r0, &r1);
						for (i = 0; i < t.rows; i++) {
							for (has = 0, k = 0; k < t.cols; k++)
								has |= isnan(out[i * t.cols + k]);
							if (has != (r0 <= i && i < r1))
								fail_msg("mode %d inverse %d raw %d broadcast %d, L = %zu: row %llu %s nan, fill rows %llu..%llu",
									 mode, inverse, raw, broadcast, L,
									 (unsigned long long)i, has ? "holds" : "holds no",
									 (unsigned long long)r0, (unsigned long long)r1);
						}
						free(out);
						free(in);
					}
}

static void test_shape_errors(void **state)
{
	struct pe_skew_params p = params(PE_SKEW_BIDIR, 0, 0, 0);
	struct pe_matrix mh, mw;
	struct pe_skew s;
	struct pe_error err;
	float v[64] = { 0 };

	(void)state;
	expect_data_error(&p, 3, 4, "bidir skew needs L x (2L-1) relative logits; got 3 x 4 (for L = 3: 3 x 5)");
	expect_data_error(&p, 3, 3, "bidir skew needs L x (2L-1) relative logits; got 3 x 3 (for L = 3: 3 x 5)");
	p.mode = PE_SKEW_CAUSAL;
	expect_data_error(&p, 4, 7, "causal skew needs L x L relative logits; got 4 x 7 (for L = 4: 4 x 4)");
	p.inverse = 1;
	expect_data_error(&p, 3, 5, "inverse causal skew needs an L x L matrix; got 3 x 5 (for L = 3: 3 x 3)");
	p = params(PE_SKEW_BIDIR, 0, 0, 0);
	p.broadcast = 1;
	expect_data_error(&p, 1, 4, "bidir skew of a broadcast row needs 2L-1 values (an odd count); got 4");
	expect_data_error(&p, 2, 3, "a broadcast row must be one row (or one column) of values; got 2 x 3");
	p = params(PE_SKEW_BIDIR, 0, 0, 0);
	mh = wrap(v, 6, 3);
	mw = wrap(v, 6, 4);
	assert_int_equal(pe_skew_init_2d(&s, &p, 2, 3, &mh, &mw, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "R_w of a 2 x 3 grid needs 6 x 5 (HW x (2W-1): a row per query token, a column per column distance); got 6 x 4");
	mw = wrap(v, 6, 5);
	assert_int_equal(pe_skew_init_2d(&s, &p, 2, 3, &mh, &mw, &err), 0);
	mh = wrap(v, 5, 3);
	assert_int_equal(pe_skew_init_2d(&s, &p, 2, 3, &mh, &mw, &err), -1);
	assert_string_equal(err.msg, "R_h of a 2 x 3 grid needs 6 x 3 (HW x (2H-1): a row per query token, a column per row distance); got 5 x 3");
	p.inverse = 1;
	mh = wrap(v, 6, 3);
	assert_int_equal(pe_skew_init_2d(&s, &p, 2, 3, &mh, &mw, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	p = params(PE_SKEW_BIDIR, 0, 0, 0);
	assert_int_equal(pe_skew_init_index(&s, &p, 0, &err), -1);
	assert_int_equal(pe_skew_init_index(&s, &p, (PE_MAX_COLS / 2) + 1, &err), -1);
	assert_int_equal(pe_skew_init_index(&s, &p, PE_MAX_COLS / 2, &err), 0);
	p.raw = 1;
	assert_int_equal(pe_skew_init_index(&s, &p, 4, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bidir_forward),
		cmocka_unit_test(test_causal_forward),
		cmocka_unit_test(test_inverse),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_worked_examples),
		cmocka_unit_test(test_index_maps),
		cmocka_unit_test(test_2d_random),
		cmocka_unit_test(test_2d_offsets),
		cmocka_unit_test(test_fill_rows),
		cmocka_unit_test(test_shape_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
