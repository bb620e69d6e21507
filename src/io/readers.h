/*
 * readers.h - the table readers, one per format (io/read_<format>.c), each
 * a pure function of a byte buffer (so a fuzzer can drive it in-process),
 * and what they share (io/read_common.c).  io/read.h is the front door:
 * the format table, sniffing, the file and stream wrappers.
 *
 *   npy          versions 1.0, 2.0, 3.0; float16, float32, float64 in
 *                every spelling np.load reads ('<f4', '>f8', '|f4', 'f4',
 *                '<f', 'e', 'float32', 'double', 'f4,' ...) and in the
 *                byte order it reads them ('|', '=' and none: the host's);
 *                C or Fortran order; any header padding; 0-D is 1 x 1,
 *                1-D (N,) is N x 1
 *   safetensors  F32, F16, BF16, F64; validated as the reference reader
 *                does (header size, UTF-8 JSON, offsets contiguous from 0
 *                without gaps or overlap, sizes = shape x dtype, the buffer
 *                entirely indexed); the tensor by name, or the default rule
 *   csv          numbers separated by commas or by runs of blanks, as
 *                numpy.loadtxt reads them; '#' starts a comment, empty
 *                lines skipped; a first line with no number in it is a
 *                header (reported in info), one with any number is data;
 *                every row the same number of fields; values parsed as
 *                strtod (any length), then rounded to float32
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
#ifndef PE_READERS_H
#define PE_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/matrix.h"
#include "io/bytes.h"
#include "io/elem.h"

#define PE_READ_MAX_NDIM 32	/* npy and safetensors shapes beyond this are refused */
#define PE_SAFETENSORS_MAX_HEADER ((uint64_t)100000000)	/* the reference reader's limit */
#define PE_NPY_MAX_HEADER 65536

enum pe_in_format { PE_IN_AUTO, PE_IN_NPY, PE_IN_SAFETENSORS, PE_IN_CSV, PE_IN_RAW };

/* What was read, for messages and provenance. */
struct pe_table_info {
	enum pe_in_format format;
	char dtype[16];			/* as the file spells it: "<f4", "BF16", "text" */
	char tensor[256];		/* safetensors: the tensor read (truncated); else "" */
	int ndim;			/* the shape in the file, before dropping 1s */
	uint64_t shape[PE_READ_MAX_NDIM];
	/* csv: the line skipped as a header (1-based; 0: none) and its text,
	 * quoted as messages quote (at most 60 bytes, then "...") */
	uint64_t header_line;
	char header[72];
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
/* pe_npy_parse and pe_safetensors_parse, also taking integer dtypes when
 * ints (pe_read_opts.integers). */
int pe_npy_parse_as(const unsigned char *buf, size_t len, const char *name, int ints,
		    struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err);
int pe_safetensors_parse_as(const unsigned char *buf, size_t len, const char *name,
			    const char *tensor, int ints, struct pe_matrix *out,
			    struct pe_table_info *info, struct pe_error *err);
int pe_csv_parse(const unsigned char *buf, size_t len, const char *name, struct pe_matrix *out,
		 struct pe_table_info *info, struct pe_error *err);
int pe_raw_parse(const unsigned char *buf, size_t len, const char *name, uint64_t rows,
		 uint64_t cols, struct pe_matrix *out, struct pe_table_info *info,
		 struct pe_error *err);

/* Where a table's elements lie in a buffer: rows x cols elements of elem
 * from byte off, row-major (column-major when fortran), big-endian when
 * big.  What the locate functions find after every check its parser makes
 * but the values' own (an f8 too large for float32 is found converting);
 * each parser is its locate function and a conversion of what it found. */
struct pe_table_loc {
	size_t off;
	uint64_t rows, cols;
	enum pe_elem elem;
	int big, fortran;
};

int pe_npy_locate(const unsigned char *buf, size_t len, const char *name,
		  struct pe_table_loc *loc, struct pe_table_info *info, struct pe_error *err);
int pe_safetensors_locate(const unsigned char *buf, size_t len, const char *name,
			  const char *tensor, struct pe_table_loc *loc,
			  struct pe_table_info *info, struct pe_error *err);
int pe_raw_locate(size_t len, const char *name, uint64_t rows, uint64_t cols,
		  struct pe_table_loc *loc, struct pe_table_info *info, struct pe_error *err);

/* The tensors of a buffer already known to be safetensors, or npy (io/read.h's
 * pe_table_list). */
int pe_safetensors_list(const unsigned char *buf, size_t len, const char *name,
			struct pe_tensor_entry **list, size_t *n, struct pe_error *err);
int pe_npy_list(const unsigned char *buf, size_t len, const char *name,
		struct pe_tensor_entry **list, size_t *n, struct pe_error *err);

/*
 * For a stream read as it arrives (io/input.h's rules): how many bytes a
 * file with the header at the start of buf[0, len) holds, the header
 * included.  1 and *total when the header is all there; 0 when more bytes
 * are needed to tell; -1 when the header is broken (the parser says how).
 * npy: header and data (NumPy ignores bytes after them); safetensors:
 * 8 + header + every tensor's bytes, as its offsets give them.
 */
int pe_npy_extent(const unsigned char *buf, size_t len, uint64_t *total);
int pe_safetensors_extent(const unsigned char *buf, size_t len, uint64_t *total);

/* Free a listing. */
void pe_tensor_entries_free(struct pe_tensor_entry *list, size_t n);

/* A shape as text: "(3, 4)", "(5,)", "()" when python, else "[3,4]". */
void pe_shape_text(char *buf, size_t n, const uint64_t *shape, int ndim, int python);

/*
 * The table a shape stands for: leading 1s dropped while more than two
 * dimensions are left; 0-D is 1 x 1, 1-D (N) is N x 1.  More than two
 * dimensions left, or a 0 anywhere, is PE_ERR_DATA naming name and what
 * ("" or "tensor 'x' ") with the shape as pe_shape_text writes it.
 */
int pe_shape_table(const uint64_t *shape, int ndim, int python, const char *name,
		   const char *what, uint64_t *rows, uint64_t *cols, struct pe_error *err);

/* pe_matrix_alloc with name in front of its message. */
int pe_read_alloc(struct pe_matrix *m, uint64_t rows, uint64_t cols, const char *name,
		  struct pe_error *err);

#endif
