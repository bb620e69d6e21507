/*
 * posenc - positional encodings of transformer models.
 * main: global options, dispatch through the command table, and the final
 * check that everything written to stdout really got out.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/complete.h"
#include "cli/msg.h"
#include "cli/opt.h"
#include "io/output.h"
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
 * lost, and a reader that went away (EPIPE) is a quiet, successful end.
 * A command that failed has reported its error already (often this very
 * write error): one line, never a second "write error". */
static int close_stdout(int rc, const char *cmd)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE || pe_msg_pipe_closed() || rc != PE_EXIT_OK)
			return rc;
		fprintf(stderr, "posenc: %s%swrite error: %s\n", cmd ? cmd : "", cmd ? ": " : "",
			errno ? strerror(errno) : "unknown error");
		return rc ? rc : PE_EXIT_FAIL;
	}
	return rc;
}

/* A standard descriptor closed by the caller (`>&-`) would be reused by
 * the first file opened, and stdout's bytes would land in it: hold each
 * closed one open on /dev/null, the wrong way round (stdout read-only), so
 * writing to it still fails with EBADF and is reported. */
static void hold_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			(void)open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
}

/* SIGINT, SIGTERM, SIGHUP: remove the temp file of a half-written -o
 * FILE, then end by the same signal (SA_RESETHAND restored the default;
 * the signal is blocked in the handler, so it lands when it returns). */
static void on_fatal_signal(int sig)
{
	pe_output_signal_cleanup();
	raise(sig);
}

static void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	/* a signal ignored on entry (nohup, a shell's background job) stays
	 * ignored */
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			(void)sigaction(sigs[i], &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	const struct pe_command *cmd = NULL;
	size_t i;
	int rc;

	/* A closed pipe is reported as EPIPE and ends the command quietly. */
	hold_std_fds();
	catch_fatal_signals();
	signal(SIGPIPE, SIG_IGN);
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
		struct pe_error e = { PE_OK, "" };

		/* through msg.c, which escapes what argv[1] holds */
		if (argv[1][0] == '-')
			pe_fail(&e, PE_ERR_USAGE, "unknown option '%s'", argv[1]);
		else
			pe_fail(&e, PE_ERR_USAGE, "unknown command '%s'", argv[1]);
		return pe_msg_report(NULL, &e);
	}
	if (pe_opt_wants_help(argc - 1, argv + 1)) {
		pe_opt_help(stdout, cmd);
		return close_stdout(PE_EXIT_OK, cmd->name);
	}
	rc = cmd->run(argc - 1, argv + 1);
	return close_stdout(rc, cmd->name);
}
