/*
 * read.h - the table readers, one per format, each a pure function of a
 * byte buffer (so a fuzzer can drive it in-process) with one file wrapper
 * for them all.
 *
 *   npy          versions 1.0, 2.0, 3.0; dtypes f2, f4, f8 in either byte
 *                order ('<', '>', '='); C or Fortran order; any header
 *                padding; 0-D is 1 x 1, 1-D (N,) is N x 1
 *   safetensors  F32, F16, BF16, F64; validated as the reference reader
 *                does (header size, UTF-8 JSON, offsets contiguous from 0
 *                without gaps or overlap, sizes = shape x dtype, the buffer
 *                entirely indexed); the tensor by name, or the default rule
 *   csv          numbers separated by commas or by runs of blanks, as
 *                numpy.loadtxt reads them; '#' starts a comment, empty
 *                lines skipped; a first line mostly (at least half) not
 *                numbers is a header; every row the same number of fields;
 *                values parsed as strtod, then rounded to float32
 *   raw          little-endian float32, row-major, the shape given
 *
 * Every table becomes a float32 struct pe_matrix: f2 and bf16 exactly, f8
 * rounded to nearest; integer dtypes only when pe_read_opts.integers asks
 * (position ids), rounded to nearest beyond 2^24.  Leading dimensions of size 1 are dropped ([1, 197,
 * 768], timm's pos_embed, is 197 x 768); what is left must be 1-D or 2-D.
 *
 * The bytes are untrusted: every length is bounded before anything is
 * allocated, every size product checked for overflow, every offset checked
 * against len; values are read with memcpy, never through a cast pointer.
 * Pickled object arrays, structured and unknown dtypes are refused.  Errors
 * are PE_ERR_DATA with one line that starts with the name given ("wpe.npy:
 * header length 70000 runs past the end of the file (128 bytes)"), and use
 * the file's words, never option names; PE_ERR_NOMEM when memory runs out.
 */
#ifndef PE_READ_H
#define PE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"

#define PE_READ_MAX_NDIM 32	/* npy and safetensors shapes beyond this are refused */
#define PE_SAFETENSORS_MAX_HEADER ((uint64_t)100000000)	/* the reference reader's limit */
#define PE_NPY_MAX_HEADER 65536

enum pe_in_format { PE_IN_AUTO, PE_IN_NPY, PE_IN_SAFETENSORS, PE_IN_CSV, PE_IN_RAW };

/* "npy", "safetensors", "csv", "raw" ("auto" for PE_IN_AUTO). */
const char *pe_in_format_name(enum pe_in_format f);

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

/* What was read, for messages and provenance. */
struct pe_table_info {
	enum pe_in_format format;
	char dtype[16];			/* as the file spells it: "<f4", "BF16", "text" */
	char tensor[256];		/* safetensors: the tensor read (truncated); else "" */
	int ndim;			/* the shape in the file, before dropping 1s */
	uint64_t shape[PE_READ_MAX_NDIM];
};

/* One tensor of a safetensors file (or the array of an npy file). */
struct pe_tensor_entry {
	char *name;			/* malloc'd; "" for npy */
	char dtype[16];
	int ndim;
	uint64_t shape[PE_READ_MAX_NDIM];
};

/*
 * The pure parsers.  buf holds len bytes (need not be NUL-terminated);
 * name is used in messages.  On success *out is a new matrix (free it with
 * pe_matrix_free); on failure it is empty.  info may be NULL.
 *
 * safetensors: tensor NULL picks the only tensor, else the one tensor whose
 * name ends in "wpe.weight", "position_embeddings.weight",
 * "embed_positions.weight" or "pos_embed" (the whole name, or after a '.':
 * MAE's pos_embed, not its decoder_pos_embed); a name that is absent, or a
 * default rule that finds none or several, is an error whose line lists
 * the tensors with dtype and shape ("gpt2.safetensors: no tensor 'wpe';
 * it has wte.weight F32 [50257,768], wpe.weight F32 [1024,768], ...":
 * the first 16, as many as the message holds, then "and N more").
 */
int pe_npy_parse(const unsigned char *buf, size_t len, const char *name, struct pe_matrix *out,
		 struct pe_table_info *info, struct pe_error *err);
int pe_safetensors_parse(const unsigned char *buf, size_t len, const char *name,
			 const char *tensor, struct pe_matrix *out, struct pe_table_info *info,
			 struct pe_error *err);
int pe_csv_parse(const unsigned char *buf, size_t len, const char *name, struct pe_matrix *out,
		 struct pe_table_info *info, struct pe_error *err);
int pe_raw_parse(const unsigned char *buf, size_t len, const char *name, uint64_t rows,
		 uint64_t cols, struct pe_matrix *out, struct pe_table_info *info,
		 struct pe_error *err);

/* Any of the above as o says (the sniffed format for PE_IN_AUTO): the
 * entry point of the whole-input fuzz target.  A tensor name with a format
 * other than safetensors, or raw without a shape, is PE_ERR_USAGE. */
int pe_table_parse(const unsigned char *buf, size_t len, const char *name,
		   const struct pe_read_opts *o, struct pe_matrix *out, struct pe_table_info *info,
		   struct pe_error *err);

/* The tensors of a safetensors or npy buffer, validated as by the parsers
 * (malloc'd array of *n entries; free with pe_tensor_entries_free). */
int pe_table_list(const unsigned char *buf, size_t len, const char *name,
		  struct pe_tensor_entry **list, size_t *n, struct pe_error *err);
void pe_tensor_entries_free(struct pe_tensor_entry *list, size_t n);

/* Open path ("-": stdin; io/input.h), parse it as o says, close.  Inputs
 * larger than max_bytes are refused. */
int pe_read_table(const char *path, size_t max_bytes, const struct pe_read_opts *o,
		  struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err);

#endif
