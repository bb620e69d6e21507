/*
 * The dispatcher over the readers and what they share: element conversions
 * by explicit byte assembly (the buffer may be a mapping at any alignment,
 * of a file from a host of either byte order), the shape-to-table rule and
 * the quoting of untrusted bytes in messages.
 */
#include "io/read_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

#include "io/input.h"
#include "io/le.h"

const char *pe_in_format_name(enum pe_in_format f)
{
	switch (f) {
	case PE_IN_NPY:
		return "npy";
	case PE_IN_SAFETENSORS:
		return "safetensors";
	case PE_IN_CSV:
		return "csv";
	case PE_IN_RAW:
		return "raw";
	case PE_IN_AUTO:
		break;
	}
	return "auto";
}

enum pe_in_format pe_in_sniff(const unsigned char *buf, size_t len)
{
	uint64_t n;
	size_t i;

	if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)
		return PE_IN_NPY;
	/* a plausible header length (text never has zero bytes in it), then
	 * '{': safetensors, even when the file is cut short of its header (its
	 * parser then says so) */
	if (len >= 9) {
		n = pe_get_u64le(buf);
		if (n >= 2 && n <= PE_SAFETENSORS_MAX_HEADER) {
			for (i = 8; i < len && i < 8 + (size_t)n; i++) {
				if (buf[i] == '{')
					return PE_IN_SAFETENSORS;
				if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r')
					break;
			}
		}
	}
	return PE_IN_CSV;
}

size_t pe_elem_size(enum pe_elem e)
{
	switch (e) {
	case PE_ELEM_F16:
	case PE_ELEM_BF16:
		return 2;
	case PE_ELEM_F32:
		return 4;
	case PE_ELEM_F64:
	case PE_ELEM_I64:
	case PE_ELEM_U64:
		return 8;
	case PE_ELEM_I8:
	case PE_ELEM_U8:
		return 1;
	case PE_ELEM_I16:
	case PE_ELEM_U16:
		return 2;
	case PE_ELEM_I32:
	case PE_ELEM_U32:
		return 4;
	}
	return 0;
}

/* binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.  Every value
 * is a float exactly: move the fields into binary32's (bias 127), and
 * normalise a subnormal, m * 2^-24, by shifting its leading 1 into the
 * implicit bit. */
float pe_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
	uint32_t shift = 0;
	float f;

	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp != 0) {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	} else if (man == 0) {
		bits = sign;
	} else {
		while (!(man & 0x400u)) {
			man <<= 1;
			shift++;
		}
		/* m << shift in [2^10, 2^11): m * 2^-24 = 1.f * 2^(-14 - shift) */
		bits = sign | ((113 - shift) << 23) | ((man & 0x3ffu) << 13);
	}
	memcpy(&f, &bits, 4);
	return f;
}

float pe_bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

static uint16_t get_u16be(const unsigned char *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get_u32be(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
	       (uint32_t)p[3];
}

static uint64_t get_u64be(const unsigned char *p)
{
	return ((uint64_t)get_u32be(p) << 32) | get_u32be(p + 4);
}

/* one integer element, rounded to nearest float */
static float int_to_float(const unsigned char *p, enum pe_elem e, int big)
{
	size_t k, sz = pe_elem_size(e);
	uint64_t u = 0;
	int neg;

	for (k = 0; k < sz; k++)
		u |= (uint64_t)p[big ? sz - 1 - k : k] << (8 * k);
	neg = e <= PE_ELEM_I64 && e >= PE_ELEM_I8 && (u >> (8 * sz - 1)) & 1;
	if (neg)	/* two's complement of sz bytes: minus its complement */
		return -(float)((~u & (sz == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sz)) - 1)) + 1);
	return (float)u;
}

size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big)
{
	size_t i, over = 0;
	uint32_t u32;
	uint64_t u64;
	double d;

	switch (e) {
	case PE_ELEM_F16:
		for (i = 0; i < n; i++, src += 2)
			dst[i * stride] = pe_half_to_float(big ? get_u16be(src) : pe_get_u16le(src));
		break;
	case PE_ELEM_BF16:
		for (i = 0; i < n; i++, src += 2)
			dst[i * stride] = pe_bf16_to_float(big ? get_u16be(src) : pe_get_u16le(src));
		break;
	case PE_ELEM_F32:
		for (i = 0; i < n; i++, src += 4) {
			u32 = big ? get_u32be(src) : pe_get_u32le(src);
			memcpy(&dst[i * stride], &u32, 4);
		}
		break;
	case PE_ELEM_F64:
		for (i = 0; i < n; i++, src += 8) {
			u64 = big ? get_u64be(src) : pe_get_u64le(src);
			memcpy(&d, &u64, 8);
			dst[i * stride] = (float)d;
			over += isfinite(d) && isinf(dst[i * stride]);
		}
		break;
	default:
		for (i = 0; i < n; i++, src += pe_elem_size(e))
			dst[i * stride] = int_to_float(src, e, big);
		break;
	}
	return over;
}

int pe_host_big_endian(void)
{
	uint16_t one = 1;
	unsigned char first;

	memcpy(&first, &one, 1);
	return first == 0;
}

void pe_shape_text(char *buf, size_t n, const uint64_t *shape, int ndim, int python)
{
	size_t at = 0;
	int i, w;

	if (n < 8) {
		if (n)
			buf[0] = '\0';
		return;
	}
	buf[at++] = python ? '(' : '[';
	for (i = 0; i < ndim; i++) {
		w = snprintf(buf + at, n - at, "%s%llu", i ? (python ? ", " : ",") : "",
			     (unsigned long long)shape[i]);
		if (w < 0 || (size_t)w >= n - at - 5) {
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		at += (size_t)w;
	}
	if (python && ndim == 1)
		buf[at++] = ',';
	buf[at++] = python ? ')' : ']';
	buf[at] = '\0';
}

int pe_shape_table(const uint64_t *shape, int ndim, int python, const char *name,
		   const char *what, uint64_t *rows, uint64_t *cols, struct pe_error *err)
{
	char text[160];
	int k = 0, i;

	pe_shape_text(text, sizeof text, shape, ndim, python);
	while (ndim - k > 2 && shape[k] == 1)
		k++;
	if (ndim - k > 2)
		return pe_fail(err, PE_ERR_DATA, "%s: %sshape %s has %d dimensions%s; a table has 1 or 2",
			       name, what, text, ndim - k, k ? " after its leading 1s" : "");
	for (i = 0; i < ndim; i++)
		if (shape[i] == 0)
			return pe_fail(err, PE_ERR_DATA, "%s: %sshape %s has no values", name, what,
				       text);
	*rows = ndim - k >= 1 ? shape[k] : 1;
	*cols = ndim - k == 2 ? shape[k + 1] : 1;
	return 0;
}

int pe_read_alloc(struct pe_matrix *m, uint64_t rows, uint64_t cols, const char *name,
		  struct pe_error *err)
{
	struct pe_error e = { PE_OK, "" };

	if (pe_matrix_alloc(m, rows, cols, &e) == 0)
		return 0;
	return pe_fail(err, e.code, "%s: %s", name, e.msg);
}

/* length of the valid UTF-8 sequence at s[0, n), 0 if none */
size_t pe_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	c = s[0] & (0x7fu >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

void pe_quote(char *buf, size_t size, const unsigned char *s, size_t n, size_t max, int utf8)
{
	size_t at = 0, i = 0, k;

	if (max + 4 > size)
		max = size > 4 ? size - 4 : 0;
	while (i < n) {
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			if (at + 1 > max)
				break;
			buf[at++] = (char)s[i++];
		} else if (utf8 && (k = pe_utf8_seq(s + i, n - i)) > 0) {
			if (at + k > max)
				break;
			memcpy(buf + at, s + i, k);
			at += k;
			i += k;
		} else {
			if (at + 4 > max)
				break;
			snprintf(buf + at, 5, "\\x%02x", s[i++]);
			at += 4;
		}
	}
	if (i < n) {
		memcpy(buf + at, "...", 3);
		at += 3;
	}
	buf[at] = '\0';
}

void pe_json_text(const struct cJSON *v, char *buf, size_t size)
{
	char *s = cJSON_PrintUnformatted(v);

	if (!s) {
		snprintf(buf, size, "?");
		return;
	}
	pe_quote(buf, size, (const unsigned char *)s, strlen(s), 40, 1);
	free(s);
}

int pe_table_parse(const unsigned char *buf, size_t len, const char *name,
		   const struct pe_read_opts *o, struct pe_matrix *out, struct pe_table_info *info,
		   struct pe_error *err)
{
	static const struct pe_read_opts none = { PE_IN_AUTO, NULL, 0, 0, 0 };
	enum pe_in_format f;

	if (!o)
		o = &none;
	f = o->format == PE_IN_AUTO ? pe_in_sniff(buf, len) : o->format;
	memset(out, 0, sizeof *out);
	if (info) {
		memset(info, 0, sizeof *info);
		info->format = f;
	}
	if (len == 0)
		return pe_fail(err, PE_ERR_DATA, "%s: empty", name);
	if (f == PE_IN_RAW && (o->rows == 0 || o->cols == 0))
		return pe_fail(err, PE_ERR_USAGE, "%s: raw input needs a shape (rows x cols)", name);
	if (f == PE_IN_RAW && pe_in_sniff(buf, len) != PE_IN_CSV)
		return pe_fail(err, PE_ERR_USAGE,
			       "%s: this is an %s file, not raw float32: its shape is in its header",
			       name, pe_in_format_name(pe_in_sniff(buf, len)));
	if (o->tensor && f != PE_IN_SAFETENSORS)
		return pe_fail(err, PE_ERR_USAGE,
			       "%s: a tensor name was given, but the input is %s, not safetensors",
			       name, pe_in_format_name(f));
	switch (f) {
	case PE_IN_NPY:
		return pe_npy_parse_as(buf, len, name, o->integers, out, info, err);
	case PE_IN_SAFETENSORS:
		return pe_safetensors_parse_as(buf, len, name, o->tensor, o->integers, out, info, err);
	case PE_IN_RAW:
		return pe_raw_parse(buf, len, name, o->rows, o->cols, out, info, err);
	case PE_IN_CSV:
	case PE_IN_AUTO:
		break;
	}
	return pe_csv_parse(buf, len, name, out, info, err);
}

int pe_table_list(const unsigned char *buf, size_t len, const char *name,
		  struct pe_tensor_entry **list, size_t *n, struct pe_error *err)
{
	*list = NULL;
	*n = 0;
	switch (pe_in_sniff(buf, len)) {
	case PE_IN_NPY:
		return pe_npy_list(buf, len, name, list, n, err);
	case PE_IN_SAFETENSORS:
		return pe_safetensors_list(buf, len, name, list, n, err);
	default:
		break;
	}
	return pe_fail(err, PE_ERR_DATA, "%s: not an npy or safetensors file, no tensors to list",
		       name);
}

void pe_tensor_entries_free(struct pe_tensor_entry *list, size_t n)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}

/* A file named *.npy or *.safetensors (any case) is parsed as that, so a
 * damaged one is reported as such ("bad magic") rather than as csv. */
static const struct pe_read_opts *by_extension(const char *path, const struct pe_read_opts *o,
					       struct pe_read_opts *named)
{
	static const struct {
		const char *ext;
		enum pe_in_format f;
	} exts[] = { { ".npy", PE_IN_NPY }, { ".safetensors", PE_IN_SAFETENSORS } };
	size_t i, n = strlen(path), e;

	if (o && o->format != PE_IN_AUTO)
		return o;
	for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		e = strlen(exts[i].ext);
		if (n > e && strcasecmp(path + n - e, exts[i].ext) == 0) {
			if (o)
				*named = *o;
			else
				memset(named, 0, sizeof *named);
			named->format = exts[i].f;
			return named;
		}
	}
	return o;
}

int pe_read_table(const char *path, size_t max_bytes, const struct pe_read_opts *o,
		  struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err)
{
	struct pe_read_opts named;
	struct pe_input in;
	int rc;

	memset(out, 0, sizeof *out);
	if (info)
		memset(info, 0, sizeof *info);
	rc = pe_input_open(&in, path, max_bytes, err);
	if (rc == 0)
		rc = pe_table_parse(in.data, in.len, in.name, by_extension(path, o, &named), out, info,
				    err);
	pe_input_close(&in);
	return rc;
}
