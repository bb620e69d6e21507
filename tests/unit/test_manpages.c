/*
 * Every long option of every command appears in `posenc COMMAND --help`
 * (rendered from the same rows) and in a man page: a command's own rows
 * and the output rows in man/posenc-COMMAND.1, the table size and every
 * kind's rows in man/posenc-generate.1 (in the kind's section, which
 * similarity's page refers to); every command has a man page and a line in
 * man/posenc.1.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/gen.h"
#include "testutil.h"

/* "--padding-idx" as groff source writes it: "\-\-padding\-idx" */
static int man_has_option(const char *man, const char *name)
{
	char pat[256];
	const char *p;
	size_t n = 0;

	memcpy(pat, "\\-\\-", 4);
	n = 4;
	for (p = name; *p && n + 3 < sizeof pat; p++) {
		if (*p == '-')
			pat[n++] = '\\';
		pat[n++] = *p;
	}
	pat[n] = '\0';
	for (p = strstr(man, pat); p; p = strstr(p + 1, pat)) {
		char next = p[n];

		/* the whole name, not a prefix of a longer one */
		if (!((next >= 'a' && next <= 'z') || next == '\\' || next == '-'))
			return 1;
		if (next == '\\' && p[n + 1] == '-' && !(p[n + 2] >= 'a' && p[n + 2] <= 'z'))
			return 1;
	}
	return 0;
}

static char *help_text(const struct pe_command *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	pe_command_help(fp, cmd);
	fclose(fp);
	return buf;
}

static char *man_page(const char *name, char *path, size_t n)
{
	size_t len;
	char *man;

	snprintf(path, n, "man/posenc-%s.1", name);
	man = (char *)pe_read_file(pe_source_path(path), &len);
	if (!man)
		fail_msg("%s: no man page %s", name, path);
	return man;
}

/* rows' options in help (of command cmd) and in the man page man (at path) */
static void check_rows(const struct pe_optdef *rows, const char *cmd, const char *help,
		       const char *man, const char *path)
{
	char pat[128];
	size_t i;

	for (i = 0; rows[i].name || rows[i].help; i++) {
		const char *name = rows[i].name;

		if (!name)
			continue;
		if (!man_has_option(man, name))
			fail_msg("--%s of '%s' is missing from %s", name, cmd, path);
		snprintf(pat, sizeof pat, "--%s", name);
		if (!strstr(help, pat))
			fail_msg("--%s of '%s' is missing from --help", name, cmd);
		if (!rows[i].help || !*rows[i].help)
			fail_msg("--%s of '%s' has no help text", name, cmd);
	}
}

static void test_every_option_documented(void **state)
{
	const struct pe_command *cmd;
	const struct pe_gen_kind *k;
	char path[256], gpath[256], section[64];
	char *gen = man_page("generate", gpath, sizeof gpath);
	size_t c, i, j;

	(void)state;
	for (c = 0; (cmd = pe_command_at(c)); c++) {
		char *help = help_text(cmd);
		char *man = man_page(cmd->name, path, sizeof path);

		check_rows(cmd->opts, cmd->name, help, man, path);
		if (cmd->uses & PE_CMD_OUTPUT)
			check_rows(pe_output_rows, cmd->name, help, man, path);
		if (cmd->uses & PE_CMD_KINDS) {
			check_rows(pe_gen_size_rows, cmd->name, help, gen, gpath);
			check_rows(pe_gen_float32_rows, cmd->name, help, gen, gpath);
			for (i = 0; (k = pe_gen_kind_at(i)); i++)
				check_rows(k->rows, cmd->name, help, gen, gpath);
		}
		free(man);
		free(help);
	}
	/* each kind has its section */
	for (i = 0; (k = pe_gen_kind_at(i)); i++) {
		snprintf(section, sizeof section, "\n.SH %s", k->name);
		for (j = 5; section[j]; j++)
			section[j] = (char)toupper((unsigned char)section[j]);
		if (!strstr(gen, section))
			fail_msg("%s has no section '%s'", gpath, section + 1);
	}
	free(gen);
}

static void test_commands_in_main_page(void **state)
{
	const struct pe_command *cmd;
	size_t c, len;
	unsigned char *man = pe_read_file(pe_source_path("man/posenc.1"), &len);
	char pat[64];

	(void)state;
	assert_non_null(man);
	for (c = 0; (cmd = pe_command_at(c)); c++) {
		snprintf(pat, sizeof pat, "posenc\\-%s", cmd->name);
		if (!strstr((const char *)man, pat))
			fail_msg("man/posenc.1 does not mention %s", pat);
	}
	free(man);
}

/* The check itself must be able to fail. */
static void test_matcher(void **state)
{
	(void)state;
	assert_true(man_has_option("x \\-\\-dim D y", "dim"));
	assert_false(man_has_option("x \\-\\-dimension y", "dim"));
	assert_false(man_has_option("x \\-\\-dim\\-max y", "dim"));
	assert_true(man_has_option(".BR \\-\\-dim ,", "dim"));
	assert_false(man_has_option("nothing here", "dim"));
	assert_true(man_has_option(".BI \\-\\-padding\\-idx \" P\"", "padding-idx"));
	assert_false(man_has_option("\\-\\-padding-idx", "padding-idx"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matcher),
		cmocka_unit_test(test_every_option_documented),
		cmocka_unit_test(test_commands_in_main_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
