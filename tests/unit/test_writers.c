/*
 * The writers, checked by decoding what they wrote: npy header bytes exact
 * (from the format's definition), safetensors header parsed with cJSON and
 * offsets checked, json parsed, csv read back with strtof bit for bit, raw
 * bytes little-endian.
 */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta.h"
#include "core/pipeline.h"
#include "io/le.h"
#include "io/metajson.h"
#include "io/sink.h"
#include "testutil.h"

static struct pe_tensor tensor(const char *name, const struct pe_test_src *s, int ndim, uint64_t a,
			       uint64_t b, uint64_t c, enum pe_dtype dt)
{
	struct pe_tensor t;
	uint64_t shape[3] = { a, b, c };

	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "%s", name);
	t.dtype = dt;
	t.fill = pe_test_fill_from;
	t.ctx = s;
	assert_int_equal(pe_tensor_shape(&t, ndim, shape, NULL), 0);
	return t;
}

/* Write tensors in format f; returns the bytes (malloc'd) and *n, or NULL
 * with err filled when the writer refused. */
static unsigned char *write_fmt(enum pe_format f, const struct pe_tensor *t, size_t nt,
				const struct pe_meta *meta, const struct pe_rowsel *sel,
				int header, size_t *n, struct pe_error *err)
{
	FILE *fp = tmpfile();
	struct pe_sink_opts o;
	struct pe_sink *s;
	unsigned char *buf;
	long len;
	int rc;

	assert_non_null(fp);
	memset(&o, 0, sizeof o);
	o.header = header;
	s = pe_sink_new(f, fp, &o, err);
	assert_non_null(s);
	rc = pe_pump(t, nt, sel, meta, s, NULL, err);
	pe_sink_destroy(s);
	if (rc != 0) {
		fclose(fp);
		return NULL;
	}
	fflush(fp);
	len = ftell(fp);
	buf = malloc((size_t)len + 1);
	rewind(fp);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	buf[len] = '\0';
	fclose(fp);
	*n = (size_t)len;
	return buf;
}

static const float M[3][4] = {
	{ 0.0f, 1.0f, -2.5f, 0.1f },
	{ 3.4028235e38f, -1e-45f, 0.5403023f, 7.0f },
	{ 1e-5f, -0.0f, 123456.79f, 0.33333334f },
};

static void test_npy_header_exact(void **state)
{
	struct pe_test_src s = { M, 4 };
	struct pe_tensor t = tensor("m", &s, 2, 3, 4, 0, PE_F32);
	struct pe_meta meta;
	struct pe_error err;
	size_t n;
	unsigned char *b;
	/* NumPy format 1.0: magic, version, uint16 LE header length, dict,
	 * space padding and '\n' so that data starts at 64 */
	static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
	char want[128];

	(void)state;
	pe_meta_init(&meta);
	b = write_fmt(PE_FMT_NPY, &t, 1, &meta, NULL, 0, &n, &err);
	/* 10 + 59 + '\n' = 70 bytes: padded to 128, header length 118 */
	assert_int_equal(sizeof dict - 1, 59);
	assert_int_equal(n, 128 + 48);
	memcpy(want, "\x93NUMPY\x01\x00\x76\x00", 10);
	memcpy(want + 10, dict, sizeof dict - 1);
	memset(want + 10 + sizeof dict - 1, ' ', 128 - 10 - (sizeof dict - 1) - 1);
	want[127] = '\n';
	assert_memory_equal(b, want, 128);
	assert_true(pe_get_u32le(b + 128 + 4) == 0x3f800000u); /* 1.0f */
	free(b);
}

static void test_npy_1d_3d_int(void **state)
{
	static const int32_t iv[6] = { -1, 0, 1, 2, 2147483647, -2147483647 - 1 };
	struct pe_test_src s = { iv, 1 }, s3 = { iv, 2 };
	struct pe_tensor t = tensor("v", &s, 1, 6, 0, 0, PE_I32);
	struct pe_tensor t3 = tensor("b", &s3, 3, 1, 3, 2, PE_I32);
	struct pe_meta meta;
	struct pe_error err;
	size_t n;
	unsigned char *b;

	(void)state;
	pe_meta_init(&meta);
	b = write_fmt(PE_FMT_NPY, &t, 1, &meta, NULL, 0, &n, &err);
	assert_non_null(strstr((char *)b + 10, "'descr': '<i4'"));
	assert_non_null(strstr((char *)b + 10, "'shape': (6,), }"));
	assert_int_equal(n, 128 + 24);
	assert_true(pe_get_u32le(b + 128) == 0xffffffffu);
	free(b);
	b = write_fmt(PE_FMT_NPY, &t3, 1, &meta, NULL, 0, &n, &err);
	assert_non_null(strstr((char *)b + 10, "'shape': (1, 3, 2), }"));
	assert_int_equal(n, 128 + 24);
	free(b);
}

static void test_csv_roundtrip(void **state)
{
	struct pe_test_src s = { M, 4 };
	struct pe_tensor t = tensor("m", &s, 2, 3, 4, 0, PE_F32);
	struct pe_meta meta;
	struct pe_error err;
	size_t n, r, c;
	unsigned char *b;
	char *p, *end;

	(void)state;
	pe_meta_init(&meta);
	b = write_fmt(PE_FMT_CSV, &t, 1, &meta, NULL, 1, &n, &err);
	p = (char *)b;
	assert_true(strncmp(p, "c0,c1,c2,c3\n", 12) == 0);
	p += 12;
	for (r = 0; r < 3; r++) {
		for (c = 0; c < 4; c++) {
			float v = strtof(p, &end);

			assert_memory_equal(&v, &M[r][c], 4);
			assert_true(*end == (c < 3 ? ',' : '\n'));
			p = end + 1;
		}
	}
	assert_true(*p == '\0');
	free(b);
}

/* A 1-D tensor's csv header is its name, which may be longer than a line
 * of values (it overflowed the line buffer once). */
static void test_csv_long_1d_name(void **state)
{
	static const float v[2] = { 1.5f, -2.0f };
	struct pe_test_src s = { v, 1 };
	char name[PE_NAME_MAX];
	struct pe_tensor t;
	struct pe_error err;
	size_t n;
	unsigned char *b;

	(void)state;
	memset(name, 'w', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	t = tensor(name, &s, 1, 2, 0, 0, PE_F32);
	b = write_fmt(PE_FMT_CSV, &t, 1, NULL, NULL, 1, &n, &err);
	assert_non_null(b);
	assert_int_equal(n, PE_NAME_MAX - 1 + 1 + 4 + 3);
	assert_memory_equal(b, name, PE_NAME_MAX - 1);
	assert_string_equal((char *)b + PE_NAME_MAX - 1, "\n1.5\n-2\n");
	free(b);
}

/* Issue 9: meta text is valid JSON and UTF-8 whatever it holds -
 * non-finite numbers as strings, invalid bytes as U+FFFD. */
static void test_meta_json_nonfinite_and_utf8(void **state)
{
	static const double list[] = { 1.5, -INFINITY, NAN };
	struct pe_meta meta;
	char *j, *v;

	(void)state;
	pe_meta_init(&meta);
	pe_meta_num(&meta, "a", INFINITY);
	pe_meta_num(&meta, "b", NAN);
	pe_meta_list(&meta, "l", list, 3);
	pe_meta_str(&meta, "path", "c\xff\xc3(\xe2\x82\xac.json");
	j = pe_meta_json(&meta);
	assert_non_null(j);
	assert_string_equal(j, "{\"a\":\"inf\",\"b\":\"nan\",\"l\":[1.5,\"-inf\",\"nan\"],"
			       "\"path\":\"c\xef\xbf\xbd\xef\xbf\xbd(\xe2\x82\xac.json\"}");
	free(j);
	v = pe_meta_value_text(&meta.item[0]);
	assert_string_equal(v, "inf");
	free(v);
	v = pe_meta_value_text(&meta.item[3]);
	assert_string_equal(v, "c\xef\xbf\xbd\xef\xbf\xbd(\xe2\x82\xac.json");
	free(v);
	v = pe_utf8_clean("t\xed\xa0\x80!");	/* a surrogate: three bad bytes */
	assert_string_equal(v, "t\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
	free(v);
	pe_meta_free(&meta);
}

static void test_json_parses(void **state)
{
	struct pe_test_src s = { M, 4 };
	struct pe_tensor t = tensor("m", &s, 2, 3, 4, 0, PE_F32);
	struct pe_meta meta;
	struct pe_error err;
	size_t n, r, c;
	unsigned char *b;
	cJSON *root, *data, *m;

	(void)state;
	pe_meta_init(&meta);
	pe_meta_str(&meta, "kind", "test \"quoted\"\n");
	pe_meta_num(&meta, "base", 10000.0);
	pe_meta_int(&meta, "dim", 4);
	pe_meta_bool(&meta, "cls", 1);
	b = write_fmt(PE_FMT_JSON, &t, 1, &meta, NULL, 0, &n, &err);
	root = cJSON_Parse((char *)b);
	assert_non_null(root);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "shape")) == 2);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "dtype")->valuestring, "float32");
	m = cJSON_GetObjectItemCaseSensitive(root, "meta");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "kind")->valuestring, "test \"quoted\"\n");
	assert_true(cJSON_GetObjectItemCaseSensitive(m, "base")->valuedouble == 10000.0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "cls")));
	data = cJSON_GetObjectItemCaseSensitive(root, "data");
	for (r = 0; r < 3; r++)
		for (c = 0; c < 4; c++)
			assert_true((float)cJSON_GetArrayItem(cJSON_GetArrayItem(data, (int)r), (int)c)->valuedouble ==
				    M[r][c]);
	cJSON_Delete(root);
	free(b);
	pe_meta_free(&meta);
}

static void test_json_3d_and_multi(void **state)
{
	static const float v[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct pe_test_src s3 = { v, 2 }, s1 = { v, 1 };
	struct pe_tensor t[2];
	struct pe_meta meta;
	struct pe_error err;
	size_t n;
	unsigned char *b;
	cJSON *root, *x;

	(void)state;
	t[0] = tensor("bias", &s3, 3, 2, 3, 2, PE_F32);
	t[1] = tensor("slopes", &s1, 1, 5, 0, 0, PE_F32);
	pe_meta_init(&meta);
	pe_meta_str(&meta, "kind", "x");
	b = write_fmt(PE_FMT_JSON, t, 2, &meta, NULL, 0, &n, &err);
	root = cJSON_Parse((char *)b);
	assert_non_null(root);
	x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "tensors"), "bias");
	x = cJSON_GetObjectItemCaseSensitive(x, "data");
	/* [[[0,1],[2,3],[4,5]],[[6,7],[8,9],[10,11]]] */
	assert_int_equal(cJSON_GetArraySize(x), 2);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(x, 1)), 3);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetArrayItem(x, 1), 2), 1)->valuedouble == 11);
	x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "tensors"), "slopes");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "data")), 5);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "data"), 4)->valuedouble == 4);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "meta"), "kind")->valuestring, "x");
	cJSON_Delete(root);
	free(b);
	/* the single-tensor formats refuse several tensors */
	assert_null(write_fmt(PE_FMT_NPY, t, 2, &meta, NULL, 0, &n, &err));
	assert_int_equal(err.code, PE_ERR_USAGE);
	assert_null(write_fmt(PE_FMT_CSV, t, 2, &meta, NULL, 0, &n, &err));
	pe_meta_free(&meta);
}

static void test_json_refuses_nan(void **state)
{
	static const float v[4] = { 1, 2, NAN, 4 };
	struct pe_test_src s = { v, 2 };
	struct pe_tensor t = tensor("m", &s, 2, 2, 2, 0, PE_F32);
	struct pe_meta meta;
	struct pe_error err;
	size_t n;

	(void)state;
	pe_meta_init(&meta);
	assert_null(write_fmt(PE_FMT_JSON, &t, 1, &meta, NULL, 0, &n, &err));
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_non_null(strstr(err.msg, "nan"));
	assert_non_null(strstr(err.msg, "row 1, column 0"));
}

static void test_safetensors(void **state)
{
	static const float v[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	struct pe_test_src s = { v, 3 }, s1 = { v, 1 };
	struct pe_tensor t[2];
	struct pe_meta meta;
	struct pe_error err;
	size_t n;
	uint64_t hlen;
	unsigned char *b;
	cJSON *root, *x, *md;

	(void)state;
	t[0] = tensor("rope_cos", &s, 2, 4, 3, 0, PE_F32);
	t[1] = tensor("inv_freq", &s1, 1, 2, 0, 0, PE_F32);
	pe_meta_init(&meta);
	pe_meta_str(&meta, "kind", "rope");
	pe_meta_num(&meta, "theta", 500000.0);
	b = write_fmt(PE_FMT_SAFETENSORS, t, 2, &meta, NULL, 0, &n, &err);
	hlen = pe_get_u64le(b);
	assert_int_equal(hlen % 8, 0);
	assert_int_equal(n, 8 + hlen + 48 + 8);
	root = cJSON_ParseWithLength((char *)b + 8, (size_t)hlen);
	assert_non_null(root);
	md = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(md, "kind")->valuestring, "rope");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(md, "theta")->valuestring, "500000");
	x = cJSON_GetObjectItemCaseSensitive(root, "rope_cos");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(x, "dtype")->valuestring, "F32");
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "shape"), 0)->valuedouble == 4);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "data_offsets"), 0)->valuedouble == 0);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "data_offsets"), 1)->valuedouble == 48);
	x = cJSON_GetObjectItemCaseSensitive(root, "inv_freq");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "shape")), 1);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "data_offsets"), 0)->valuedouble == 48);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "data_offsets"), 1)->valuedouble == 56);
	/* data: tensor 0 then tensor 1, little-endian */
	assert_true(pe_get_u32le(b + 8 + hlen + 4 * 11) == 0x41300000u); /* 11.0f */
	assert_true(pe_get_u32le(b + 8 + hlen + 48 + 4) == 0x3f800000u);   /* 1.0f */
	/* the JSON object ends at its first closing brace at depth 0 (names
	 * here hold no braces); everything after it up to hlen is spaces */
	{
		size_t k, end = 0;
		int depth = 0;

		for (k = 0; k < hlen && !end; k++) {
			depth += b[8 + k] == '{';
			depth -= b[8 + k] == '}';
			if (b[8 + k] == '}' && depth == 0)
				end = k + 1;
		}
		assert_true(end > 0 && end <= hlen && hlen - end < 8);
		for (k = end; k < hlen; k++)
			assert_int_equal(b[8 + k], ' ');
	}
	cJSON_Delete(root);
	free(b);
	/* duplicate names are refused */
	t[1] = tensor("rope_cos", &s1, 1, 2, 0, 0, PE_F32);
	assert_null(write_fmt(PE_FMT_SAFETENSORS, t, 2, &meta, NULL, 0, &n, &err));
	pe_meta_free(&meta);
}

static void test_raw_and_rows(void **state)
{
	struct pe_test_src s = { M, 4 };
	struct pe_tensor t = tensor("m", &s, 2, 3, 4, 0, PE_F32);
	struct pe_rowsel sel = { 1, 1, 3 };
	struct pe_meta meta;
	struct pe_error err;
	size_t n, i;
	unsigned char *b;

	(void)state;
	pe_meta_init(&meta);
	b = write_fmt(PE_FMT_RAW, &t, 1, &meta, &sel, 0, &n, &err);
	assert_int_equal(n, 2 * 4 * 4);
	for (i = 0; i < 8; i++) {
		uint32_t want;

		memcpy(&want, &M[1 + i / 4][i % 4], 4);
		assert_true(pe_get_u32le(b + 4 * i) == want);
	}
	free(b);
	/* npy with a row selection has the selected shape */
	b = write_fmt(PE_FMT_NPY, &t, 1, &meta, &sel, 0, &n, &err);
	assert_non_null(strstr((char *)b + 10, "'shape': (2, 4)"));
	free(b);
	sel.end = 4;
	assert_null(write_fmt(PE_FMT_RAW, &t, 1, &meta, &sel, 0, &n, &err));
	assert_int_equal(err.code, PE_ERR_PARAM);
}

static void test_formats_table(void **state)
{
	(void)state;
	assert_int_equal(pe_format_by_name("npy"), PE_FMT_NPY);
	assert_int_equal(pe_format_by_name("xml"), -1);
	assert_int_equal(pe_format_by_path("a/b.safetensors"), PE_FMT_SAFETENSORS);
	assert_int_equal(pe_format_by_path("x.f32"), PE_FMT_RAW);
	assert_int_equal(pe_format_by_path("x.bin"), PE_FMT_RAW);
	assert_int_equal(pe_format_by_path("x.raw"), PE_FMT_RAW);
	assert_int_equal(pe_format_by_path("x.json"), PE_FMT_JSON);
	assert_int_equal(pe_format_by_path(".npy"), -1);
	assert_int_equal(pe_format_by_path("npy"), -1);
	assert_true(pe_format_is_binary(PE_FMT_NPY) && !pe_format_is_binary(PE_FMT_CSV));
	assert_true(pe_format_multi(PE_FMT_SAFETENSORS) && !pe_format_multi(PE_FMT_RAW));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_npy_header_exact),
		cmocka_unit_test(test_npy_1d_3d_int),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_csv_long_1d_name),
		cmocka_unit_test(test_json_parses),
		cmocka_unit_test(test_json_3d_and_multi),
		cmocka_unit_test(test_json_refuses_nan),
		cmocka_unit_test(test_safetensors),
		cmocka_unit_test(test_raw_and_rows),
		cmocka_unit_test(test_formats_table),
		cmocka_unit_test(test_meta_json_nonfinite_and_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
