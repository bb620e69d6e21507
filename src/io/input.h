/*
 * input.h - the one way posenc gets the bytes of a file it reads (tables,
 * config.json), before any parsing.
 *
 * A regular file is mapped read-only, so a reader touches only the pages it
 * parses: a 500 MB checkpoint costs its header and the one tensor wanted.
 * Standard input ("-"), a pipe, a FIFO or a file of size 0 (/proc and /sys
 * files say they are empty) is read into memory.  Nothing here waits for a
 * writer that is not there or reads without end:
 *   - a directory, a character or block device (/dev/zero, a terminal named
 *     by path) or a socket is refused (PE_ERR_IO, "NAME: is a directory" ...);
 *   - a FIFO is opened without blocking; when it has no writer, posenc waits
 *     PE_INPUT_FIFO_WAIT_MS for one to appear and write, then gives up
 *     (PE_ERR_IO, "NAME: a FIFO with no writer"); one that has a writer is
 *     read to its end, however slowly the writer writes, as cat does;
 *   - more than max_bytes (a file, or what a pipe delivers) is PE_ERR_DATA,
 *     checked before allocating for a file, as it arrives for a pipe;
 *   - a regular file of size 0 is read to at most PE_INPUT_PSEUDO_MAX bytes
 *     (PE_ERR_DATA beyond: /proc/self/pagemap reads as 256 GiB of zeros);
 *   - what a stream may hold can be bounded further by its first bytes
 *     (struct pe_input_rule: an npy header gives the file's length, a text
 *     table ends at its first NUL byte).
 * "-" itself is read as it is, whatever it is (a terminal waits for EOF,
 * as cat does).
 *
 * A mapped file that another process truncates while posenc reads it
 * would raise SIGBUS on the pages past its new end.  While mappings are
 * open (from pe_input_open to pe_input_close; at most PE_INPUT_WATCH_MAX
 * at once, opened and closed on one thread), a SIGBUS handler maps zero
 * pages over such a mapping from the faulting page to its end, so the
 * parse runs on to its end over zeros and pe_input_intact() reports the
 * change afterwards; every other SIGBUS goes to the action in place
 * before.  The parsers themselves stay pure functions of a buffer.
 *
 * Calling sequence: pe_input_open (or pe_input_open_rule); parse in->data;
 * pe_input_intact, and throw away what was parsed if it fails;
 * pe_input_close, in every case.
 */
#ifndef PE_INPUT_H
#define PE_INPUT_H

#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

#define PE_INPUT_FIFO_WAIT_MS 2000
#define PE_INPUT_PSEUDO_MAX ((size_t)64 << 20)	/* a size-0 file: /proc, /sys */
#define PE_INPUT_WATCH_MAX 8

struct pe_input {
	const unsigned char *data;	/* len bytes; not NUL-terminated */
	size_t len;
	const char *name;		/* for messages: the path, or "stdin" for "-" */
	/* private */
	void *map;
	size_t map_len;
	int watch;			/* the SIGBUS watch slot + 1, or 0 */
	unsigned char *buf;
	char *path;
};

/*
 * How far to read a source whose length is not known before its end
 * (stdin, a pipe, a FIFO, a size-0 file), judged from its first bytes.
 * fn is called with the n bytes read so far (n growing) and sets
 * x->most, the most bytes the source may usefully hold (SIZE_MAX: not
 * known yet), and x->over: NULL when reading just stops there (what
 * follows is the parser's business), else the words for an error when the
 * source holds more ("the size of a 2 x 3 float32 table").  fn keeps
 * whatever state it needs in ctx.
 */
struct pe_input_extent {
	size_t most;
	const char *over;
};

struct pe_input_rule {
	void (*fn)(const unsigned char *buf, size_t n, void *ctx, struct pe_input_extent *x);
	void *ctx;
};

/*
 * Make the bytes of path ("-": standard input) available in in->data.
 * Returns 0, or -1 with PE_ERR_IO (cannot open or read, or not a readable
 * kind of file), PE_ERR_DATA (larger than max_bytes, or than rule allows)
 * or PE_ERR_NOMEM.  Messages start with the name ("wpe.npy: ...").  Close
 * with pe_input_close in every case.  rule may be NULL.
 */
int pe_input_open(struct pe_input *in, const char *path, size_t max_bytes,
		  struct pe_error *err);
int pe_input_open_rule(struct pe_input *in, const char *path, size_t max_bytes,
		       const struct pe_input_rule *rule, struct pe_error *err);

/* After parsing in->data: 0, or -1 with PE_ERR_IO "NAME: changed while
 * being read" when the mapped file shrank under the parse (its lost pages
 * read as zeros: whatever was parsed from them is not the file). */
int pe_input_intact(const struct pe_input *in, struct pe_error *err);

void pe_input_close(struct pe_input *in);

/* Was the regular file (dev, ino) opened as an input by this process
 * (since the last pe_input_forget)? */
int pe_input_seen(dev_t dev, ino_t ino);

/* Forget every input seen: for a process that runs one command after
 * another (tests/fuzz/fuzz_cli.c). */
void pe_input_forget(void);

#endif
