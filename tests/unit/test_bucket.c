/*
 * core/bucket: T5, DeBERTa and Swin ids against tables worked out by hand
 * from T5's and DeBERTa's reference functions (mesh-tensorflow /
 * transformers' _relative_position_bucket, DeBERTa-v2's
 * make_log_bucket_position) and Swin's relative_position_index as
 * microsoft/Swin-Transformer issue #281 prints it, and against
 * PyTorch's own float32 computation over 458 parameter sets
 * (data/buckets-*.txt, data/make_bucket_reference.py); the streamed
 * tensors against those ids.
 */
#include <stdlib.h>
#include <string.h>

#include "core/bucket.h"
#include "testutil.h"

static struct pe_bucket_params t5(int bidir, int64_t nb, int64_t md)
{
	struct pe_bucket_params p;

	pe_bucket_defaults(&p, PE_BUCKET_T5);
	p.bidirectional = bidir;
	p.num_buckets = nb;
	p.max_distance = md;
	return p;
}

static struct pe_bucket_params deberta(int64_t bs, int64_t mp)
{
	struct pe_bucket_params p;

	pe_bucket_defaults(&p, PE_BUCKET_DEBERTA);
	p.bucket_size = bs;
	p.max_position = mp;
	return p;
}

/* |n| ranges -> bucket for T5's defaults, worked out from its function. */
struct range { int64_t lo, hi, id; };

static void test_t5_bidirectional_table(void **state)
{
	static const struct range side[] = {
		{ 0, 0, 0 }, { 1, 1, 1 }, { 7, 7, 7 }, { 8, 11, 8 }, { 12, 15, 9 }, { 16, 22, 10 },
		{ 23, 31, 11 }, { 32, 45, 12 }, { 46, 63, 13 }, { 64, 90, 14 }, { 91, 100000, 15 },
	};
	struct pe_bucket_params p = t5(1, 32, 128);
	size_t k;
	int64_t n;
	int seen16 = 0;

	(void)state;
	assert_int_equal(pe_bucket_check(&p, NULL), 0);
	for (k = 0; k < sizeof side / sizeof side[0]; k++)
		for (n = side[k].lo; n <= side[k].hi && n <= 5000; n++) {
			/* keys before the query (negative), after it (+16) */
			assert_int_equal(pe_t5_bucket(&p, -n), side[k].id);
			if (n > 0)
				assert_int_equal(pe_t5_bucket(&p, n), side[k].id + 16);
		}
	assert_int_equal(pe_t5_bucket(&p, 1), 17);
	assert_int_equal(pe_t5_bucket(&p, -1000000), 15);
	assert_int_equal(pe_t5_bucket(&p, 1000000), 31);
	for (n = -3000; n <= 3000; n++)
		seen16 |= pe_t5_bucket(&p, n) == 16;
	assert_false(seen16);	/* bucket 16 is never produced */
}

static void test_t5_causal_table(void **state)
{
	static const struct range past[] = {
		{ 0, 15, -1 }, { 16, 18, 16 }, { 19, 20, 17 }, { 21, 23, 18 }, { 24, 26, 19 },
		{ 27, 30, 20 }, { 31, 34, 21 }, { 35, 39, 22 }, { 40, 45, 23 }, { 46, 51, 24 },
		{ 52, 58, 25 }, { 59, 66, 26 }, { 67, 76, 27 }, { 77, 86, 28 }, { 87, 98, 29 },
		{ 99, 112, 30 }, { 113, 100000, 31 },
	};
	struct pe_bucket_params p = t5(0, 32, 128);
	size_t k;
	int64_t n;

	(void)state;
	for (k = 0; k < sizeof past / sizeof past[0]; k++)
		for (n = past[k].lo; n <= past[k].hi && n <= 5000; n++)
			assert_int_equal(pe_t5_bucket(&p, -n), past[k].id < 0 ? n : past[k].id);
	for (n = 1; n < 1000; n++)
		assert_int_equal(pe_t5_bucket(&p, n), 0);	/* any future key */
}

static void test_deberta_examples(void **state)
{
	static const int64_t ex[][2] = {
		{ 0, 0 }, { 5, 5 }, { -5, -5 }, { 127, 127 }, { 128, 128 }, { 129, 129 },
		{ 130, 130 }, { 140, 137 }, { 200, 169 }, { 256, 192 }, { 511, 255 },
		{ -511, -255 }, { 600, 270 }, { -600, -270 },
	};
	struct pe_bucket_params p = deberta(256, 512);
	size_t k;

	(void)state;
	for (k = 0; k < sizeof ex / sizeof ex[0]; k++)
		assert_int_equal(pe_deberta_bucket(&p, ex[k][0]), ex[k][1]);
}

/* Swin issue #281's 2x2 window, and any window against the definition
 * written out with separate coordinates (query - key per axis). */
static void test_swin(void **state)
{
	static const int32_t w22[4][4] = {
		{ 4, 3, 1, 0 }, { 5, 4, 2, 1 }, { 7, 6, 4, 3 }, { 8, 7, 5, 4 },
	};
	struct pe_bucket_params p;
	int64_t wh, ww, qh, qw, kh, kw, R;

	(void)state;
	pe_bucket_defaults(&p, PE_BUCKET_SWIN);
	p.wh = p.ww = 2;
	for (qh = 0; qh < 4; qh++)
		for (kh = 0; kh < 4; kh++)
			assert_int_equal(pe_swin_index(&p, (uint64_t)qh, (uint64_t)kh), w22[qh][kh]);
	assert_int_equal(pe_bucket_table_rows(&p), 9);
	for (wh = 1; wh <= 4; wh++)
		for (ww = 1; ww <= 5; ww++) {
			p.wh = wh;
			p.ww = ww;
			p.cls_token = 0;
			for (qh = 0; qh < wh; qh++)
				for (qw = 0; qw < ww; qw++)
					for (kh = 0; kh < wh; kh++)
						for (kw = 0; kw < ww; kw++)
							assert_int_equal(
								pe_swin_index(&p, (uint64_t)(qh * ww + qw),
									      (uint64_t)(kh * ww + kw)),
								(qh - kh + wh - 1) * (2 * ww - 1) + qw - kw + ww - 1);
			/* BEiT's class token: row 0 R, column 0 R + 1, corner R + 2 */
			p.cls_token = 1;
			R = (2 * wh - 1) * (2 * ww - 1);
			assert_int_equal(pe_bucket_table_rows(&p), (uint64_t)R + 3);
			assert_int_equal(pe_swin_tokens(&p), (uint64_t)(wh * ww + 1));
			assert_int_equal(pe_swin_index(&p, 0, 0), R + 2);
			assert_int_equal(pe_swin_index(&p, 0, 1), R);
			assert_int_equal(pe_swin_index(&p, 1, 0), R + 1);
			assert_int_equal(pe_swin_index(&p, 1, 1), (wh - 1) * (2 * ww - 1) + ww - 1);
		}
}

/* One line of data/buckets-*.txt: the ids as a step function of d. */
static void check_reference_line(char *line, const char *file)
{
	struct pe_bucket_params p;
	char *colon = strchr(line, ':'), *tok, *save = NULL;
	int64_t a, b, d, next, id, prev_d = 0;
	int64_t prev_id = 0, got;
	int bidir, have = 0;

	assert_non_null(colon);
	*colon = '\0';
	if (strncmp(line, "t5 ", 3) == 0) {
		assert_int_equal(sscanf(line + 3, "%d %lld %lld", &bidir, (long long *)&a,
					(long long *)&b), 3);
		p = t5(bidir, a, b);
	} else {
		assert_int_equal(sscanf(line + 8, "%lld %lld", (long long *)&a, (long long *)&b), 2);
		p = deberta(a, b);
	}
	assert_int_equal(pe_bucket_check(&p, NULL), 0);
	for (tok = strtok_r(colon + 1, " \n", &save); ; tok = strtok_r(NULL, " \n", &save)) {
		if (tok) {
			assert_int_equal(sscanf(tok, "%lld:%lld", (long long *)&next,
						(long long *)&id), 2);
		} else {
			next = 300001;	/* the files run to DMAX = 300000 */
			id = 0;
		}
		for (d = prev_d; have && d < next; d++) {
			got = p.scheme == PE_BUCKET_T5 ? pe_t5_bucket(&p, d) : pe_deberta_bucket(&p, d);
			if (got != prev_id) {
				fprintf(stderr, "%s: %s: d = %lld: got %lld, PyTorch %lld\n", file, line,
					(long long)d, (long long)got, (long long)prev_id);
				fail();
			}
		}
		if (!tok)
			break;
		prev_d = next;
		prev_id = id;
		have = 1;
	}
}

static void check_reference(const char *rel, int min_lines)
{
	size_t n;
	unsigned char *buf = pe_read_file(pe_source_path(rel), &n);
	char *line, *save = NULL;
	int lines = 0;

	assert_non_null(buf);
	buf = realloc(buf, n + 1);
	assert_non_null(buf);
	buf[n] = '\0';
	/* PE_TEST_QUICK (make valgrind): every 8th parameter set */
	for (line = strtok_r((char *)buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!pe_test_quick() || lines % 8 == 0)
			check_reference_line(line, rel);
		lines++;
	}
	assert_true(lines >= min_lines);
	free(buf);
}

static void test_t5_against_pytorch(void **state)
{
	(void)state;
	check_reference("data/buckets-t5.txt", 376);
}

static void test_deberta_against_pytorch(void **state)
{
	(void)state;
	check_reference("data/buckets-deberta.txt", 82);
}

static void test_checks(void **state)
{
	struct pe_bucket_params p;
	struct pe_error err;

	(void)state;
	p = t5(1, 31, 128);
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	assert_non_null(strstr(err.msg, "even"));
	p = t5(1, 2, 128);
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	p = t5(0, 2, 2);	/* causal 2 buckets: max_exact 1, max_distance must exceed it */
	assert_int_equal(pe_bucket_check(&p, NULL), 0);
	p = t5(0, 2, 1);
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	assert_non_null(strstr(err.msg, "max_exact = 1"));
	p = t5(1, 32, 8);	/* max_distance <= max_exact */
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	assert_non_null(strstr(err.msg, "{max_distance} must exceed max_exact = 8"));
	p = deberta(1, 512);
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	p = deberta(256, 129);
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	assert_non_null(strstr(err.msg, "{max_position} must exceed"));
	pe_bucket_defaults(&p, PE_BUCKET_SWIN);
	p.wh = 0;
	assert_int_equal(pe_bucket_check(&p, &err), -1);
	assert_non_null(strstr(err.msg, "{window}"));
}

/* Fill rows [r0, r0 + n) of t (dtype size 4) into a fresh buffer. */
static void *fill(const struct pe_tensor *t, uint64_t r0, size_t n)
{
	void *buf = malloc(n * (size_t)t->cols * 4);
	struct pe_error err;

	assert_non_null(buf);
	assert_int_equal(t->fill(t->ctx, r0, n, buf, &err), 0);
	return buf;
}

static void test_ids_tensor(void **state)
{
	struct pe_bucket_params p = t5(1, 32, 128);
	struct pe_bucket b;
	struct pe_tensor t;
	int32_t *v;
	uint64_t i, j, L = 300;
	int scheme;

	(void)state;
	for (scheme = 0; scheme < 3; scheme++) {
		if (scheme == 1)
			p = deberta(256, 512);
		if (scheme == 2) {
			pe_bucket_defaults(&p, PE_BUCKET_SWIN);
			p.wh = 3;
			p.ww = 5;
			p.cls_token = 1;
		}
		assert_int_equal(pe_bucket_ids(&b, &p, L, &t, NULL), 0);
		if (scheme == 2)
			L = 16;
		assert_int_equal(t.dtype, PE_I32);
		assert_int_equal(t.rows, L);
		assert_int_equal(t.cols, L);
		v = fill(&t, 0, (size_t)L);
		for (i = 0; i < L; i++)
			for (j = 0; j < L; j++) {
				int64_t want = scheme == 0 ? pe_t5_bucket(&p, (int64_t)j - (int64_t)i)
					       : scheme == 1 ? pe_deberta_bucket(&p, (int64_t)i - (int64_t)j)
							     : pe_swin_index(&p, i, j);
				assert_int_equal(v[i * L + j], want);
			}
		free(v);
		pe_bucket_free(&b);
	}
	/* L = 1 */
	p = t5(1, 32, 128);
	assert_int_equal(pe_bucket_ids(&b, &p, 1, &t, NULL), 0);
	v = fill(&t, 0, 1);
	assert_int_equal(v[0], 0);
	free(v);
	pe_bucket_free(&b);
}

static void test_distances_tensor(void **state)
{
	struct pe_bucket_params p = deberta(256, 512);
	struct pe_bucket b;
	struct pe_tensor t;
	struct pe_error err;
	int32_t *v;
	int64_t k;

	(void)state;
	assert_int_equal(pe_bucket_distances(&b, &p, -600, 601, &t, NULL), 0);
	assert_int_equal(t.rows, 1201);
	assert_int_equal(t.cols, 2);
	v = fill(&t, 0, 1201);
	for (k = 0; k < 1201; k++) {
		assert_int_equal(v[2 * k], k - 600);
		assert_int_equal(v[2 * k + 1], pe_deberta_bucket(&p, k - 600));
	}
	assert_int_equal(v[2 * (140 + 600) + 1], 137);
	free(v);
	pe_bucket_free(&b);
	pe_bucket_defaults(&p, PE_BUCKET_SWIN);
	assert_int_equal(pe_bucket_distances(&b, &p, 0, 5, &t, &err), -1);
	assert_non_null(strstr(err.msg, "swin"));
	pe_bucket_free(&b);
}

static void test_bias_gather(void **state)
{
	struct pe_bucket_params p = t5(1, 32, 128);
	struct pe_bucket b;
	struct pe_tensor t;
	struct pe_error err;
	float table[32 * 3], *v;
	uint64_t i, j, h, L = 40;
	int k;

	(void)state;
	for (k = 0; k < 32 * 3; k++)
		table[k] = (float)k * 0.5f - 7.0f;	/* row = bucket, column = head */
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 32, 3, -1, &t, NULL), 0);
	assert_int_equal(t.ndim, 3);
	assert_int_equal(t.shape[0], 3);
	assert_int_equal(t.rows, 3 * L);
	v = fill(&t, 0, (size_t)(3 * L));
	for (h = 0; h < 3; h++)
		for (i = 0; i < L; i++)
			for (j = 0; j < L; j++)
				assert_true(v[(h * L + i) * L + j] ==
					    table[pe_t5_bucket(&p, (int64_t)j - (int64_t)i) * 3 + h]);
	free(v);
	pe_bucket_free(&b);
	/* one head; a block that starts mid-matrix */
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 32, 3, 2, &t, NULL), 0);
	assert_int_equal(t.ndim, 2);
	v = fill(&t, 7, 5);
	for (i = 0; i < 5; i++)
		for (j = 0; j < L; j++)
			assert_true(v[i * L + j] == table[pe_t5_bucket(&p, (int64_t)j - (int64_t)(i + 7)) * 3 + 2]);
	free(v);
	pe_bucket_free(&b);
	/* wrong shapes: named, transposed spotted */
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 31, 3, -1, &t, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_non_null(strstr(err.msg, "must have 32 rows"));
	pe_bucket_free(&b);
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 3, 32, -1, &t, &err), -1);
	assert_non_null(strstr(err.msg, "transposed"));
	pe_bucket_free(&b);
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 32, 3, 3, &t, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	pe_bucket_free(&b);
	/* distances x heads */
	assert_int_equal(pe_bucket_bias(&b, &p, 0, 1, -5, 5, table, 32, 3, -1, &t, NULL), 0);
	assert_int_equal(t.rows, 10);
	assert_int_equal(t.cols, 3);
	v = fill(&t, 0, 10);
	for (i = 0; i < 10; i++)
		for (h = 0; h < 3; h++)
			assert_true(v[i * 3 + h] == table[pe_t5_bucket(&p, (int64_t)i - 5) * 3 + h]);
	free(v);
	pe_bucket_free(&b);
}

/* DeBERTa's table has 2 * bucket_size rows, indexed clamp(id + size). */
static void test_bias_deberta_and_swin(void **state)
{
	struct pe_bucket_params p = deberta(8, 16);
	struct pe_bucket b;
	struct pe_tensor t;
	float table[16], swin[3 * 5 + 3], *v;
	uint64_t i, j, L = 30;
	int k;

	(void)state;
	for (k = 0; k < 16; k++)
		table[k] = (float)k;
	assert_int_equal(pe_bucket_table_row(&p, -100), 0);
	assert_int_equal(pe_bucket_table_row(&p, 100), 15);
	assert_int_equal(pe_bucket_table_row(&p, -3), 5);
	assert_int_equal(pe_bucket_bias(&b, &p, L, 0, 0, 0, table, 16, 1, -1, &t, NULL), 0);
	v = fill(&t, 0, (size_t)L);
	for (i = 0; i < L; i++)
		for (j = 0; j < L; j++) {
			int64_t r = pe_deberta_bucket(&p, (int64_t)i - (int64_t)j) + 8;

			r = r < 0 ? 0 : r > 15 ? 15 : r;
			assert_true(v[i * L + j] == (float)r);
		}
	free(v);
	pe_bucket_free(&b);
	pe_bucket_defaults(&p, PE_BUCKET_SWIN);
	p.wh = 1;
	p.ww = 3;
	p.cls_token = 1;
	for (k = 0; k < 8; k++)
		swin[k] = 10.0f * (float)k;
	assert_int_equal(pe_bucket_bias(&b, &p, 0, 0, 0, 0, swin, 8, 1, -1, &t, NULL), 0);
	assert_int_equal(t.rows, 4);
	v = fill(&t, 0, 4);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			assert_true(v[i * 4 + j] == 10.0f * (float)pe_swin_index(&p, i, j));
	assert_true(v[0] == 70.0f);
	free(v);
	pe_bucket_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t5_bidirectional_table),
		cmocka_unit_test(test_t5_causal_table),
		cmocka_unit_test(test_deberta_examples),
		cmocka_unit_test(test_swin),
		cmocka_unit_test(test_t5_against_pytorch),
		cmocka_unit_test(test_deberta_against_pytorch),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_ids_tensor),
		cmocka_unit_test(test_distances_tensor),
		cmocka_unit_test(test_bias_gather),
		cmocka_unit_test(test_bias_deberta_and_swin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
