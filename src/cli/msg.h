/*
 * msg.h - every line posenc prints to stderr goes through here:
 *   posenc: COMMAND: what is wrong         (one line per error)
 *   Try 'posenc COMMAND --help'.           (after usage errors)
 *   posenc: warning: ...                   (never changes the exit status)
 * Exit statuses: 0 success, 1 runtime or data error, 2 usage error.
 */
#ifndef PE_MSG_H
#define PE_MSG_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

enum { PE_EXIT_OK = 0, PE_EXIT_FAIL = 1, PE_EXIT_USAGE = 2 };

/* Print err for command cmd (NULL: none) and return the exit status it
 * calls for.  PE_ERR_PIPE (the reader went away) prints nothing and
 * returns 0.  A PE_ERR_PARAM error the command has not explained
 * (cli/param.h) names its parameters as options and is a usage error. */
int pe_msg_report(const char *cmd, const struct pe_error *err);

/* Has a closed pipe (EPIPE) ended the output?  Then the final flush of
 * stdout is expected to fail, quietly. */
int pe_msg_pipe_closed(void);

/* "posenc: CMD: 42% of N rows" on stderr, rewritten in place (callers use
 * it only when stderr is a terminal); *last keeps the percentage shown, so
 * a line is written only when it changes; the line is erased when done. */
void pe_msg_progress(const char *cmd, uint64_t done, uint64_t total, int *last);

/* s as one line, the way messages show untrusted text: control bytes (a
 * newline or tab in a name, an escape sequence) as \xNN, UTF-8 as it is.
 * For text from files that goes to stdout too (a listing of names). */
void pe_msg_put_text(FILE *fp, const char *s);

void pe_msg_warn(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

#endif
