/*
 * output.h - where a result goes: stdout, or a file that appears whole or
 * not at all.
 *
 * A regular file (existing or new) is written to a temporary file beside it
 * (".posenc-XXXXXX", mode 0666 & ~umask) and renamed over the target only
 * when everything was written and closed without error; on any failure the
 * temporary file is removed.  An existing non-regular file (a FIFO,
 * /dev/null, /dev/full) is written in place, since renaming over a device
 * would replace it.
 */
#ifndef PE_OUTPUT_H
#define PE_OUTPUT_H

#include <stdio.h>

#include "core/err.h"

struct pe_output {
	FILE *fp;
	int to_stdout;
	char *path;		/* target (NULL for stdout) */
	char *tmp;		/* temporary file, NULL when writing in place */
};

/*
 * Open path ("-" or NULL: stdout).  binary outputs are refused on a
 * terminal unless force (PE_ERR_USAGE).  Returns 0 or -1.
 */
int pe_output_open(struct pe_output *o, const char *path, int binary, int force,
		   struct pe_error *err);

/* Flush, check and close; rename into place.  On failure the partial file is
 * removed.  Returns 0 or -1 (PE_ERR_IO, or PE_ERR_PIPE for a closed pipe). */
int pe_output_commit(struct pe_output *o, struct pe_error *err);

/* Give up: close and remove any temporary file. */
void pe_output_abort(struct pe_output *o);

/* fwrite that reports a short write as PE_ERR_PIPE (EPIPE) or PE_ERR_IO. */
int pe_write(FILE *fp, const void *p, size_t n, struct pe_error *err);

/* pe_write of a NUL-terminated string. */
int pe_write_str(FILE *fp, const char *s, struct pe_error *err);

/* n 4-byte values (float or int32_t, host order) written little-endian. */
int pe_write_le32(FILE *fp, const void *data, size_t n, struct pe_error *err);

/* The error for a stream whose ferror() is set, or an errno value. */
int pe_write_error(int errnum, struct pe_error *err);

#endif
