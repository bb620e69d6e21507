/*
 * read_priv.h - what the readers (io/read_*.c) share, and their tests use;
 * not part of io/read.h's contract.
 */
#ifndef PE_READ_PRIV_H
#define PE_READ_PRIV_H

#include "io/read.h"

/* Element encodings of the float tables, and the integers read when
 * pe_read_opts.integers asks; each read with explicit byte assembly, so
 * neither the host's byte order nor alignment matters. */
enum pe_elem {
	PE_ELEM_F16, PE_ELEM_BF16, PE_ELEM_F32, PE_ELEM_F64,
	PE_ELEM_I8, PE_ELEM_I16, PE_ELEM_I32, PE_ELEM_I64,
	PE_ELEM_U8, PE_ELEM_U16, PE_ELEM_U32, PE_ELEM_U64
};

size_t pe_elem_size(enum pe_elem e);

/* IEEE binary16 to float, exactly (subnormals, infinities, NaN payloads). */
float pe_half_to_float(uint16_t h);

/* bfloat16 to float: the upper half of a float's bits, exactly. */
float pe_bf16_to_float(uint16_t b);

/* n values of kind e from src (big-endian if big, else little-endian) to
 * dst[0], dst[stride], ...; binary64 and integers beyond 2^24 are rounded
 * to nearest (a C cast, as NumPy's astype).
 * Returns how many finite binary64 values were too large for float32. */
size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big);

/* pe_npy_parse and pe_safetensors_parse, also taking integer dtypes when
 * ints (pe_read_opts.integers). */
int pe_npy_parse_as(const unsigned char *buf, size_t len, const char *name, int ints,
		    struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err);
int pe_safetensors_parse_as(const unsigned char *buf, size_t len, const char *name,
			    const char *tensor, int ints, struct pe_matrix *out,
			    struct pe_table_info *info, struct pe_error *err);

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

/* pe_table_list for a buffer already known to be safetensors, or npy. */
int pe_safetensors_list(const unsigned char *buf, size_t len, const char *name,
			struct pe_tensor_entry **list, size_t *n, struct pe_error *err);
int pe_npy_list(const unsigned char *buf, size_t len, const char *name,
		struct pe_tensor_entry **list, size_t *n, struct pe_error *err);

#endif
