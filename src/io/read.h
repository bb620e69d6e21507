/*
 * read.h - reading a table file: the format table (io/read.c) over the
 * readers of io/readers.h, sniffing, and the file and stream wrappers.
 */
#ifndef PE_READ_H
#define PE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"
#include "io/input.h"
#include "io/readers.h"

/* "npy", "safetensors", "csv", "raw" ("auto" for PE_IN_AUTO). */
const char *pe_in_format_name(enum pe_in_format f);

/* The formats read, "npy, safetensors, csv, raw", for help texts. */
const char *pe_in_format_list(void);

/* The format of a buffer by its first bytes: "\x93NUMPY" is npy; a
 * little-endian u64 header size N from 2 to PE_SAFETENSORS_MAX_HEADER
 * followed by '{' (after optional blanks) is safetensors, even when the
 * buffer ends inside that header (the parser then says so); anything else
 * is csv.  Raw has no signature and is never guessed; pe_read_table also
 * takes a *.npy or *.safetensors name (any case) as that format. */
enum pe_in_format pe_in_sniff(const unsigned char *buf, size_t len);

struct pe_read_opts {
	enum pe_in_format format;	/* PE_IN_AUTO: pe_in_sniff */
	const char *tensor;		/* safetensors: this tensor; NULL: the default rule */
	uint64_t rows, cols;		/* raw: the shape (both >= 1) */
	int integers;			/* npy and safetensors: integer dtypes too (npy i1-i8,
					 * u1-u8; I8-I64, U8-U64), each value rounded to
					 * float32 as NumPy's astype does (exact below 2^24) */
};

/* Any of the readers as o says (the sniffed format for PE_IN_AUTO): the
 * entry point of the whole-input fuzz target.  A tensor name with a format
 * other than safetensors, or raw without a shape, is PE_ERR_USAGE. */
int pe_table_parse(const unsigned char *buf, size_t len, const char *name,
		   const struct pe_read_opts *o, struct pe_matrix *out, struct pe_table_info *info,
		   struct pe_error *err);

/* pe_table_parse's checks, then where the table's elements lie (npy,
 * safetensors and raw: every check of the format's parser but the values'
 * own) in *loc: 0; 1 for a format whose rows are not runs of bytes (csv:
 * parse it); -1 on error. */
int pe_table_locate(const unsigned char *buf, size_t len, const char *name,
		    const struct pe_read_opts *o, struct pe_table_loc *loc,
		    struct pe_table_info *info, struct pe_error *err);

/* o, or a copy of it in *named with the format of a file named *.npy or
 * *.safetensors (any case) when o's is PE_IN_AUTO, so a damaged one is
 * reported as such ("bad magic") rather than as csv.  o may be NULL. */
const struct pe_read_opts *pe_read_opts_for_path(const char *path, const struct pe_read_opts *o,
						struct pe_read_opts *named);

/* The tensors of a safetensors or npy buffer, validated as by the parsers
 * (malloc'd array of *n entries; free with pe_tensor_entries_free). */
int pe_table_list(const unsigned char *buf, size_t len, const char *name,
		  struct pe_tensor_entry **list, size_t *n, struct pe_error *err);

/* Open path ("-": stdin; io/input.h), parse it as o says, close.  Inputs
 * larger than max_bytes are refused; "NAME: changed while being read" when
 * the file shrank under the parse. */
int pe_read_table(const char *path, size_t max_bytes, const struct pe_read_opts *o,
		  struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err);

/* pe_input_open for a table as o says (NULL: any format), reading a stream
 * (stdin, a pipe, a FIFO, a size-0 file) no further than such a table can
 * reach: raw float32, exactly its shape's bytes (more is PE_ERR_DATA); npy
 * and safetensors, the length their header gives (more is PE_ERR_DATA for
 * safetensors; NumPy ignores it for npy); text, up to its first NUL byte,
 * which the csv parser then refuses.  So /dev/zero or /proc/self/pagemap
 * stops after its first chunk.  Text without a NUL is read to its end (at
 * most max_bytes).  Close with pe_input_close. */
int pe_table_input_open(struct pe_input *in, const char *path, size_t max_bytes,
			const struct pe_read_opts *o, struct pe_error *err);

/*
 * A table read a block of rows at a time, for what compares tables larger
 * than memory should hold (posenc diff): npy (C order), safetensors and raw
 * files are mapped and their rows decoded when asked for, any rows in any
 * order, and the pages of the rows decoded leave the mapping again (the
 * page cache keeps them), so a pass from the first row to the last, or a
 * sample of rows anywhere, holds a few blocks of the file, not the file.
 * csv and Fortran-order npy are decoded whole when opened (their rows are
 * not where a row-major reader would find them); standard input is read
 * whole.
 *
 * Calling sequence:
 *   pe_table_stream_open(&s, path, max, &o, err)   every check of the
 *       format's parser but the values' own; s.rows, s.cols, s.info
 *   pe_table_stream_rows(&s, r0, n, out, err)       any number of times,
 *       from any threads
 *   pe_table_stream_close(&s)                       in every case
 */
struct pe_table_stream {
	uint64_t rows, cols;
	struct pe_table_info info;
	const char *name;		/* for messages: the path, or "stdin" */
	int whole;			/* decoded at open (csv, Fortran order) */
	/* private */
	struct pe_input in;
	struct pe_matrix m;		/* when whole */
	size_t off;			/* the first element's offset in in.data */
	int elem, big;
};

int pe_table_stream_open(struct pe_table_stream *s, const char *path, size_t max_bytes,
			 const struct pe_read_opts *o, struct pe_error *err);

/* Rows [r0, r0 + n) (within rows) into out, n * cols floats.  An f8 value
 * too large for float32 is PE_ERR_DATA naming its row; a file that shrank
 * meanwhile "NAME: changed while being read" (io/input.h).  Returns 0 or
 * -1. */
int pe_table_stream_rows(const struct pe_table_stream *s, uint64_t r0, size_t n, float *out,
			 struct pe_error *err);

void pe_table_stream_close(struct pe_table_stream *s);

#endif
