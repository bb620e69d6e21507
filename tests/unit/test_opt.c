/*
 * cli/opt: the option parser every command uses -- full names only (an
 * abbreviation is refused, naming the option), candidates for unknown
 * prefixes, --name=value and --name value, short options with attached
 * values, operands in order, last value wins, "--" ends options.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "testutil.h"

static const struct pe_optdef defs[] = {
	{ NULL, 0, NULL, "Heading:" },
	{ "positions", 'n', "N", "rows" },
	{ "preset", 0, "NAME", "a preset" },
	{ "precision", 0, "P", "a precision" },
	{ "force", 0, NULL, "a flag" },
	{ "title", 0, "TEXT", "a title" },
	{ NULL, 0, NULL, NULL }
};
#define NDEFS (sizeof defs / sizeof defs[0] - 1)

/* Parse a space-separated command line; returns 0/-1, fills values and err. */
static int parse(const char *line, const char **values, char ***ops, int *nops,
		 struct pe_error *err)
{
	static char buf[256];
	static char *argv[32];
	int argc = 0;
	char *tok;

	snprintf(buf, sizeof buf, "cmd %s", line);
	for (tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return pe_opt_parse(argc, argv, defs, NDEFS, values, ops, nops, err);
}

static void expect_error(const char *line, const char *msg)
{
	const char *values[NDEFS];
	char **ops = NULL;
	int nops;
	struct pe_error err;

	assert_int_equal(parse(line, values, &ops, &nops, &err), -1);
	assert_int_equal(err.code, PE_ERR_USAGE);
	assert_string_equal(err.msg, msg);
	free(ops);
}

static void test_full_names(void **state)
{
	const char *values[NDEFS];
	char **ops = NULL;
	int nops;
	struct pe_error err;

	(void)state;
	assert_int_equal(parse("KIND --preset=t2t -n5 --title --force --precision float32 x -- --y",
			       values, &ops, &nops, &err), 0);
	assert_string_equal(values[2], "t2t");
	assert_string_equal(values[1], "5");
	assert_string_equal(values[5], "--force");	/* a value, not the flag */
	assert_null(values[4]);
	assert_string_equal(values[3], "float32");
	assert_int_equal(nops, 3);
	assert_string_equal(ops[0], "KIND");
	assert_string_equal(ops[1], "x");
	assert_string_equal(ops[2], "--y");
	free(ops);
	assert_int_equal(parse("--positions 3 --positions 4", values, &ops, &nops, &err), 0);
	assert_string_equal(values[1], "4");	/* the last one wins */
	free(ops);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_error("--pos 3", "option '--pos' is not a full name (write --positions)");
	expect_error("--pos=3", "option '--pos' is not a full name (write --positions)");
	expect_error("--fo", "option '--fo' is not a full name (write --force)");
	expect_error("--pre t2t", "unknown option '--pre' (did you mean --preset or --precision?)");
	expect_error("--p 1", "unknown option '--p' (did you mean --positions, --preset or --precision?)");
	expect_error("--bogus", "unknown option '--bogus'");
	expect_error("-x", "unknown option '-x'");
	expect_error("--title", "option '--title' needs a value");
	expect_error("-n", "option '-n' needs a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_names),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
