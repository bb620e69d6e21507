/*
 * npy (numpy/lib/_format_impl.py): "\x93NUMPY", major, minor, a header
 * length (u16 little-endian for 1.0, u32 for 2.0 and 3.0), then that many
 * bytes of a Python dict literal ending in '\n', then the data.
 *
 * NumPy reads the dict with ast.literal_eval; here a tiny grammar takes its
 * place, the one NumPy and every other writer produce:
 *   dict  = '{' [item (',' item)* [',']] '}'
 *   item  = str ':' (str | 'True' | 'False' | tuple | list)
 *   tuple = '(' [int (',' int)* [',']] ')'    one int needs its comma: (5,)
 * str in ' or " without escapes, int a non-negative decimal without leading
 * zeros (with Python 2's L suffix in 1.0 and 2.0 files, which NumPy's own
 * reader filters out too), blanks anywhere between tokens.  A list is only
 * seen far enough to refuse it (a structured dtype).  The keys must be
 * exactly descr, fortran_order and shape, as NumPy requires.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "io/le.h"
#include "io/readers.h"

struct npy {
	size_t data_off;
	char descr[16];		/* quoted, cut to 11 bytes + "..." */
	unsigned char raw[24];	/* as written, rawn bytes (0 when longer) */
	size_t rawn;
	int structured;		/* descr is a list */
	int fortran;
	int ndim;
	uint64_t shape[PE_READ_MAX_NDIM];
};

struct lex {
	const unsigned char *s;	/* the header text, without its final '\n' */
	size_t n, i;
	size_t base;		/* file offset of s[0], for messages */
	int version;
	const char *name;
	struct pe_error *err;
};

static void skip_blanks(struct lex *l)
{
	while (l->i < l->n && (l->s[l->i] == ' ' || l->s[l->i] == '\t'))
		l->i++;
}

/* the token at l->i quoted for a message */
static void token(const struct lex *l, char *buf, size_t size)
{
	size_t j = l->i;

	while (j < l->n && j - l->i < 40 && !strchr(",:)}] \t", l->s[j]))
		j++;
	if (j == l->i && j < l->n)
		j++;
	pe_quote(buf, size, l->s + l->i, j - l->i, 24, 0);
}

static int syntax(struct lex *l, const char *what)
{
	char tok[64];

	if (l->i >= l->n)
		return pe_fail(l->err, PE_ERR_DATA,
			       "%s: npy header: expected %s at byte %zu, found the end of the header",
			       l->name, what, l->base + l->i);
	token(l, tok, sizeof tok);
	return pe_fail(l->err, PE_ERR_DATA, "%s: npy header: expected %s at byte %zu, found '%s'",
		       l->name, what, l->base + l->i, tok);
}

static int bad_value(struct lex *l, const char *key, const char *want)
{
	char tok[64];

	token(l, tok, sizeof tok);
	return pe_fail(l->err, PE_ERR_DATA, "%s: npy header: %s must be %s, got '%s'", l->name,
		       key, want, tok);
}

static int string(struct lex *l, const unsigned char **s, size_t *n)
{
	unsigned char q;
	size_t start;

	if (l->i >= l->n || (l->s[l->i] != '\'' && l->s[l->i] != '"'))
		return syntax(l, "a quoted string");
	q = l->s[l->i++];
	start = l->i;
	while (l->i < l->n && l->s[l->i] != q) {
		if (l->s[l->i] == '\\')
			return pe_fail(l->err, PE_ERR_DATA,
				       "%s: npy header: a backslash escape at byte %zu is not supported",
				       l->name, l->base + l->i);
		l->i++;
	}
	if (l->i >= l->n)
		return pe_fail(l->err, PE_ERR_DATA,
			       "%s: npy header: the string at byte %zu is not closed", l->name,
			       l->base + start - 1);
	*s = l->s + start;
	*n = l->i - start;
	l->i++;
	return 0;
}

static int word(struct lex *l, const char *w)
{
	size_t k = strlen(w);
	unsigned char next;

	if (l->n - l->i < k || memcmp(l->s + l->i, w, k) != 0)
		return 0;
	next = l->i + k < l->n ? l->s[l->i + k] : ' ';
	if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
	    (next >= '0' && next <= '9') || next == '_')
		return 0;
	l->i += k;
	return 1;
}

static int dim(struct lex *l, uint64_t *out)
{
	size_t start = l->i;
	uint64_t v = 0;
	char tok[64];

	if (l->i < l->n && l->s[l->i] == '-')
		return bad_value(l, "shape", "a tuple of non-negative integers");
	if (l->i >= l->n || l->s[l->i] < '0' || l->s[l->i] > '9')
		return syntax(l, "an integer or ')'");
	while (l->i < l->n && l->s[l->i] >= '0' && l->s[l->i] <= '9')
		l->i++;
	if (pe_parse_digits((const char *)l->s + start, l->i - start, &v) != 0) {
		l->i = start;
		token(l, tok, sizeof tok);
		return pe_fail(l->err, PE_ERR_DATA, "%s: npy header: shape dimension '%s' is too large",
			       l->name, tok);
	}
	if (l->s[start] == '0' && l->i - start > 1) {
		l->i = start;
		return bad_value(l, "shape", "a tuple of decimal integers");
	}
	if (l->version < 3 && l->i < l->n && (l->s[l->i] == 'L' || l->s[l->i] == 'l'))
		l->i++;
	*out = v;
	return 0;
}

static int tuple(struct lex *l, struct npy *h)
{
	size_t open = l->i;
	int comma = 0;

	if (l->i >= l->n || l->s[l->i] != '(')
		return bad_value(l, "shape", "a tuple of integers");
	l->i++;
	skip_blanks(l);
	h->ndim = 0;
	if (l->i < l->n && l->s[l->i] == ')') {
		l->i++;
		return 0;
	}
	for (;;) {
		if (h->ndim == PE_READ_MAX_NDIM)
			return pe_fail(l->err, PE_ERR_DATA,
				       "%s: npy header: shape has more than %d dimensions", l->name,
				       PE_READ_MAX_NDIM);
		if (dim(l, &h->shape[h->ndim]) != 0)
			return -1;
		h->ndim++;
		skip_blanks(l);
		comma = 0;
		if (l->i < l->n && l->s[l->i] == ',') {
			comma = 1;
			l->i++;
			skip_blanks(l);
		}
		if (l->i < l->n && l->s[l->i] == ')')
			break;
		if (!comma)
			return syntax(l, "',' or ')'");
	}
	l->i++;
	if (h->ndim == 1 && !comma) {
		char tok[64];

		pe_quote(tok, sizeof tok, l->s + open, l->i - open, 40, 0);
		return pe_fail(l->err, PE_ERR_DATA,
			       "%s: npy header: shape %s is not a tuple; a 1-D shape is written (%llu,)",
			       l->name, tok, (unsigned long long)h->shape[0]);
	}
	return 0;
}

enum { KEY_DESCR, KEY_FORTRAN, KEY_SHAPE, NKEYS };

static const char *const key_names[NKEYS] = { "descr", "fortran_order", "shape" };

static int item(struct lex *l, struct npy *h, int *seen)
{
	const unsigned char *k;
	size_t kn, vn;
	const unsigned char *v;
	int key;
	char tok[64];

	if (string(l, &k, &kn) != 0)
		return -1;
	for (key = 0; key < NKEYS; key++)
		if (strlen(key_names[key]) == kn && memcmp(key_names[key], k, kn) == 0)
			break;
	if (key == NKEYS) {
		pe_quote(tok, sizeof tok, k, kn, 32, 0);
		return pe_fail(l->err, PE_ERR_DATA, "%s: npy header has an unknown key '%s'",
			       l->name, tok);
	}
	if (seen[key])
		return pe_fail(l->err, PE_ERR_DATA, "%s: npy header has '%s' twice", l->name,
			       key_names[key]);
	seen[key] = 1;
	skip_blanks(l);
	if (l->i >= l->n || l->s[l->i] != ':')
		return syntax(l, "':'");
	l->i++;
	skip_blanks(l);
	switch (key) {
	case KEY_DESCR:
		if (l->i < l->n && l->s[l->i] == '[')
			return pe_fail(l->err, PE_ERR_DATA, "%s: a structured dtype, not a table",
				       l->name);
		if (l->i >= l->n || (l->s[l->i] != '\'' && l->s[l->i] != '"'))
			return bad_value(l, "descr", "a string");
		if (string(l, &v, &vn) != 0)
			return -1;
		pe_quote(h->descr, sizeof h->descr, v, vn, 11, 0);
		h->rawn = vn <= sizeof h->raw ? vn : 0;
		memcpy(h->raw, v, h->rawn);
		break;
	case KEY_FORTRAN:
		if (word(l, "True"))
			h->fortran = 1;
		else if (word(l, "False"))
			h->fortran = 0;
		else
			return bad_value(l, "fortran_order", "True or False");
		break;
	default:
		return tuple(l, h);
	}
	return 0;
}

static int dict(struct lex *l, struct npy *h)
{
	int seen[NKEYS] = { 0, 0, 0 }, key;

	skip_blanks(l);
	if (l->i >= l->n || l->s[l->i] != '{')
		return syntax(l, "'{'");
	l->i++;
	skip_blanks(l);
	while (l->i < l->n && l->s[l->i] != '}') {
		if (item(l, h, seen) != 0)
			return -1;
		skip_blanks(l);
		if (l->i < l->n && l->s[l->i] == ',') {
			l->i++;
			skip_blanks(l);
		} else if (l->i < l->n && l->s[l->i] != '}') {
			return syntax(l, "',' or '}'");
		}
	}
	if (l->i >= l->n)
		return syntax(l, "'}'");
	l->i++;
	skip_blanks(l);
	if (l->i < l->n)
		return syntax(l, "the end of the header");
	for (key = 0; key < NKEYS; key++)
		if (!seen[key])
			return pe_fail(l->err, PE_ERR_DATA, "%s: npy header has no '%s'", l->name,
				       key_names[key]);
	return 0;
}

/* magic, version, header length and dict; h->data_off is where data starts */
static int header(const unsigned char *buf, size_t len, const char *name, struct npy *h,
		  struct pe_error *err)
{
	struct lex l;
	size_t prefix, hlen;

	memset(h, 0, sizeof *h);
	if (len < 6 || memcmp(buf, "\x93NUMPY", 6) != 0)
		return pe_fail(err, PE_ERR_DATA, "%s: not an npy file (no \\x93NUMPY at its start)",
			       name);
	if (len < 8)
		return pe_fail(err, PE_ERR_DATA, "%s: npy file cut short (%zu bytes)", name, len);
	if (buf[6] == 1 && buf[7] == 0)
		prefix = 10;
	else if ((buf[6] == 2 || buf[6] == 3) && buf[7] == 0)
		prefix = 12;
	else
		return pe_fail(err, PE_ERR_DATA, "%s: npy version %u.%u is not 1.0, 2.0 or 3.0",
			       name, buf[6], buf[7]);
	if (len < prefix)
		return pe_fail(err, PE_ERR_DATA, "%s: npy file cut short (%zu bytes)", name, len);
	hlen = prefix == 10 ? pe_get_u16le(buf + 8) : (size_t)pe_get_u32le(buf + 8);
	if (hlen > len - prefix)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: header length %zu runs past the end of the file (%zu bytes)",
			       name, hlen, len);
	if (hlen > PE_NPY_MAX_HEADER)
		return pe_fail(err, PE_ERR_DATA, "%s: header length %zu is over the limit of %d",
			       name, hlen, PE_NPY_MAX_HEADER);
	if (hlen == 0 || buf[prefix + hlen - 1] != '\n')
		return pe_fail(err, PE_ERR_DATA, "%s: the npy header does not end with a newline",
			       name);
	l.s = buf + prefix;
	l.n = hlen - 1;
	l.i = 0;
	l.base = prefix;
	l.version = buf[6];
	l.name = name;
	l.err = err;
	if (dict(&l, h) != 0)
		return -1;
	h->data_off = prefix + hlen;
	return 0;
}

/* Bytes per item of a simple descr ('<i4', '|b1', '<U3'), 0 when unknown */
static size_t itemsize(const char *d)
{
	size_t n = 0;
	const char *p;

	if (!strchr("<>=|", d[0]) || d[0] == '\0' || !strchr("biufcSVU", d[1]) || d[1] == '\0')
		return 0;
	for (p = d + 2; *p; p++) {
		if (*p < '0' || *p > '9' || n > 1000000)
			return 0;
		n = n * 10 + (size_t)(*p - '0');
	}
	return d[1] == 'U' ? 4 * n : n;
}

/* C's isspace in the C locale, which NumPy's strtol and regexes skip */
static int space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * A descr that np.load reads as float16, float32 or float64 (it calls
 * np.dtype(descr); checked against NumPy 1.24):
 *   - an optional byte order '<', '>', '=' or '|' ('=', '|' and none are
 *     this host's order), then 'e', 'f' or 'd', or 'f' and a size 2, 4 or
 *     8 that NumPy reads with strtol, so blanks, a '+' and leading zeros
 *     may come first ('f4', '|f4', '<f', '>f 04');
 *   - or a name alone: float16, half, float32, single, float64, double,
 *     float, float_;
 *   - either followed by a comma and blanks, NumPy's comma string of one
 *     field ('<f4,', 'float32, '), where the size is digits only.
 * 1 with the element type and byte order, else 0.
 */
static int float_descr(const unsigned char *s, size_t n, enum pe_elem *e, int *big)
{
	static const struct {
		const char *name;
		enum pe_elem e;
	} names[] = {
		{ "float16", PE_ELEM_F16 }, { "half", PE_ELEM_F16 },   { "float32", PE_ELEM_F32 },
		{ "single", PE_ELEM_F32 },  { "float64", PE_ELEM_F64 }, { "double", PE_ELEM_F64 },
		{ "float", PE_ELEM_F64 },   { "float_", PE_ELEM_F64 },
	};
	unsigned char order = 0;
	size_t i, k = n;
	int comma = 0;
	unsigned size = 0;

	while (k > 0 && space(s[k - 1]))
		k--;
	if (k > 0 && s[k - 1] == ',') {
		comma = 1;
		for (k--; k > 0 && space(s[k - 1]);)
			k--;
	} else if (k != n) {
		return 0;
	}
	n = k;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0) {
			*e = names[i].e;
			*big = pe_host_big_endian();
			return 1;
		}
	if (n > 0 && strchr("<>=|", s[0])) {
		order = s[0];
		s++;
		n--;
	}
	if (n == 1 && strchr("efd", s[0])) {
		*e = s[0] == 'e' ? PE_ELEM_F16 : s[0] == 'f' ? PE_ELEM_F32 : PE_ELEM_F64;
	} else if (n >= 2 && s[0] == 'f') {
		i = 1;
		while (!comma && i < n && space(s[i]))
			i++;
		if (!comma && i < n && s[i] == '+')
			i++;
		if (i == n)
			return 0;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return 0;
			size = size * 10 + (unsigned)(s[i] - '0');
			if (size > 8)
				return 0;
		}
		if (size != 2 && size != 4 && size != 8)
			return 0;
		*e = size == 2 ? PE_ELEM_F16 : size == 4 ? PE_ELEM_F32 : PE_ELEM_F64;
	} else {
		return 0;
	}
	*big = order == '>' || (order != '<' && pe_host_big_endian());
	return 1;
}

/* An integer descr ('<i8', '|u1', '=i4': a byte order, i or u, a size 1,
 * 2, 4 or 8), read when pe_read_opts.integers asks: 1 with the element
 * type and byte order ('=' and '|' the host's), else 0. */
static int int_descr(const char *d, enum pe_elem *e, int *big)
{
	static const enum pe_elem is[] = { PE_ELEM_I8, PE_ELEM_I16, PE_ELEM_I32, PE_ELEM_I64 };
	static const enum pe_elem us[] = { PE_ELEM_U8, PE_ELEM_U16, PE_ELEM_U32, PE_ELEM_U64 };
	int k;

	if (strlen(d) != 3 || !strchr("<>=|", d[0]) || (d[1] != 'i' && d[1] != 'u'))
		return 0;
	for (k = 0; k < 4; k++)
		if (d[2] == "1248"[k]) {
			*e = d[1] == 'i' ? is[k] : us[k];
			*big = d[0] == '>' || (d[0] != '<' && pe_host_big_endian());
			return 1;
		}
	return 0;
}

static int pickled(const char *d)
{
	return d[0] == 'O' || (d[0] && strchr("<>=|", d[0]) && d[1] == 'O');
}

/* the shape's data fits after the header, for items of size isz */
static int data_fits(const struct npy *h, size_t len, size_t isz, const char *name,
		     struct pe_error *err)
{
	uint64_t count = 1;
	char text[160];
	int i;

	pe_shape_text(text, sizeof text, h->shape, h->ndim, 1);
	for (i = 0; i < h->ndim; i++)
		if (h->shape[i] == 0)
			return 0;
	for (i = 0; i < h->ndim; i++) {
		if (h->shape[i] > UINT64_MAX / count)
			return pe_fail(err, PE_ERR_DATA, "%s: shape %s is too large", name, text);
		count *= h->shape[i];
	}
	if (count > UINT64_MAX / isz)
		return pe_fail(err, PE_ERR_DATA, "%s: shape %s is too large", name, text);
	if (count * isz > len - h->data_off)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: shape %s of '%s' needs %llu data bytes, the file has %zu after its header",
			       name, text, h->descr, (unsigned long long)(count * isz),
			       len - h->data_off);
	return 0;
}

/* Where the values lie; integer dtypes only when ints (position ids). */
static int locate_as(const unsigned char *buf, size_t len, const char *name, int ints,
		     struct pe_table_loc *loc, struct pe_table_info *info, struct pe_error *err)
{
	struct npy h;
	enum pe_elem e;
	int big;

	memset(loc, 0, sizeof *loc);
	if (header(buf, len, name, &h, err) != 0)
		return -1;
	if (pickled(h.descr))
		return pe_fail(err, PE_ERR_DATA, "%s: pickled Python objects are refused (dtype '%s')",
			       name, h.descr);
	if (!float_descr(h.raw, h.rawn, &e, &big) && !(ints && int_descr(h.descr, &e, &big)))
		return pe_fail(err, PE_ERR_DATA,
			       "%s: dtype '%s' is not float16, float32 or float64%s",
			       name, h.descr, ints ? " (or i1-i8, u1-u8)" : "");
	loc->elem = e;
	loc->big = big;
	loc->fortran = h.fortran;
	loc->off = h.data_off;
	if (data_fits(&h, len, pe_elem_size(loc->elem), name, err) != 0 ||
	    pe_shape_table(h.shape, h.ndim, 1, name, "", &loc->rows, &loc->cols, err) != 0)
		return -1;
	if (info) {
		info->format = PE_IN_NPY;
		snprintf(info->dtype, sizeof info->dtype, "%s", h.descr);
		info->tensor[0] = '\0';
		info->ndim = h.ndim;
		memcpy(info->shape, h.shape, sizeof h.shape);
	}
	return 0;
}

int pe_npy_locate(const unsigned char *buf, size_t len, const char *name,
		  struct pe_table_loc *loc, struct pe_table_info *info, struct pe_error *err)
{
	return locate_as(buf, len, name, 0, loc, info, err);
}

int pe_npy_parse_as(const unsigned char *buf, size_t len, const char *name, int ints,
		    struct pe_matrix *out, struct pe_table_info *info, struct pe_error *err)
{
	struct pe_table_loc loc;
	uint64_t rows, cols, j;
	size_t over = 0, isz;
	const unsigned char *data;

	memset(out, 0, sizeof *out);
	if (locate_as(buf, len, name, ints, &loc, info, err) != 0)
		return -1;
	rows = loc.rows;
	cols = loc.cols;
	isz = pe_elem_size(loc.elem);
	if (pe_read_alloc(out, rows, cols, name, err) != 0)
		return -1;
	data = buf + loc.off;
	if (!loc.fortran) {
		over = pe_elems_to_float(out->v, 1, data, (size_t)(rows * cols), loc.elem, loc.big);
	} else {
		/* column j is rows consecutive items: spread it down the rows */
		for (j = 0; j < cols; j++)
			over += pe_elems_to_float(out->v + j, (size_t)cols,
						  data + (size_t)(j * rows) * isz, (size_t)rows,
						  loc.elem, loc.big);
	}
	if (over) {
		pe_matrix_free(out);
		return pe_fail(err, PE_ERR_DATA, "%s: %zu values are finite but too large for float32 (beyond 3.4e38)",
			       name, over);
	}
	return 0;
}

int pe_npy_parse(const unsigned char *buf, size_t len, const char *name, struct pe_matrix *out,
		 struct pe_table_info *info, struct pe_error *err)
{
	return pe_npy_parse_as(buf, len, name, 0, out, info, err);
}

int pe_npy_extent(const unsigned char *buf, size_t len, uint64_t *total)
{
	struct pe_error err;
	struct npy h;
	enum pe_elem e;
	uint64_t count = 1, isz;
	size_t prefix, hlen;
	int i, big;

	if (len < 8)
		return 0;
	prefix = buf[6] == 1 ? 10 : 12;
	if (len < prefix)
		return 0;
	hlen = prefix == 10 ? pe_get_u16le(buf + 8) : (size_t)pe_get_u32le(buf + 8);
	if (hlen <= PE_NPY_MAX_HEADER && hlen > len - prefix)
		return 0;
	if (header(buf, len, "", &h, &err) != 0)
		return -1;
	isz = float_descr(h.raw, h.rawn, &e, &big) ? pe_elem_size(e) : itemsize(h.descr);
	if (isz == 0)
		return -1;
	for (i = 0; i < h.ndim; i++) {
		if (h.shape[i] && count > UINT64_MAX / h.shape[i])
			return -1;
		count *= h.shape[i];
	}
	if (count > (UINT64_MAX - h.data_off) / isz)
		return -1;
	*total = h.data_off + count * isz;
	return 1;
}

int pe_npy_list(const unsigned char *buf, size_t len, const char *name,
		struct pe_tensor_entry **list, size_t *n, struct pe_error *err)
{
	struct npy h;
	size_t isz;
	enum pe_elem el;
	int big;
	struct pe_tensor_entry *e;

	*list = NULL;
	*n = 0;
	if (header(buf, len, name, &h, err) != 0)
		return -1;
	if (pickled(h.descr))
		return pe_fail(err, PE_ERR_DATA, "%s: pickled Python objects are refused (dtype '%s')",
			       name, h.descr);
	isz = float_descr(h.raw, h.rawn, &el, &big) ? pe_elem_size(el) : itemsize(h.descr);
	if (isz && data_fits(&h, len, isz, name, err) != 0)
		return -1;
	e = calloc(1, sizeof *e);
	if (!e)
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", name);
	e->name = calloc(1, 1);
	if (!e->name) {
		free(e);
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", name);
	}
	snprintf(e->dtype, sizeof e->dtype, "%s", h.descr);
	e->ndim = h.ndim;
	memcpy(e->shape, h.shape, sizeof h.shape);
	*list = e;
	*n = 1;
	return 0;
}
