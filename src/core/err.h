/*
 * err.h - the error value every core/ and io/ function returns through.
 *
 * core/ and io/ never print and never exit: a failing function fills a
 * struct pe_error (a code and one line of text, without the "posenc: CMD: "
 * prefix) and returns -1.  Only cli/ turns it into a message and an exit
 * status (see cli/msg.h).  core/ and io/ speak of parameters, never of
 * options: "{theta} must be a positive number", which cli renders as
 * "--theta ..." or "config.json: rope_theta ..." by where the value came
 * from.
 */
#ifndef PE_ERR_H
#define PE_ERR_H

#include <stdarg.h>

enum pe_err {
	PE_OK = 0,
	PE_ERR_USAGE,	/* inconsistent or malformed options (cli only): exit 2 */
	PE_ERR_PARAM,	/* a parameter's value is wrong: the message names each
			 * parameter as {name} (core's word, e.g. {theta}); cli
			 * names it as the user gave it (an option, a config.json
			 * key) and chooses the exit status (cli/param.h) */
	PE_ERR_DATA,	/* bad input data or a result that cannot be written: exit 1 */
	PE_ERR_IO,	/* a read or write failed: exit 1 */
	PE_ERR_NOMEM,	/* allocation failed: exit 1 */
	PE_ERR_PIPE	/* the reader went away (EPIPE): a quiet, successful stop */
};

struct pe_error {
	enum pe_err code;
	char msg[1024];	/* one line; room for a listing of 16 tensors */
};

/* Record an error (printf-style message) and return -1, so callers can
 * write `return pe_fail(err, PE_ERR_DATA, "...", ...);`.  err may be NULL;
 * the arguments may point into err->msg (it is formatted apart, then
 * copied).  A message longer than msg holds keeps its end, the reason:
 * its longest words (paths, quoted values) lose their middles to "...",
 * never inside a UTF-8 sequence. */
int pe_fail(struct pe_error *err, enum pe_err code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* The same with a va_list (for other printf-style functions, such as the
 * cli's warnings, that want the same shortening). */
int pe_vfail(struct pe_error *err, enum pe_err code, const char *fmt, va_list ap)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 0)))
#endif
	;

/* Drop an incomplete UTF-8 sequence from the end of s, as a bounded
 * snprintf or "%.40s" leaves when it cuts a value inside a character. */
void pe_utf8_trim(char *s);

#endif
