/* The command table (see commands.h). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/gen.h"

/* Every command, in --help order: each is the struct pe_command
 * pe_cmd_<name> of its cmd_<name>.c. */
#define PE_COMMAND_LIST(X) X(generate) X(similarity) X(skew) X(bucket) X(plot) X(explain)

#define DECLARE(c) extern const struct pe_command pe_cmd_##c;
PE_COMMAND_LIST(DECLARE)
#undef DECLARE

#define ENTRY(c) &pe_cmd_##c,
static const struct pe_command *const commands[] = { PE_COMMAND_LIST(ENTRY) };
#undef ENTRY

#define NCOMMANDS (sizeof commands / sizeof commands[0])

const struct pe_command *pe_command_at(size_t i)
{
	return i < NCOMMANDS ? commands[i] : NULL;
}

const struct pe_command *pe_command_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

size_t pe_command_tables(const struct pe_command *cmd, const struct pe_optdef **tabs)
{
	const struct pe_gen_kind *k;
	size_t n = 0, i;

	tabs[n++] = cmd->opts;
	if (cmd->uses & PE_CMD_KINDS) {
		tabs[n++] = pe_gen_size_rows;
		tabs[n++] = pe_gen_float32_rows;
		for (i = 0; (k = pe_gen_kind_at(i)) && n < PE_MAX_TABLES - 1; i++)
			tabs[n++] = k->rows;
	}
	if (cmd->uses & PE_CMD_OUTPUT)
		tabs[n++] = pe_output_rows;
	return n;
}

int pe_command_parse(const struct pe_command *cmd, struct pe_args *a, int argc, char **argv,
		     struct pe_error *err)
{
	const struct pe_optdef *tabs[PE_MAX_TABLES];
	size_t n = pe_command_tables(cmd, tabs);

	return pe_args_parse(a, argc, argv, tabs, n, err);
}

const char *pe_command_summary(const struct pe_command *cmd)
{
	static char line[256];

	if (!(cmd->uses & PE_CMD_SUMMARY_KINDS))
		return cmd->summary;
	snprintf(line, sizeof line, "%s (%s)", cmd->summary, pe_gen_kind_list());
	return line;
}

void pe_command_help(FILE *fp, const struct pe_command *cmd)
{
	const struct pe_optdef *tabs[PE_MAX_TABLES];
	size_t n = pe_command_tables(cmd, tabs);

	fputs(cmd->usage, fp);
	if (cmd->uses & PE_CMD_KINDS)
		pe_gen_kinds_help(fp);
	pe_opt_help_rows(fp, tabs, n);
}
