/*
 * The option parser (see opt.h).  Two steps: getopt_long turns argv into
 * one text per distinct long name (several tables may have a row of one
 * name, e.g. every kind's --preset), then each table that applies binds
 * its rows, converting the text by the row's type into the owner's struct.
 */
#include "cli/opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

#define LIST_MAX ((uint64_t)1 << 22)

struct pe_arg_slot {
	const struct pe_optdef *row;	/* the first row of this name */
	const char *text;		/* the value given (last wins), NULL if absent */
	int taken;			/* how many binds have converted it */
	int hidden;			/* dropped: later binds do not see it */
};

struct pe_arg_bound {
	const void *field;
	size_t slot;
};

size_t pe_opt_count(const struct pe_optdef *rows)
{
	size_t n = 0;

	while (rows[n].name || rows[n].help)
		n++;
	return n;
}

const char *pe_opt_param(const struct pe_optdef *row, char *buf, size_t n)
{
	size_t i;

	if (row->param)
		return row->param;
	snprintf(buf, n, "%s", row->name);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
	return buf;
}

int pe_opt_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

static long slot_of(const struct pe_args *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->nslot; i++)
		if (strcmp(a->slot[i].row->name, name) == 0)
			return (long)i;
	return -1;
}

/* "--name" part of a long-option token (up to '=') into buf. */
static void token_name(const char *tok, char *buf, size_t n)
{
	size_t k = strcspn(tok + 2, "=");

	snprintf(buf, n, "%.*s", (int)(k < n - 1 ? k : n - 1), tok + 2);
}

/* "--a, --b or --c": the options whose names start with prefix. */
static size_t candidates(const struct pe_args *a, const char *prefix, char *buf, size_t n)
{
	size_t i, found = 0, len = 0, plen = strlen(prefix);
	const char *last = NULL;

	buf[0] = '\0';
	for (i = 0; i < a->nslot; i++) {
		const char *name = a->slot[i].row->name;

		if (strncmp(name, prefix, plen) != 0)
			continue;
		if (last && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s--%s", found > 1 ? ", " : "",
						last);
		last = name;
		found++;
	}
	if (last && len < n)
		snprintf(buf + len, n - len, "%s--%s", found > 1 ? " or " : "", last);
	return found;
}

/* Edit distance of a and b (optimal string alignment: insertions,
 * deletions, substitutions and swaps of neighbours, each 1), for names of
 * fewer than 64 characters. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d[64][64], c, best;

	if (la >= 64 || lb >= 64)
		return (size_t)-1;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < best)
				best = d[i - 1][j - 1] + c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

/* "--a or --b": the options nearest to a misspelt name, at most 2 edits
 * away (1 for names of 4 letters or fewer, so --dim is no guess for --do). */
static size_t nearest(const struct pe_args *a, const char *name, char *buf, size_t n)
{
	size_t i, k, found = 0, len = 0, best = strlen(name) <= 4 ? 1 : 2, dist;

	buf[0] = '\0';
	for (k = 0; k < 2 && !found; k++) {
		for (i = 0; i < a->nslot; i++) {
			dist = edit_distance(name, a->slot[i].row->name);
			if (k == 0 && dist < best)
				best = dist;	/* the first pass finds the least */
			if (k == 1 && dist == best && len < n) {
				len += (size_t)snprintf(buf + len, n - len, "%s--%s", found ? " or " : "",
							a->slot[i].row->name);
				found++;
			}
		}
	}
	return found;
}

/* An unknown long option's message: what it might have meant (the
 * options it starts, else the nearest spellings). */
static int unknown_long(const struct pe_args *a, const char *tok, struct pe_error *err)
{
	char name[64], list[256];

	token_name(tok, name, sizeof name);
	if (name[0] && (candidates(a, name, list, sizeof list) || nearest(a, name, list, sizeof list)))
		return pe_fail(err, PE_ERR_USAGE, "unknown option '--%s' (did you mean %s?)", name,
			       list);
	return pe_fail(err, PE_ERR_USAGE, "unknown option '%s'", tok);
}

/* One slot per distinct long name, in table order. */
static int collect(struct pe_args *a, const struct pe_optdef *const *tables, size_t ntables,
		   struct pe_error *err)
{
	size_t t, i, cap = 0;

	for (t = 0; t < ntables; t++)
		cap += pe_opt_count(tables[t]);
	a->slot = calloc(cap ? cap : 1, sizeof *a->slot);
	if (!a->slot)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (t = 0; t < ntables; t++)
		for (i = 0; tables[t][i].name || tables[t][i].help; i++)
			if (tables[t][i].name && slot_of(a, tables[t][i].name) < 0)
				a->slot[a->nslot++].row = &tables[t][i];
	return 0;
}

int pe_args_parse(struct pe_args *a, int argc, char **argv, const struct pe_optdef *const *tables,
		  size_t ntables, struct pe_error *err)
{
	struct option *lo = NULL;
	char *shorts = NULL;
	size_t i, ns = 0;
	int c, rc = -1, index;

	memset(a, 0, sizeof *a);
	if (collect(a, tables, ntables, err) != 0)
		return -1;
	lo = calloc(a->nslot + 1, sizeof *lo);
	shorts = malloc(2 * a->nslot + 3);
	a->operands = calloc((size_t)argc + 1, sizeof *a->operands);
	if (!lo || !shorts || !a->operands) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* '-' first: operands are returned in place (as code 1), in order;
	 * ':' first after it: a missing value is reported as ':'. */
	shorts[ns++] = '-';
	shorts[ns++] = ':';
	for (i = 0; i < a->nslot; i++) {
		const struct pe_optdef *d = a->slot[i].row;

		lo[i].name = d->name;
		lo[i].has_arg = d->arg ? required_argument : no_argument;
		lo[i].val = 256 + (int)i;
		if (d->shortopt) {
			shorts[ns++] = d->shortopt;
			if (d->arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	opterr = 0;
	optind = 0;	/* full re-initialisation in glibc */
	while ((c = getopt_long(argc, argv, shorts, lo, &index)) != -1) {
		if (c == 1) {
			a->operands[a->noperands++] = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];

			if (optopt && optopt < 256)
				pe_fail(err, PE_ERR_USAGE, c == ':' ? "option '-%c' needs a value"
								     : "unknown option '-%c'",
					optopt);
			else if (c == ':')
				pe_fail(err, PE_ERR_USAGE, "option '%s' needs a value", what);
			else if (strncmp(what, "--", 2) == 0)
				unknown_long(a, what, err);
			else
				pe_fail(err, PE_ERR_USAGE, "unknown option '%s'", what);
			goto out;
		}
		if (c >= 256) {
			const struct pe_optdef *d;
			/* the token: argv[optind - 1], or the one before when the
			 * value came as the next argument */
			const char *tok;
			char name[64];

			i = (size_t)(c - 256);
			d = a->slot[i].row;
			tok = d->arg && optarg == argv[optind - 1] && optind >= 2 ? argv[optind - 2]
										  : argv[optind - 1];
			token_name(tok, name, sizeof name);
			/* abbreviations are refused: a new option would change
			 * what an abbreviation in a script means */
			if (strcmp(name, d->name) != 0) {
				pe_fail(err, PE_ERR_USAGE, "option '--%s' is not a full name (write --%s)",
					name, d->name);
				goto out;
			}
		} else {
			for (i = 0; i < a->nslot; i++)
				if (a->slot[i].row->shortopt == c)
					break;
			if (i == a->nslot) {
				pe_fail(err, PE_ERR_USAGE, "unknown option '-%c'", c);
				goto out;
			}
		}
		a->slot[i].text = a->slot[i].row->arg ? optarg : "1";
	}
	for (c = optind; c < argc; c++)
		a->operands[a->noperands++] = argv[c];
	rc = 0;
out:
	free(shorts);
	free(lo);
	return rc;
}

static int remember(struct pe_args *a, const void *field, size_t slot, struct pe_error *err)
{
	if (a->nbound == a->capbound) {
		size_t cap = a->capbound ? 2 * a->capbound : 16;
		struct pe_arg_bound *b = realloc(a->bound, cap * sizeof *b);

		if (!b)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		a->bound = b;
		a->capbound = cap;
	}
	a->bound[a->nbound].field = field;
	a->bound[a->nbound++].slot = slot;
	return 0;
}

static int keep_list(struct pe_args *a, double *v, struct pe_error *err)
{
	double **l = realloc(a->lists, (a->nlists + 1) * sizeof *l);

	if (!l) {
		free(v);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	a->lists = l;
	a->lists[a->nlists++] = v;
	return 0;
}

static int convert(struct pe_args *a, const struct pe_optdef *d, const char *s, void *field,
		   struct pe_error *err)
{
	uint64_t u;
	int64_t i;
	double x;
	int k;

	switch (d->type) {
	case PE_OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case PE_OPT_TEXT:
	case PE_OPT_FILE:
		*(const char **)field = s;
		return 0;
	case PE_OPT_U64:
		if (pe_opt_u64(d->name, s, d->lo, d->hi, &u, err) != 0)
			return -1;
		*(uint64_t *)field = u;
		return 0;
	case PE_OPT_I64:
		if (pe_parse_i64(s, (int64_t)d->lo, (int64_t)d->hi, &i) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--%s must be an integer from %lld to %lld, got '%s'",
				       d->name, (long long)(int64_t)d->lo, (long long)(int64_t)d->hi, s);
		*(int64_t *)field = i;
		return 0;
	case PE_OPT_REAL:
		if (pe_parse_double(s, &x) != 0 || (d->lo == PE_REAL_POSITIVE && !(x > 0)) ||
		    (d->lo == PE_REAL_NONNEG && !(x >= 0)))
			return pe_fail(err, PE_ERR_USAGE, "--%s must be a %snumber, got '%s'", d->name,
				       d->lo == PE_REAL_POSITIVE ? "positive finite "
				       : d->lo == PE_REAL_NONNEG ? "non-negative "
								 : "finite ",
				       s);
		*(double *)field = x;
		return 0;
	case PE_OPT_CHOICE:
		if (pe_opt_choice(d->name, s, d->choices, &k, err) != 0)
			return -1;
		*(int *)field = k;
		return 0;
	case PE_OPT_REALS: {
		struct pe_reals *r = field;
		double *v = NULL;
		size_t n = 0;

		if (pe_parse_double_list(s, d->hi ? (size_t)d->hi : (size_t)LIST_MAX, &v, &n) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s must be a comma-separated list of finite numbers, got '%s'",
				       d->name, s);
		if (keep_list(a, v, err) != 0)
			return -1;
		r->v = v;
		r->n = n;
		return 0;
	}
	case PE_OPT_HEADING:
		break;
	}
	return 0;
}

int pe_args_bind(struct pe_args *a, const struct pe_optdef *rows, void *dest,
		 struct pe_error *err)
{
	size_t i;

	for (i = 0; rows[i].name || rows[i].help; i++) {
		void *field = (char *)dest + rows[i].off;
		long s;

		if (!rows[i].name)
			continue;
		s = slot_of(a, rows[i].name);
		if (s < 0 || !a->slot[s].text || a->slot[s].hidden)
			continue;
		if (convert(a, &rows[i], a->slot[s].text, field, err) != 0 ||
		    remember(a, field, (size_t)s, err) != 0)
			return -1;
		a->slot[s].taken++;
	}
	return 0;
}

const char *pe_args_given(const struct pe_args *a, const void *field)
{
	size_t i;

	for (i = a->nbound; i-- > 0;)
		if (a->bound[i].field == field)
			return a->slot[a->bound[i].slot].text;
	return NULL;
}

const char *pe_args_unbound(const struct pe_args *a)
{
	size_t i;

	for (i = 0; i < a->nslot; i++)
		if (a->slot[i].text && !a->slot[i].taken && !a->slot[i].hidden)
			return a->slot[i].row->name;
	return NULL;
}

int pe_args_binds(const struct pe_args *a, const void *field)
{
	size_t i;

	for (i = a->nbound; i-- > 0;)
		if (a->bound[i].field == field)
			return a->slot[a->bound[i].slot].taken;
	return 0;
}

void pe_args_drop(struct pe_args *a, const void *field)
{
	size_t i;

	for (i = 0; i < a->nbound; i++)
		if (a->bound[i].field == field)
			a->slot[a->bound[i].slot].hidden = 1;
}

const struct pe_optdef *pe_args_misplaced(const struct pe_args *a, const struct pe_optdef *rows,
					  const void *dest, unsigned active)
{
	size_t i;

	for (i = 0; rows[i].name || rows[i].help; i++)
		if (rows[i].name && rows[i].applies && !(rows[i].applies & active) &&
		    pe_args_given(a, (const char *)dest + rows[i].off))
			return &rows[i];
	return NULL;
}

const char *pe_args_option_of(const struct pe_args *a, const char *param, int *given)
{
	char buf[64];
	size_t i;

	for (i = 0; i < a->nslot; i++)
		if (strcmp(pe_opt_param(a->slot[i].row, buf, sizeof buf), param) == 0) {
			*given = a->slot[i].text != NULL && !a->slot[i].hidden;
			return a->slot[i].row->name;
		}
	*given = 0;
	return NULL;
}

void pe_args_free(struct pe_args *a)
{
	size_t i;

	for (i = 0; i < a->nlists; i++)
		free(a->lists[i]);
	free(a->lists);
	free(a->bound);
	free(a->slot);
	free(a->operands);
	memset(a, 0, sizeof *a);
}

const char *pe_opt_mask_names(unsigned mask, const char *const *names, char *buf, size_t n)
{
	size_t len = 0;
	unsigned bit, left = mask;
	int k = 0;

	buf[0] = '\0';
	for (bit = 0; left && names[bit]; bit++) {
		if (!(left & (1u << bit)))
			continue;
		left &= ~(1u << bit);
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						k == 0 ? "" : left ? ", " : " and ", names[bit]);
		k++;
	}
	return buf;
}

static void help_row(FILE *fp, const struct pe_optdef *d)
{
	char left[80];
	const char *h, *nl;
	size_t w;

	if (d->shortopt)
		snprintf(left, sizeof left, "  -%c, --%s%s%s", d->shortopt, d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
	else
		snprintf(left, sizeof left, "      --%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
	w = strlen(left);
	fputs(left, fp);
	/* help text may span lines: continuation lines are indented */
	for (h = d->help; h; h = nl ? nl + 1 : NULL) {
		nl = strchr(h, '\n');
		if (w >= 30) {
			fputc('\n', fp);
			w = 0;
		}
		fprintf(fp, "%*s%.*s\n", (int)(30 - w), "", nl ? (int)(nl - h) : (int)strlen(h), h);
		w = 0;
	}
}

void pe_opt_help_rows(FILE *fp, const struct pe_optdef *const *tables, size_t ntables)
{
	size_t t, i;

	for (t = 0; t < ntables; t++)
		for (i = 0; tables[t][i].name || tables[t][i].help; i++) {
			if (tables[t][i].name)
				help_row(fp, &tables[t][i]);
			else
				fprintf(fp, "\n%s\n", tables[t][i].help);
		}
}

int pe_opt_u64(const char *name, const char *val, uint64_t lo, uint64_t hi, uint64_t *out,
	       struct pe_error *err)
{
	if (!val)
		return 0;
	if (pe_parse_u64(val, lo, hi, out) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s must be an integer from %llu to %llu, got '%s'",
			       name, (unsigned long long)lo, (unsigned long long)hi, val);
	return 0;
}

int pe_opt_choice(const char *name, const char *val, const char *const *choices, int *out,
		  struct pe_error *err)
{
	char list[256];
	size_t n = 0;
	int i;

	if (!val)
		return 0;
	for (i = 0; choices[i]; i++) {
		if (strcmp(val, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	list[0] = '\0';
	for (i = 0; choices[i] && n + 1 < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", choices[i]);
	return pe_fail(err, PE_ERR_USAGE, "unknown --%s '%s' (one of: %s)", name, val, list);
}
