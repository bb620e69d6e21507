/*
 * safetensors (huggingface/safetensors README, "Format"): a u64
 * little-endian header length N, N bytes of UTF-8 JSON, then the tensors'
 * bytes.  Validation is the reference reader's (safetensors/src/tensor.rs,
 * read_metadata and Metadata::validate), in its order, so posenc accepts
 * the files it accepts:
 *   1. at least 8 bytes;
 *   2. N at most 100,000,000, and 8 + N within the file;
 *   3. the header valid UTF-8, and JSON of the right shape;
 *   4. tensors sorted by (begin, end) are contiguous from 0: no gap, no
 *      overlap (which would let many tensors alias one region);
 *   5. end - begin = shape product x dtype bits / 8, products checked;
 *   6. 8 + N + the last end = the file's length: nothing unindexed.
 * On top of what serde would catch, and cJSON would not:
 *   - cJSON keeps duplicate keys: duplicate tensor names are found by
 *     sorting, duplicate fields of a tensor when walking it;
 *   - cJSON holds numbers as doubles, so shapes and offsets must be finite
 *     integers below 2^53, where every integer text maps to itself (the
 *     reference's usize would take more; no real file comes near);
 *   - cJSON takes any byte below 0x20 as whitespace: those other than JSON's
 *     four are refused first, as the JSON grammar does;
 *   - a tensor may have only dtype, shape and data_offsets (the format's
 *     JSON schema: additionalProperties false);
 *   - cJSON ends a string at a \u0000 escape, so a name holding one would
 *     be shown and matched cut short: such a header is refused (serde
 *     would take it; no real file has one).
 * cJSON still accepts a few number spellings JSON does not (+1, 01, 1.).
 * __metadata__ may be null (serde's Option) or an object of strings.
 *
 * Only the header and the chosen tensor's bytes are read: the buffer may be
 * the mapping of a 500 MB checkpoint.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "io/le.h"
#include "io/readers.h"

#define MAX_EXACT 9007199254740992.0	/* 2^53 */
#define LIST_SHOWN 16

struct dtype {
	const char *name;
	unsigned bits;
	int elem;		/* enum pe_elem; -1: not a table; -(enum pe_elem): an
				 * integer, a table when pe_read_opts.integers asks */
};

/* tensor.rs enum Dtype and Dtype::bitsize */
static const struct dtype dtypes[] = {
	{ "BOOL", 8, -1 },	  { "F4", 4, -1 },	     { "F6_E2M3", 6, -1 },
	{ "F6_E3M2", 6, -1 },	  { "U8", 8, -PE_ELEM_U8 }, { "I8", 8, -PE_ELEM_I8 },
	{ "F8_E5M2", 8, -1 },	  { "F8_E4M3", 8, -1 },	     { "F8_E8M0", 8, -1 },
	{ "F8_E4M3FNUZ", 8, -1 }, { "F8_E5M2FNUZ", 8, -1 },  { "I16", 16, -PE_ELEM_I16 },
	{ "U16", 16, -PE_ELEM_U16 }, { "F16", 16, PE_ELEM_F16 }, { "BF16", 16, PE_ELEM_BF16 },
	{ "I32", 32, -PE_ELEM_I32 }, { "U32", 32, -PE_ELEM_U32 }, { "F32", 32, PE_ELEM_F32 },
	{ "C64", 64, -1 },	  { "F64", 64, PE_ELEM_F64 }, { "I64", 64, -PE_ELEM_I64 },
	{ "U64", 64, -PE_ELEM_U64 },
};

#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

/* the names the default rule looks for, as the whole name or after a '.' */
static const char *const positional[] = {
	"wpe.weight", "position_embeddings.weight", "embed_positions.weight", "pos_embed",
};

struct entry {
	const char *name;	/* cJSON's */
	const cJSON *shape;	/* validated */
	int dtype;
	uint64_t begin, end;
	size_t idx;		/* place in the header */
};

struct st {
	cJSON *root;
	struct entry *e;	/* n entries, header order */
	size_t n;
	uint64_t data_start;	/* 8 + N */
	const char *name;
	struct pe_error *err;
};

/* a tensor name for a message */
static const char *shown(const char *s, char *buf, size_t size)
{
	pe_quote(buf, size, (const unsigned char *)s, strlen(s), 80, 1);
	return buf;
}

/* UTF-8 as Rust's str::from_utf8 takes it; control bytes JSON never allows;
 * no \u0000 escape (outside strings a backslash is no JSON anyway) */
static int check_text(struct st *f, const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if (s[i] < 0x80) {
			if (s[i] < 0x20 && !pe_json_blank(s[i]))
				return pe_fail(f->err, PE_ERR_DATA,
					       "%s: the header is not valid JSON (control byte 0x%02x at byte %zu)",
					       f->name, s[i], 8 + i);
			if (s[i] == '\\' && n - i >= 6 && memcmp(s + i + 1, "u0000", 5) == 0)
				return pe_fail(f->err, PE_ERR_DATA,
					       "%s: the header holds a NUL character (\\u0000 at byte %zu), which posenc cannot keep in a name or value",
					       f->name, 8 + i);
			if (s[i] == '\\' && i + 1 < n && s[i + 1] >= 0x20 && s[i + 1] < 0x7f)
				i++;	/* the escaped byte: JSON's "\\u0000" is no NUL */
			i++;
			continue;
		}
		k = pe_utf8_seq(s + i, n - i);
		if (!k)
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: the header is not valid UTF-8 (at byte %zu)", f->name,
				       8 + i);
		i += k;
	}
	return 0;
}

/* a shape or offset value: a finite integer in [0, 2^53) */
static int count_value(struct st *f, const char *tname, const char *field, const cJSON *v,
		       uint64_t *out)
{
	char tb[100], vb[64];

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble >= MAX_EXACT || v->valuedouble != floor(v->valuedouble)) {
		pe_json_text(v, vb, sizeof vb);
		return pe_fail(f->err, PE_ERR_DATA,
			       "%s: tensor '%s' %s value '%s' is not an integer from 0 to 2^53 - 1",
			       f->name, shown(tname, tb, sizeof tb), field, vb);
	}
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int metadata(struct st *f, const cJSON *md)
{
	const cJSON *c;
	char kb[100];

	if (cJSON_IsNull(md))
		return 0;
	if (!cJSON_IsObject(md))
		return pe_fail(f->err, PE_ERR_DATA, "%s: __metadata__ must be an object of strings",
			       f->name);
	cJSON_ArrayForEach(c, md) {
		if (!cJSON_IsString(c))
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: __metadata__ must be an object of strings; '%s' is not a string",
				       f->name, shown(c->string, kb, sizeof kb));
	}
	return 0;
}

static int tensor(struct st *f, const cJSON *obj, struct entry *e)
{
	static const char *const fields[] = { "dtype", "shape", "data_offsets" };
	const cJSON *got[3] = { NULL, NULL, NULL }, *c;
	char tb[100], vb[64];
	const char *tn = shown(e->name, tb, sizeof tb);
	int k;
	size_t d;

	if (!cJSON_IsObject(obj))
		return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' is not an object", f->name, tn);
	cJSON_ArrayForEach(c, obj) {
		for (k = 0; k < 3; k++)
			if (strcmp(c->string, fields[k]) == 0)
				break;
		if (k == 3)
			return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' has an unknown key '%s'",
				       f->name, tn, shown(c->string, vb, sizeof vb));
		if (got[k])
			return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' has '%s' twice", f->name,
				       tn, fields[k]);
		got[k] = c;
	}
	for (k = 0; k < 3; k++)
		if (!got[k])
			return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' has no '%s'", f->name, tn,
				       fields[k]);
	if (!cJSON_IsString(got[0])) {
		pe_json_text(got[0], vb, sizeof vb);
		return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' dtype must be a string, got '%s'",
			       f->name, tn, vb);
	}
	for (d = 0; d < NDTYPES; d++)
		if (strcmp(got[0]->valuestring, dtypes[d].name) == 0)
			break;
	if (d == NDTYPES)
		return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' has an unknown dtype '%s'",
			       f->name, tn, shown(got[0]->valuestring, vb, sizeof vb));
	e->dtype = (int)d;
	if (!cJSON_IsArray(got[1])) {
		pe_json_text(got[1], vb, sizeof vb);
		return pe_fail(f->err, PE_ERR_DATA,
			       "%s: tensor '%s' shape must be a list of integers, got '%s'", f->name, tn,
			       vb);
	}
	if (cJSON_GetArraySize(got[1]) > PE_READ_MAX_NDIM)
		return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' has %d dimensions, more than %d",
			       f->name, tn, cJSON_GetArraySize(got[1]), PE_READ_MAX_NDIM);
	cJSON_ArrayForEach(c, got[1]) {
		uint64_t v;

		if (count_value(f, e->name, "shape", c, &v) != 0)
			return -1;
	}
	e->shape = got[1];
	if (!cJSON_IsArray(got[2]) || cJSON_GetArraySize(got[2]) != 2) {
		pe_json_text(got[2], vb, sizeof vb);
		return pe_fail(f->err, PE_ERR_DATA,
			       "%s: tensor '%s' data_offsets must be a list of 2 integers, got '%s'",
			       f->name, tn, vb);
	}
	if (count_value(f, e->name, "data_offsets", got[2]->child, &e->begin) != 0 ||
	    count_value(f, e->name, "data_offsets", got[2]->child->next, &e->end) != 0)
		return -1;
	return 0;
}

static int shape_of(const struct entry *e, uint64_t *shape)
{
	const cJSON *c;
	int nd = 0;

	cJSON_ArrayForEach(c, e->shape)
		shape[nd++] = (uint64_t)c->valuedouble;
	return nd;
}

static int by_name(const void *a, const void *b)
{
	const struct entry *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static int by_offsets(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* steps 4 and 5, on the entries sorted by offsets; the data's length */
static int layout(struct st *f, struct entry **s, uint64_t *data_len)
{
	uint64_t start = 0, shape[PE_READ_MAX_NDIM], count, bits;
	char tb[100], text[160];
	size_t i;
	int nd, d;

	for (i = 0; i < f->n; i++) {
		const struct entry *e = s[i];
		const char *tn = shown(e->name, tb, sizeof tb);

		if (e->end < e->begin)
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: tensor '%s' data_offsets [%llu, %llu] end before they begin",
				       f->name, tn, (unsigned long long)e->begin,
				       (unsigned long long)e->end);
		if (e->begin != start)
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: tensor '%s' data_offsets [%llu, %llu] %s byte %llu (tensors are contiguous from 0)",
				       f->name, tn, (unsigned long long)e->begin,
				       (unsigned long long)e->end,
				       e->begin < start ? "overlap the tensor before, which ends at"
							: "leave a gap after",
				       (unsigned long long)start);
		start = e->end;
		nd = shape_of(e, shape);
		pe_shape_text(text, sizeof text, shape, nd, 0);
		count = 1;
		for (d = 0; d < nd; d++) {
			if (shape[d] != 0 && count > UINT64_MAX / shape[d])
				return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' shape %s is too large",
					       f->name, tn, text);
			count *= shape[d];
		}
		if (count > UINT64_MAX / dtypes[e->dtype].bits)
			return pe_fail(f->err, PE_ERR_DATA, "%s: tensor '%s' shape %s is too large",
				       f->name, tn, text);
		bits = count * dtypes[e->dtype].bits;
		if (bits % 8 != 0)
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: tensor '%s' of %llu %s values is not a whole number of bytes",
				       f->name, tn, (unsigned long long)count, dtypes[e->dtype].name);
		if (e->end - e->begin != bits / 8)
			return pe_fail(f->err, PE_ERR_DATA,
				       "%s: tensor '%s' %s %s needs %llu bytes, data_offsets [%llu, %llu] hold %llu",
				       f->name, tn, dtypes[e->dtype].name, text,
				       (unsigned long long)(bits / 8), (unsigned long long)e->begin,
				       (unsigned long long)e->end,
				       (unsigned long long)(e->end - e->begin));
	}
	*data_len = start;
	return 0;
}

static void st_close(struct st *f)
{
	cJSON_Delete(f->root);
	free(f->e);
	f->root = NULL;
	f->e = NULL;
}

/* Validate buf as a whole (header_only: its header, then *total is the
 * file's length as the offsets give it); the entries in header order.
 * Close in every case. */
static int st_validate(struct st *f, const unsigned char *buf, size_t len, const char *name,
		       int header_only, uint64_t *total, struct pe_error *err)
{
	uint64_t hlen, data_len = 0;
	const unsigned char *h;
	const char *end = NULL;
	struct entry **sorted = NULL;
	const cJSON *c, *md = NULL;
	size_t skip = 0, i, count = 0;
	int rc = -1;

	memset(f, 0, sizeof *f);
	f->name = name;
	f->err = err;
	if (len < 8)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: %zu bytes, too short for a safetensors file (its header length alone is 8)",
			       name, len);
	hlen = pe_get_u64le(buf);
	if (hlen > PE_SAFETENSORS_MAX_HEADER)
		return pe_fail(err, PE_ERR_DATA, "%s: header length %llu is over the limit of %llu",
			       name, (unsigned long long)hlen,
			       (unsigned long long)PE_SAFETENSORS_MAX_HEADER);
	if (hlen > len - 8)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: header length %llu runs past the end of the file (%zu bytes)", name,
			       (unsigned long long)hlen, len);
	h = buf + 8;
	if (check_text(f, h, (size_t)hlen) != 0)
		return -1;
	while (skip < hlen && pe_json_blank(h[skip]))
		skip++;
	if (skip == hlen)
		return pe_fail(err, PE_ERR_DATA, "%s: the header is not valid JSON (it is empty)",
			       name);
	if (h[skip] != '{')
		return pe_fail(err, PE_ERR_DATA, "%s: the header is not a JSON object", name);
	f->root = cJSON_ParseWithLengthOpts((const char *)h + skip, (size_t)hlen - skip, &end, 0);
	if (!f->root) {
		size_t at = end ? (size_t)((const unsigned char *)end - buf) : 8 + skip;

		return pe_fail(err, PE_ERR_DATA, "%s: the header is not valid JSON (near byte %zu)",
			       name, at);
	}
	for (i = (size_t)((const unsigned char *)end - h); i < hlen; i++)
		if (!pe_json_blank(h[i]))
			return pe_fail(err, PE_ERR_DATA,
				       "%s: the header is not valid JSON (more text at byte %zu)", name,
				       8 + i);
	f->data_start = 8 + hlen;

	cJSON_ArrayForEach(c, f->root)
		count++;
	f->e = calloc(count ? count : 1, sizeof *f->e);
	sorted = malloc((count ? count : 1) * sizeof *sorted);
	if (!f->e || !sorted) {
		rc = pe_fail(err, PE_ERR_NOMEM, "%s: out of memory for %zu tensors", name, count);
		goto out;
	}
	cJSON_ArrayForEach(c, f->root) {
		if (strcmp(c->string, "__metadata__") == 0) {
			if (md) {
				rc = pe_fail(err, PE_ERR_DATA, "%s: __metadata__ appears twice", name);
				goto out;
			}
			md = c;
			if (metadata(f, c) != 0)
				goto out;
			continue;
		}
		f->e[f->n].name = c->string;
		f->e[f->n].idx = f->n;
		if (tensor(f, c, &f->e[f->n]) != 0)
			goto out;
		sorted[f->n] = &f->e[f->n];
		f->n++;
	}
	qsort(sorted, f->n, sizeof *sorted, by_name);
	for (i = 1; i < f->n; i++) {
		if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0) {
			char tb[100];

			rc = pe_fail(err, PE_ERR_DATA, "%s: two tensors are named '%s'", name,
				     shown(sorted[i]->name, tb, sizeof tb));
			goto out;
		}
	}
	qsort(sorted, f->n, sizeof *sorted, by_offsets);
	if (layout(f, sorted, &data_len) != 0)
		goto out;
	if (header_only) {
		*total = f->data_start + data_len;
		rc = *total < f->data_start ? -1 : 0;
		goto out;
	}
	if (data_len > (uint64_t)len - f->data_start) {
		rc = pe_fail(err, PE_ERR_DATA,
			     "%s: truncated: the tensors need %llu bytes after the header, the file has %llu",
			     name, (unsigned long long)data_len,
			     (unsigned long long)(len - f->data_start));
		goto out;
	}
	if (data_len < (uint64_t)len - f->data_start) {
		rc = pe_fail(err, PE_ERR_DATA,
			     "%s: %llu bytes after the last tensor (a safetensors file is entirely indexed)",
			     name, (unsigned long long)(len - f->data_start - data_len));
		goto out;
	}
	rc = 0;
out:
	free(sorted);
	return rc;
}

static int st_open(struct st *f, const unsigned char *buf, size_t len, const char *name,
		   struct pe_error *err)
{
	return st_validate(f, buf, len, name, 0, NULL, err);
}

int pe_safetensors_extent(const unsigned char *buf, size_t len, uint64_t *total)
{
	struct pe_error err;
	struct st f;
	uint64_t hlen;
	int rc;

	if (len < 8)
		return 0;
	hlen = pe_get_u64le(buf);
	if (hlen <= PE_SAFETENSORS_MAX_HEADER && hlen > len - 8)
		return 0;
	rc = st_validate(&f, buf, len, "", 1, total, &err);
	st_close(&f);
	return rc == 0 ? 1 : -1;
}

/* "NAME: WHY; it has:" then one tensor a line, "\n  a F32 [2,3]", as
 * much of the list as the message holds, at most LIST_SHOWN, then
 * "\n  and N more" */
static int listing_error(const struct st *f, const char *why)
{
	char msg[sizeof f->err->msg], tb[100], text[160], item[300], more[48];
	size_t at, i, room;
	uint64_t shape[PE_READ_MAX_NDIM];
	int w, nd;

	w = snprintf(msg, sizeof msg, "%s: %s; it has:", f->name, why);
	if (w < 0 || (size_t)w >= sizeof msg)
		return pe_fail(f->err, PE_ERR_DATA, "%s: %s", f->name, why);
	at = (size_t)w;
	for (i = 0; i < f->n && i < LIST_SHOWN; i++) {
		nd = shape_of(&f->e[i], shape);
		pe_shape_text(text, sizeof text, shape, nd, 0);
		w = snprintf(item, sizeof item, "\n  %s %s %s", shown(f->e[i].name, tb, sizeof tb),
			     dtypes[f->e[i].dtype].name, text);
		snprintf(more, sizeof more, "\n  and %zu more", f->n - i - 1);
		/* room for the item and, if more follow, the words saying so */
		room = i + 1 < f->n ? strlen(more) : 0;
		if (w < 0 || at + room >= sizeof msg || (size_t)w >= sizeof msg - at - room)
			break;
		memcpy(msg + at, item, (size_t)w + 1);
		at += (size_t)w;
	}
	if (i == 0)
		snprintf(msg + at, sizeof msg - at, " %zu tensors", f->n);
	else if (i < f->n)
		snprintf(msg + at, sizeof msg - at, "\n  and %zu more", f->n - i);
	return pe_fail(f->err, PE_ERR_DATA, "%s", msg);
}

/* Is s part + ending of name after a '.' (or the whole of it)? */
static int ends_with_part(const char *s, const char *part)
{
	size_t ls = strlen(s), lp = strlen(part);

	return lp > 0 && ls >= lp && strcmp(s + ls - lp, part) == 0 &&
	       (ls == lp || s[ls - lp - 1] == '.');
}

static int is_positional(const char *s)
{
	size_t k;

	for (k = 0; k < sizeof positional / sizeof positional[0]; k++)
		if (ends_with_part(s, positional[k]))
			return 1;
	return 0;
}

static int choose(const struct st *f, const char *want, size_t *pick)
{
	char why[200], tb[100];
	size_t i, found = 0;

	if (f->n == 0)
		return pe_fail(f->err, PE_ERR_DATA, "%s: no tensors in the file", f->name);
	if (want) {
		for (i = 0; i < f->n; i++) {
			if (strcmp(f->e[i].name, want) == 0) {
				*pick = i;
				return 0;
			}
		}
		/* the end of one name after a '.': wpe.weight is
		 * transformer.wpe.weight when no other name ends so */
		for (i = 0; i < f->n; i++) {
			if (ends_with_part(f->e[i].name, want)) {
				*pick = i;
				found++;
			}
		}
		if (found == 1)
			return 0;
		if (found)
			snprintf(why, sizeof why, "%zu tensors end in '%s'", found,
				 shown(want, tb, sizeof tb));
		else
			snprintf(why, sizeof why, "no tensor '%s'", shown(want, tb, sizeof tb));
		return listing_error(f, why);
	}
	if (f->n == 1) {
		*pick = 0;
		return 0;
	}
	for (i = 0; i < f->n; i++) {
		if (is_positional(f->e[i].name)) {
			*pick = i;
			found++;
		}
	}
	if (found == 1)
		return 0;
	return listing_error(f, found ? "more than one tensor could be the position table"
				      : "no tensor is named wpe.weight, position_embeddings.weight, embed_positions.weight or pos_embed");
}

/* Where the tensor's values lie; integer dtypes only when ints. */
static int locate_as(const unsigned char *buf, size_t len, const char *name,
		     const char *tensor_name, int ints, struct pe_table_loc *loc,
		     struct pe_table_info *info, struct pe_error *err)
{
	struct st f;
	const struct entry *e;
	uint64_t shape[PE_READ_MAX_NDIM];
	char what[120], tb[100];
	size_t pick = 0;
	int nd, rc = -1, elem;

	memset(loc, 0, sizeof *loc);
	if (st_open(&f, buf, len, name, err) != 0 || choose(&f, tensor_name, &pick) != 0)
		goto out;
	e = &f.e[pick];
	elem = dtypes[e->dtype].elem;
	if (ints && elem < -1)
		elem = -elem;
	if (elem < 0) {
		rc = pe_fail(err, PE_ERR_DATA, "%s: tensor '%s' is %s; a table is F32, F16, BF16 or F64%s",
			     name, shown(e->name, tb, sizeof tb), dtypes[e->dtype].name,
			     ints ? " (or I8-I64, U8-U64)" : "");
		goto out;
	}
	nd = shape_of(e, shape);
	snprintf(what, sizeof what, "tensor '%s' ", shown(e->name, tb, sizeof tb));
	if (pe_shape_table(shape, nd, 0, name, what, &loc->rows, &loc->cols, err) != 0)
		goto out;
	loc->off = (size_t)(f.data_start + e->begin);
	loc->elem = (enum pe_elem)elem;
	if (info) {
		info->format = PE_IN_SAFETENSORS;
		snprintf(info->dtype, sizeof info->dtype, "%s", dtypes[e->dtype].name);
		snprintf(info->tensor, sizeof info->tensor, "%.255s", e->name);
		pe_utf8_trim(info->tensor);
		info->ndim = nd;
		memcpy(info->shape, shape, sizeof shape);
	}
	rc = 0;
out:
	st_close(&f);
	return rc;
}

int pe_safetensors_locate(const unsigned char *buf, size_t len, const char *name,
			  const char *tensor_name, struct pe_table_loc *loc,
			  struct pe_table_info *info, struct pe_error *err)
{
	return locate_as(buf, len, name, tensor_name, 0, loc, info, err);
}

int pe_safetensors_parse(const unsigned char *buf, size_t len, const char *name,
			 const char *tensor_name, struct pe_matrix *out, struct pe_table_info *info,
			 struct pe_error *err)
{
	return pe_safetensors_parse_as(buf, len, name, tensor_name, 0, out, info, err);
}

int pe_safetensors_parse_as(const unsigned char *buf, size_t len, const char *name,
			    const char *tensor_name, int ints, struct pe_matrix *out,
			    struct pe_table_info *info, struct pe_error *err)
{
	struct pe_table_info own;
	struct pe_table_loc loc;
	char tb[100];

	memset(out, 0, sizeof *out);
	if (!info)
		info = &own;
	if (locate_as(buf, len, name, tensor_name, ints, &loc, info, err) != 0 ||
	    pe_read_alloc(out, loc.rows, loc.cols, name, err) != 0)
		return -1;
	if (pe_elems_to_float(out->v, 1, buf + loc.off, (size_t)(loc.rows * loc.cols), loc.elem,
			      0) != 0) {
		pe_matrix_free(out);
		return pe_fail(err, PE_ERR_DATA, "%s: tensor '%s' has values too large for float32 (beyond 3.4e38)",
			       name, shown(info->tensor, tb, sizeof tb));
	}
	return 0;
}

int pe_safetensors_list(const unsigned char *buf, size_t len, const char *name,
			struct pe_tensor_entry **list, size_t *n, struct pe_error *err)
{
	struct st f;
	struct pe_tensor_entry *l = NULL;
	size_t i;
	int rc = -1;

	*list = NULL;
	*n = 0;
	if (st_open(&f, buf, len, name, err) != 0)
		goto out;
	l = calloc(f.n ? f.n : 1, sizeof *l);
	if (!l) {
		rc = pe_fail(err, PE_ERR_NOMEM, "%s: out of memory for %zu tensors", name, f.n);
		goto out;
	}
	for (i = 0; i < f.n; i++) {
		l[i].name = malloc(strlen(f.e[i].name) + 1);
		if (!l[i].name) {
			pe_tensor_entries_free(l, i);
			l = NULL;
			rc = pe_fail(err, PE_ERR_NOMEM, "%s: out of memory for %zu tensors", name, f.n);
			goto out;
		}
		strcpy(l[i].name, f.e[i].name);
		snprintf(l[i].dtype, sizeof l[i].dtype, "%s", dtypes[f.e[i].dtype].name);
		l[i].ndim = shape_of(&f.e[i], l[i].shape);
	}
	*list = l;
	*n = f.n;
	rc = 0;
out:
	st_close(&f);
	return rc;
}
