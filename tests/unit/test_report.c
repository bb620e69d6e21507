/*
 * io/report: one tree written as JSON, text and csv, each compared with
 * the exact bytes written here: JSON's layout (flat records and lists on
 * one line, a param's value first), numbers shortest (doubles) or as
 * float32, non-finite numbers as null, text's aligned params and tables,
 * csv's header and quoting (RFC 4180).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/report.h"
#include "testutil.h"

/* what writer wrote for r (list: the csv table), as a string */
static char *written(int (*json_or_text)(FILE *, const struct pe_report *, struct pe_error *),
		     const struct pe_report *r, const struct pe_rnode *list)
{
	struct pe_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	if (json_or_text)
		assert_int_equal(json_or_text(fp, r, &err), 0);
	else
		assert_int_equal(pe_report_csv(fp, r, list, &err), 0);
	fclose(fp);
	return buf;
}

static struct pe_report *sample(struct pe_rnode **table)
{
	struct pe_report *r = pe_report_new();
	struct pe_rnode *o = pe_report_root(r), *ps, *p, *l, *e;

	pe_rep_str(o, "kind", "rope");
	pe_rep_int(o, "layers", 26);
	ps = pe_rep_record(o, "parameters");
	p = pe_rep_param(ps, "theta", "config", "rope_theta");
	pe_rep_num(p, "value", 1e6);
	p = pe_rep_param(ps, "attention_factor", "derived", "0.1 ln(factor) + 1");
	pe_rep_num(p, "value", 0.1 * log(4) + 1);
	pe_rep_str(p, "note", "cos and sin times it");
	p = pe_rep_param(ps, "truncate", "default", NULL);
	pe_rep_bool(p, "value", 0);
	l = pe_rep_list(o, "pairs");
	e = pe_rep_record(l, NULL);
	pe_rep_int(e, "pair", 0);
	pe_rep_f32(e, "inv", 0.8146172f);
	pe_rep_num(e, "wavelength", 6.25);
	pe_rep_str(e, "region", "kept");
	e = pe_rep_record(l, NULL);
	pe_rep_int(e, "pair", 10);
	pe_rep_f32(e, "inv", 3.0689259e-07f);
	pe_rep_num(e, "wavelength", INFINITY);
	pe_rep_str(e, "region", "a, \"b\"");
	*table = l;
	return r;
}

/* the sample's text in one of the formats (NULL: csv of its table) */
static void check_sample(int (*writer)(FILE *, const struct pe_report *, struct pe_error *),
			 const char *want)
{
	struct pe_rnode *t;
	struct pe_report *r = sample(&t);
	char *s = written(writer, r, t);

	assert_string_equal(s, want);
	free(s);
	pe_report_free(r);
}

static void test_json(void **state)
{
	(void)state;
	check_sample(pe_report_json,
		"{\n"
		"  \"kind\": \"rope\",\n"
		"  \"layers\": 26,\n"
		"  \"parameters\": {\n"
		"    \"theta\": {\"value\": 1000000, \"origin\": \"config\", \"key\": \"rope_theta\"},\n"
		"    \"attention_factor\": {\"value\": 1.138629436111989, \"origin\": \"derived\", \"key\": \"0.1 ln(factor) + 1\", \"note\": \"cos and sin times it\"},\n"
		"    \"truncate\": {\"value\": false, \"origin\": \"default\"}\n"
		"  },\n"
		"  \"pairs\": [\n"
		"    {\"pair\": 0, \"inv\": 0.8146172, \"wavelength\": 6.25, \"region\": \"kept\"},\n"
		"    {\"pair\": 10, \"inv\": 3.068926e-07, \"wavelength\": null, \"region\": \"a, \\\"b\\\"\"}\n"
		"  ]\n"
		"}\n");
}

static void test_text(void **state)
{
	(void)state;
	check_sample(pe_report_text,
		"kind    rope\n"
		"layers  26\n"
		"\n"
		"parameters:\n"
		"  theta             1000000    config   rope_theta\n"
		"  attention_factor  1.1386294  derived  0.1 ln(factor) + 1 (cos and sin times it)\n"
		"  truncate          false      default\n"
		"\n"
		"pairs:\n"
		"  pair           inv  wavelength  region\n"
		"     0     0.8146172        6.25  kept\n"
		"    10  3.068926e-07         inf  a, \"b\"\n");
}

static void test_csv(void **state)
{
	(void)state;
	check_sample(NULL,
		"pair,inv,wavelength,region\n"
		"0,0.8146172,6.25,kept\n"
		"10,3.068926e-07,,\"a, \"\"b\"\"\"\n");
}

/* a list of records that hold records: sections headed by their first
 * text member */
static void test_sections(void **state)
{
	struct pe_report *r = pe_report_new();
	struct pe_rnode *l = pe_rep_list(pe_report_root(r), "rope"), *e;
	const double v[3] = { 1, 2.5, 3 };
	char *s;

	(void)state;
	e = pe_rep_record(l, NULL);
	pe_rep_str(e, "layer_type", "full");
	pe_rep_nums(e, "f", v, 3);
	pe_rep_record(e, "empty");
	e = pe_rep_record(l, NULL);
	pe_rep_str(e, "layer_type", "%s", "");
	pe_rep_null(e, "x");
	s = written(pe_report_text, r, NULL);
	assert_string_equal(s,
		"rope full:\n"
		"  f  1, 2.5, 3\n"
		"\n"
		"  empty:\n"
		"\n"
		"rope:\n"
		"  x  -\n");
	free(s);
	assert_int_equal(pe_rep_count(l), 2);
	pe_report_free(r);
}

/* adding to NULL (a failed add) does nothing and does not crash */
static void test_null_parent(void **state)
{
	(void)state;
	assert_null(pe_rep_record(NULL, "x"));
	assert_null(pe_rep_list(NULL, "x"));
	pe_rep_num(NULL, "x", 1);
	pe_rep_str(NULL, "x", "%d", 1);
	assert_null(pe_rep_param(NULL, "x", "config", "k"));
	assert_int_equal(pe_rep_count(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_null_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
