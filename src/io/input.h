/*
 * input.h - the one way posenc gets the bytes of a file it reads (tables,
 * config.json), before any parsing.
 *
 * A regular file is mapped read-only, so a reader touches only the pages it
 * parses: a 500 MB checkpoint costs its header and the one tensor wanted.
 * Standard input ("-"), a pipe or a FIFO is read whole into memory, at most
 * max_bytes.  Nothing here waits for a writer that is not there or reads
 * without end:
 *   - a directory, a character or block device (/dev/zero, a terminal named
 *     by path) or a socket is refused (PE_ERR_IO, "NAME: is a directory" ...);
 *   - a FIFO is opened without blocking; when it has no writer, posenc waits
 *     PE_INPUT_FIFO_WAIT_MS for one to appear and write, then gives up
 *     (PE_ERR_IO, "NAME: a FIFO with no writer"); one that has a writer is
 *     read to its end, however slowly the writer writes, as cat does;
 *   - more than max_bytes (a file, or what a pipe delivers) is PE_ERR_DATA,
 *     checked before allocating for a file, as it arrives for a pipe.
 * "-" itself is read as it is, whatever it is (a terminal waits for EOF,
 * as cat does).
 */
#ifndef PE_INPUT_H
#define PE_INPUT_H

#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

#define PE_INPUT_FIFO_WAIT_MS 2000

struct pe_input {
	const unsigned char *data;	/* len bytes; not NUL-terminated */
	size_t len;
	const char *name;		/* for messages: the path, or "stdin" for "-" */
	/* private */
	void *map;
	size_t map_len;
	unsigned char *buf;
	char *path;
};

/*
 * Make the bytes of path ("-": standard input) available in in->data.
 * Returns 0, or -1 with PE_ERR_IO (cannot open or read, or not a readable
 * kind of file), PE_ERR_DATA (larger than max_bytes) or PE_ERR_NOMEM.
 * Messages start with the name ("wpe.npy: ...").  Close with
 * pe_input_close in every case.
 */
int pe_input_open(struct pe_input *in, const char *path, size_t max_bytes,
		  struct pe_error *err);

void pe_input_close(struct pe_input *in);

/* Was the regular file (dev, ino) opened as an input by this process
 * (since the last pe_input_forget)? */
int pe_input_seen(dev_t dev, ino_t ino);

/* Forget every input seen: for a process that runs one command after
 * another (tests/fuzz/fuzz_cli.c). */
void pe_input_forget(void);

#endif
