/*
 * cli/opt: the option parser every command uses -- full names only (an
 * abbreviation is refused, naming the option), candidates for unknown
 * prefixes, --name=value and --name value, short options with attached
 * values, operands in order, last value wins, "--" ends options; typed
 * binding (ranges, choices, strict numbers, lists), several tables sharing
 * a name, options no table takes, rows that apply to some forms only.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "testutil.h"

struct own {
	uint64_t positions;
	const char *preset;
	int precision, force;
	const char *title;
};

struct other {
	int preset;
	int64_t offset;
	double base;
	struct pe_reals list;
};

static const char *const precisions[] = { "exact", "float32", NULL };
static const char *const presets[] = { "a", "b", NULL };

#define O(f) offsetof(struct own, f)
#define P(f) offsetof(struct other, f)

static const struct pe_optdef own_rows[] = {
	{ PE_HEADING("Heading:") },
	{ PE_U64("positions", 'n', "N", O(positions), 1, 100, "rows") },
	{ PE_TEXT("preset", 0, "NAME", O(preset), "a preset") },
	{ PE_CHOICE("precision", 0, "P", O(precision), precisions, "a precision") },
	{ PE_FLAG("force", 0, O(force), "a flag"), .applies = 2 },
	{ PE_TEXT("title", 0, "TEXT", O(title), "a title"), .applies = 1 },
	{ 0 }
};

static const struct pe_optdef other_rows[] = {
	{ PE_CHOICE("preset", 0, "NAME", P(preset), presets, "the other's preset") },
	{ PE_I64("offset", 0, "P", P(offset), -5, 5, "an offset") },
	{ PE_REAL("base", 0, "B", P(base), PE_REAL_POSITIVE, "a base") },
	{ PE_REALS("list", 0, "LIST", P(list), 3, "a list") },
	{ 0 }
};

static const struct pe_optdef *const both[] = { own_rows, other_rows };

/* Parse a space-separated command line against both tables. */
static int parse(struct pe_args *a, const char *line, struct pe_error *err)
{
	static char buf[256];
	static char *argv[32];
	int argc = 0;
	char *tok;

	snprintf(buf, sizeof buf, "cmd %s", line);
	for (tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return pe_args_parse(a, argc, argv, both, 2, err);
}

static void expect_error(const char *line, const char *msg)
{
	struct pe_args a;
	struct pe_error err;

	assert_int_equal(parse(&a, line, &err), -1);
	assert_int_equal(err.code, PE_ERR_USAGE);
	assert_string_equal(err.msg, msg);
	pe_args_free(&a);
}

/* Parse and bind line against own_rows; the message of a bind failure. */
static void expect_bind_error(const char *line, const struct pe_optdef *rows, void *dest,
			      const char *msg)
{
	struct pe_args a;
	struct pe_error err;

	assert_int_equal(parse(&a, line, &err), 0);
	assert_int_equal(pe_args_bind(&a, rows, dest, &err), -1);
	assert_int_equal(err.code, PE_ERR_USAGE);
	assert_string_equal(err.msg, msg);
	pe_args_free(&a);
}

static void test_full_names(void **state)
{
	struct pe_args a;
	struct own o;
	struct pe_error err;

	(void)state;
	memset(&o, 0, sizeof o);
	assert_int_equal(parse(&a, "KIND --preset=t2t -n5 --title --force --precision float32 x -- --y",
			       &err), 0);
	assert_int_equal(pe_args_bind(&a, own_rows, &o, &err), 0);
	assert_string_equal(o.preset, "t2t");
	assert_int_equal(o.positions, 5);
	assert_string_equal(o.title, "--force");	/* a value, not the flag */
	assert_int_equal(o.force, 0);
	assert_null(pe_args_given(&a, &o.force));
	assert_int_equal(o.precision, 1);
	assert_string_equal(pe_args_given(&a, &o.precision), "float32");
	assert_int_equal(a.noperands, 3);
	assert_string_equal(a.operands[0], "KIND");
	assert_string_equal(a.operands[1], "x");
	assert_string_equal(a.operands[2], "--y");
	pe_args_free(&a);
	assert_int_equal(parse(&a, "--positions 3 --positions 4", &err), 0);
	assert_int_equal(pe_args_bind(&a, own_rows, &o, &err), 0);
	assert_int_equal(o.positions, 4);	/* the last one wins */
	pe_args_free(&a);
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

static void test_typed_values(void **state)
{
	struct own o;
	struct other t;
	struct pe_args a;
	struct pe_error err;

	(void)state;
	memset(&o, 0, sizeof o);
	memset(&t, 0, sizeof t);
	expect_bind_error("-n 0", own_rows, &o, "--positions must be an integer from 1 to 100, got '0'");
	expect_bind_error("-n 12x", own_rows, &o, "--positions must be an integer from 1 to 100, got '12x'");
	expect_bind_error("--precision f16", own_rows, &o,
			  "unknown --precision 'f16' (one of: exact, float32)");
	expect_bind_error("--offset -6", other_rows, &t, "--offset must be an integer from -5 to 5, got '-6'");
	expect_bind_error("--base 0", other_rows, &t, "--base must be a positive finite number, got '0'");
	expect_bind_error("--base nan", other_rows, &t, "--base must be a positive finite number, got 'nan'");
	expect_bind_error("--list 1,2,3,4", other_rows, &t,
			  "--list must be a comma-separated list of finite numbers, got '1,2,3,4'");
	expect_bind_error("--preset c", other_rows, &t, "unknown --preset 'c' (one of: a, b)");
	assert_int_equal(parse(&a, "--offset -5 --base 2.5 --list 1,0.5", &err), 0);
	assert_int_equal(pe_args_bind(&a, other_rows, &t, &err), 0);
	assert_int_equal(t.offset, -5);
	assert_true(t.base == 2.5);
	assert_int_equal(t.list.n, 2);
	assert_true(t.list.v[0] == 1 && t.list.v[1] == 0.5);
	pe_args_free(&a);
}

/* One name in two tables: one value, each table converts it its way. */
static void test_shared_names(void **state)
{
	struct own o;
	struct other t;
	struct pe_args a;
	struct pe_error err;

	(void)state;
	memset(&o, 0, sizeof o);
	memset(&t, 0, sizeof t);
	assert_int_equal(parse(&a, "--preset b --offset 1", &err), 0);
	assert_int_equal(pe_args_bind(&a, own_rows, &o, &err), 0);
	assert_string_equal(pe_args_unbound(&a), "offset");	/* not yet bound */
	assert_int_equal(pe_args_binds(&a, &o.preset), 1);
	assert_int_equal(pe_args_bind(&a, other_rows, &t, &err), 0);
	assert_null(pe_args_unbound(&a));
	assert_string_equal(o.preset, "b");
	assert_int_equal(t.preset, 1);
	assert_int_equal(pe_args_binds(&a, &o.preset), 2);
	pe_args_free(&a);
	/* dropped: the other table does not see it */
	memset(&t, 0, sizeof t);
	assert_int_equal(parse(&a, "--preset c", &err), 0);
	assert_int_equal(pe_args_bind(&a, own_rows, &o, &err), 0);
	pe_args_drop(&a, &o.preset);
	assert_int_equal(pe_args_bind(&a, other_rows, &t, &err), 0);
	assert_null(pe_args_given(&a, &t.preset));
	assert_string_equal(pe_args_given(&a, &o.preset), "c");
	pe_args_free(&a);
}

static void test_misplaced(void **state)
{
	struct own o;
	struct pe_args a;
	struct pe_error err;
	const struct pe_optdef *d;
	char buf[64];
	static const char *const forms[] = { "one", "two", "three", NULL };

	(void)state;
	memset(&o, 0, sizeof o);
	assert_int_equal(parse(&a, "--force --title t", &err), 0);
	assert_int_equal(pe_args_bind(&a, own_rows, &o, &err), 0);
	assert_null(pe_args_misplaced(&a, own_rows, &o, 3));
	d = pe_args_misplaced(&a, own_rows, &o, 1);
	assert_non_null(d);
	assert_string_equal(d->name, "force");
	d = pe_args_misplaced(&a, own_rows, &o, 4);
	assert_string_equal(d->name, "force");	/* the first in table order */
	pe_args_free(&a);
	assert_string_equal(pe_opt_mask_names(1, forms, buf, sizeof buf), "one");
	assert_string_equal(pe_opt_mask_names(5, forms, buf, sizeof buf), "one and three");
	assert_string_equal(pe_opt_mask_names(7, forms, buf, sizeof buf), "one, two and three");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_names),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_typed_values),
		cmocka_unit_test(test_shared_names),
		cmocka_unit_test(test_misplaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
