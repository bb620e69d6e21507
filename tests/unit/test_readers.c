/*
 * The table readers (io/read.h).
 *
 * npy: files written by NumPy (tests/data/npy, made by make.py there) hold
 * T = arange(12).reshape(3, 4) * 0.25 - 1, exact in every float width, so
 * values are compared exactly against that formula; corrupt headers are
 * built here, each with its exact message.  safetensors: buffers built here
 * (header JSON, padding, data written by explicit byte shifts), the
 * reference reader's test vectors (huggingface/safetensors tensor.rs) with
 * posenc's messages, the default-tensor rule, and a sparse GPT-2-shaped
 * file of ~550 MB of which only the header and wpe may be read.  csv and
 * raw: small texts and buffers.  Every buffer handed to a parser is a
 * malloc'd block of exactly its length, so ASan sees any read past it.
 */
#define _DEFAULT_SOURCE	/* mincore */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/dtype.h"
#include "io/input.h"
#include "io/le.h"
#include "io/read.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------- */

static unsigned char *dup_exact(const void *p, size_t n)
{
	unsigned char *b = malloc(n ? n : 1);

	assert_non_null(b);
	if (n)
		memcpy(b, p, n);
	return b;
}

static void expect_msg(int rc, const struct pe_error *err, enum pe_err code, const char *want)
{
	if (rc != -1 || err->code != code || strcmp(err->msg, want) != 0)
		fail_msg("rc %d code %d\n  got  '%s'\n  want '%s'", rc, (int)err->code, err->msg,
			 want);
}

static float t_value(uint64_t r, uint64_t c)
{
	return (float)(-1.0 + 0.25 * (double)(4 * r + c));
}

static void check_t(const struct pe_matrix *m)
{
	uint64_t r, c;

	assert_int_equal(m->rows, 3);
	assert_int_equal(m->cols, 4);
	for (r = 0; r < 3; r++)
		for (c = 0; c < 4; c++)
			if (m->v[r * 4 + c] != t_value(r, c))
				fail_msg("[%d][%d] = %g, want %g", (int)r, (int)c,
					 (double)m->v[r * 4 + c], (double)t_value(r, c));
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* ---- npy: NumPy's files --------------------------------------------- */

static void test_npy_fixtures(void **state)
{
	static const struct {
		const char *file, *dtype;
		int ndim;
	} ok[] = {
		{ "t_f4le.npy", "<f4", 2 },	    { "t_f4be.npy", ">f4", 2 },
		{ "t_f8le.npy", "<f8", 2 },	    { "t_f8be.npy", ">f8", 2 },
		{ "t_f2le.npy", "<f2", 2 },	    { "t_f2be.npy", ">f2", 2 },
		{ "t_fortran_f4le.npy", "<f4", 2 }, { "t_fortran_f8be.npy", ">f8", 2 },
		{ "t_v2.npy", "<f4", 2 },	    { "t_v3.npy", "<f4", 2 },
		{ "t_1x3x4.npy", "<f4", 3 },
	};
	struct pe_read_opts o = { PE_IN_AUTO, NULL, 0, 0, 0 };
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };
	char rel[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		snprintf(rel, sizeof rel, "tests/data/npy/%s", ok[i].file);
		if (pe_read_table(pe_source_path(rel), 1 << 20, &o, &m, &info, &err) != 0)
			fail_msg("%s: %s", ok[i].file, err.msg);
		check_t(&m);
		assert_int_equal(info.format, PE_IN_NPY);
		assert_string_equal(info.dtype, ok[i].dtype);
		assert_int_equal(info.ndim, ok[i].ndim);
		assert_int_equal(info.shape[info.ndim - 2], 3);
		assert_int_equal(info.shape[info.ndim - 1], 4);
		assert_string_equal(info.tensor, "");
		pe_matrix_free(&m);
	}
}

static void test_npy_vector_and_scalar(void **state)
{
	struct pe_read_opts o = { PE_IN_AUTO, NULL, 0, 0, 0 };
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err;
	int i;

	(void)state;
	assert_int_equal(pe_read_table(pe_source_path("tests/data/npy/vec5.npy"), 1 << 20, &o, &m,
				       &info, &err), 0);
	assert_int_equal(m.rows, 5);
	assert_int_equal(m.cols, 1);
	for (i = 0; i < 5; i++)
		assert_true(m.v[i] == 0.5f * (float)i);
	assert_int_equal(info.ndim, 1);
	pe_matrix_free(&m);

	assert_int_equal(pe_read_table(pe_source_path("tests/data/npy/scalar.npy"), 1 << 20, &o,
				       &m, &info, &err), 0);
	assert_int_equal(m.rows, 1);
	assert_int_equal(m.cols, 1);
	assert_true(m.v[0] == 2.5f);
	assert_int_equal(info.ndim, 0);
	pe_matrix_free(&m);
}

static void npy_file_refused(const char *file, const char *want)
{
	char rel[128], full[300];
	size_t n;
	unsigned char *b;
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };

	snprintf(rel, sizeof rel, "tests/data/npy/%s", file);
	b = pe_read_file(pe_source_path(rel), &n);
	assert_non_null(b);
	snprintf(full, sizeof full, "%s: %s", file, want);
	expect_msg(pe_table_parse(b, n, file, NULL, &m, NULL, &err), &err, PE_ERR_DATA, full);
	assert_null(m.v);
	free(b);
}

static void test_npy_refused_files(void **state)
{
	(void)state;
	npy_file_refused("t_2x3x2.npy", "shape (2, 3, 2) has 3 dimensions; a table has 1 or 2");
	npy_file_refused("int32.npy", "dtype '<i4' is not float16, float32 or float64");
	npy_file_refused("object.npy", "pickled Python objects are refused (dtype '|O')");
	npy_file_refused("structured.npy", "a structured dtype, not a table");
}

/* ---- npy: buffers built here ----------------------------------------- */

/* magic, version, header length field (hlen_field, or the text's length
 * when ~0), header text as given, ndata bytes of data */
static unsigned char *npy_raw(int major, int minor, size_t hlen_field, const char *text,
			      const unsigned char *data, size_t ndata, size_t *len)
{
	size_t tn = strlen(text), pre = major == 1 ? 10 : 12;
	unsigned char *b = malloc(pre + tn + ndata + 1);

	assert_non_null(b);
	memcpy(b, "\x93NUMPY", 6);
	b[6] = (unsigned char)major;
	b[7] = (unsigned char)minor;
	if (hlen_field == (size_t)~0)
		hlen_field = tn;
	if (pre == 10)
		pe_put_u16le(b + 8, (uint16_t)hlen_field);
	else
		pe_put_u32le(b + 8, (uint32_t)hlen_field);
	memcpy(b + pre, text, tn);
	if (ndata)
		memcpy(b + pre + tn, data, ndata);
	*len = pre + tn + ndata;
	return b;
}

/* T's 48 bytes as f4, big- or little-endian */
static unsigned char *t_data_f4(int big)
{
	unsigned char *d = malloc(48);
	int r, c;

	assert_non_null(d);
	for (r = 0; r < 3; r++)
		for (c = 0; c < 4; c++) {
			uint32_t u = float_bits(t_value((uint64_t)r, (uint64_t)c));
			unsigned char *p = d + 4 * (r * 4 + c);

			if (big) {
				p[0] = (unsigned char)(u >> 24);
				p[1] = (unsigned char)(u >> 16);
				p[2] = (unsigned char)(u >> 8);
				p[3] = (unsigned char)u;
			} else {
				pe_put_u32le(p, u);
			}
		}
	return d;
}

/* a 1.0 file with this dict text (plus "\n"), ndata bytes of T's data */
static int npy_parse_dict(const char *dict, size_t ndata, struct pe_matrix *m,
			  struct pe_error *err)
{
	char text[8192];
	unsigned char *d = t_data_f4(0), *b, *data;
	size_t len;
	int rc;

	snprintf(text, sizeof text, "%s\n", dict);
	data = malloc(ndata + 1);
	assert_non_null(data);
	memset(data, 0, ndata + 1);
	memcpy(data, d, ndata < 48 ? ndata : 48);
	b = npy_raw(1, 0, ~(size_t)0, text, data, ndata, &len);
	rc = pe_npy_parse(b, len, "x.npy", m, NULL, err);
	free(b);
	free(d);
	free(data);
	return rc;
}

static void npy_bad(const char *dict, size_t ndata, const char *want)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	char full[700];

	snprintf(full, sizeof full, "x.npy: %s", want);
	expect_msg(npy_parse_dict(dict, ndata, &m, &err), &err, PE_ERR_DATA, full);
	assert_null(m.v);
}

static void npy_good(const char *dict)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };

	if (npy_parse_dict(dict, 48, &m, &err) != 0)
		fail_msg("%s: %s", dict, err.msg);
	check_t(&m);
	pe_matrix_free(&m);
}

static void test_npy_header_variants(void **state)
{
	(void)state;
	/* no padding at all, double quotes, no trailing comma, odd blanks,
	 * Python 2's long suffix, trailing spaces before the newline */
	npy_good("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
	npy_good("{\"shape\":(3,4),\"fortran_order\":False,\"descr\":\"<f4\"}");
	npy_good("{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 3 , 4 , ) }   ");
	npy_good("{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }");
	npy_good("{'descr':'<f4','fortran_order':False,'shape':(1,1,3,4)}\t");
}

static void test_npy_host_order_and_big_endian(void **state)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	unsigned char *d, *b;
	size_t len;
	int big = pe_host_big_endian();
	const char *host = "{'descr': '=f4', 'fortran_order': False, 'shape': (3, 4), }\n";
	const char *be = "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), } \n";

	(void)state;
	d = t_data_f4(big);
	b = npy_raw(1, 0, ~(size_t)0, host, d, 48, &len);
	assert_int_equal(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), 0);
	check_t(&m);
	pe_matrix_free(&m);
	free(b);
	free(d);

	/* data at an odd offset: 13 header bytes after the 10-byte prefix */
	d = t_data_f4(1);
	b = npy_raw(1, 0, ~(size_t)0, be, d, 48, &len);
	assert_int_equal((len - 48) % 2, 1);
	assert_int_equal(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), 0);
	check_t(&m);
	pe_matrix_free(&m);
	free(b);
	free(d);
}

/* binary16 bits of a value exact in it (T's are: multiples of 0.25 below 2) */
static uint16_t half_bits_exact(float f)
{
	int ex;
	float m;

	if (f == 0)
		return 0;
	m = frexpf(fabsf(f), &ex);	/* |f| = m 2^ex = (2m) 2^(ex - 1) */
	return (uint16_t)((f < 0 ? 0x8000u : 0) | (unsigned)(ex - 1 + 15) << 10 |
			  (unsigned)((2 * m - 1) * 1024));
}

/* T's 12 values as size-byte floats (2, 4, 8) in that byte order */
static void t_data(unsigned char *d, int size, int big)
{
	int i, k;

	for (i = 0; i < 12; i++) {
		float f = t_value((uint64_t)(i / 4), (uint64_t)(i % 4));
		double x = f;
		uint64_t u = size == 2 ? half_bits_exact(f) : size == 4 ? float_bits(f) : 0;
		unsigned char *p = d + size * i;

		if (size == 8)
			memcpy(&u, &x, 8);
		for (k = 0; k < size; k++)
			p[big ? size - 1 - k : k] = (unsigned char)(u >> (8 * k));
	}
}

/*
 * Every descr np.load reads as float16/32/64 (NumPy 1.24: it calls
 * np.dtype(descr)), and spellings it refuses or that are no such float.
 * order: '<', '>', or 'n' for the host's ('=', '|' and none).  The data
 * is written in the order NumPy would read, so a wrong order shows in
 * the values.
 */
static void test_npy_descr_spellings(void **state)
{
	static const struct {
		const char *descr;
		int size;	/* 0: refused */
		char order;
	} cases[] = {
		{ "f4", 4, 'n' },     { "|f4", 4, 'n' },    { "<f", 4, '<' },	  { "=f", 4, 'n' },
		{ ">f", 4, '>' },     { "float32", 4, 'n' }, { "single", 4, 'n' }, { "f04", 4, 'n' },
		{ "f+4", 4, 'n' },    { "f 4", 4, 'n' },    { "f\t4", 4, 'n' },   { "f 04", 4, 'n' },
		{ "f +4", 4, 'n' },   { "<f 4", 4, '<' },   { ">f+08", 8, '>' },  { "f4,", 4, 'n' },
		{ "f4, ", 4, 'n' },   { "<f4, ", 4, '<' },  { "f,", 4, 'n' },	  { "d,", 8, 'n' },
		{ "f4 ,", 4, 'n' },   { "float32,", 4, 'n' }, { ">d,", 8, '>' },  { "=e,", 2, 'n' },
		{ "f04,", 4, 'n' },   { "e", 2, 'n' },	    { "|e", 2, 'n' },	  { ">e", 2, '>' },
		{ "half", 2, 'n' },   { "float16", 2, 'n' }, { "f2", 2, 'n' },	  { "|f2", 2, 'n' },
		{ "<f2", 2, '<' },    { ">f2", 2, '>' },    { "d", 8, 'n' },	  { "=d", 8, 'n' },
		{ "float64", 8, 'n' }, { "double", 8, 'n' }, { "float", 8, 'n' }, { "float_", 8, 'n' },
		{ "f8", 8, 'n' },     { "|f8", 8, 'n' },    { "<f8", 8, '<' },	  { ">f8", 8, '>' },
		{ "f-4", 0, 0 },      { "f++4", 0, 0 },	    { "f4 ", 0, 0 },	  { " f4", 0, 0 },
		{ "<float32", 0, 0 }, { "Float32", 0, 0 },  { "f4,f4", 0, 0 },	  { "(f4)", 0, 0 },
		{ "f4x", 0, 0 },      { "F", 0, 0 },	    { "f1", 0, 0 },	  { "float16 ", 0, 0 },
		{ "f0x4", 0, 0 },     { "f4.0", 0, 0 },	    { "f4L", 0, 0 },	  { "f+4,", 0, 0 },
		{ " f4,", 0, 0 },     { "f4,,", 0, 0 },	    { "< f4,", 0, 0 },	  { "g", 0, 0 },
		{ "<f16", 0, 0 },     { "f16", 0, 0 },	    { "longdouble", 0, 0 }, { "<i4", 0, 0 },
		{ "e2", 0, 0 },	      { "d8", 0, 0 },	    { "1f4", 0, 0 },	  { "f40", 0, 0 },
		{ "", 0, 0 },	      { "<", 0, 0 },	    { "f", 4, 'n' },	  { "<>f4", 0, 0 },
	};
	unsigned char data[96], *b;
	char text[200], want[200];
	struct pe_matrix m;
	struct pe_error err;
	size_t i, len;
	int big, rc;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		big = cases[i].order == '>' || (cases[i].order == 'n' && pe_host_big_endian());
		memset(data, 0, sizeof data);
		if (cases[i].size)
			t_data(data, cases[i].size, big);
		snprintf(text, sizeof text,
			 "{'descr': '%s', 'fortran_order': False, 'shape': (3, 4), }\n",
			 cases[i].descr);
		b = npy_raw(1, 0, ~(size_t)0, text, data, cases[i].size ? 12 * (size_t)cases[i].size : 96,
			    &len);
		err.code = PE_OK;
		rc = pe_npy_parse(b, len, "x.npy", &m, NULL, &err);
		free(b);
		if (cases[i].size == 0) {
			if (rc != -1 || !strstr(err.msg, "is not float16, float32 or float64"))
				fail_msg("'%s' was not refused: %s", cases[i].descr, err.msg);
			pe_quote(want, sizeof want, (const unsigned char *)cases[i].descr,
				 strlen(cases[i].descr), 11, 0);
			assert_non_null(strstr(err.msg, want));
			continue;
		}
		if (rc != 0)
			fail_msg("'%s': %s", cases[i].descr, err.msg);
		check_t(&m);
		pe_matrix_free(&m);
	}
}

/* extra bytes after the data are ignored, as NumPy ignores them */
static void test_npy_trailing_bytes(void **state)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	assert_int_equal(npy_parse_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
					60, &m, &err), 0);
	check_t(&m);
	pe_matrix_free(&m);
}

static void test_npy_corrupt(void **state)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b, *big;
	size_t len;
	char dict[600], want[600];
	int i;

	(void)state;
	/* magic, versions, lengths */
	b = dup_exact("\x93NUMPZ\x01\x00\x10\x00", 10);
	expect_msg(pe_npy_parse(b, 10, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: not an npy file (no \\x93NUMPY at its start)");
	free(b);
	b = dup_exact("\x93NUMPY\x01", 7);
	expect_msg(pe_npy_parse(b, 7, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: npy file cut short (7 bytes)");
	free(b);
	b = npy_raw(1, 1, ~(size_t)0, "{}\n", NULL, 0, &len);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: npy version 1.1 is not 1.0, 2.0 or 3.0");
	free(b);
	b = npy_raw(4, 0, ~(size_t)0, "{}\n", NULL, 0, &len);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: npy version 4.0 is not 1.0, 2.0 or 3.0");
	free(b);
	b = npy_raw(1, 0, 1000, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n",
		    NULL, 0, &len);
	snprintf(want, sizeof want,
		 "x.npy: header length 1000 runs past the end of the file (%zu bytes)", len);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA, want);
	free(b);
	/* 12 bytes claiming a 4 GiB header: refused before anything else */
	b = npy_raw(2, 0, 0xffffffffu, "", NULL, 0, &len);
	assert_int_equal(len, 12);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: header length 4294967295 runs past the end of the file (12 bytes)");
	free(b);
	/* a 70000-byte header that is there: over the limit */
	big = malloc(70001);
	assert_non_null(big);
	memset(big, ' ', 70000);
	big[70000] = '\0';
	big[69999] = '\n';
	b = npy_raw(2, 0, ~(size_t)0, (const char *)big, NULL, 0, &len);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: header length 70000 is over the limit of 65536");
	free(b);
	free(big);
	b = npy_raw(1, 0, ~(size_t)0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }  ",
		    NULL, 0, &len);
	expect_msg(pe_npy_parse(b, len, "x.npy", &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.npy: the npy header does not end with a newline");
	free(b);

	/* keys */
	npy_bad("{'descr': '<f4', 'fortran_order': False, }", 48, "npy header has no 'shape'");
	npy_bad("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)}", 48,
		"npy header has 'descr' twice");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1, }", 48,
		"npy header has an unknown key 'extra'");
	npy_bad("{'Descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 48,
		"npy header has an unknown key 'Descr'");

	/* values */
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (5), }", 48,
		"npy header: shape (5) is not a tuple; a 1-D shape is written (5,)");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': 5, }", 48,
		"npy header: shape must be a tuple of integers, got '5'");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4), }", 48,
		"npy header: shape must be a tuple of non-negative integers, got '-4'");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (03, 4), }", 48,
		"npy header: shape must be a tuple of decimal integers, got '03'");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
		48, "npy header: shape dimension '99999999999999999999999' is too large");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
		48, "shape (4294967296, 4294967296, 16) is too large");
	/* the count fits, count x 4 bytes does not */
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }", 48,
		"shape (4611686018427387904,) is too large");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 40,
		"shape (3, 4) of '<f4' needs 48 data bytes, the file has 40 after its header");
	npy_bad("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 48,
		"shape (3, 4) of '<f8' needs 96 data bytes, the file has 48 after its header");
	npy_bad("{'descr': '<f4', 'fortran_order': 1, 'shape': (3, 4), }", 48,
		"npy header: fortran_order must be True or False, got '1'");
	npy_bad("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (3, 4), }", 48,
		"npy header: fortran_order must be True or False, got 'Falsey'");
	npy_bad("{'descr': 4, 'fortran_order': False, 'shape': (3, 4), }", 48,
		"npy header: descr must be a string, got '4'");
	npy_bad("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 48,
		"dtype '<i8' is not float16, float32 or float64");
	npy_bad("{'descr': '<f16', 'fortran_order': False, 'shape': (3, 4), }", 48,
		"dtype '<f16' is not float16, float32 or float64");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", 48,
		"shape (3, 0) has no values");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3, 2), }", 48,
		"shape (1, 2, 3, 2) has 3 dimensions after its leading 1s; a table has 1 or 2");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} x", 48,
		"npy header: expected the end of the header at byte 68, found 'x'");
	npy_bad("{'descr': '<f4' 'fortran_order': False, 'shape': (3, 4)}", 48,
		"npy header: expected ',' or '}' at byte 26, found ''fortran_order''");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (True,)}", 48,
		"npy header: expected an integer or ')' at byte 61, found 'True'");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3 4)}", 48,
		"npy header: expected ',' or ')' at byte 63, found '4'");
	npy_bad("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)", 48,
		"npy header: expected '}' at byte 66, found the end of the header");
	npy_bad("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (3, 4)}", 48,
		"npy header: a backslash escape at byte 23 is not supported");
	npy_bad("{'descr': '<f4, 'fortran_order': False, 'shape': (3, 4)}", 48,
		"npy header: expected ',' or '}' at byte 27, found 'fortran_order''");
	npy_bad("('descr', '<f4')", 48, "npy header: expected '{' at byte 10, found '('descr''");

	/* 33 dimensions are refused while reading them; 32 ones are 1 x 1 */
	strcpy(dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
	for (i = 0; i < 33; i++)
		strcat(dict, "1, ");
	strcat(dict, "), }");
	npy_bad(dict, 48, "npy header: shape has more than 32 dimensions");
	strcpy(dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
	for (i = 0; i < 32; i++)
		strcat(dict, "1, ");
	strcat(dict, "), }");
	assert_int_equal(npy_parse_dict(dict, 48, &m, &err), 0);
	assert_int_equal(m.rows, 1);
	assert_int_equal(m.cols, 1);
	assert_true(m.v[0] == -1.0f);
	pe_matrix_free(&m);
}

/* ---- conversions ----------------------------------------------------- */

/* every binary16 value against its definition, computed in double:
 * (-1)^s * (e == 0 ? m * 2^-24 : (1024 + m) * 2^(e - 25)) */
static void test_half_all_values(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 65536; h++) {
		unsigned s = h >> 15, e = (h >> 10) & 31, mant = h & 1023;
		float got = pe_from_f16((uint16_t)h), want;

		if (e == 31) {
			if (mant == 0) {
				assert_true(isinf(got));
			} else {
				assert_true(isnan(got));
				/* the payload is kept, the quiet bit included */
				assert_int_equal((float_bits(got) >> 13) & 1023, mant);
			}
			assert_int_equal(float_bits(got) >> 31, s);
			continue;
		}
		want = (float)(e == 0 ? ldexp((double)mant, -24) : ldexp(1024.0 + mant, (int)e - 25));
		if (s)
			want = -want;
		if (float_bits(got) != float_bits(want))
			fail_msg("half 0x%04x: got %a, want %a", (unsigned)h, (double)got,
				 (double)want);
	}
	assert_true(pe_from_f16(0x7bff) == 65504.0f);
	assert_true(pe_from_f16(0x0001) == 0x1p-24f);
	assert_true(pe_from_f16(0x0400) == 0x1p-14f);
	assert_true(pe_from_f16(0x3555) == 0x1.554p-2f);
}

static void test_bf16_and_f64(void **state)
{
	unsigned char b[8 * 8];
	float out[8];
	static const uint64_t d[] = {
		0x3fb999999999999aull,	/* 0.1 */
		0x3ff0000010000000ull,	/* 1 + 2^-24: a tie, to even */
		0x3ff0000010000001ull,	/* just above: up */
		0x7e37e43c8800759cull,	/* 1e300: overflows to inf */
		0x3596d1be2fe3fe10ull,	/* ~1e-50: underflows to 0 */
		0xc00921fb54442d18ull,	/* -pi */
		0x7ff8000000000000ull,	/* NaN */
		0x36a0000000000000ull,	/* 2^-149, the smallest subnormal float */
	};
	int i;

	(void)state;
	assert_true(pe_from_bf16(0x3f80) == 1.0f);
	assert_true(pe_from_bf16(0x4049) == 3.140625f);
	assert_true(pe_from_bf16(0xc000) == -2.0f);
	assert_true(pe_from_bf16(0x0001) == 0x1p-133f);
	assert_true(isinf(pe_from_bf16(0x7f80)));
	assert_true(isnan(pe_from_bf16(0x7fc0)));

	for (i = 0; i < 8; i++)
		pe_put_u64le(b + 8 * i, d[i]);
	pe_elems_to_float(out, 1, b, 8, PE_ELEM_F64, 0);
	assert_true(out[0] == 0.1f);
	assert_true(out[1] == 1.0f);
	assert_true(out[2] == 1.0f + 0x1p-23f);
	assert_true(isinf(out[3]) && out[3] > 0);
	assert_true(out[4] == 0.0f);
	assert_true(out[5] == -3.14159274f);
	assert_true(isnan(out[6]));
	assert_true(out[7] == 0x1p-149f);
}

/* each element kind in each byte order, from an odd address, strided */
static void test_elems_orders(void **state)
{
	unsigned char buf[1 + 16];
	float out[4];

	(void)state;
	/* 1.5 as f16 0x3e00, bf16 0x3fc0, f32 0x3fc00000, f64 0x3ff8000000000000 */
	memcpy(buf + 1, "\x00\x3e\x3e\x00", 4);
	pe_elems_to_float(out, 2, buf + 1, 1, PE_ELEM_F16, 0);
	pe_elems_to_float(out + 1, 2, buf + 3, 1, PE_ELEM_F16, 1);
	assert_true(out[0] == 1.5f && out[1] == 1.5f);
	memcpy(buf + 1, "\xc0\x3f\x3f\xc0", 4);
	pe_elems_to_float(out, 1, buf + 1, 1, PE_ELEM_BF16, 0);
	pe_elems_to_float(out + 1, 1, buf + 3, 1, PE_ELEM_BF16, 1);
	assert_true(out[0] == 1.5f && out[1] == 1.5f);
	memcpy(buf + 1, "\x00\x00\xc0\x3f\x3f\xc0\x00\x00", 8);
	pe_elems_to_float(out, 1, buf + 1, 1, PE_ELEM_F32, 0);
	pe_elems_to_float(out + 1, 1, buf + 5, 1, PE_ELEM_F32, 1);
	assert_true(out[0] == 1.5f && out[1] == 1.5f);
	memcpy(buf + 1, "\x00\x00\x00\x00\x00\x00\xf8\x3f\x3f\xf8\x00\x00\x00\x00\x00\x00", 16);
	pe_elems_to_float(out, 3, buf + 1, 1, PE_ELEM_F64, 0);
	pe_elems_to_float(out + 3, 1, buf + 9, 1, PE_ELEM_F64, 1);
	assert_true(out[0] == 1.5f && out[3] == 1.5f);
}

/* ---- safetensors: buffers built here ---------------------------------- */

/* 8-byte length, json, pad spaces, ndata bytes of data */
static unsigned char *st_build(const char *json, size_t pad, const unsigned char *data,
			       size_t ndata, size_t *len)
{
	size_t jn = strlen(json);
	unsigned char *b = malloc(8 + jn + pad + ndata + 1);

	assert_non_null(b);
	pe_put_u64le(b, (uint64_t)(jn + pad));
	memcpy(b + 8, json, jn);
	memset(b + 8 + jn, ' ', pad);
	if (ndata)
		memcpy(b + 8 + jn + pad, data, ndata);
	*len = 8 + jn + pad + ndata;
	return b;
}

static void st_bad_raw(const unsigned char *b, size_t len, const char *tensor, const char *want)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	char full[700];
	unsigned char *copy = dup_exact(b, len);

	snprintf(full, sizeof full, "x.safetensors: %s", want);
	expect_msg(pe_safetensors_parse(copy, len, "x.safetensors", tensor, &m, NULL, &err), &err,
		   PE_ERR_DATA, full);
	assert_null(m.v);
	free(copy);
}

/* json with ndata zero bytes of data */
static void st_bad(const char *json, size_t ndata, const char *want)
{
	unsigned char *z = calloc(1, ndata + 1), *b;
	size_t len;

	assert_non_null(z);
	b = st_build(json, 0, z, ndata, &len);
	st_bad_raw(b, len, NULL, want);
	free(b);
	free(z);
}

static const float six[6] = { 1, 2, 3, -4, 0.5f, -0.25f };

/* a F32, b F16, c BF16, d F64, each [2, 3] holding six[] */
static unsigned char *st_four(size_t pad, size_t *len)
{
	static const uint16_t h[6] = { 0x3c00, 0x4000, 0x4200, 0xc400, 0x3800, 0xb400 };
	static const uint16_t bf[6] = { 0x3f80, 0x4000, 0x4040, 0xc080, 0x3f00, 0xbe80 };
	static const uint64_t f64[6] = { 0x3ff0000000000000ull, 0x4000000000000000ull,
					 0x4008000000000000ull, 0xc010000000000000ull,
					 0x3fe0000000000000ull, 0xbfd0000000000000ull };
	unsigned char data[96], *b;
	int i;

	for (i = 0; i < 6; i++) {
		pe_put_u32le(data + 4 * i, float_bits(six[i]));
		pe_put_u16le(data + 24 + 2 * i, h[i]);
		pe_put_u16le(data + 36 + 2 * i, bf[i]);
		pe_put_u64le(data + 48 + 8 * i, f64[i]);
	}
	b = st_build("{\"__metadata__\":{\"format\":\"pt\"},"
		     "\"d\":{\"dtype\":\"F64\",\"shape\":[2,3],\"data_offsets\":[48,96]},"
		     "\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
		     "\"b\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[24,36]},"
		     "\"c\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[36,48]}}",
		     pad, data, 96, len);
	return b;
}

static void test_st_dtypes(void **state)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	static const char *const dts[] = { "F32", "F16", "BF16", "F64" };
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b;
	size_t len, pad;
	int i, k;

	(void)state;
	/* pad 0 and 3: the data at an aligned and at an odd offset */
	for (pad = 0; pad < 4; pad += 3) {
		b = st_four(pad, &len);
		for (i = 0; i < 4; i++) {
			struct pe_read_opts o = { PE_IN_AUTO, names[i], 0, 0, 0 };

			if (pe_table_parse(b, len, "x.safetensors", &o, &m, &info, &err) != 0)
				fail_msg("%s: %s", names[i], err.msg);
			assert_int_equal(m.rows, 2);
			assert_int_equal(m.cols, 3);
			for (k = 0; k < 6; k++)
				assert_true(m.v[k] == six[k]);
			assert_int_equal(info.format, PE_IN_SAFETENSORS);
			assert_string_equal(info.dtype, dts[i]);
			assert_string_equal(info.tensor, names[i]);
			assert_int_equal(info.ndim, 2);
			pe_matrix_free(&m);
		}
		free(b);
	}
}

/* pe_read_opts.integers: npy and safetensors integers, each value rounded
 * to float32 as NumPy's astype(float32) (2^24 + 1 is even-rounded down,
 * -2^63 and 2^64 - 1 exact powers of two); refused without it */
static void test_integers(void **state)
{
	static const int64_t i8v[4] = { 0, -3, 16777217, INT64_MIN };
	static const float want_i8[4] = { 0, -3, 16777216, -9223372036854775808.0f };
	struct pe_read_opts o = { PE_IN_AUTO, NULL, 0, 0, 1 };
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	unsigned char data[32], *b;
	size_t len;
	int k;

	(void)state;
	for (k = 0; k < 4; k++)
		pe_put_u64le(data + 8 * k, (uint64_t)i8v[k]);
	b = npy_raw(1, 0, ~(size_t)0,
		    "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }\n", data, 32, &len);
	assert_int_equal(pe_table_parse(b, len, "x.npy", &o, &m, NULL, &err), 0);
	assert_true(m.rows == 2 && m.cols == 2);
	for (k = 0; k < 4; k++)
		assert_true(m.v[k] == want_i8[k]);
	pe_matrix_free(&m);
	o.integers = 0;
	assert_int_equal(pe_table_parse(b, len, "x.npy", &o, &m, NULL, &err), -1);
	assert_string_equal(err.msg, "x.npy: dtype '<i8' is not float16, float32 or float64");
	free(b);

	/* big-endian int16, one-byte unsigned ('|u1') */
	data[0] = 0xff;
	data[1] = 0xfe;
	data[2] = 0x01;
	data[3] = 0x00;
	o.integers = 1;
	b = npy_raw(1, 0, ~(size_t)0, "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }\n",
		    data, 4, &len);
	assert_int_equal(pe_table_parse(b, len, "x.npy", &o, &m, NULL, &err), 0);
	assert_true(m.v[0] == -2 && m.v[1] == 256);
	pe_matrix_free(&m);
	free(b);
	b = npy_raw(1, 0, ~(size_t)0, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }\n",
		    data, 2, &len);
	assert_int_equal(pe_table_parse(b, len, "x.npy", &o, &m, NULL, &err), 0);
	assert_true(m.v[0] == 255 && m.v[1] == 254);
	pe_matrix_free(&m);
	free(b);
	b = npy_raw(1, 0, ~(size_t)0, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n",
		    data, 8, &len);
	assert_int_equal(pe_table_parse(b, len, "x.npy", &o, &m, NULL, &err), -1);
	assert_string_equal(err.msg, "x.npy: dtype '<c8' is not float16, float32 or float64 (or i1-i8, u1-u8)");
	free(b);

	/* safetensors I64 and U64 */
	for (k = 0; k < 4; k++)
		pe_put_u64le(data + 8 * k, (uint64_t)i8v[k]);
	pe_put_u64le(data + 24, UINT64_MAX);
	b = st_build("{\"a\":{\"dtype\":\"I64\",\"shape\":[3],\"data_offsets\":[0,24]},"
		     "\"b\":{\"dtype\":\"U64\",\"shape\":[1],\"data_offsets\":[24,32]}}",
		     0, data, 32, &len);
	o.tensor = "a";
	assert_int_equal(pe_table_parse(b, len, "x.safetensors", &o, &m, NULL, &err), 0);
	assert_true(m.rows == 3 && m.v[0] == 0 && m.v[1] == -3 && m.v[2] == 16777216);
	pe_matrix_free(&m);
	o.tensor = "b";
	assert_int_equal(pe_table_parse(b, len, "x.safetensors", &o, &m, NULL, &err), 0);
	assert_true(m.v[0] == 18446744073709551616.0f);
	pe_matrix_free(&m);
	o.integers = 0;
	assert_int_equal(pe_table_parse(b, len, "x.safetensors", &o, &m, NULL, &err), -1);
	assert_string_equal(err.msg, "x.safetensors: tensor 'b' is U64; a table is F32, F16, BF16 or F64");
	free(b);
}

static void st_shape_case(const char *shape, uint64_t rows, uint64_t cols)
{
	char json[200];
	unsigned char data[24], *b;
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	size_t len;
	int k;

	for (k = 0; k < 6; k++)
		pe_put_u32le(data + 4 * k, float_bits(six[k]));
	snprintf(json, sizeof json,
		 "{\"pos_embed\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[0,%d]}}", shape,
		 (int)(4 * rows * cols));
	b = st_build(json, 0, data, (size_t)(4 * rows * cols), &len);
	if (pe_safetensors_parse(b, len, "x.safetensors", NULL, &m, NULL, &err) != 0)
		fail_msg("%s: %s", shape, err.msg);
	assert_int_equal(m.rows, rows);
	assert_int_equal(m.cols, cols);
	for (k = 0; k < (int)(rows * cols); k++)
		assert_true(m.v[k] == six[k]);
	pe_matrix_free(&m);
	free(b);
}

static void test_st_shapes(void **state)
{
	(void)state;
	st_shape_case("[1,1,2,3]", 2, 3);	/* leading 1s dropped */
	st_shape_case("[1,6]", 1, 6);		/* down to two dimensions only */
	st_shape_case("[6]", 6, 1);
	st_shape_case("[]", 1, 1);
	st_shape_case("[1,1,1]", 1, 1);
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,1,3],\"data_offsets\":[0,24]}}", 24,
	       "tensor 'a' shape [2,1,3] has 3 dimensions; a table has 1 or 2");
}

/* "{"n0":{...},...}": tensors F32 [1, 2] named by fmt with %d, 8 bytes each */
static unsigned char *st_many(const char *const *names, int n, size_t *len)
{
	char *json = malloc(200 * (size_t)n + 16);
	unsigned char *z, *b;
	size_t at = 0;
	int i;

	assert_non_null(json);
	json[at++] = '{';
	for (i = 0; i < n; i++)
		at += (size_t)sprintf(json + at,
				      "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[%d,%d]}",
				      i ? "," : "", names[i], 8 * i, 8 * i + 8);
	json[at++] = '}';
	json[at] = '\0';
	z = calloc(1, 8 * (size_t)n + 1);
	assert_non_null(z);
	for (i = 0; i < n; i++)
		pe_put_u32le(z + 8 * i, float_bits((float)i));
	b = st_build(json, 0, z, 8 * (size_t)n, len);
	free(json);
	free(z);
	return b;
}

/* which tensor the default rule takes, as the first value it holds */
static void default_pick(const char *const *names, int n, int want)
{
	size_t len;
	unsigned char *b = st_many(names, n, &len);
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };

	if (pe_safetensors_parse(b, len, "x.safetensors", NULL, &m, &info, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(m.v[0] == (float)want);
	assert_string_equal(info.tensor, names[want]);
	pe_matrix_free(&m);
	free(b);
}

static void default_fails(const char *const *names, int n, const char *tensor, const char *want)
{
	size_t len;
	unsigned char *b = st_many(names, n, &len);

	st_bad_raw(b, len, tensor, want);
	free(b);
}

/* --tensor want picks names[pick]. */
static void named_pick(const char *const *names, int n, const char *want, int pick)
{
	size_t len;
	unsigned char *b = st_many(names, n, &len);
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };

	if (pe_safetensors_parse(b, len, "x.safetensors", want, &m, &info, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(m.v[0] == (float)pick);
	assert_string_equal(info.tensor, names[pick]);
	pe_matrix_free(&m);
	free(b);
}

static void test_st_default_rule(void **state)
{
	static const char *const one[] = { "foo" };
	static const char *const gpt2[] = { "transformer.wte.weight", "transformer.wpe.weight",
					    "transformer.h.0.attn.bias", "lm_head.weight" };
	static const char *const bert[] = { "bert.embeddings.word_embeddings.weight",
					    "bert.embeddings.position_embeddings.weight" };
	static const char *const opt[] = { "model.decoder.embed_tokens.weight",
					   "model.decoder.embed_positions.weight" };
	static const char *const mae[] = { "decoder_pos_embed", "cls_token", "pos_embed" };
	static const char *const two[] = { "a.wpe.weight", "b.wpe.weight" };
	static const char *const none[] = { "xwpe.weight", "wte.weight" };

	(void)state;
	default_pick(one, 1, 0);
	default_pick(gpt2, 4, 1);
	default_pick(bert, 2, 1);
	default_pick(opt, 2, 1);
	default_pick(mae, 3, 2);	/* a whole name or after a '.', not decoder_pos_embed */
	default_fails(two, 2, NULL,
		      "more than one tensor could be the position table; it has:\n"
		      "  a.wpe.weight F32 [1,2]\n  b.wpe.weight F32 [1,2]");
	default_fails(none, 2, NULL,
		      "no tensor is named wpe.weight, position_embeddings.weight, "
		      "embed_positions.weight or pos_embed; it has:\n  xwpe.weight F32 [1,2]\n"
		      "  wte.weight F32 [1,2]");
	/* --tensor: the whole name, else the one name it ends after a '.' */
	named_pick(gpt2, 4, "wpe.weight", 1);
	named_pick(gpt2, 4, "attn.bias", 2);
	named_pick(two, 2, "a.wpe.weight", 0);
	default_fails(gpt2, 4, "wpe",
		      "no tensor 'wpe'; it has:\n  transformer.wte.weight F32 [1,2]\n"
		      "  transformer.wpe.weight F32 [1,2]\n  transformer.h.0.attn.bias F32 [1,2]\n"
		      "  lm_head.weight F32 [1,2]");
	default_fails(gpt2, 4, "weight",
		      "3 tensors end in 'weight'; it has:\n  transformer.wte.weight F32 [1,2]\n"
		      "  transformer.wpe.weight F32 [1,2]\n  transformer.h.0.attn.bias F32 [1,2]\n"
		      "  lm_head.weight F32 [1,2]");
	default_fails(two, 2, "wpe.weight",
		      "2 tensors end in 'wpe.weight'; it has:\n  a.wpe.weight F32 [1,2]\n"
		      "  b.wpe.weight F32 [1,2]");
	st_bad("{}", 0, "no tensors in the file");
	st_bad("{\"__metadata__\":{\"a\":\"b\"}}", 0, "no tensors in the file");
}

/* an absent name lists the first 16 tensors, then how many more */
static void test_st_listing_truncated(void **state)
{
	char names[20][16], want[600];
	const char *p[20];
	size_t at;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof names[i], "t%d", i);
		p[i] = names[i];
	}
	at = (size_t)snprintf(want, sizeof want, "no tensor 'wpe'; it has:");
	for (i = 0; i < 16; i++)
		at += (size_t)snprintf(want + at, sizeof want - at, "\n  t%d F32 [1,2]", i);
	snprintf(want + at, sizeof want - at, "\n  and 4 more");
	default_fails(p, 20, "wpe", want);
	/* exactly 16: all listed, no "more" */
	at = (size_t)snprintf(want, sizeof want, "no tensor 'wpe'; it has:");
	for (i = 0; i < 16; i++)
		at += (size_t)snprintf(want + at, sizeof want - at, "\n  t%d F32 [1,2]", i);
	default_fails(p, 16, "wpe", want);
}

/* a long file name leaves less room for the listing: it is cut short,
 * never written past the message (a path ending near the buffer's end
 * once made the room left wrap around) */
static void test_st_listing_long_name(void **state)
{
	char names[20][16], path[1100];
	const char *p[20];
	struct pe_matrix m;
	struct pe_error err;
	unsigned char *b;
	size_t len, plen;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof names[i], "t%d", i);
		p[i] = names[i];
	}
	b = st_many(p, 20, &len);
	for (plen = 850; plen < sizeof path; plen++) {
		memset(path, 'a', plen);
		path[plen] = '\0';
		memset(&err, 0, sizeof err);
		assert_int_equal(pe_safetensors_parse(b, len, path, "wpe", &m, NULL, &err), -1);
		assert_int_equal(err.code, PE_ERR_DATA);
		assert_true(strlen(err.msg) < sizeof err.msg);
		assert_null(m.v);
		if (plen < 900) {
			assert_non_null(strstr(err.msg, ": no tensor 'wpe'; it has:\n  t0 F32 [1,2]"));
			assert_non_null(strstr(err.msg, " more"));
		}
	}
	free(b);
}

/* huggingface/safetensors tensor.rs tests, as data */
static void test_st_reference_vectors(void **state)
{
	static const char polyglot[] = "extra_bogus_data_for_polyglot_file";
	const char *test22 = "{\"test\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";
	unsigned char z[64] = { 0 }, *b, *j;
	char json[1200], want[300];
	size_t len, at, n;
	int i;

	(void)state;
	/* test_header_too_small */
	st_bad_raw(z, 0, NULL, "0 bytes, too short for a safetensors file (its header length alone is 8)");
	st_bad_raw(z, 7, NULL, "7 bytes, too short for a safetensors file (its header length alone is 8)");
	/* test_header_too_large */
	b = st_build(test22, 0, z, 16, &len);
	memcpy(b, "<\x00\x00\x00\x00\xff\xff\xff", 8);
	snprintf(want, sizeof want, "header length %llu is over the limit of 100000000",
		 (unsigned long long)0xffffff000000003cull);
	st_bad_raw(b, len, NULL, want);
	free(b);
	/* test_invalid_header_length */
	st_bad_raw((const unsigned char *)"<\x00\x00\x00\x00\x00\x00\x00", 8, NULL,
		   "header length 60 runs past the end of the file (8 bytes)");
	/* test_invalid_header_non_utf8 */
	st_bad_raw((const unsigned char *)"\x01\x00\x00\x00\x00\x00\x00\x00\xff", 9, NULL,
		   "the header is not valid UTF-8 (at byte 8)");
	/* test_invalid_header_not_json: cJSON stops at the end of "{" and
	 * reports its last byte */
	st_bad_raw((const unsigned char *)"\x01\x00\x00\x00\x00\x00\x00\x00{", 9, NULL,
		   "the header is not valid JSON (near byte 8)");
	/* test_json_attack: ten tensors on the same 16 bytes */
	at = (size_t)sprintf(json, "{");
	for (i = 0; i < 10; i++)
		at += (size_t)sprintf(json + at,
				      "%s\"weight_%d\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}",
				      i ? "," : "", i);
	strcpy(json + at, "}");
	st_bad(json, 16,
	       "tensor 'weight_1' data_offsets [0, 16] overlap the tensor before, which ends at byte 16 (tensors are contiguous from 0)");
	/* test_metadata_incomplete_buffer: trailing junk, then 2 bytes short */
	j = malloc(16 + sizeof polyglot);
	assert_non_null(j);
	memset(j, 0, 16);
	memcpy(j + 16, polyglot, sizeof polyglot - 1);
	b = st_build(test22, 0, j, 16 + sizeof polyglot - 1, &len);
	snprintf(want, sizeof want,
		 "%zu bytes after the last tensor (a safetensors file is entirely indexed)",
		 strlen(polyglot));
	st_bad_raw(b, len, NULL, want);
	st_bad_raw(b, len - sizeof polyglot + 1 - 2, NULL,
		   "truncated: the tensors need 16 bytes after the header, the file has 14");
	free(b);
	free(j);
	/* test_invalid_info */
	st_bad("{\"test\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0, 4]}}", 4,
	       "tensor 'test' I32 [2,2] needs 16 bytes, data_offsets [0, 4] hold 4");
	/* test_validation_overflow: the values are past 2^53 before any product;
	 * cJSON prints them with %1.17g */
	st_bad("{\"test\":{\"dtype\":\"I32\",\"shape\":[2,18446744073709551614],\"data_offsets\":[0,16]}}",
	       16, "tensor 'test' shape value '1.8446744073709552e+19' is not an integer from 0 to 2^53 - 1");
	st_bad("{\"test\":{\"dtype\":\"I32\",\"shape\":[2,9223372036854775807],\"data_offsets\":[0,16]}}",
	       16, "tensor 'test' shape value '9.2233720368547758e+18' is not an integer from 0 to 2^53 - 1");
	/* products that overflow with values below 2^53 */
	st_bad("{\"test\":{\"dtype\":\"I32\",\"shape\":[4503599627370496,4503599627370496],\"data_offsets\":[0,16]}}",
	       16, "tensor 'test' shape [4503599627370496,4503599627370496] is too large");
	st_bad("{\"test\":{\"dtype\":\"I32\",\"shape\":[4294967296,1073741824],\"data_offsets\":[0,16]}}",
	       16, "tensor 'test' shape [4294967296,1073741824] is too large");
	/* test_whitespace_padded_header, ..._leading_padded_header */
	for (i = 0; i < 2; i++) {
		struct pe_tensor_entry *list;
		struct pe_error err = { PE_OK, "" };
		unsigned char *c = dup_exact(i ? "\x06\x00\x00\x00\x00\x00\x00\x00{}\x0d\x20\x09\x0a"
					       : "\x06\x00\x00\x00\x00\x00\x00\x00\x09\x0a{}\x0d\x20",
					     14);

		assert_int_equal(pe_in_sniff(c, 14), PE_IN_SAFETENSORS);
		if (pe_table_list(c, 14, "x.safetensors", &list, &n, &err) != 0)
			fail_msg("%s", err.msg);
		assert_int_equal(n, 0);
		pe_tensor_entries_free(list, n);
		free(c);
	}
	/* test_zero_sized_tensor: a valid file, no table */
	{
		struct pe_tensor_entry *list;
		struct pe_error err = { PE_OK, "" };
		const char *zs = "{\"test\":{\"dtype\":\"I32\",\"shape\":[2,0],\"data_offsets\":[0, 0]}}";

		b = st_build(zs, 0, NULL, 0, &len);
		assert_int_equal(pe_table_list(b, len, "x.safetensors", &list, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_string_equal(list[0].name, "test");
		assert_string_equal(list[0].dtype, "I32");
		assert_int_equal(list[0].ndim, 2);
		assert_int_equal(list[0].shape[0], 2);
		assert_int_equal(list[0].shape[1], 0);
		pe_tensor_entries_free(list, n);
		st_bad_raw(b, len, NULL, "tensor 'test' is I32; a table is F32, F16, BF16 or F64");
		free(b);
		st_bad("{\"test\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[0, 0]}}", 0,
		       "tensor 'test' shape [2,0] has no values");
	}
	/* test_empty_shapes_allowed: rank 0, one value */
	st_shape_case("[]", 1, 1);
}

static void test_st_header_errors(void **state)
{
	char json[600];
	int i;

	(void)state;
	st_bad("{\"__metadata__\":{\"a\":1},\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
	       4, "__metadata__ must be an object of strings; 'a' is not a string");
	st_bad("{\"__metadata__\":\"x\",\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
	       4, "__metadata__ must be an object of strings");
	st_bad("{\"__metadata__\":{},\"__metadata__\":{}}", 0, "__metadata__ appears twice");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
	       "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
	       8, "two tensors are named 'a'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1e300]}}", 4,
	       "tensor 'a' data_offsets value '1e+300' is not an integer from 0 to 2^53 - 1");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-1,4]}}", 4,
	       "tensor 'a' data_offsets value '-1' is not an integer from 0 to 2^53 - 1");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1.5]}}", 4,
	       "tensor 'a' data_offsets value '1.5' is not an integer from 0 to 2^53 - 1");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}", 4,
	       "tensor 'a' data_offsets value '\"4\"' is not an integer from 0 to 2^53 - 1");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8,
	       "tensor 'a' data_offsets must be a list of 2 integers, got '[0,4,8]'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4,
	       "tensor 'a' data_offsets must be a list of 2 integers, got '[0]'");
	st_bad("{\"a\":{\"dtype\":\"F12\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' has an unknown dtype 'F12'");
	st_bad("{\"a\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' has an unknown dtype 'f32'");
	st_bad("{\"a\":{\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' dtype must be a string, got '32'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"extra\":1}}", 4,
	       "tensor 'a' has an unknown key 'extra'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"DTYPE\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' has an unknown key 'DTYPE'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' has 'dtype' twice");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, "tensor 'a' has no 'shape'");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,4]}}", 4,
	       "tensor 'a' shape must be a list of integers, got '4'");
	st_bad("{\"a\":[1]}", 0, "tensor 'a' is not an object");
	st_bad("[1]", 0, "the header is not a JSON object");
	st_bad("   ", 0, "the header is not valid JSON (it is empty)");
	st_bad("{} x", 0, "the header is not valid JSON (more text at byte 11)");
	st_bad("{\"a\x01\":1}", 0, "the header is not valid JSON (control byte 0x01 at byte 11)");
	st_bad("{\"\xc3\x28\":1}", 0, "the header is not valid UTF-8 (at byte 10)");
	st_bad("{\"\xed\xa0\x80\":1}", 0, "the header is not valid UTF-8 (at byte 10)");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 4,
	       "tensor 'a' data_offsets [8, 4] end before they begin");
	st_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8,
	       "tensor 'a' data_offsets [4, 8] leave a gap after byte 0 (tensors are contiguous from 0)");
	st_bad("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2,
	       "tensor 'a' of 3 F4 values is not a whole number of bytes");
	/* a name quoted safely: control characters escaped, kept short */
	st_bad("{\"a\\u0007b\":[1]}", 0, "tensor 'a\\x07b' is not an object");
	strcpy(json, "{\"a\":{\"dtype\":\"F32\",\"shape\":[");
	for (i = 0; i < 33; i++)
		strcat(json, i ? ",1" : "1");
	strcat(json, "],\"data_offsets\":[0,4]}}");
	st_bad(json, 4, "tensor 'a' has 33 dimensions, more than 32");
	/* offsets out of header order are fine: sorted first */
	{
		unsigned char data[8], *b;
		struct pe_matrix m;
		struct pe_error err = { PE_OK, "" };
		size_t len;

		pe_put_u32le(data, float_bits(7.0f));
		pe_put_u32le(data + 4, float_bits(9.0f));
		b = st_build("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
			     "\"y\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
			     "\"__metadata__\":null}", 5, data, 8, &len);
		assert_int_equal(pe_safetensors_parse(b, len, "x.safetensors", "x", &m, NULL, &err), 0);
		assert_true(m.v[0] == 9.0f);
		pe_matrix_free(&m);
		free(b);
	}
}

/* ---- safetensors: a GPT-2-shaped file on disk ---------------------------- */

#define GPT2_WPE_ROWS 1024
#define GPT2_D 768

static float wpe_value(uint64_t i)
{
	return (float)((double)(i % 4099) * 0.125 - 200.0);
}

struct gpt2_tensor {
	char name[64];
	const char *dtype;
	int ndim;
	uint64_t shape[4];
	uint64_t bytes;
};

static int add(struct gpt2_tensor *t, int n, const char *name, const char *dtype, int ndim,
	       uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t shape[4] = { a, b, c, d }, count = 1;
	int k;

	snprintf(t[n].name, sizeof t[n].name, "%s", name);
	t[n].dtype = dtype;
	t[n].ndim = ndim;
	for (k = 0; k < ndim; k++) {
		t[n].shape[k] = shape[k];
		count *= shape[k];
	}
	t[n].bytes = count * (strcmp(dtype, "F32") == 0 ? 4 : 2);
	return n + 1;
}

/* 160 tensors as GPT2LMHeadModel saves them, 12 layers of 13, F16 mlp
 * weights in layer 10 and BF16 in layer 11; returns the count */
static int gpt2_tensors(struct gpt2_tensor *t)
{
	char nm[64];
	int n = 0, l;

	n = add(t, n, "transformer.wte.weight", "F32", 2, 50257, GPT2_D, 0, 0);
	n = add(t, n, "transformer.wpe.weight", "F32", 2, GPT2_WPE_ROWS, GPT2_D, 0, 0);
	for (l = 0; l < 12; l++) {
		const char *mlp = l == 10 ? "F16" : l == 11 ? "BF16" : "F32";

#define LAYER(suffix, dt, nd, a, b, c, d)                                          \
	do {                                                                       \
		snprintf(nm, sizeof nm, "transformer.h.%d.%s", l, suffix);          \
		n = add(t, n, nm, dt, nd, a, b, c, d);                             \
	} while (0)
		LAYER("ln_1.weight", "F32", 1, 768, 0, 0, 0);
		LAYER("ln_1.bias", "F32", 1, 768, 0, 0, 0);
		LAYER("attn.bias", "F32", 4, 1, 1, 1024, 1024);
		LAYER("attn.c_attn.weight", "F32", 2, 768, 2304, 0, 0);
		LAYER("attn.c_attn.bias", "F32", 1, 2304, 0, 0, 0);
		LAYER("attn.c_proj.weight", "F32", 2, 768, 768, 0, 0);
		LAYER("attn.c_proj.bias", "F32", 1, 768, 0, 0, 0);
		LAYER("ln_2.weight", "F32", 1, 768, 0, 0, 0);
		LAYER("ln_2.bias", "F32", 1, 768, 0, 0, 0);
		LAYER("mlp.c_fc.weight", mlp, 2, 768, 3072, 0, 0);
		LAYER("mlp.c_fc.bias", "F32", 1, 3072, 0, 0, 0);
		LAYER("mlp.c_proj.weight", mlp, 2, 3072, 768, 0, 0);
		LAYER("mlp.c_proj.bias", "F32", 1, 768, 0, 0, 0);
#undef LAYER
	}
	n = add(t, n, "transformer.ln_f.weight", "F32", 1, 768, 0, 0, 0);
	n = add(t, n, "transformer.ln_f.bias", "F32", 1, 768, 0, 0, 0);
	return n;
}

/*
 * Written sparse: the header and wpe's bytes, the rest left a hole by
 * ftruncate, so the file is ~550 MB long and takes ~3 MB of disk.
 *
 * Proof that the parser touched only the header and wpe: mincore() on the
 * input's own mapping after parsing.  For a file mapping mincore reports
 * whether each page is in the page cache.  The pages written here are
 * (header, wpe); a hole page gets there only when something reads it, and
 * reading the whole mapping would put ~134,000 pages there.  So the
 * resident count must stay below the written pages plus a margin for the
 * kernel's read-around of the pages next to those the parser touched.
 */
static void test_st_gpt2_sparse(void **state)
{
	struct gpt2_tensor *t = calloc(200, sizeof *t);
	char *json = malloc(40000), *path = pe_temp_path(".safetensors");
	uint64_t off = 0, wpe_off = 0, total, i;
	unsigned char *wpe, *vec;
	struct pe_input in;
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_tensor_entry *list;
	struct pe_error err = { PE_OK, "" };
	size_t at = 0, hlen, pages, resident = 0, allowed, page = (size_t)sysconf(_SC_PAGESIZE), n;
	unsigned char len8[8];
	int nt, k, fd;

	(void)state;
	assert_non_null(t);
	assert_non_null(json);
	nt = gpt2_tensors(t);
	assert_int_equal(nt, 160);
	at += (size_t)sprintf(json + at, "{\"__metadata__\":{\"format\":\"pt\"}");
	for (k = 0; k < nt; k++) {
		int d;

		if (strcmp(t[k].name, "transformer.wpe.weight") == 0)
			wpe_off = off;
		at += (size_t)sprintf(json + at, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[k].name,
				      t[k].dtype);
		for (d = 0; d < t[k].ndim; d++)
			at += (size_t)sprintf(json + at, "%s%llu", d ? "," : "",
					      (unsigned long long)t[k].shape[d]);
		at += (size_t)sprintf(json + at, "],\"data_offsets\":[%llu,%llu]}",
				      (unsigned long long)off, (unsigned long long)(off + t[k].bytes));
		off += t[k].bytes;
	}
	json[at++] = '}';
	/* pad to 8 as the reference writer does */
	while (at % 8)
		json[at++] = ' ';
	hlen = at;
	total = 8 + hlen + off;
	assert_true(total > (uint64_t)500 << 20);

	wpe = malloc((size_t)GPT2_WPE_ROWS * GPT2_D * 4);
	assert_non_null(wpe);
	for (i = 0; i < (uint64_t)GPT2_WPE_ROWS * GPT2_D; i++)
		pe_put_u32le(wpe + 4 * i, float_bits(wpe_value(i)));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	pe_put_u64le(len8, hlen);
	assert_int_equal(pwrite(fd, len8, 8, 0), 8);
	assert_int_equal(pwrite(fd, json, hlen, 8), (ssize_t)hlen);
	assert_int_equal(pwrite(fd, wpe, (size_t)GPT2_WPE_ROWS * GPT2_D * 4,
				(off_t)(8 + hlen + wpe_off)),
			 (ssize_t)GPT2_WPE_ROWS * GPT2_D * 4);
	assert_int_equal(ftruncate(fd, (off_t)total), 0);
	assert_int_equal(close(fd), 0);

	assert_int_equal(pe_input_open(&in, path, (size_t)1 << 30, &err), 0);
	assert_non_null(in.map);
	assert_int_equal(in.len, total);
	if (pe_safetensors_parse(in.data, in.len, in.name, NULL, &m, &info, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(m.rows, GPT2_WPE_ROWS);
	assert_int_equal(m.cols, GPT2_D);
	for (i = 0; i < (uint64_t)GPT2_WPE_ROWS * GPT2_D; i++)
		if (m.v[i] != wpe_value(i))
			fail_msg("wpe[%llu] = %g", (unsigned long long)i, (double)m.v[i]);
	assert_string_equal(info.tensor, "transformer.wpe.weight");
	assert_string_equal(info.dtype, "F32");

	pages = (in.map_len + page - 1) / page;
	vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(in.map, in.map_len, vec), 0);
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	allowed = (8 + hlen + (size_t)GPT2_WPE_ROWS * GPT2_D * 4) / page + ((size_t)4 << 20) / page;
	if (resident > allowed)
		fail_msg("%zu of %zu pages resident, at most %zu expected", resident, pages, allowed);
	free(vec);

	/* the listing reads the header only, and has every dtype */
	assert_int_equal(pe_table_list(in.data, in.len, in.name, &list, &n, &err), 0);
	assert_int_equal(n, 160);
	assert_string_equal(list[0].name, "transformer.wte.weight");
	assert_int_equal(list[0].shape[0], 50257);
	assert_string_equal(list[4].name, "transformer.h.0.attn.bias");
	assert_int_equal(list[4].ndim, 4);
	assert_int_equal(list[4].shape[3], 1024);
	assert_string_equal(list[2 + 13 * 10 + 9].dtype, "F16");
	assert_string_equal(list[2 + 13 * 11 + 11].dtype, "BF16");
	pe_tensor_entries_free(list, n);

	/* an absent name: as much of the list as one message line holds */
	pe_matrix_free(&m);
	assert_int_equal(pe_safetensors_parse(in.data, in.len, "gpt2.safetensors", "wpe", &m, NULL,
					      &err), -1);
	{
		const char *head = "gpt2.safetensors: no tensor 'wpe'; it has:\n  transformer.wte.weight "
				   "F32 [50257,768]\n  transformer.wpe.weight F32 [1024,768]\n  ";

		if (strncmp(err.msg, head, strlen(head)) != 0)
			fail_msg("got '%s'", err.msg);
	}
	assert_non_null(strstr(err.msg, " more"));
	assert_true(strlen(err.msg) < sizeof err.msg - 1);
	pe_input_close(&in);

	unlink(path);
	free(path);
	free(wpe);
	free(json);
	free(t);
}

/* a \u0000 in the header: cJSON would end the string there, so the name
 * would be shown and matched cut short; "\\u0000" (an escaped backslash)
 * is no NUL, and a name holding control characters is whole */
static void test_st_nul_names(void **state)
{
	static const char *const nul[] = {
		"{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		"{\"a\":{\"dtype\":\"F32\\u0000x\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		"{\"__metadata__\":{\"k\":\"v\\u0000\"},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		"{\"\\\\\\u0000\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
	};
	const char *ok = "{\"a\\\\u0000\\n\\t\\u001b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	struct pe_tensor_entry *list;
	struct pe_error err = { PE_OK, "" };
	unsigned char z[4] = { 0, 0, 0x80, 0x3f }, *b;
	char want[200];
	size_t len, n, i;

	(void)state;
	for (i = 0; i < sizeof nul / sizeof nul[0]; i++) {
		snprintf(want, sizeof want,
			 "the header holds a NUL character (\\u0000 at byte %zu), which posenc cannot keep in a name or value",
			 8 + (size_t)(strstr(nul[i], "\\u0000") - nul[i]));
		st_bad(nul[i], 4, want);
		b = st_build(nul[i], 0, z, 4, &len);
		assert_int_equal(pe_table_list(b, len, "x.safetensors", &list, &n, &err), -1);
		assert_null(list);
		free(b);
	}
	b = st_build(ok, 0, z, 4, &len);
	assert_int_equal(pe_table_list(b, len, "x.safetensors", &list, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0].name, "a\\u0000\n\t\x1b");
	pe_tensor_entries_free(list, n);
	free(b);
}

/* ---- csv ------------------------------------------------------------------ */

static int csv(const char *text, struct pe_matrix *m, struct pe_error *err)
{
	size_t n = strlen(text);
	unsigned char *b = dup_exact(text, n);
	int rc = pe_csv_parse(b, n, "x.csv", m, NULL, err);

	free(b);
	return rc;
}

static void csv_expect(const char *text, uint64_t rows, uint64_t cols, const float *v)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	uint64_t i;

	if (csv(text, &m, &err) != 0)
		fail_msg("'%s': %s", text, err.msg);
	assert_int_equal(m.rows, rows);
	assert_int_equal(m.cols, cols);
	for (i = 0; i < rows * cols; i++)
		if (float_bits(m.v[i]) != float_bits(v[i]))
			fail_msg("'%s' [%d]: got %a, want %a", text, (int)i, (double)m.v[i],
				 (double)v[i]);
	pe_matrix_free(&m);
}

static void csv_bad(const char *text, const char *want)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	char full[700];

	snprintf(full, sizeof full, "x.csv: %s", want);
	expect_msg(csv(text, &m, &err), &err, PE_ERR_DATA, full);
	assert_null(m.v);
}

static void test_csv_good(void **state)
{
	static const float v1234[] = { 1, 2, 3, 4 };
	static const float v123456[] = { 1, 2, 3, 4, 5, 6 };
	/* what `posenc generate sinusoidal -n 3 -d 4 --header` writes */
	static const float sin34[] = { 0, 1, 0, 1, 0.84147096f, 0.5403023f, 0.009999833f,
				       0.99995f, 0.9092974f, -0.41614684f, 0.019998666f, 0.9998f };
	static const float col[] = { 1, 2.5f, -3 };
	static const float tenth[] = { 0.1f, 1.0f };
	struct pe_matrix m;
	struct pe_error err;

	(void)state;
	csv_expect("d0,d1,d2,d3\n0,1,0,1\n0.84147096,0.5403023,0.009999833,0.99995\n"
		   "0.9092974,-0.41614684,0.019998666,0.9998\n", 3, 4, sin34);
	csv_expect("1,2\n3,4\n", 2, 2, v1234);
	csv_expect("1,2\n3,4", 2, 2, v1234);	/* no final newline */
	csv_expect("# a comment\n\n1,2\n   # an indented one\n\n3,4\n\n", 2, 2, v1234);
	csv_expect("1,2 # as numpy.loadtxt, a comment to the end of the line\n3,4#\n", 2, 2, v1234);
	csv_expect("a,b\n1,2\n3,4\n", 2, 2, v1234);		/* a header */
	csv_expect("1 2  3\n4\t5 6\n", 2, 3, v123456);
	csv_expect("  1 2 3  \n4 5 6\t\n", 2, 3, v123456);
	csv_expect("1 , 2,3\n 4,5 ,\t6\n", 2, 3, v123456);
	csv_expect("1,2\r\n3,4\r\n", 2, 2, v1234);
	csv_expect("\xef\xbb\xbf" "a,b\r\n1,2\r\n3,4\r\n", 2, 2, v1234);
	csv_expect("\xef\xbb\xbf" "1,2\n3,4\n", 2, 2, v1234);
	csv_expect("x\n1\n2.5\n-3\n", 3, 1, col);
	csv_expect("1\n2.5\n-3\n", 3, 1, col);
	csv_expect("pos val\n1 2\n3 4\n", 2, 2, v1234);
	/* strtod, then rounded to float: 0.1 is 0.1f; a decimal a hair above
	 * the float tie 1 + 2^-24 is that tie as a double, then 1 by
	 * ties-to-even (strtof would give 1 + 2^-23) */
	csv_expect("0.1\n1.00000005960464477539062500000001\n", 2, 1, tenth);

	assert_int_equal(csv("nan,inf,-inf,1e999,1e-999\n", &m, &err), 0);
	assert_true(isnan(m.v[0]));
	assert_true(isinf(m.v[1]) && m.v[1] > 0);
	assert_true(isinf(m.v[2]) && m.v[2] < 0);
	assert_true(isinf(m.v[3]));
	assert_true(m.v[4] == 0.0f);
	pe_matrix_free(&m);
}

/* the buffer is not NUL-terminated: a digit just past it is not read */
static void test_csv_not_terminated(void **state)
{
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b = dup_exact("1,23", 4);

	(void)state;
	assert_int_equal(pe_csv_parse(b, 3, "x.csv", &m, NULL, &err), 0);
	assert_int_equal(m.cols, 2);
	assert_true(m.v[1] == 2.0f);
	pe_matrix_free(&m);
	free(b);
}

static void test_csv_bad(void **state)
{
	char *longf;

	(void)state;
	csv_bad("", "no rows");
	csv_bad("\n\n# nothing\n", "no rows");
	csv_bad("a,b,c\n", "no rows");
	csv_bad("a,b,c,d\n1,2,3,4\n5,6,7,8\n\n# c\n1,2,3,4\n1,2,3,4,5\n",
		"line 7 has 5 fields, line 2 has 4");
	csv_bad("1 2 3\n4 5\n", "line 2 has 2 fields, line 1 has 3");
	csv_bad("1,2,3\n4,5,abc\n", "line 2, column 3: 'abc' is not a number");
	csv_bad("1,2,3\n4,,6\n", "line 2, column 2: '' is not a number");
	csv_bad("1,2\n3,\n", "line 2, column 2: '' is not a number");
	csv_bad("1,2\n3,4 5\n", "line 2, column 2: '4 5' is not a number");
	csv_bad("1,2\n3,0x\x01\xff\n", "line 2, column 2: '0x\\x01\\xff' is not a number");
	csv_bad("1,2x,3\n4,5,6\n", "line 1, column 2: '2x' is not a number");	/* not a header */
	/* a first line with any number in it is data, however many of its
	 * fields are bad (reliability-2.md finding 6: each was a header) */
	csv_bad("x,2\n1,2\n3,4\n", "line 1, column 1: 'x' is not a number");
	csv_bad("0.5,0.25x\n1,2\n3,4\n", "line 1, column 2: '0.25x' is not a number");
	csv_bad("7x\n1\n2\n", "line 1, column 1: '7x' is not a number");
	csv_bad("0x10,1\n1,2\n", "line 1, column 1: '0x10' is not a number");
	csv_bad("1_000,1\n1,2\n", "line 1, column 1: '1_000' is not a number");
	csv_bad("nan(123),1\n1,2\n", "line 1, column 1: 'nan(123)' is not a number");
	csv_bad("\x1b[2J,1\n1,2\n", "line 1, column 1: '\\x1b[2J' is not a number");
	csv_bad("\xef\xbb\xbf\xef\xbb\xbf" "1,2\n3,4\n",
		"line 1, column 1: '\\xef\\xbb\\xbf1' is not a number");
	csv_bad("1,2x,3,4y\n1,2,3,4\n", "line 1, column 2: '2x' is not a number");
	csv_bad("# c\n\n1 2x\n1 2\n", "line 3, column 2: '2x' is not a number");
	/* Python's float() refuses what only C's strtod takes */
	csv_bad("1,2\n3,0x1p3\n", "line 2, column 2: '0x1p3' is not a number");
	csv_bad("1,2\n3,nan(7)\n", "line 2, column 2: 'nan(7)' is not a number");
	/* finite, but no float32: an error, not a silent infinity */
	csv_bad("1,2\n1e39,4\n", "line 2, column 1: '1e39' is too large for float32 (beyond 3.4e38)");
	csv_bad("1,-3.5e38\n", "line 1, column 2: '-3.5e38' is too large for float32 (beyond 3.4e38)");
	/* a long field that is no number: quoted, cut */
	longf = malloc(2100);
	assert_non_null(longf);
	strcpy(longf, "1\n");
	memset(longf + 2, '1', 2000);
	strcpy(longf + 2002, "x\n");
	csv_bad(longf, "line 2, column 1: '1111111111111111111111111111111111111111...' is not a number");
	free(longf);
}

/* numbers of any length, as np.loadtxt reads them (it used to stop at
 * 1024 bytes, and a first line holding one was taken as a header) */
static void test_csv_long_numbers(void **state)
{
	size_t n = 100000, at;
	char *text = malloc(2 * n + 100);
	float want[4];
	int k;

	(void)state;
	assert_non_null(text);
	/* 0.111... (n ones) is 1/9 to within 1e-n: far from a float tie */
	for (k = 0; k < 2; k++) {
		at = (size_t)sprintf(text, "%s", k ? "-0." : "0.");
		memset(text + at, '1', n);
		at += n;
		/* and 1 or 0.1 followed by n zeros */
		at += (size_t)sprintf(text + at, ",1\n%s", k ? "0.1" : "1.");
		memset(text + at, '0', n);
		strcpy(text + at + n, ",2\n");
		want[0] = k ? -(float)(1.0 / 9.0) : (float)(1.0 / 9.0);
		want[1] = 1;
		want[2] = k ? 0.1f : 1;
		want[3] = 2;
		csv_expect(text, 2, 2, want);
	}
	free(text);
}

/* the header skipped is reported, so the caller can say so */
static void test_csv_header_reported(void **state)
{
	static const struct {
		const char *text;
		uint64_t line;
		const char *header;
	} cases[] = {
		{ "d0,d1\n1,2\n", 1, "d0,d1" },
		{ "# c\n\n  pos val  \n1 2\n", 3, "pos val" },
		{ "\xef\xbb\xbf" "a,b\r\n1,2\r\n", 1, "a,b" },
		{ "x,,y\n1,2,3\n", 1, "x,,y" },
		{ "t\xc3\xa9\x1b,b\n1,2\n", 1, "t\xc3\xa9\\x1b,b" },
		{ "1,2\n3,4\n", 0, "" },
		{ "nan,inf\n1,2\n", 0, "" },
	};
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = strlen(cases[i].text);
		b = dup_exact(cases[i].text, n);
		memset(&info, 0x55, sizeof info);
		if (pe_csv_parse(b, n, "x.csv", &m, &info, &err) != 0)
			fail_msg("'%s': %s", cases[i].text, err.msg);
		assert_int_equal(info.header_line, cases[i].line);
		if (cases[i].line)
			assert_string_equal(info.header, cases[i].header);
		assert_int_equal(m.rows, cases[i].line ? 1 : 2);
		pe_matrix_free(&m);
		free(b);
	}
}

/* ---- raw ------------------------------------------------------------------ */

static void test_raw(void **state)
{
	unsigned char *b = malloc(24);
	struct pe_matrix m;
	struct pe_table_info info;
	struct pe_error err = { PE_OK, "" };
	struct pe_read_opts o = { PE_IN_RAW, NULL, 2, 3, 0 };
	int k;

	(void)state;
	assert_non_null(b);
	for (k = 0; k < 6; k++)
		pe_put_u32le(b + 4 * k, float_bits(six[k]));
	assert_int_equal(pe_table_parse(b, 24, "x.f32", &o, &m, &info, &err), 0);
	assert_int_equal(m.rows, 2);
	assert_int_equal(m.cols, 3);
	for (k = 0; k < 6; k++)
		assert_true(m.v[k] == six[k]);
	assert_int_equal(info.format, PE_IN_RAW);
	pe_matrix_free(&m);
	expect_msg(pe_raw_parse(b, 20, "x.f32", 2, 3, &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.f32: a 2 x 3 float32 table needs 24 bytes, the file has 20");
	expect_msg(pe_raw_parse(b, 24, "x.f32", 1, 5, &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.f32: a 1 x 5 float32 table needs 20 bytes, the file has 24");
	expect_msg(pe_raw_parse(b, 24, "x.f32", (uint64_t)1 << 62, 4, &m, NULL, &err), &err,
		   PE_ERR_DATA, "x.f32: a 4611686018427387904 x 4 float32 table is too large");
	free(b);
	b = calloc(1, 1000);
	assert_non_null(b);
	expect_msg(pe_raw_parse(b, 1000, "x.f32", 10, 30, &m, NULL, &err), &err, PE_ERR_DATA,
		   "x.f32: a 10 x 30 float32 table needs 1200 bytes, the file has 1000");
	free(b);
}

/* ---- dispatch ------------------------------------------------------------- */

static void test_sniff(void **state)
{
	static const unsigned char st[] = "\x02\x00\x00\x00\x00\x00\x00\x00 {";
	static const unsigned char st_long[] = "\x03\x00\x00\x00\x00\x00\x00\x00 {";
	static const unsigned char st_nobrace[] = "\x02\x00\x00\x00\x00\x00\x00\x00 [";

	(void)state;
	assert_int_equal(pe_in_sniff((const unsigned char *)"\x93NUMPY\x01\x00", 8), PE_IN_NPY);
	assert_int_equal(pe_in_sniff((const unsigned char *)"\x93NUMP", 5), PE_IN_CSV);
	assert_int_equal(pe_in_sniff(st, 10), PE_IN_SAFETENSORS);
	assert_int_equal(pe_in_sniff(st_long, 10), PE_IN_SAFETENSORS);	/* cut short: its parser says so */
	assert_int_equal(pe_in_sniff(st_nobrace, 10), PE_IN_CSV);
	assert_int_equal(pe_in_sniff(st, 8), PE_IN_CSV);
	assert_int_equal(pe_in_sniff((const unsigned char *)"1,2,3\n4,5,6\n", 12), PE_IN_CSV);
	assert_int_equal(pe_in_sniff((const unsigned char *)"", 0), PE_IN_CSV);
	assert_string_equal(pe_in_format_name(PE_IN_NPY), "npy");
	assert_string_equal(pe_in_format_name(PE_IN_SAFETENSORS), "safetensors");
	assert_string_equal(pe_in_format_name(PE_IN_CSV), "csv");
	assert_string_equal(pe_in_format_name(PE_IN_RAW), "raw");
	assert_string_equal(pe_in_format_name(PE_IN_AUTO), "auto");
}

static void test_parse_usage(void **state)
{
	struct pe_read_opts o = { PE_IN_AUTO, "wpe", 0, 0, 0 };
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b;
	size_t n;

	(void)state;
	b = pe_read_file(pe_source_path("tests/data/npy/t_f4le.npy"), &n);
	assert_non_null(b);
	expect_msg(pe_table_parse(b, n, "x.npy", &o, &m, NULL, &err), &err, PE_ERR_USAGE,
		   "x.npy: a tensor name was given, but the input is npy, not safetensors");
	o.format = PE_IN_CSV;
	expect_msg(pe_table_parse((const unsigned char *)"1\n", 2, "x.csv", &o, &m, NULL, &err),
		   &err, PE_ERR_USAGE,
		   "x.csv: a tensor name was given, but the input is csv, not safetensors");
	o.tensor = NULL;
	o.format = PE_IN_RAW;
	expect_msg(pe_table_parse(b, n, "x.f32", &o, &m, NULL, &err), &err, PE_ERR_USAGE,
		   "x.f32: raw input needs a shape (rows x cols)");
	/* auto: the npy file is read as npy, csv text as csv */
	o.format = PE_IN_AUTO;
	assert_int_equal(pe_table_parse(b, n, "x.npy", &o, &m, NULL, &err), 0);
	check_t(&m);
	pe_matrix_free(&m);
	free(b);
}

static void test_list(void **state)
{
	struct pe_tensor_entry *list;
	struct pe_error err = { PE_OK, "" };
	unsigned char *b;
	size_t n, len;

	(void)state;
	b = pe_read_file(pe_source_path("tests/data/npy/int32.npy"), &len);
	assert_non_null(b);
	assert_int_equal(pe_table_list(b, len, "int32.npy", &list, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0].name, "");
	assert_string_equal(list[0].dtype, "<i4");
	assert_int_equal(list[0].ndim, 2);
	assert_int_equal(list[0].shape[0], 3);
	assert_int_equal(list[0].shape[1], 4);
	pe_tensor_entries_free(list, n);
	/* too short for its shape, even for a listing */
	expect_msg(pe_table_list(b, len - 1, "int32.npy", &list, &n, &err), &err, PE_ERR_DATA,
		   "int32.npy: shape (3, 4) of '<i4' needs 48 data bytes, the file has 47 after its header");
	free(b);
	b = pe_read_file(pe_source_path("tests/data/npy/object.npy"), &len);
	assert_non_null(b);
	expect_msg(pe_table_list(b, len, "object.npy", &list, &n, &err), &err, PE_ERR_DATA,
		   "object.npy: pickled Python objects are refused (dtype '|O')");
	free(b);
	b = st_four(0, &len);
	assert_int_equal(pe_table_list(b, len, "x.safetensors", &list, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(list[0].name, "d");	/* header order */
	assert_string_equal(list[0].dtype, "F64");
	assert_string_equal(list[3].name, "c");
	assert_string_equal(list[3].dtype, "BF16");
	pe_tensor_entries_free(list, n);
	free(b);
	expect_msg(pe_table_list((const unsigned char *)"1,2\n", 4, "x.csv", &list, &n, &err), &err,
		   PE_ERR_DATA, "x.csv: not an npy or safetensors file, no tensors to list");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_npy_fixtures),
		cmocka_unit_test(test_npy_vector_and_scalar),
		cmocka_unit_test(test_npy_refused_files),
		cmocka_unit_test(test_npy_header_variants),
		cmocka_unit_test(test_npy_host_order_and_big_endian),
		cmocka_unit_test(test_npy_descr_spellings),
		cmocka_unit_test(test_npy_trailing_bytes),
		cmocka_unit_test(test_npy_corrupt),
		cmocka_unit_test(test_half_all_values),
		cmocka_unit_test(test_bf16_and_f64),
		cmocka_unit_test(test_elems_orders),
		cmocka_unit_test(test_st_dtypes),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_st_shapes),
		cmocka_unit_test(test_st_default_rule),
		cmocka_unit_test(test_st_listing_truncated),
		cmocka_unit_test(test_st_listing_long_name),
		cmocka_unit_test(test_st_reference_vectors),
		cmocka_unit_test(test_st_header_errors),
		cmocka_unit_test(test_st_nul_names),
		cmocka_unit_test(test_st_gpt2_sparse),
		cmocka_unit_test(test_csv_good),
		cmocka_unit_test(test_csv_not_terminated),
		cmocka_unit_test(test_csv_bad),
		cmocka_unit_test(test_csv_long_numbers),
		cmocka_unit_test(test_csv_header_reported),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_parse_usage),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
