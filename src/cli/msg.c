#include "cli/msg.h"

#include <stdarg.h>
#include <stdio.h>

static int pipe_closed;

int pe_msg_pipe_closed(void)
{
	return pipe_closed;
}

int pe_msg_report(const char *cmd, const struct pe_error *err)
{
	if (err->code == PE_OK)
		return PE_EXIT_OK;
	if (err->code == PE_ERR_PIPE) {
		pipe_closed = 1;
		return PE_EXIT_OK;
	}
	if (cmd)
		fprintf(stderr, "posenc: %s: %s\n", cmd, err->msg);
	else
		fprintf(stderr, "posenc: %s\n", err->msg);
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
	va_list ap;

	fputs("posenc: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
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
