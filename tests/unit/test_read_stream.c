/*
 * io/read.h's streamed tables: every row of every fixture format, read in
 * blocks of every size, in and out of order, after the pages were let go,
 * is the row the whole-file reader gives (the reference: pe_read_table,
 * itself checked against NumPy's files in test_readers); the checks the
 * parsers make are the same; rows out of range and an f8 too large for
 * float32 are errors naming the row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/read.h"
#include "testutil.h"

static void same_as_whole(const char *path, const struct pe_read_opts *o)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_matrix m;
	struct pe_table_stream s;
	float *row;
	uint64_t r, blk, r0;

	if (pe_read_table(path, 1 << 26, o, &m, NULL, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	if (pe_table_stream_open(&s, path, 1 << 26, o, &err) != 0)
		fail_msg("stream %s: %s", path, err.msg);
	assert_int_equal(s.rows, m.rows);
	assert_int_equal(s.cols, m.cols);
	row = malloc((size_t)(m.rows * m.cols) * sizeof *row);
	assert_non_null(row);
	for (blk = 1; blk <= m.rows; blk++) {
		for (r0 = 0; r0 < m.rows; r0 += blk) {
			uint64_t n = m.rows - r0 < blk ? m.rows - r0 : blk;

			assert_int_equal(pe_table_stream_rows(&s, r0, (size_t)n, row, &err), 0);
			assert_memory_equal(row, m.v + r0 * m.cols, (size_t)(n * m.cols) * sizeof *row);
		}
	}
	/* backwards, every page let go and mapped again */
	for (r = m.rows; r-- > 0;) {
		assert_int_equal(pe_table_stream_rows(&s, r, 1, row, &err), 0);
		assert_memory_equal(row, m.v + r * m.cols, (size_t)m.cols * sizeof *row);
	}
	assert_int_equal(pe_table_stream_rows(&s, m.rows, 1, row, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_non_null(strstr(err.msg, "rows"));
	free(row);
	pe_table_stream_close(&s);
	pe_matrix_free(&m);
}

static void test_npy_fixtures(void **state)
{
	static const char *const files[] = {
		"t_f4le.npy", "t_f4be.npy", "t_f8le.npy", "t_f8be.npy", "t_f2le.npy", "t_f2be.npy",
		"t_fortran_f4le.npy", "t_fortran_f8be.npy", "t_v2.npy", "t_v3.npy", "t_1x3x4.npy",
	};
	char rel[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(rel, sizeof rel, "tests/data/npy/%s", files[i]);
		same_as_whole(pe_source_path(rel), NULL);
	}
}

static char *write_temp(const char *suffix, const void *p, size_t n)
{
	char *path = pe_temp_path(suffix);
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(p, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* a safetensors file of one tensor: dtype, shape rows x cols, data */
static char *st_file(const char *dtype, uint64_t rows, uint64_t cols, const void *data,
		     size_t nbytes)
{
	char hdr[256];
	unsigned char *buf;
	size_t h, i;
	char *path;

	h = (size_t)snprintf(hdr, sizeof hdr,
			     "{\"pos\":{\"dtype\":\"%s\",\"shape\":[%llu,%llu],\"data_offsets\":[0,%zu]}}",
			     dtype, (unsigned long long)rows, (unsigned long long)cols, nbytes);
	buf = malloc(8 + h + nbytes);
	assert_non_null(buf);
	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(((uint64_t)h >> (8 * i)) & 0xff);
	memcpy(buf + 8, hdr, h);
	memcpy(buf + 8 + h, data, nbytes);
	path = write_temp(".safetensors", buf, 8 + h + nbytes);
	free(buf);
	return path;
}

static void test_safetensors_raw_csv(void **state)
{
	uint16_t half[7 * 5], bf[7 * 5];
	float f[7 * 5];
	struct pe_read_opts raw = { .format = PE_IN_RAW, .rows = 7, .cols = 5 };
	char *p;
	size_t i;

	(void)state;
	for (i = 0; i < 35; i++) {
		f[i] = (float)i * 0.37f - 3.0f;
		half[i] = (uint16_t)(0x3c00 + 37 * i);	/* f16 bit patterns, little-endian host */
		bf[i] = (uint16_t)(0xbf80 - 13 * i);
	}
	p = st_file("F16", 7, 5, half, sizeof half);
	same_as_whole(p, NULL);
	remove(p);
	free(p);
	p = st_file("BF16", 5, 7, bf, sizeof bf);
	same_as_whole(p, NULL);
	remove(p);
	free(p);
	p = write_temp(".f32", f, sizeof f);
	same_as_whole(p, &raw);
	remove(p);
	free(p);
	p = write_temp(".csv", "1,2,3\n4,5,6\n# c\n7,8,9\n", 22);
	same_as_whole(p, NULL);
	remove(p);
	free(p);
}

static void test_errors(void **state)
{
	/* an npy of f8 whose row 2 holds a value beyond float32 */
	static const char head[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }";
	unsigned char buf[128 + 64];
	double v[8] = { 1, 2, 3, 4, 5, 1e300, 7, 8 };
	struct pe_error err = { PE_OK, "" };
	struct pe_table_stream s;
	struct pe_read_opts tensor = { .format = PE_IN_AUTO, .tensor = "x" };
	float out[8];
	size_t hl = 128 - 10, k;
	char *p;

	(void)state;
	memset(buf, ' ', sizeof buf);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	memcpy(buf + 10, head, strlen(head));
	buf[127] = '\n';
	for (k = 0; k < 8; k++)
		memcpy(buf + 128 + 8 * k, &v[k], 8);	/* little-endian host */
	p = write_temp(".npy", buf, sizeof buf);
	assert_int_equal(pe_table_stream_open(&s, p, 1 << 20, NULL, &err), 0);
	assert_int_equal(pe_table_stream_rows(&s, 0, 2, out, &err), 0);
	assert_true(out[3] == 4.0f);
	assert_int_equal(pe_table_stream_rows(&s, 1, 3, out, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_non_null(strstr(err.msg, "row 2 has values too large for float32"));
	pe_table_stream_close(&s);
	/* the parsers' own checks: a tensor name for an npy is a usage error */
	assert_int_equal(pe_table_stream_open(&s, p, 1 << 20, &tensor, &err), -1);
	assert_int_equal(err.code, PE_ERR_USAGE);
	pe_table_stream_close(&s);
	remove(p);
	free(p);
	assert_int_equal(pe_table_stream_open(&s, "/nonexistent/x.npy", 1 << 20, NULL, &err), -1);
	assert_int_equal(err.code, PE_ERR_IO);
	pe_table_stream_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_npy_fixtures),
		cmocka_unit_test(test_safetensors_raw_csv),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
