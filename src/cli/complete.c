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
#include "cli/gen.h"
#include "io/colormap.h"
#include "io/sink.h"

#define WORDS_MAX 4096

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

/* The names an option takes with command cmd (every row of that name:
 * the kinds share --preset, --layout, --table); 0 when it takes no fixed
 * ones.  Formats and colour maps come from their own tables. */
static int names_of(const struct pe_command *cmd, const char *option, struct words *w)
{
	const struct pe_optdef *tabs[PE_MAX_TABLES];
	size_t nt = pe_command_tables(cmd, tabs), t, i;
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
	for (t = 0; t < nt; t++)
		for (i = 0; tabs[t][i].name || tabs[t][i].help; i++)
			if (tabs[t][i].name && tabs[t][i].choices &&
			    strcmp(tabs[t][i].name, option) == 0) {
				add_list(w, tabs[t][i].choices);
				found = 1;
			}
	return found;
}

static void kind_words(struct words *w)
{
	const struct pe_gen_kind *k;
	size_t i;

	memset(w, 0, sizeof *w);
	for (i = 0; (k = pe_gen_kind_at(i)); i++)
		add_word(w, k->name);
}

/* What each_option's callbacks write to: a script, or a word list. */
struct out {
	FILE *fp;
	const struct pe_command *cmd;
	struct words words;
};

/* Each distinct option of the command once (the first row of its name),
 * in table order: fn(o, row). */
static void each_option(struct out *o, void (*fn)(struct out *o, const struct pe_optdef *d))
{
	const struct pe_command *cmd = o->cmd;
	const struct pe_optdef *tabs[PE_MAX_TABLES];
	struct words seen;
	size_t nt = pe_command_tables(cmd, tabs), t, i;

	memset(&seen, 0, sizeof seen);
	for (t = 0; t < nt; t++)
		for (i = 0; tabs[t][i].name || tabs[t][i].help; i++) {
			const struct pe_optdef *d = &tabs[t][i];

			if (!d->name || has_word(&seen, d->name))
				continue;
			add_word(&seen, d->name);
			fn(o, d);
		}
}

/* ---- bash ---- */

static void bash_word(struct out *o, const struct pe_optdef *d)
{
	char word[80];

	if (d->shortopt) {
		snprintf(word, sizeof word, "-%c", d->shortopt);
		add_word(&o->words, word);
	}
	snprintf(word, sizeof word, "--%s", d->name);
	add_word(&o->words, word);
}

static void bash_value(struct out *o, const struct pe_optdef *d)
{
	struct words names;

	if (!d->arg)
		return;
	fprintf(o->fp, "\t\t");
	if (d->shortopt)
		fprintf(o->fp, "-%c|", d->shortopt);
	fprintf(o->fp, "--%s) ", d->name);
	if (d->type == PE_OPT_FILE)	/* directories with a '/' and no space */
		fprintf(o->fp, "compopt -o filenames 2>/dev/null; "
			       "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
	else if (names_of(o->cmd, d->name, &names))
		fprintf(o->fp, "COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", names.s);
	else
		fprintf(o->fp, "return ;;\n");	/* a value nobody can guess */
}

static void bash_command(FILE *fp, const struct pe_command *cmd)
{
	struct out o;

	memset(&o, 0, sizeof o);
	o.fp = fp;
	o.cmd = cmd;
	each_option(&o, bash_word);
	fprintf(fp, "\t%s)\n\t\topts='%s'\n", cmd->name, o.words.s);
	fprintf(fp, "\t\toperands=%s\n", cmd->uses & PE_CMD_FILES ? "files"
					  : cmd->uses & PE_CMD_KINDS ? "kinds" : "none");
	fprintf(fp, "\t\tcase $prev in\n");
	each_option(&o, bash_value);
	fprintf(fp, "\t\tesac ;;\n");
}

static void bash_script(FILE *fp)
{
	const struct pe_command *cmd;
	struct words cmds, kinds;
	size_t i;

	memset(&cmds, 0, sizeof cmds);
	for (i = 0; (cmd = pe_command_at(i)); i++)
		add_word(&cmds, cmd->name);
	kind_words(&kinds);
	fprintf(fp,
		"# bash completion for posenc(1); written by `posenc --completion bash`\n"
		"_posenc()\n"
		"{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts operands\n"
		"\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		"\t\tCOMPREPLY=($(compgen -W '%s --help --version --completion' -- \"$cur\"))\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tcase ${COMP_WORDS[1]} in\n"
		"\t--completion)\n"
		"\t\tCOMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return ;;\n",
		cmds.s);
	for (i = 0; (cmd = pe_command_at(i)); i++)
		bash_command(fp, cmd);
	fprintf(fp,
		"\t*) return ;;\n"
		"\tesac\n"
		"\tif [[ $cur == -* ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		"\telif [ \"$operands\" = files ]; then\n"
		"\t\tcompopt -o filenames 2>/dev/null\n"
		"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		"\telif [ \"$operands\" = kinds ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
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

static void zsh_option(struct out *o, const struct pe_optdef *d)
{
	FILE *fp = o->fp;
	struct words names;

	fputs("\t\t\t", fp);
	if (d->shortopt)
		fprintf(fp, "'(-%c --%s)'{-%c,--%s}'[", d->shortopt, d->name, d->shortopt, d->name);
	else
		fprintf(fp, "'--%s[", d->name);
	zsh_text(fp, d->help);
	fputc(']', fp);
	if (d->arg) {
		fputc(':', fp);
		zsh_text(fp, d->arg);
		fputc(':', fp);
		if (d->type == PE_OPT_FILE)
			fputs("_files", fp);
		else if (names_of(o->cmd, d->name, &names))
			fprintf(fp, "(%s)", names.s);
		else
			fputc(' ', fp);
	}
	fputs("' \\\n", fp);
}

static void zsh_command(FILE *fp, const struct pe_command *cmd)
{
	struct words kinds;
	struct out o;

	memset(&o, 0, sizeof o);
	o.fp = fp;
	o.cmd = cmd;
	fprintf(fp, "\t%s)\n\t\t_arguments -s -S \\\n", cmd->name);
	each_option(&o, zsh_option);
	kind_words(&kinds);
	if (cmd->uses & PE_CMD_FILES)
		fprintf(fp, "\t\t\t'*:file:_files' ;;\n");
	else
		fprintf(fp, "\t\t\t'1:kind:(%s)' ;;\n", kinds.s);
}

static void zsh_script(FILE *fp)
{
	const struct pe_command *cmd;
	size_t i;

	fprintf(fp,
		"#compdef posenc\n"
		"# zsh completion for posenc(1); written by `posenc --completion zsh`\n"
		"_posenc()\n"
		"{\n"
		"\tlocal -a commands\n"
		"\tcommands=(\n");
	for (i = 0; (cmd = pe_command_at(i)); i++) {
		fprintf(fp, "\t\t'%s:", cmd->name);
		zsh_text(fp, pe_command_summary(cmd));
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
	for (i = 0; (cmd = pe_command_at(i)); i++)
		zsh_command(fp, cmd);
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
