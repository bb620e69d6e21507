/*
 * opt.h - typed option rows, as git's parse-options does it: each row
 * names its option, its type, where its value goes (an offset into the
 * struct of the kind or command that owns the row), its range or choices,
 * its help, and the forms of its owner it applies to.  The parser, --help,
 * the shell completion and the man-page test read the same rows, and no
 * code looks an option up by its name.
 *
 * Calling sequence:
 *   struct pe_args a;
 *   pe_args_parse(&a, argc, argv, tables, n, err)   every table a command
 *       takes (its own rows, the kinds', the output rows); a name may have
 *       rows in several tables (--layout of sinusoidal and of rope) and
 *       takes one value, the last given
 *   pe_args_bind(&a, rows, &opts, err)              for each table that
 *       applies: the typed values of the rows given land in opts, checked
 *       (range, choices, strict numbers); several tables may bind one name
 *   pe_args_unbound(&a)                             an option given that no
 *       bound table has ("--seed does not apply to rope")
 *   pe_args_given(&a, &opts.field)                  the text given for a
 *       bound field, NULL if absent: precedence over defaults and files
 *   pe_args_free(&a)                                in every case
 * Values of type TEXT and FILE point into argv; lists (REALS) are owned by
 * the args and freed with them.
 */
#ifndef PE_OPT_H
#define PE_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

enum pe_opt_type {
	PE_OPT_HEADING = 0,	/* no option: help is a heading of --help */
	PE_OPT_FLAG,		/* int, 1 when given */
	PE_OPT_TEXT,		/* const char *, the text as given */
	PE_OPT_FILE,		/* const char *, a path (completed as a file name) */
	PE_OPT_U64,		/* uint64_t in [lo, hi] */
	PE_OPT_I64,		/* int64_t in [(int64_t)lo, (int64_t)hi] */
	PE_OPT_REAL,		/* double, finite; lo: one of the PE_REAL_ signs */
	PE_OPT_CHOICE,		/* int, the index of the value in choices */
	PE_OPT_REALS		/* struct pe_reals, a comma-separated list of at most hi finite reals */
};

enum { PE_REAL_ANY, PE_REAL_POSITIVE, PE_REAL_NONNEG };

struct pe_reals {
	const double *v;
	size_t n;
};

struct pe_optdef {
	const char *name;	/* long name without "--"; NULL for a heading */
	char shortopt;		/* 0 if none */
	const char *arg;	/* value name ("N"), NULL for a flag */
	const char *help;	/* for --help (a heading's text) */
	enum pe_opt_type type;
	size_t off;		/* offsetof the value in the owner's struct */
	uint64_t lo, hi;	/* U64 and I64 ranges; REAL sign; REALS most values */
	const char *const *choices;	/* CHOICE: the names; TEXT: what completion offers */
	unsigned applies;	/* the owner's forms it applies to (a bit each); 0: all */
	const char *param;	/* the core parameter it sets, when that is not its
				 * name with '_' for '-' (for core's messages) */
};

/* Row bodies: a table is `{ PE_U64("dim", 'd', "D", offsetof(...), 1, M, "help") },`
 * with more designated fields after them as needed (`.applies = ...`). */
#define PE_HEADING(text) .help = (text)
#define PE_FLAG(n, s, o, h) .name = (n), .shortopt = (s), .type = PE_OPT_FLAG, .off = (o), .help = (h)
#define PE_TEXT(n, s, a, o, h) .name = (n), .shortopt = (s), .arg = (a), .type = PE_OPT_TEXT, \
	.off = (o), .help = (h)
#define PE_FILE(n, s, a, o, h) .name = (n), .shortopt = (s), .arg = (a), .type = PE_OPT_FILE, \
	.off = (o), .help = (h)
#define PE_U64(n, s, a, o, l, u, h) .name = (n), .shortopt = (s), .arg = (a), .type = PE_OPT_U64, \
	.off = (o), .lo = (uint64_t)(l), .hi = (uint64_t)(u), .help = (h)
#define PE_I64(n, s, a, o, l, u, h) .name = (n), .shortopt = (s), .arg = (a), .type = PE_OPT_I64, \
	.off = (o), .lo = (uint64_t)(int64_t)(l), .hi = (uint64_t)(int64_t)(u), .help = (h)
#define PE_REAL(n, s, a, o, sign, h) .name = (n), .shortopt = (s), .arg = (a), \
	.type = PE_OPT_REAL, .off = (o), .lo = (sign), .help = (h)
#define PE_CHOICE(n, s, a, o, c, h) .name = (n), .shortopt = (s), .arg = (a), \
	.type = PE_OPT_CHOICE, .off = (o), .choices = (c), .help = (h)
#define PE_REALS(n, s, a, o, most, h) .name = (n), .shortopt = (s), .arg = (a), \
	.type = PE_OPT_REALS, .off = (o), .hi = (most), .help = (h)

/* Rows of a table before its all-zero terminator `{ 0 }`. */
size_t pe_opt_count(const struct pe_optdef *rows);

/* The parameter a row sets: param, else its name with '_' for '-', into
 * buf (n bytes). */
const char *pe_opt_param(const struct pe_optdef *row, char *buf, size_t n);

struct pe_arg_slot;
struct pe_arg_bound;

struct pe_args {
	char **operands;	/* the non-options, in order */
	int noperands;
	/* private */
	struct pe_arg_slot *slot;	/* one per distinct long name */
	size_t nslot;
	struct pe_arg_bound *bound;
	size_t nbound, capbound;
	double **lists;
	size_t nlists;
};

/*
 * Parse argv[1..argc) against the tables.  Long options must be written in
 * full (an abbreviation is a usage error naming the full option; an
 * unknown one lists the options it might have meant), as "--name VALUE"
 * or "--name=VALUE"; "--" ends the options.  Values are kept as text until
 * bound.  Returns 0, or -1 with PE_ERR_USAGE (free a in either case).
 */
int pe_args_parse(struct pe_args *a, int argc, char **argv, const struct pe_optdef *const *tables,
		  size_t ntables, struct pe_error *err);

/* Convert the values given for rows into dest (a struct of the rows'
 * owner); a bad value is a PE_ERR_USAGE message naming the option and
 * quoting the value.  Fields of rows not given are left as they are. */
int pe_args_bind(struct pe_args *a, const struct pe_optdef *rows, void *dest,
		 struct pe_error *err);

/* The text given for the option bound at field (a flag's is "1"); NULL
 * when it was not given. */
const char *pe_args_given(const struct pe_args *a, const void *field);

/* The name of the first option given (in table order) that no bind has
 * taken; NULL if none. */
const char *pe_args_unbound(const struct pe_args *a);

/* How many rows have bound the option bound at field (0 when not given):
 * a command's --preset that a kind's row must also take. */
int pe_args_binds(const struct pe_args *a, const void *field);

/* Forget the value of the option bound at field, for the binds after this
 * one (a command's own --preset that a kind must not see). */
void pe_args_drop(struct pe_args *a, const void *field);

/* The first row of rows, bound at dest, that was given and applies to
 * none of the forms in active (its applies has no bit of it); NULL if
 * none. */
const struct pe_optdef *pe_args_misplaced(const struct pe_args *a, const struct pe_optdef *rows,
					  const void *dest, unsigned active);

/* The option whose row sets parameter param (see pe_opt_param), and in
 * *given whether it was given; NULL when no table has one. */
const char *pe_args_option_of(const struct pe_args *a, const char *param, int *given);

void pe_args_free(struct pe_args *a);

/* Does argv (before any "--") ask for help (-h or --help)? */
int pe_opt_wants_help(int argc, char **argv);

/* The help lines of tables, after a command's usage text. */
void pe_opt_help_rows(FILE *fp, const struct pe_optdef *const *tables, size_t ntables);

/* "a, b and c": names[i] for each bit i of mask, into buf (n bytes). */
const char *pe_opt_mask_names(unsigned mask, const char *const *names, char *buf, size_t n);

/* Strict conversions with a message that names the option and quotes the
 * value (also used for values that are not options, e.g. POSENC_THREADS). */
int pe_opt_u64(const char *name, const char *val, uint64_t lo, uint64_t hi, uint64_t *out,
	       struct pe_error *err);
int pe_opt_choice(const char *name, const char *val, const char *const *choices, int *out,
		  struct pe_error *err);

#endif
