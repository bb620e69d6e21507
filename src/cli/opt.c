#include "cli/opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

int pe_opt_index(const struct pe_optdef *defs, size_t ndefs, const char *name)
{
	size_t i;

	for (i = 0; i < ndefs; i++)
		if (defs[i].name && strcmp(defs[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *pe_opt_value(const struct pe_optdef *defs, size_t ndefs, const char **values,
			 const char *name)
{
	int i = pe_opt_index(defs, ndefs, name);

	return i < 0 ? NULL : values[i];
}

const char *pe_opt_given(const struct pe_optdef *defs, size_t ndefs, const char **values,
			 const char *const *names)
{
	for (; *names; names++)
		if (pe_opt_value(defs, ndefs, values, *names))
			return *names;
	return NULL;
}

size_t pe_opt_count(const struct pe_optdef *defs)
{
	size_t n = 0;

	while (defs[n].name || defs[n].help)
		n++;
	return n;
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

/* "--name" part of a long-option token (up to '=') into buf. */
static void token_name(const char *tok, char *buf, size_t n)
{
	size_t k = strcspn(tok + 2, "=");

	snprintf(buf, n, "%.*s", (int)(k < n - 1 ? k : n - 1), tok + 2);
}

/* "--a, --b or --c": the options whose names start with prefix. */
static size_t candidates(const struct pe_optdef *defs, size_t ndefs, const char *prefix,
			 char *buf, size_t n)
{
	size_t i, found = 0, len = 0, plen = strlen(prefix);
	const char *last = NULL;

	buf[0] = '\0';
	for (i = 0; i < ndefs; i++) {
		if (!defs[i].name || strncmp(defs[i].name, prefix, plen) != 0)
			continue;
		if (last && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s--%s", found > 1 ? ", " : "",
						last);
		last = defs[i].name;
		found++;
	}
	if (last && len < n)
		snprintf(buf + len, n - len, "%s--%s", found > 1 ? " or " : "", last);
	return found;
}

/* An unknown long option's message: what it might have meant. */
static int unknown_long(const struct pe_optdef *defs, size_t ndefs, const char *tok,
			struct pe_error *err)
{
	char name[64], list[256];

	token_name(tok, name, sizeof name);
	if (name[0] && candidates(defs, ndefs, name, list, sizeof list))
		return pe_fail(err, PE_ERR_USAGE, "unknown option '--%s' (did you mean %s?)", name,
			       list);
	return pe_fail(err, PE_ERR_USAGE, "unknown option '%s'", tok);
}

int pe_opt_parse(int argc, char **argv, const struct pe_optdef *defs, size_t ndefs,
		 const char **values, char ***operands, int *noperands, struct pe_error *err)
{
	struct option *lo;
	char shorts[128];
	size_t i, n = 0, ns = 0;
	int c, rc = -1, index;
	char **ops = NULL;

	*operands = NULL;
	*noperands = 0;
	lo = calloc(ndefs + 1, sizeof *lo);
	ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!lo || !ops) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* '-' first: operands are returned in place (as code 1), in order;
	 * ':' first after it: a missing value is reported as ':'. */
	shorts[ns++] = '-';
	shorts[ns++] = ':';
	for (i = 0; i < ndefs; i++) {
		values[i] = NULL;
		if (!defs[i].name)
			continue;
		lo[n].name = defs[i].name;
		lo[n].has_arg = defs[i].arg ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = 256 + (int)i;
		n++;
		if (defs[i].shortopt && ns + 3 < sizeof shorts) {
			shorts[ns++] = defs[i].shortopt;
			if (defs[i].arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	opterr = 0;
	optind = 0;	/* full re-initialisation in glibc */
	while ((c = getopt_long(argc, argv, shorts, lo, &index)) != -1) {
		if (c == 1) {
			ops[(*noperands)++] = optarg;
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
				unknown_long(defs, ndefs, what, err);
			else
				pe_fail(err, PE_ERR_USAGE, "unknown option '%s'", what);
			goto out;
		}
		if (c >= 256) {
			/* the token: argv[optind - 1], or the one before when the
			 * value came as the next argument */
			const char *tok = defs[c - 256].arg && optarg == argv[optind - 1] &&
						  optind >= 2 ? argv[optind - 2] : argv[optind - 1];
			char name[64];

			i = (size_t)(c - 256);
			token_name(tok, name, sizeof name);
			/* abbreviations are refused: a new option would change
			 * what an abbreviation in a script means */
			if (strcmp(name, defs[i].name) != 0) {
				pe_fail(err, PE_ERR_USAGE, "option '--%s' is not a full name (write --%s)",
					name, defs[i].name);
				goto out;
			}
		} else {
			for (i = 0; i < ndefs; i++)
				if (defs[i].name && defs[i].shortopt == c)
					break;
			if (i == ndefs) {
				pe_fail(err, PE_ERR_USAGE, "unknown option '-%c'", c);
				goto out;
			}
		}
		values[i] = defs[i].arg ? optarg : "1";
	}
	for (c = optind; c < argc; c++)
		ops[(*noperands)++] = argv[c];
	*operands = ops;
	ops = NULL;
	rc = 0;
out:
	free(ops);
	free(lo);
	return rc;
}

void pe_opt_help(FILE *fp, const struct pe_command *cmd)
{
	size_t i, w, nopts = pe_opt_count(cmd->opts);
	char left[80];

	fputs(cmd->usage, fp);
	if (cmd->usage_more)
		cmd->usage_more(fp);

	for (i = 0; i < nopts; i++) {
		const struct pe_optdef *d = &cmd->opts[i];
		const char *h, *nl;

		if (!d->name) {
			fprintf(fp, "\n%s\n", d->help);
			continue;
		}
		if (d->shortopt)
			snprintf(left, sizeof left, "  -%c, --%s%s%s", d->shortopt, d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
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

int pe_opt_i64(const char *name, const char *val, int64_t lo, int64_t hi, int64_t *out,
	       struct pe_error *err)
{
	if (!val)
		return 0;
	if (pe_parse_i64(val, lo, hi, out) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s must be an integer from %lld to %lld, got '%s'",
			       name, (long long)lo, (long long)hi, val);
	return 0;
}

int pe_opt_double(const char *name, const char *val, int positive, double *out,
		  struct pe_error *err)
{
	double v;

	if (!val)
		return 0;
	if (pe_parse_double(val, &v) != 0 || (positive && !(v > 0)))
		return pe_fail(err, PE_ERR_USAGE, "--%s must be a %snumber, got '%s'", name,
			       positive ? "positive finite " : "finite ", val);
	*out = v;
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
