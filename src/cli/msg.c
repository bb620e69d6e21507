#include "cli/msg.h"

#include "cli/param.h"

#include <stdarg.h>
#include <stdio.h>

static int pipe_closed;

int pe_msg_pipe_closed(void)
{
	return pipe_closed;
}

/* s on fp: control bytes (a newline in a file name, an escape sequence)
 * as \xNN; UTF-8 passes; with listing, so do the lines of a listing
 * ("\n  " then an item: the tensors of a file in a message). */
static void put_escaped(FILE *fp, const char *s, int listing)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (listing && c == '\n' && s[1] == ' ' && s[2] == ' ')
			fputc(c, fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
}

void pe_msg_put_text(FILE *fp, const char *s)
{
	put_escaped(fp, s, 0);
}

static void put_text(const char *s)
{
	put_escaped(stderr, s, 1);
}

int pe_msg_report(const char *cmd, const struct pe_error *given)
{
	struct pe_error named = *given;
	const struct pe_error *err = &named;

	/* a parameter error no command has explained: its options' words */
	pe_param_explain(&named, NULL, NULL);
	if (err->code == PE_OK)
		return PE_EXIT_OK;
	if (err->code == PE_ERR_PIPE) {
		pipe_closed = 1;
		return PE_EXIT_OK;
	}
	fputs("posenc: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	put_text(err->msg);
	fputc('\n', stderr);
	if (err->code == PE_ERR_USAGE) {
		if (cmd)
			fprintf(stderr, "Try 'posenc %s --help'.\n", cmd);
		else
			fprintf(stderr, "Try 'posenc --help'.\n");
		return PE_EXIT_USAGE;
	}
	return PE_EXIT_FAIL;
}

void pe_msg_warn(const char *fmt, ...)
{
	struct pe_error line;	/* shortened as error messages are */
	va_list ap;

	va_start(ap, fmt);
	pe_vfail(&line, PE_ERR_DATA, fmt, ap);
	va_end(ap);
	fputs("posenc: warning: ", stderr);
	put_text(line.msg);
	fputc('\n', stderr);
}

void pe_msg_progress(const char *cmd, uint64_t done, uint64_t total, int *last)
{
	int pct = total ? (int)(done * 100 / total) : 100;

	if (done >= total) {
		if (*last >= 0)
			fputs("\r\033[K", stderr);
		return;
	}
	if (pct == *last)
		return;
	*last = pct;
	fprintf(stderr, "\rposenc: %s: %d%% of %llu rows", cmd, pct, (unsigned long long)total);
	fflush(stderr);
}
