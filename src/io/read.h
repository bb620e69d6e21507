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

/* The tensors of a safetensors or npy buffer, validated as by the parsers
 * (malloc'd array of *n entries; free with pe_tensor_entries_free). */
int pe_table_list(const unsigned char *buf, size_t len, const char *name,
		  struct pe_tensor_entry **list, size_t *n, struct pe_error *err);

/* Open path ("-": stdin; io/input.h), parse it as o says, close.  Inputs
 * larger than max_bytes are refused; "NAME: changed while being read" when
 * the file shrank under the parse. */
int pe_read_table(const char *path, size_t max_bytes, const struct pe_read_opts *o,
		  struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err);

struct pe_input;

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

#endif
