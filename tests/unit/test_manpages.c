/*
 * Every long option of every command appears in `posenc COMMAND --help`
 * (rendered from the same table) and in man/posenc-COMMAND.1, and every
 * command has a man page and a line in man/posenc.1.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
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
	pe_opt_help(fp, cmd);
	fclose(fp);
	return buf;
}

static void test_every_option_documented(void **state)
{
	size_t c, i, n;
	char path[256], pat[128];

	(void)state;
	for (c = 0; c < pe_ncommands; c++) {
		const struct pe_command *cmd = &pe_commands[c];
		size_t len;
		unsigned char *man;
		char *help = help_text(cmd);

		snprintf(path, sizeof path, "man/posenc-%s.1", cmd->name);
		man = pe_read_file(pe_source_path(path), &len);
		if (!man)
			fail_msg("%s: no man page %s", cmd->name, path);
		n = pe_opt_count(cmd->opts);
		for (i = 0; i < n; i++) {
			const char *name = cmd->opts[i].name;

			if (!name)
				continue;
			if (!man_has_option((const char *)man, name))
				fail_msg("--%s of '%s' is missing from %s", name, cmd->name, path);
			snprintf(pat, sizeof pat, "--%s", name);
			if (!strstr(help, pat))
				fail_msg("--%s of '%s' is missing from --help", name, cmd->name);
			if (!cmd->opts[i].help || !*cmd->opts[i].help)
				fail_msg("--%s of '%s' has no help text", name, cmd->name);
		}
		free(man);
		free(help);
	}
}

static void test_commands_in_main_page(void **state)
{
	size_t c, len;
	unsigned char *man = pe_read_file(pe_source_path("man/posenc.1"), &len);
	char pat[64];

	(void)state;
	assert_non_null(man);
	for (c = 0; c < pe_ncommands; c++) {
		snprintf(pat, sizeof pat, "posenc\\-%s", pe_commands[c].name);
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
