/*
 * output.h - where a result goes: stdout, or a file that appears whole or
 * not at all.
 *
 * What -o PATH names, not how it is spelled, decides how it is written:
 *   - a regular file, existing or new, wherever it lives (/dev/shm/x.npy,
 *     /proc/self/cwd/x.npy too), is written to a temporary file beside it
 *     (".posenc-XXXXXX") and renamed over it only when everything was
 *     written and closed without error; on any failure the temporary file
 *     is removed, and pe_output_signal_cleanup removes it when a signal
 *     ends the process.  The directory is opened once, and the temporary
 *     file is created, renamed and removed relative to it, so a directory
 *     renamed during the run gets the finished file (or loses the
 *     temporary one), and a long path never grows past PATH_MAX.
 *     Through a symbolic link, the link's final target is replaced and the
 *     link stays; an existing file keeps its permission bits (a new one
 *     gets 0666 less the umask or the directory's default ACL);
 *   - a character device or a FIFO is written in place (renaming over it
 *     would replace the node).  A FIFO without a reader is waited for
 *     PE_INPUT_FIFO_WAIT_MS, as the input side waits for a writer, then
 *     refused ("a FIFO with no reader");
 *   - a name of one of this process's descriptors (/dev/stdout,
 *     /dev/stderr, /dev/fd/N, /proc/self/fd/N: a /proc link) is that
 *     descriptor, written where it stands, as "-" is stdout: into a pipe,
 *     a socket, a terminal, or a file the shell opened (appended to after
 *     what it already holds, never truncated or replaced, since replacing
 *     it would cut it off from the redirection);
 *   - a directory or a block device is refused.
 * Whatever the kind, an output that is a regular file this process read as
 * an input (io/input.h) is refused (PE_ERR_USAGE), stdout included.
 *
 * Calling sequence (as git's lockfile.h):
 *   pe_output_open(&o, ...)     on failure nothing is open or left behind,
 *                               and nothing needs releasing (pe_output_abort
 *                               is allowed and does nothing);
 *   write to o.fp (pe_write ...);
 *   pe_output_commit(&o, err)   or pe_output_abort(&o): exactly one of them
 *                               ends every successful open.  commit that
 *                               fails has already removed the temporary file.
 * After commit or abort the struct holds nothing (fp NULL) and may be passed
 * to pe_output_open again; abort on it again does nothing.  It is a bug to
 * write to o.fp or commit after commit or abort.  A struct that was never
 * given to pe_output_open must not be aborted unless it is all zeros.
 * stdout itself is flushed by commit, never closed.  Up to PE_OUTPUT_MAX
 * temporary files may be open at once.
 */
#ifndef PE_OUTPUT_H
#define PE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#define PE_OUTPUT_MAX 8
#define PE_OUTPUT_TEMP_LEN 16	/* ".posenc-XXXXXX" and its NUL */

struct pe_output {
	FILE *fp;
	int to_stdout;
	char *path;		/* as given, for messages (NULL for stdout) */
	/* private */
	int has_dir;		/* dirfd is open: writing a temporary file */
	int dirfd;		/* the target's directory */
	char *name;		/* the target's name in dirfd */
	char tmp[PE_OUTPUT_TEMP_LEN];	/* the temporary file's name in dirfd */
	int slot;		/* its slot for pe_output_signal_cleanup */
};

/*
 * Open path ("-" or NULL: stdout).  binary outputs are refused on a
 * terminal unless force (PE_ERR_USAGE).  Returns 0, or -1: PE_ERR_USAGE
 * (a terminal, an input of this process, an empty path), PE_ERR_IO (cannot
 * create or open, a directory, no reader), PE_ERR_NOMEM.
 */
int pe_output_open(struct pe_output *o, const char *path, int binary, int force,
		   struct pe_error *err);

/* Flush, check and close; rename into place.  On failure the partial file is
 * removed.  Returns 0 or -1 (PE_ERR_IO, or PE_ERR_PIPE for a closed pipe). */
int pe_output_commit(struct pe_output *o, struct pe_error *err);

/* Give up: close and remove any temporary file. */
void pe_output_abort(struct pe_output *o);

/* Remove every temporary file still being written.  Async-signal-safe
 * (unlinkat only): for the handler of a signal that ends the process. */
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

/* n values of `size` bytes (2, 4 or 8), host order, written little-endian. */
int pe_write_le(FILE *fp, const void *data, size_t n, size_t size, struct pe_error *err);

/* The error for a stream whose ferror() is set, or an errno value. */
int pe_write_error(int errnum, struct pe_error *err);

#endif
