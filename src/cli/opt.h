/*
 * opt.h - one table per command drives option parsing, --help and the
 * man-page check (tests/unit/test_manpages.c), so they cannot drift apart.
 *
 * Values are collected as strings, indexed by the option's position in the
 * table; commands parse them with the strict parsers of core/parse.h.  A
 * repeated option keeps its last value.  A flag's value is "1".
 */
#ifndef PE_OPT_H
#define PE_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

struct pe_optdef {
	const char *name;	/* long name without "--"; NULL: a heading in --help */
	char shortopt;		/* 0 if none */
	const char *arg;	/* value name ("N"), NULL for a flag */
	const char *help;	/* text for --help (heading text when name is NULL) */
};

struct pe_command {
	const char *name;
	const char *summary;		/* one line for `posenc --help` */
	const char *usage;		/* "Usage: ..." and description, for --help */
	void (*usage_more)(FILE *fp);	/* printed after usage (lists from tables), or NULL */
	const struct pe_optdef *opts;	/* ends with an all-NULL row */
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct pe_command pe_commands[];
extern const size_t pe_ncommands;

/*
 * Parse argv[1..argc) against defs.  Long options must be written in full
 * (an abbreviation is a usage error naming the full option; an unknown
 * one lists the options it might have meant), as "--name VALUE" or
 * "--name=VALUE".  values[i] receives the value of
 * defs[i] (NULL if absent); operands (non-options, in order) are stored in
 * *operands (malloc'd array of argv pointers, caller frees) and counted in
 * *noperands.  Returns 0, or -1 with a PE_ERR_USAGE message.
 */
int pe_opt_parse(int argc, char **argv, const struct pe_optdef *defs, size_t ndefs,
		 const char **values, char ***operands, int *noperands, struct pe_error *err);

/* Rows of an option table before its all-NULL terminator. */
size_t pe_opt_count(const struct pe_optdef *defs);

/* Does argv (before any "--") ask for help (-h or --help)? */
int pe_opt_wants_help(int argc, char **argv);

/* Print a command's --help text, rendered from its table. */
void pe_opt_help(FILE *fp, const struct pe_command *cmd);

/* Index of the option named name in defs; -1 if none. */
int pe_opt_index(const struct pe_optdef *defs, size_t ndefs, const char *name);

/* The value parsed for the option named name (NULL: not given, or no
 * such option). */
const char *pe_opt_value(const struct pe_optdef *defs, size_t ndefs, const char **values,
			 const char *name);

/* The first of the NULL-terminated names that was given, or NULL: for
 * "--X applies to ... only" messages. */
const char *pe_opt_given(const struct pe_optdef *defs, size_t ndefs, const char **values,
			 const char *const *names);

/* Strict conversions of an option value with a message that names the
 * option and quotes the value.  A NULL value leaves *out unchanged. */
int pe_opt_u64(const char *name, const char *val, uint64_t lo, uint64_t hi, uint64_t *out,
	       struct pe_error *err);
int pe_opt_i64(const char *name, const char *val, int64_t lo, int64_t hi, int64_t *out,
	       struct pe_error *err);
/* A finite real; positive only when positive is set. */
int pe_opt_double(const char *name, const char *val, int positive, double *out,
		  struct pe_error *err);
/* One of the NULL-terminated names; *out is its index. */
int pe_opt_choice(const char *name, const char *val, const char *const *choices, int *out,
		  struct pe_error *err);

#endif
