/*
 * read_priv.h - what the readers (io/read_*.c) share, and their tests use;
 * not part of io/read.h's contract.
 */
#ifndef PE_READ_PRIV_H
#define PE_READ_PRIV_H

#include "io/read.h"

/* Element encodings of the float tables; each read with explicit byte
 * assembly, so neither the host's byte order nor alignment matters. */
enum pe_elem { PE_ELEM_F16, PE_ELEM_BF16, PE_ELEM_F32, PE_ELEM_F64 };

size_t pe_elem_size(enum pe_elem e);

/* IEEE binary16 to float, exactly (subnormals, infinities, NaN payloads). */
float pe_half_to_float(uint16_t h);

/* bfloat16 to float: the upper half of a float's bits, exactly. */
float pe_bf16_to_float(uint16_t b);

/* n values of kind e from src (big-endian if big, else little-endian) to
 * dst[0], dst[stride], ...; binary64 is rounded to nearest (a C cast).
 * Returns how many finite binary64 values were too large for float32. */
size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big);

/* Is this host big-endian?  (For npy's '=' byte order.) */
int pe_host_big_endian(void);

/* JSON's whitespace (RFC 8259): space, tab, LF, CR. */
static inline int pe_json_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

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

/* The length of the valid UTF-8 sequence (2 to 4 bytes: shortest form,
 * no surrogates, at most U+10FFFF) at s[0, n), or 0 if there is none. */
size_t pe_utf8_seq(const unsigned char *s, size_t n);

/* Untrusted bytes quoted for a message: at most max bytes of s[0, n),
 * bytes outside printable ASCII as \xNN (valid UTF-8 kept when utf8),
 * "..." when cut. */
void pe_quote(char *buf, size_t size, const unsigned char *s, size_t n, size_t max, int utf8);

struct cJSON;

/* A JSON value as text for a message: compact, quoted as pe_quote does,
 * at most 40 bytes and "...". */
void pe_json_text(const struct cJSON *v, char *buf, size_t size);

/* Where a table's elements lie in a buffer: rows x cols elements of elem
 * from byte off, row-major (column-major when fortran), big-endian when
 * big.  What the locate functions find after every check its parser makes
 * but the values' own (an f8 too large for float32 is found converting). */
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

/* pe_table_parse's checks of o against the buffer (empty, raw without a
 * shape or with a header, a tensor name for another format): the format
 * to parse in *f (info's format set).  Returns 0 or -1. */
int pe_table_check(const unsigned char *buf, size_t len, const char *name,
		   const struct pe_read_opts *o, enum pe_in_format *f, struct pe_table_info *info,
		   struct pe_error *err);

/* o, or a copy of it in *named with the format of a file named *.npy or
 * *.safetensors (any case) when o's is PE_IN_AUTO: a damaged one is
 * reported as such ("bad magic") rather than as csv.  o may be NULL. */
const struct pe_read_opts *pe_read_opts_for_path(const char *path, const struct pe_read_opts *o,
						struct pe_read_opts *named);

/* pe_table_list for a buffer already known to be safetensors, or npy. */
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

#endif
