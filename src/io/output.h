/*
 * output.h - where a result goes: stdout, or a file that appears whole or
 * not at all.
 *
 * A regular file (existing or new) is written to a temporary file beside it
 * (".posenc-XXXXXX") and renamed over the target only when everything was
 * written and closed without error; on any failure the temporary file is
 * removed, and pe_output_signal_cleanup removes it when a signal ends the
 * process.  Through a symbolic link, the link's final target is replaced
 * and the link stays; an existing file keeps its permission bits (a new
 * one gets 0666 & ~umask); a file this process read as an input
 * (io/input.h) is never replaced.  An existing non-regular file (a FIFO,
 * /dev/null, /dev/full) and any path under /dev/ or /proc/ (/dev/stdout,
 * /dev/fd/N) is written in place, since renaming over them would replace
 * a device or a link.
 */
#ifndef PE_OUTPUT_H
#define PE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

struct pe_output {
	FILE *fp;
	int to_stdout;
	char *path;		/* as given, for messages (NULL for stdout) */
	char *target;		/* the file replaced: path with symlinks followed */
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

/* Remove every temporary file still being written.  Async-signal-safe
 * (unlink only): for a SIGINT/SIGTERM/SIGHUP handler. */
void pe_output_signal_cleanup(void);

/*
 * A hint that about bytes more will be written to fp.  On a regular file
 * (Linux) the blocks are reserved now, without changing the file's size
 * (fallocate, FALLOC_FL_KEEP_SIZE); any failure is ignored: the writes
 * report their own.  Why: ext4 allocates written blocks late, and when a
 * file with blocks still unallocated is renamed over an existing one it
 * allocates and starts writing them all inside rename(): 74-119 ms for a
 * 256 MiB table, more than computing it.  Reserved blocks leave nothing to
 * allocate, and the kernel writes the pages back later, as for any file.
 */
void pe_write_expect(FILE *fp, uint64_t bytes);

/* fwrite that reports a short write as PE_ERR_PIPE (EPIPE) or PE_ERR_IO. */
int pe_write(FILE *fp, const void *p, size_t n, struct pe_error *err);

/* pe_write of a NUL-terminated string. */
int pe_write_str(FILE *fp, const char *s, struct pe_error *err);

/* n 4-byte values (float or int32_t, host order) written little-endian. */
int pe_write_le32(FILE *fp, const void *data, size_t n, struct pe_error *err);

/* The error for a stream whose ferror() is set, or an errno value. */
int pe_write_error(int errnum, struct pe_error *err);

#endif
