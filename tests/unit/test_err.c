/*
 * The error value (core/err.h): a message too long for it keeps its end
 * (the reason) and loses the middle of its longest words; no cut falls
 * inside a UTF-8 sequence.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "testutil.h"

/* no byte sequence of s is a cut UTF-8 character */
static void assert_utf8_whole(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t need, k;

	while (*p) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		assert_true(*p >= 0xc2 && *p <= 0xf4);
		need = *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
		for (k = 1; k < need; k++)
			assert_true((p[k] & 0xc0) == 0x80);
		p += need;
	}
}

static char *repeat(const char *unit, size_t times)
{
	size_t u = strlen(unit), i;
	char *s = malloc(u * times + 1);

	assert_non_null(s);
	for (i = 0; i < times; i++)
		memcpy(s + i * u, unit, u);
	s[u * times] = '\0';
	return s;
}

static void test_short_unchanged(void **state)
{
	struct pe_error err = { PE_OK, "" };
	char *s = repeat("x", sizeof err.msg - 1);

	(void)state;
	assert_int_equal(pe_fail(&err, PE_ERR_DATA, "%s: %d", "a.npy", 42), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg, "a.npy: 42");
	/* exactly full: as it is */
	pe_fail(&err, PE_ERR_IO, "%s", s);
	assert_string_equal(err.msg, s);
	assert_int_equal(pe_fail(NULL, PE_ERR_IO, "x"), -1);
	free(s);
}

/* reliability-2.md finding 14: a 1500-byte path lost its reason */
static void test_long_path_keeps_reason(void **state)
{
	struct pe_error err = { PE_OK, "" };
	char *name = repeat("a", 1500), *head, *tail;
	size_t n;

	(void)state;
	pe_fail(&err, PE_ERR_IO, "%s.npy: cannot open: %s", name, "No such file or directory");
	n = strlen(err.msg);
	assert_int_equal(n, sizeof err.msg - 1);
	tail = strstr(err.msg, "...");
	assert_non_null(tail);
	assert_non_null(strstr(err.msg, "aaaa.npy: cannot open: No such file or directory"));
	/* a head and a tail of the name, nothing else lost */
	head = repeat("a", (size_t)(tail - err.msg));
	assert_int_equal(strncmp(err.msg, head, strlen(head)), 0);
	assert_true(strlen(head) > 400);
	free(head);
	free(name);
}

/* two long values: both shortened as needed, the words between kept */
static void test_two_long_words(void **state)
{
	struct pe_error err = { PE_OK, "" };
	char *a = repeat("p", 1500), *b = repeat("q", 1500);

	(void)state;
	pe_fail(&err, PE_ERR_IO, "'%s': cannot rename to '%s': %s", a, b, "Permission denied");
	assert_true(strlen(err.msg) <= sizeof err.msg - 1);
	assert_non_null(strstr(err.msg, "ppp': cannot rename to 'qqq"));
	assert_true(strstr(err.msg, "...") < strstr(err.msg, "': cannot rename"));
	assert_non_null(strstr(err.msg, "qqq': Permission denied"));
	assert_int_equal(strncmp(err.msg, "'pppp", 5), 0);
	free(a);
	free(b);
}

/* the cuts fall between UTF-8 sequences: 2-, 3- and 4-byte characters at
 * every phase */
static void test_utf8_cuts(void **state)
{
	static const char *const units[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
					     "a\xc3\xa9", "ab\xe2\x82\xac", "abc\xf0\x9f\x98\x80" };
	struct pe_error err = { PE_OK, "" };
	size_t u, pad;
	char *s, *p;

	(void)state;
	for (u = 0; u < sizeof units / sizeof units[0]; u++)
		for (pad = 0; pad < 4; pad++) {
			s = repeat(units[u], 2000 / strlen(units[u]));
			p = repeat("z", pad);
			pe_fail(&err, PE_ERR_DATA, "x.json: %s%s: the end", p, s);
			assert_utf8_whole(err.msg);
			assert_non_null(strstr(err.msg, ": the end"));
			assert_true(strlen(err.msg) <= sizeof err.msg - 1);
			free(s);
			free(p);
		}
}

/* many short words: cut at the end, on a sequence boundary, with "..." */
static void test_many_short_words(void **state)
{
	struct pe_error err = { PE_OK, "" };
	char *s = repeat("\xc3\xa9t\xc3\xa9 ", 500);

	(void)state;
	pe_fail(&err, PE_ERR_DATA, "%s", s);
	assert_true(strlen(err.msg) <= sizeof err.msg - 1);
	assert_true(strlen(err.msg) >= sizeof err.msg - 6);
	assert_string_equal(err.msg + strlen(err.msg) - 3, "...");
	assert_utf8_whole(err.msg);
	free(s);
}

/* formatting the old message into the new one */
static void test_self_reference(void **state)
{
	struct pe_error err = { PE_OK, "" };

	(void)state;
	pe_fail(&err, PE_ERR_DATA, "inner: %s", "why");
	pe_fail(&err, err.code, "outer.csv: %s", err.msg);
	assert_string_equal(err.msg, "outer.csv: inner: why");
}

static void test_utf8_trim(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "abc", "abc" },		  { "ab\xc3", "ab" },
		{ "ab\xc3\xa9", "ab\xc3\xa9" },	  { "ab\xe2\x82", "ab" },
		{ "ab\xe2", "ab" },		  { "ab\xe2\x82\xac", "ab\xe2\x82\xac" },
		{ "a\xf0\x9f\x98", "a" },	  { "a\xf0\x9f\x98\x80", "a\xf0\x9f\x98\x80" },
		{ "", "" },			  { "\xc3", "" },
		{ "x\x80", "x\x80" },		  { "caf\xe9", "caf" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		strcpy(buf, cases[i].in);
		pe_utf8_trim(buf);
		assert_string_equal(buf, cases[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_unchanged),
		cmocka_unit_test(test_long_path_keeps_reason),
		cmocka_unit_test(test_two_long_words),
		cmocka_unit_test(test_utf8_cuts),
		cmocka_unit_test(test_many_short_words),
		cmocka_unit_test(test_self_reference),
		cmocka_unit_test(test_utf8_trim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
