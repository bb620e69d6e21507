/*
 * The pump: every row arrives once and in order, across block boundaries,
 * with any number of threads; row selections; a failing fill stops the
 * stream with its error and the sink is never ended.
 */
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"
#include "testutil.h"

/* value = row * 1000 + col, failing at row fail_at (if set) */
struct gen {
	uint64_t fail_at;
};

static int fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct gen *g = ctx;
	float *f = out;
	size_t r, c;

	for (r = 0; r < nrows; r++) {
		if (g->fail_at && r0 + r == g->fail_at)
			return pe_fail(err, PE_ERR_DATA, "row %llu is bad", (unsigned long long)(r0 + r));
		for (c = 0; c < 300; c++)
			f[r * 300 + c] = (float)((r0 + r) * 1000 + c);
	}
	return 0;
}

struct check_sink {
	struct pe_sink base;
	uint64_t next_row, rows_seen;
	int began, ended, bad;
	uint64_t first;
};

static int cs_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		    const struct pe_meta *meta, struct pe_error *err)
{
	struct check_sink *c = (struct check_sink *)s;

	(void)t;
	(void)nt;
	(void)meta;
	(void)err;
	c->began = 1;
	c->next_row = c->first;
	return 0;
}

static int cs_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct check_sink *c = (struct check_sink *)s;
	const float *f = data;
	size_t r, k;

	(void)err;
	for (r = 0; r < nrows; r++, c->next_row++)
		for (k = 0; k < 300; k++)
			if (f[r * 300 + k] != (float)(c->next_row * 1000 + k))
				c->bad = 1;
	c->rows_seen += nrows;
	return 0;
}

static int cs_end(struct pe_sink *s, struct pe_error *err)
{
	(void)err;
	((struct check_sink *)s)->ended = 1;
	return 0;
}

static int cs_tensor(struct pe_sink *s, size_t i, struct pe_error *err)
{
	(void)s;
	(void)i;
	(void)err;
	return 0;
}

static void cs_destroy(struct pe_sink *s)
{
	(void)s;
}

static const struct pe_sink_ops cs_ops = {
	.begin = cs_begin,
	.tensor = cs_tensor,
	.rows = cs_rows,
	.end = cs_end,
	.destroy = cs_destroy,
};

static struct pe_tensor make_tensor(struct gen *g, uint64_t rows, int parallel)
{
	struct pe_tensor t;
	uint64_t shape[2] = { rows, 300 };

	memset(&t, 0, sizeof t);
	strcpy(t.name, "t");
	t.fill = fill;
	t.ctx = g;
	t.parallel = parallel;
	assert_int_equal(pe_tensor_shape(&t, 2, shape, NULL), 0);
	return t;
}

static void test_all_rows_in_order(void **state)
{
	/* 1 MiB blocks of 1200-byte rows: 873 rows a block; 5000 rows spans
	 * several blocks and ends on a partial one */
	const int threads[] = { 1, 2, 3, 7, 16 };
	struct gen g = { 0 };
	struct pe_tensor t = make_tensor(&g, 5000, 1);
	struct pe_error err;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 0 };
		struct pe_pump_opts po = { threads[i], NULL, NULL };

		assert_int_equal(pe_pump(&t, 1, NULL, NULL, &cs.base, &po, &err), 0);
		assert_true(cs.began && cs.ended && !cs.bad);
		assert_int_equal(cs.rows_seen, 5000);
	}
	{
		struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 0 };

		t.parallel = 0;
		assert_int_equal(pe_pump(&t, 1, NULL, NULL, &cs.base, NULL, &err), 0);
		assert_true(!cs.bad && cs.rows_seen == 5000);
	}
}

static void test_row_selection(void **state)
{
	struct gen g = { 0 };
	struct pe_tensor t = make_tensor(&g, 5000, 1);
	struct pe_rowsel sel = { 1, 1234, 4321 };
	struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 1234 };
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_pump(&t, 1, &sel, NULL, &cs.base, NULL, &err), 0);
	assert_true(!cs.bad);
	assert_int_equal(cs.rows_seen, 4321 - 1234);
	sel.begin = 10;
	sel.end = 5001;
	assert_int_equal(pe_pump(&t, 1, &sel, NULL, &cs.base, NULL, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
}

static void test_failure_stops(void **state)
{
	struct gen g = { 3333 };
	struct pe_error err;
	int parallel;

	(void)state;
	for (parallel = 0; parallel < 2; parallel++) {
		struct pe_tensor t = make_tensor(&g, 5000, parallel);
		struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 0 };

		assert_int_equal(pe_pump(&t, 1, NULL, NULL, &cs.base, NULL, &err), -1);
		assert_int_equal(err.code, PE_ERR_DATA);
		assert_string_equal(err.msg, "row 3333 is bad");
		assert_false(cs.ended);
		assert_true(cs.rows_seen <= 3333);
	}
}

static void test_too_many_threads(void **state)
{
	struct gen g = { 0 };
	struct pe_tensor t = make_tensor(&g, 5000, 1);
	struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 0 };
	struct pe_pump_opts po = { PE_MAX_THREADS + 1, NULL, NULL };
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_pump(&t, 1, NULL, NULL, &cs.base, &po, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_false(cs.began);
}

/* A tensor with its own block_rows gets blocks on its grid: every fill
 * range lies inside one grid cell, whatever the selection and threads. */
struct grid_gen {
	size_t grid;
	int straddled;
};

static int grid_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		     struct pe_error *err)
{
	struct grid_gen *g = (struct grid_gen *)(uintptr_t)ctx;
	float *f = out;
	size_t r, c;

	(void)err;
	if (r0 / g->grid != (r0 + nrows - 1) / g->grid)
		g->straddled = 1;
	for (r = 0; r < nrows; r++)
		for (c = 0; c < 300; c++)
			f[r * 300 + c] = (float)((r0 + r) * 1000 + c);
	return 0;
}

struct count {
	uint64_t calls, last_done, last_total;
	int backwards;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct count *c = arg;

	if (done < c->last_done)
		c->backwards = 1;
	c->calls++;
	c->last_done = done;
	c->last_total = total;
}

static void test_block_grid_and_progress(void **state)
{
	struct grid_gen g = { 100, 0 };
	struct pe_tensor t;
	uint64_t shape[2] = { 5000, 300 };
	struct pe_rowsel sel = { 1, 1234, 4321 };
	struct pe_error err;
	int th;

	(void)state;
	assert_int_equal(pe_tensor_init(&t, "grid", PE_F32, grid_fill, &g, 1, 2, shape, &err), 0);
	t.block_rows = 100;
	for (th = 1; th <= 4; th += 3) {
		struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 1234 };
		struct count cnt = { 0, 0, 0, 0 };
		struct pe_pump_opts po = { th, on_progress, &cnt };

		assert_int_equal(pe_pump(&t, 1, &sel, NULL, &cs.base, &po, &err), 0);
		assert_true(!cs.bad && cs.ended);
		assert_int_equal(cs.rows_seen, 4321 - 1234);
		assert_false(g.straddled);
		/* 1234..1300, then 30 whole cells, then 4300..4321: 32 blocks */
		assert_int_equal(cnt.calls, 32);
		assert_int_equal(cnt.last_done, 4321 - 1234);
		assert_int_equal(cnt.last_total, 4321 - 1234);
		assert_false(cnt.backwards);
	}
}

/* With a slice grain, workers split a block only at multiples of it. */
struct grain_gen {
	size_t grain;
	uint64_t block;
	int bad;
};

static int grain_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		      struct pe_error *err)
{
	struct grain_gen *g = (struct grain_gen *)(uintptr_t)ctx;
	float *f = out;
	size_t r, c;

	(void)err;
	if (r0 % g->grain != 0 && r0 % g->block != 0 && r0 != 1234)
		g->bad = 1;
	for (r = 0; r < nrows; r++)
		for (c = 0; c < 300; c++)
			f[r * 300 + c] = (float)((r0 + r) * 1000 + c);
	return 0;
}

static void test_slice_grain(void **state)
{
	struct grain_gen g = { 16, 100, 0 };
	struct pe_tensor t;
	uint64_t shape[2] = { 5000, 300 };
	struct pe_rowsel sel = { 1, 1234, 4321 };
	struct pe_error err;
	int th;

	(void)state;
	assert_int_equal(pe_tensor_init(&t, "grain", PE_F32, grain_fill, &g, 1, 2, shape, &err), 0);
	t.block_rows = 100;
	t.slice_grain = 16;
	for (th = 2; th <= 7; th++) {
		struct check_sink cs = { { &cs_ops }, 0, 0, 0, 0, 0, 1234 };
		struct pe_pump_opts po = { th, NULL, NULL };

		assert_int_equal(pe_pump(&t, 1, &sel, NULL, &cs.base, &po, &err), 0);
		assert_true(!cs.bad && cs.ended);
		assert_int_equal(cs.rows_seen, 4321 - 1234);
		assert_false(g.bad);
	}
}

static void test_materialize(void **state)
{
	struct gen g = { 0 };
	struct pe_tensor t = make_tensor(&g, 3001, 1);
	float *m = malloc(3001 * 300 * sizeof *m);
	struct pe_pump_opts po = { 3, NULL, NULL };
	struct pe_error err;
	size_t r, c;

	(void)state;
	assert_non_null(m);
	assert_int_equal(pe_tensor_materialize(&t, m, &po, &err), 0);
	for (r = 0; r < 3001; r++)
		for (c = 0; c < 300; c++)
			if (m[r * 300 + c] != (float)(r * 1000 + c))
				fail_msg("row %zu col %zu is %g", r, c, (double)m[r * 300 + c]);
	free(m);
}

static void test_tensor_shape_limits(void **state)
{
	struct pe_tensor t;
	uint64_t big[2] = { (uint64_t)1 << 40, (uint64_t)1 << 24 };
	uint64_t wide[2] = { 1, ((uint64_t)1 << 24) + 1 };
	uint64_t zero[2] = { 0, 3 };
	uint64_t s3[3] = { 4, 5, 6 };
	struct pe_error err;

	(void)state;
	memset(&t, 0, sizeof t);
	assert_int_equal(pe_tensor_shape(&t, 2, big, &err), -1);
	assert_int_equal(pe_tensor_shape(&t, 2, wide, &err), -1);
	assert_int_equal(pe_tensor_shape(&t, 2, zero, &err), -1);
	assert_int_equal(pe_tensor_shape(&t, 3, s3, &err), 0);
	assert_int_equal(t.rows, 20);
	assert_int_equal(t.cols, 6);
	assert_int_equal(pe_tensor_shape(&t, 1, s3, &err), 0);
	assert_int_equal(t.rows, 4);
	assert_int_equal(t.cols, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_rows_in_order),
		cmocka_unit_test(test_row_selection),
		cmocka_unit_test(test_failure_stops),
		cmocka_unit_test(test_too_many_threads),
		cmocka_unit_test(test_block_grid_and_progress),
		cmocka_unit_test(test_slice_grain),
		cmocka_unit_test(test_materialize),
		cmocka_unit_test(test_tensor_shape_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
