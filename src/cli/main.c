/*
 * posenc - positional encodings of transformer models.
 * main: global options, dispatch through the command table, and the final
 * check that everything written to stdout really got out.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/complete.h"
#include "cli/msg.h"
#include "cli/opt.h"
#include "core/gemm.h"
#include "version.h"

static void usage(FILE *fp)
{
	size_t i;

	fputs("Usage: posenc [--help | --version | --completion bash|zsh] COMMAND [ARGS...]\n"
	      "Generate and inspect the positional encodings of transformer models.\n"
	      "\n"
	      "Commands:\n",
	      fp);
	for (i = 0; i < pe_ncommands; i++)
		fprintf(fp, "  %-12s %s\n", pe_commands[i].name, pe_commands[i].summary);
	fputs("\n"
	      "'posenc COMMAND --help' shows a command's options; man posenc-COMMAND has\n"
	      "the details.  Exit status: 0 success, 1 runtime or data error, 2 usage error.\n",
	      fp);
}

/* stdout is checked once more at exit: a write error there must not be
 * lost, and a reader that went away (EPIPE) is a quiet, successful end. */
static int close_stdout(int rc, const char *cmd)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE || pe_msg_pipe_closed())
			return rc;
		fprintf(stderr, "posenc: %s%swrite error: %s\n", cmd ? cmd : "", cmd ? ": " : "",
			errno ? strerror(errno) : "unknown error");
		return rc ? rc : PE_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	const struct pe_command *cmd = NULL;
	size_t i;
	int rc;

	/* A closed pipe is reported as EPIPE and ends the command quietly. */
	signal(SIGPIPE, SIG_IGN);
	pe_gemm_init();
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

	if (argc < 2) {
		fprintf(stderr, "posenc: missing command (one of: ");
		for (i = 0; i < pe_ncommands; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", pe_commands[i].name);
		fprintf(stderr, ")\nTry 'posenc --help'.\n");
		return PE_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return close_stdout(PE_EXIT_OK, NULL);
	}
	if (strcmp(argv[1], "--completion") == 0) {
		if (argc != 3 || pe_complete_print(stdout, argv[2]) != 0) {
			fprintf(stderr, "posenc: --completion takes bash or zsh\nTry 'posenc --help'.\n");
			return PE_EXIT_USAGE;
		}
		return close_stdout(PE_EXIT_OK, NULL);
	}
	if (strcmp(argv[1], "--version") == 0) {
		fputs("posenc " POSENC_VERSION "\n", stdout);
		return close_stdout(PE_EXIT_OK, NULL);
	}
	for (i = 0; i < pe_ncommands; i++)
		if (strcmp(argv[1], pe_commands[i].name) == 0)
			cmd = &pe_commands[i];
	if (!cmd) {
		if (argv[1][0] == '-')
			fprintf(stderr, "posenc: unknown option '%s'\n", argv[1]);
		else
			fprintf(stderr, "posenc: unknown command '%s'\n", argv[1]);
		fprintf(stderr, "Try 'posenc --help'.\n");
		return PE_EXIT_USAGE;
	}
	if (pe_opt_wants_help(argc - 1, argv + 1)) {
		pe_opt_help(stdout, cmd);
		return close_stdout(PE_EXIT_OK, cmd->name);
	}
	rc = cmd->run(argc - 1, argv + 1);
	return close_stdout(rc, cmd->name);
}
