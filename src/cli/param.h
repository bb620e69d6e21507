/*
 * param.h - core's parameter errors in the user's words.
 *
 * core/ and io/ name a parameter as {name} in a PE_ERR_PARAM message (the
 * parameter's own word: {theta}, {original_max_positions}).  Here each is
 * named as the user gave it: "--theta" when the option was given, or
 * there is no file to take it from; the config.json key ("rope_theta",
 * "rope_scaling.factor") when a file gave it, or is where it would be
 * read.  An option named in the message makes it a usage error (exit 2);
 * otherwise a key of the file makes it a data error (exit 1), the message
 * starting with the file's name.
 */
#ifndef PE_PARAM_H
#define PE_PARAM_H

#include "cli/opt.h"
#include "core/err.h"

/* Where a command's parameters may come from besides its options. */
struct pe_param_file {
	const char *path;	/* NULL: none */
	/* the file's key for param (given, or where it would be read), or
	 * NULL when the file cannot set it */
	const char *(*key)(const void *ctx, const char *param);
	const void *ctx;
};

/* Rewrite err if it is PE_ERR_PARAM (else leave it): every {param} named
 * as above, the code PE_ERR_USAGE or PE_ERR_DATA.  file may be NULL. */
void pe_param_explain(struct pe_error *err, const struct pe_args *a,
		      const struct pe_param_file *file);

#endif
