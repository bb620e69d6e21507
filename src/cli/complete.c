/*
 * Shell completion scripts for bash and zsh, written from the command
 * table and each command's option table (so they cannot drift from --help
 * and the man pages), with the names an option takes from the very lists
 * the builders parse with.  `posenc --completion bash|zsh` prints one;
 * `make` writes both and `make install` installs them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/complete.h"
#include "cli/emit.h"
#include "cli/generate.h"
#include "core/bucket.h"
#include "core/learned.h"
#include "core/rope.h"
#include "core/similarity.h"
#include "core/skew.h"
#include "core/sinusoidal.h"
#include "io/colormap.h"
#include "io/sink.h"

#define MAX_LISTS 4
#define WORDS_MAX 2048

/* The names an option takes, as lists (several kinds share an option). */
static const struct {
	const char *option;
	const char *const *lists[MAX_LISTS];
} fixed[] = {
	{ "preset", { pe_sin_preset_names, pe_learned_preset_names, pe_gen_sincos2d_presets } },
	{ "layout", { pe_gen_sinusoidal_layouts, pe_gen_rope_layouts } },
	{ "precision", { pe_gen_precisions } },
	{ "torch-cpu", { pe_gen_torch_cpus } },
	{ "torch-vml", { pe_torch_vml_names } },
	{ "init", { pe_learned_init_names } },
	{ "table", { pe_gen_rope_tables, pe_gen_alibi_tables } },
	{ "scaling", { pe_rope_scaling_names } },
	{ "form", { pe_gen_alibi_forms } },
	{ "metric", { pe_metric_names } },
	{ "aspect", { pe_emit_aspects } },
	{ "mode", { pe_skew_mode_names } },
	{ "scheme", { pe_bucket_scheme_names } },
};

/* Options whose value is a file name. */
static const char *const file_options[] = { "output", "input", "from-config", "rel-h", "rel-w", "bias", NULL };

/* A space-separated list of distinct words. */
struct words {
	char s[WORDS_MAX];
	size_t len;
};

static int has_word(const struct words *w, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = w->s; (p = strstr(p, word)) != NULL; p += n)
		if ((p == w->s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static void add_word(struct words *w, const char *word)
{
	if (!has_word(w, word) && w->len < sizeof w->s)
		w->len += (size_t)snprintf(w->s + w->len, sizeof w->s - w->len, "%s%s",
					   w->len ? " " : "", word);
}

static void add_list(struct words *w, const char *const *list)
{
	for (; *list; list++)
		add_word(w, *list);
}

/* The names option takes with command cmd; 0 when it takes no fixed ones. */
static int names_of(const struct pe_command *cmd, const char *option, struct words *w)
{
	size_t i, k;
	int j, found = 0;

	memset(w, 0, sizeof *w);
	if (strcmp(option, "format") == 0) {
		for (j = 0; j < PE_FMT_COUNT; j++)
			add_word(w, pe_format_name((enum pe_format)j));
		return 1;
	}
	if (strcmp(option, "cmap") == 0) {
		for (j = 0; j < pe_colormap_count(); j++)
			add_word(w, pe_colormap_name(j));
		return 1;
	}
	if (strcmp(option, "preset") == 0 && cmd->run == pe_cmd_similarity) {
		add_list(w, pe_similarity_presets);
		found = 1;
	}
	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		if (strcmp(fixed[i].option, option) != 0)
			continue;
		for (k = 0; k < MAX_LISTS && fixed[i].lists[k]; k++)
			add_list(w, fixed[i].lists[k]);
		found = 1;
	}
	return found;
}

static int is_file_option(const char *name)
{
	size_t i;

	for (i = 0; file_options[i]; i++)
		if (strcmp(file_options[i], name) == 0)
			return 1;
	return 0;
}

static void kind_words(struct words *w)
{
	size_t i;

	memset(w, 0, sizeof *w);
	for (i = 0; pe_gen_kind_name(i); i++)
		add_word(w, pe_gen_kind_name(i));
}

/* ---- bash ---- */

static void bash_command(FILE *fp, const struct pe_command *cmd)
{
	const struct pe_optdef *d;
	struct words opts, names;
	size_t i, n = pe_opt_count(cmd->opts);

	char word[80];

	memset(&opts, 0, sizeof opts);
	for (i = 0; i < n; i++) {
		d = &cmd->opts[i];
		if (!d->name)
			continue;
		if (d->shortopt) {
			snprintf(word, sizeof word, "-%c", d->shortopt);
			add_word(&opts, word);
		}
		snprintf(word, sizeof word, "--%s", d->name);
		add_word(&opts, word);
	}
	fprintf(fp, "\t%s)\n\t\topts='%s'\n", cmd->name, opts.s);
	fprintf(fp, "\t\tcase $prev in\n");
	for (i = 0; i < n; i++) {
		d = &cmd->opts[i];
		if (!d->name || !d->arg)
			continue;
		fprintf(fp, "\t\t");
		if (d->shortopt)
			fprintf(fp, "-%c|", d->shortopt);
		fprintf(fp, "--%s) ", d->name);
		if (is_file_option(d->name))
			fprintf(fp, "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
		else if (names_of(cmd, d->name, &names))
			fprintf(fp, "COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", names.s);
		else
			fprintf(fp, "return ;;\n");	/* a value nobody can guess */
	}
	fprintf(fp, "\t\tesac ;;\n");
}

static void bash_script(FILE *fp)
{
	struct words cmds, kinds;
	size_t i;

	memset(&cmds, 0, sizeof cmds);
	for (i = 0; i < pe_ncommands; i++)
		add_word(&cmds, pe_commands[i].name);
	kind_words(&kinds);
	fprintf(fp,
		"# bash completion for posenc(1); written by `posenc --completion bash`\n"
		"_posenc()\n"
		"{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts\n"
		"\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		"\t\tCOMPREPLY=($(compgen -W '%s --help --version --completion' -- \"$cur\"))\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tcase ${COMP_WORDS[1]} in\n"
		"\t--completion)\n"
		"\t\tCOMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return ;;\n",
		cmds.s);
	for (i = 0; i < pe_ncommands; i++)
		bash_command(fp, &pe_commands[i]);
	fprintf(fp,
		"\t*) return ;;\n"
		"\tesac\n"
		"\tif [[ $cur == -* ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		"\telif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
		"\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
		"\tfi\n"
		"}\n"
		"complete -F _posenc posenc\n",
		kinds.s);
}

/* ---- zsh ---- */

/* The first line of s, with what _arguments treats specially escaped. */
static void zsh_text(FILE *fp, const char *s)
{
	for (; *s && *s != '\n'; s++) {
		if (*s == '\'')
			fputs("'\\''", fp);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else
			fputc(*s, fp);
	}
}

static void zsh_command(FILE *fp, const struct pe_command *cmd)
{
	const struct pe_optdef *d;
	struct words names, kinds;
	size_t i, n = pe_opt_count(cmd->opts);

	fprintf(fp, "\t%s)\n\t\t_arguments -s -S \\\n", cmd->name);
	for (i = 0; i < n; i++) {
		d = &cmd->opts[i];
		if (!d->name)
			continue;
		fputs("\t\t\t", fp);
		if (d->shortopt)
			fprintf(fp, "'(-%c --%s)'{-%c,--%s}'[", d->shortopt, d->name, d->shortopt,
				d->name);
		else
			fprintf(fp, "'--%s[", d->name);
		zsh_text(fp, d->help);
		fputc(']', fp);
		if (d->arg) {
			fputc(':', fp);
			zsh_text(fp, d->arg);
			fputc(':', fp);
			if (is_file_option(d->name))
				fputs("_files", fp);
			else if (names_of(cmd, d->name, &names))
				fprintf(fp, "(%s)", names.s);
			else
				fputc(' ', fp);
		}
		fputs("' \\\n", fp);
	}
	kind_words(&kinds);
	fprintf(fp, "\t\t\t'1:kind:(%s)' ;;\n", kinds.s);
}

static void zsh_script(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"#compdef posenc\n"
		"# zsh completion for posenc(1); written by `posenc --completion zsh`\n"
		"_posenc()\n"
		"{\n"
		"\tlocal -a commands\n"
		"\tcommands=(\n");
	for (i = 0; i < pe_ncommands; i++) {
		fprintf(fp, "\t\t'%s:", pe_commands[i].name);
		zsh_text(fp, pe_commands[i].summary);
		fputs("'\n", fp);
	}
	fprintf(fp,
		"\t)\n"
		"\tif (( CURRENT == 2 )); then\n"
		"\t\t_describe -t commands 'posenc command' commands\n"
		"\t\tcompadd -- --help --version --completion\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tlocal cmd=$words[2]\n"
		"\tshift words\n"
		"\t(( CURRENT-- ))\n"
		"\tcase $cmd in\n"
		"\t--completion)\n"
		"\t\tcompadd bash zsh ;;\n");
	for (i = 0; i < pe_ncommands; i++)
		zsh_command(fp, &pe_commands[i]);
	fprintf(fp,
		"\tesac\n"
		"}\n"
		"_posenc \"$@\"\n");
}

int pe_complete_print(FILE *fp, const char *shell)
{
	if (strcmp(shell, "bash") == 0)
		bash_script(fp);
	else if (strcmp(shell, "zsh") == 0)
		zsh_script(fp);
	else
		return -1;
	return 0;
}
