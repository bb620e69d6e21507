/*
 * The dispatcher over the readers: one row per input format (its name, the
 * file extensions that name it, how its first bytes are recognised, its
 * parser, where its rows lie, its tensor listing, its extent on a stream),
 * and the file and stream wrappers.  A new format is its read_<format>.c and one row here.
 */
#include "io/read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/bytes.h"
#include "io/input.h"
#include "io/le.h"

/* "\x93NUMPY" */
static int sniff_npy(const unsigned char *buf, size_t len)
{
	return len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0;
}

/* A plausible header length (text never has zero bytes in it), then '{'
 * after blanks: safetensors, even when the buffer ends inside that header
 * (its parser then says so). */
static int sniff_safetensors(const unsigned char *buf, size_t len)
{
	uint64_t n;
	size_t i;

	if (len < 9)
		return 0;
	n = pe_get_u64le(buf);
	if (n < 2 || n > PE_SAFETENSORS_MAX_HEADER)
		return 0;
	for (i = 8; i < len && i < 8 + (size_t)n && pe_json_blank(buf[i]); i++)
		;
	return i < len && i < 8 + (size_t)n && buf[i] == '{';
}

static int parse_npy(const unsigned char *buf, size_t len, const char *name,
		     const struct pe_read_opts *o, struct pe_matrix *out,
		     struct pe_table_info *info, struct pe_error *err)
{
	return pe_npy_parse_as(buf, len, name, o->integers, out, info, err);
}

static int parse_safetensors(const unsigned char *buf, size_t len, const char *name,
			     const struct pe_read_opts *o, struct pe_matrix *out,
			     struct pe_table_info *info, struct pe_error *err)
{
	return pe_safetensors_parse_as(buf, len, name, o->tensor, o->integers, out, info, err);
}

static int parse_csv(const unsigned char *buf, size_t len, const char *name,
		     const struct pe_read_opts *o, struct pe_matrix *out,
		     struct pe_table_info *info, struct pe_error *err)
{
	(void)o;
	return pe_csv_parse(buf, len, name, out, info, err);
}

static int parse_raw(const unsigned char *buf, size_t len, const char *name,
		     const struct pe_read_opts *o, struct pe_matrix *out,
		     struct pe_table_info *info, struct pe_error *err)
{
	return pe_raw_parse(buf, len, name, o->rows, o->cols, out, info, err);
}

static int locate_npy(const unsigned char *buf, size_t len, const char *name,
		      const struct pe_read_opts *o, struct pe_table_loc *loc,
		      struct pe_table_info *info, struct pe_error *err)
{
	(void)o;
	return pe_npy_locate(buf, len, name, loc, info, err);
}

static int locate_safetensors(const unsigned char *buf, size_t len, const char *name,
			      const struct pe_read_opts *o, struct pe_table_loc *loc,
			      struct pe_table_info *info, struct pe_error *err)
{
	return pe_safetensors_locate(buf, len, name, o->tensor, loc, info, err);
}

static int locate_raw(const unsigned char *buf, size_t len, const char *name,
		      const struct pe_read_opts *o, struct pe_table_loc *loc,
		      struct pe_table_info *info, struct pe_error *err)
{
	(void)buf;
	return pe_raw_locate(len, name, o->rows, o->cols, loc, info, err);
}

static const struct reader {
	enum pe_in_format format;
	const char *name;
	const char *ext;		/* a file named *.ext (any case) is this format */
	int (*sniff)(const unsigned char *buf, size_t len);	/* NULL: never guessed */
	int (*parse)(const unsigned char *buf, size_t len, const char *name,
		     const struct pe_read_opts *o, struct pe_matrix *out,
		     struct pe_table_info *info, struct pe_error *err);
	/* where the rows lie, for pe_table_locate; NULL: text, parsed whole */
	int (*locate)(const unsigned char *buf, size_t len, const char *name,
		      const struct pe_read_opts *o, struct pe_table_loc *loc,
		      struct pe_table_info *info, struct pe_error *err);
	int (*list)(const unsigned char *buf, size_t len, const char *name,
		    struct pe_tensor_entry **list, size_t *n, struct pe_error *err);
	/* bytes a stream holds by its header (see io/readers.h); NULL: text */
	int (*extent)(const unsigned char *buf, size_t len, uint64_t *total);
	/* when more than that is an error: what the limit is, for the message */
	const char *over;
} readers[] = {
	/* in the order sniffing tries them; csv, the fallback, last but one */
	/* NumPy ignores bytes after an npy file's data */
	{ PE_IN_NPY, "npy", ".npy", sniff_npy, parse_npy, locate_npy, pe_npy_list, pe_npy_extent, NULL },
	{ PE_IN_SAFETENSORS, "safetensors", ".safetensors", sniff_safetensors, parse_safetensors,
	  locate_safetensors, pe_safetensors_list, pe_safetensors_extent,
	  "the length its safetensors header gives (a safetensors file is entirely indexed)" },
	{ PE_IN_CSV, "csv", NULL, NULL, parse_csv, NULL, NULL, NULL, NULL },
	{ PE_IN_RAW, "raw", NULL, NULL, parse_raw, locate_raw, NULL, NULL, NULL },
};

#define NREADERS (sizeof readers / sizeof readers[0])

static const struct reader *reader_of(enum pe_in_format f)
{
	size_t i;

	for (i = 0; i < NREADERS; i++)
		if (readers[i].format == f)
			return &readers[i];
	return NULL;
}

const char *pe_in_format_name(enum pe_in_format f)
{
	const struct reader *r = reader_of(f);

	return r ? r->name : "auto";
}

const char *pe_in_format_list(void)
{
	static char list[64];
	size_t i, at = 0;

	if (!list[0])
		for (i = 0; i < NREADERS; i++)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "",
					       readers[i].name);
	return list;
}

enum pe_in_format pe_in_sniff(const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < NREADERS; i++)
		if (readers[i].sniff && readers[i].sniff(buf, len))
			return readers[i].format;
	return PE_IN_CSV;
}

static const struct pe_read_opts no_opts = { .format = PE_IN_AUTO };

/* pe_table_parse's checks of o against the buffer (empty, raw without a
 * shape or with a header, a tensor name for another format): the reader
 * of the format to parse (info's format set), or NULL. */
static const struct reader *checked(const unsigned char *buf, size_t len, const char *name,
				    const struct pe_read_opts *o, struct pe_table_info *info,
				    struct pe_error *err)
{
	const struct reader *r;
	enum pe_in_format f;

	f = o->format == PE_IN_AUTO ? pe_in_sniff(buf, len) : o->format;
	if (info) {
		memset(info, 0, sizeof *info);
		info->format = f;
	}
	if (len == 0) {
		pe_fail(err, PE_ERR_DATA, "%s: empty", name);
		return NULL;
	}
	if (f == PE_IN_RAW && (o->rows == 0 || o->cols == 0)) {
		pe_fail(err, PE_ERR_USAGE, "%s: raw input needs a shape (rows x cols)", name);
		return NULL;
	}
	if (f == PE_IN_RAW && pe_in_sniff(buf, len) != PE_IN_CSV) {
		pe_fail(err, PE_ERR_USAGE,
			"%s: this is an %s file, not raw float32: its shape is in its header",
			name, pe_in_format_name(pe_in_sniff(buf, len)));
		return NULL;
	}
	if (o->tensor && f != PE_IN_SAFETENSORS) {
		pe_fail(err, PE_ERR_USAGE,
			"%s: a tensor name was given, but the input is %s, not safetensors",
			name, pe_in_format_name(f));
		return NULL;
	}
	r = reader_of(f);
	return r ? r : reader_of(PE_IN_CSV);
}

int pe_table_parse(const unsigned char *buf, size_t len, const char *name,
		   const struct pe_read_opts *o, struct pe_matrix *out, struct pe_table_info *info,
		   struct pe_error *err)
{
	const struct reader *r;

	if (!o)
		o = &no_opts;
	memset(out, 0, sizeof *out);
	r = checked(buf, len, name, o, info, err);
	return r ? r->parse(buf, len, name, o, out, info, err) : -1;
}

int pe_table_locate(const unsigned char *buf, size_t len, const char *name,
		    const struct pe_read_opts *o, struct pe_table_loc *loc,
		    struct pe_table_info *info, struct pe_error *err)
{
	const struct reader *r;

	if (!o)
		o = &no_opts;
	memset(loc, 0, sizeof *loc);
	r = checked(buf, len, name, o, info, err);
	if (!r)
		return -1;
	return r->locate ? r->locate(buf, len, name, o, loc, info, err) : 1;
}

int pe_table_list(const unsigned char *buf, size_t len, const char *name,
		  struct pe_tensor_entry **list, size_t *n, struct pe_error *err)
{
	const struct reader *r = reader_of(pe_in_sniff(buf, len));

	*list = NULL;
	*n = 0;
	if (r && r->list)
		return r->list(buf, len, name, list, n, err);
	return pe_fail(err, PE_ERR_DATA, "%s: not an npy or safetensors file, no tensors to list",
		       name);
}

const struct pe_read_opts *pe_read_opts_for_path(const char *path, const struct pe_read_opts *o,
						struct pe_read_opts *named)
{
	size_t i, n = strlen(path), e;

	if (o && o->format != PE_IN_AUTO)
		return o;
	for (i = 0; i < NREADERS; i++) {
		if (!readers[i].ext)
			continue;
		e = strlen(readers[i].ext);
		if (n > e && strcasecmp(path + n - e, readers[i].ext) == 0) {
			if (o)
				*named = *o;
			else
				memset(named, 0, sizeof *named);
			named->format = readers[i].format;
			return named;
		}
	}
	return o;
}

/*
 * The most a stream can hold of a table (io/input.h's rule): raw, exactly
 * its shape's bytes; npy and safetensors, the length their header gives
 * (a safetensors file has nothing after it, an npy file may); text, up to
 * its first NUL byte, where csv stops being text.  Until the format is
 * clear from the first bytes, nothing is bounded.
 */
struct stream {
	const struct pe_read_opts *o;
	size_t seen;		/* text: bytes looked at for a NUL */
	char over[96];
};

static void stream_extent(const unsigned char *b, size_t n, void *ctx, struct pe_input_extent *x)
{
	struct stream *st = ctx;
	enum pe_in_format f = st->o ? st->o->format : PE_IN_AUTO;
	const struct reader *r;
	uint64_t total = 0, rows, cols;
	int k = 0;
	size_t i;

	if (x->most != SIZE_MAX)
		return;
	if (f == PE_IN_RAW) {
		rows = st->o->rows;
		cols = st->o->cols;
		if (rows && cols && rows <= UINT64_MAX / 4 / cols && rows * cols * 4 < SIZE_MAX) {
			x->most = (size_t)(rows * cols * 4);
			snprintf(st->over, sizeof st->over, "the size of a %llu x %llu float32 table",
				 (unsigned long long)rows, (unsigned long long)cols);
			x->over = st->over;
		}
		return;
	}
	if (f == PE_IN_AUTO) {
		/* npy's magic, or safetensors' length and the blanks before its
		 * '{', may still be arriving: pe_in_sniff would say csv */
		if (n < 9)
			return;
		total = pe_get_u64le(b);
		if (total >= 2 && total <= PE_SAFETENSORS_MAX_HEADER) {
			for (i = 8; i < n && pe_json_blank(b[i]); i++)
				;
			if (i == n)
				return;
		}
		f = pe_in_sniff(b, n);
	}
	r = reader_of(f);
	if (r && r->extent) {
		k = r->extent(b, n, &total);
		if (k == 0)
			return;
		if (k < 0 || total >= SIZE_MAX)
			total = n;	/* broken: the parser says how */
		x->most = (size_t)total;
		if (k > 0)
			x->over = r->over;
		return;
	}
	if (memchr(b + st->seen, '\0', n - st->seen))
		x->most = n;
	st->seen = n;
}

int pe_table_input_open(struct pe_input *in, const char *path, size_t max_bytes,
			const struct pe_read_opts *o, struct pe_error *err)
{
	struct pe_read_opts named;
	struct stream st;
	struct pe_input_rule rule = { stream_extent, &st };

	memset(&st, 0, sizeof st);
	st.o = pe_read_opts_for_path(path, o, &named);
	return pe_input_open_rule(in, path, max_bytes, &rule, err);
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
	rc = pe_table_input_open(&in, path, max_bytes, o, err);
	if (rc == 0)
		rc = pe_table_parse(in.data, in.len, in.name, pe_read_opts_for_path(path, o, &named), out, info,
				    err);
	if (pe_input_intact(&in, err) != 0) {
		pe_matrix_free(out);
		rc = -1;
	}
	pe_input_close(&in);
	return rc;
}
