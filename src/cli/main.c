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
	const struct pe_command *cmd;
	size_t i;

	fputs("Usage: posenc [--help | --version | --completion bash|zsh] COMMAND [ARGS...]\n"
	      "Generate and inspect the positional encodings of transformer models.\n"
	      "\n"
	      "Commands:\n",
	      fp);
	for (i = 0; (cmd = pe_command_at(i)); i++)
		fprintf(fp, "  %-12s %s\n", cmd->name, pe_command_summary(cmd));
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

/* Install sa for sig only where the default action stands: a signal
 * ignored on entry (nohup, a shell's background job) stays ignored, and one
 * that a runtime already handles (a profiler's SIGPROF) keeps its handler. */
static void catch_one(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
	    old.sa_handler == SIG_DFL)
		(void)sigaction(sig, sa, NULL);
}

/*
 * A signal that ends the process while -o FILE is half written: remove the
 * temporary file, then end by the same signal (SA_RESETHAND restored the
 * default; every caught signal is blocked in the handler, so this one lands
 * when it returns, with its status and, for SIGQUIT and SIGXCPU, its core).
 */
static void on_fatal_signal(int sig)
{
	pe_output_signal_cleanup();
	raise(sig);
}

/*
 * Every signal whose default action ends the process and that can be
 * caught, but those that report a fault of the process itself (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT): a fault is a bug, and
 * its default action (a core, a sanitizer's or a debugger's report) is
 * worth more than tidiness.  SIGPIPE is ignored (a closed pipe is EPIPE,
 * a quiet end) and SIGXFSZ too (a file over ulimit -f is EFBIG, a write
 * error like a full disk).  The real-time signals end the process too.
 */
static void catch_fatal_signals(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
		SIGXCPU,
#ifdef SIGIO
		SIGIO,
#endif
#if defined(SIGPOLL) && (!defined(SIGIO) || SIGPOLL != SIGIO)
		SIGPOLL,
#endif
#ifdef SIGPWR
		SIGPWR,
#endif
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
	};
	struct sigaction sa;
	size_t i;
#ifdef SIGRTMIN
	int sig;
#endif

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
#ifdef SIGRTMIN
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&sa.sa_mask, sig);
#endif
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		catch_one(sigs[i], &sa);
#ifdef SIGRTMIN
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_one(sig, &sa);
#endif
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	const struct pe_command *cmd = NULL;
	size_t i;
	int rc;

	hold_std_fds();
	catch_fatal_signals();
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

	if (argc < 2) {
		fprintf(stderr, "posenc: missing command (one of: ");
		for (i = 0; (cmd = pe_command_at(i)); i++)
			fprintf(stderr, "%s%s", i ? ", " : "", cmd->name);
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
	cmd = pe_command_by_name(argv[1]);
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
		pe_command_help(stdout, cmd);
		return close_stdout(PE_EXIT_OK, cmd->name);
	}
	rc = cmd->run(cmd, argc - 1, argv + 1);
	return close_stdout(rc, cmd->name);
}
