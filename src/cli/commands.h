/*
 * commands.h - the command table.  Each cmd_<name>.c exports one
 * struct pe_command pe_cmd_<name>; commands.c lists them.  A command's
 * options are its own rows, then (when it says so) the table size and
 * every kind's rows, then the output rows: pe_command_tables composes
 * them, and dispatch, --help, completion and the man-page test all read
 * that one list.
 */
#ifndef PE_COMMANDS_H
#define PE_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/opt.h"

enum {
	PE_CMD_KINDS = 1,	/* takes a KIND: the table size and every kind's rows */
	PE_CMD_OUTPUT = 2,	/* writes a result: the output rows */
	PE_CMD_SUMMARY_KINDS = 4,	/* its summary ends with the kinds, "(sinusoidal, ...)" */
	PE_CMD_FILES = 8		/* its operands are files (completed as file names) */
};

struct pe_command {
	const char *name;
	const char *summary;		/* one line for `posenc --help` */
	const char *usage;		/* "Usage: ..." and description, for --help */
	const struct pe_optdef *opts;	/* its own rows, { 0 }-ended */
	unsigned uses;			/* PE_CMD_KINDS | PE_CMD_OUTPUT */
	/* argv[0] is the command's name; cmd is this row */
	int (*run)(const struct pe_command *cmd, int argc, char **argv);
};

#define PE_MAX_TABLES 16

/* The commands, in --help order; NULL past the last. */
const struct pe_command *pe_command_at(size_t i);
const struct pe_command *pe_command_by_name(const char *name);

/* The option tables of cmd, in --help order, into tabs (at most
 * PE_MAX_TABLES); returns how many. */
size_t pe_command_tables(const struct pe_command *cmd, const struct pe_optdef **tabs);

/* Parse argv (argv[0] the command's name) against cmd's tables. */
int pe_command_parse(const struct pe_command *cmd, struct pe_args *a, int argc, char **argv,
		     struct pe_error *err);

/* cmd's one-line summary for `posenc --help` (a static buffer). */
const char *pe_command_summary(const struct pe_command *cmd);

/* Print cmd's --help. */
void pe_command_help(FILE *fp, const struct pe_command *cmd);

#endif
