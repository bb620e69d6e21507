/*
 * json: written as a stream, one matrix row per line, so a table of any size
 * needs no more memory than a row.  One tensor:
 *   {"shape":[R,C],"dtype":"float32","meta":{...},"data":[[...],...]}
 * several tensors:
 *   {"meta":{...},"tensors":{"NAME":{"shape":...,"dtype":...,"data":...},...}}
 * Numbers as in csv.  JSON has no NaN or infinity, and writing null would
 * silently change the data, so a non-finite value is an error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/sink.h"

struct json_sink {
	struct pe_sink base;
	FILE *fp;
	const struct pe_tensor *t;
	size_t nt;
	const struct pe_meta *meta;
	int open;		/* a tensor's data array is open */
};

static int json_puts(struct json_sink *j, const char *s, struct pe_error *err)
{
	return pe_write_str(j->fp, s, err);
}

int pe_json_nonfinite(const char *name, uint64_t row, uint64_t col, double v,
		      struct pe_error *err)
{
	return pe_fail(err, PE_ERR_DATA,
		       "json cannot hold %s (tensor '%s', row %llu, column %llu); use csv, raw, npy or safetensors",
		       isnan(v) ? "nan" : "an infinity", name, (unsigned long long)row,
		       (unsigned long long)col);
}

static int json_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		      const struct pe_meta *meta, struct pe_error *err)
{
	struct json_sink *j = (struct json_sink *)s;
	char *m;
	int rc;
	size_t i;
	uint64_t maxcols = 1;

	for (i = 0; i < nt; i++)
		if (t[i].cols > maxcols)
			maxcols = t[i].cols;
	if (maxcols > (SIZE_MAX - 16) / (PE_FMT_F64_MAX + 1))
		return pe_fail(err, PE_ERR_USAGE, "rows too wide for json");
	j->t = t;
	j->nt = nt;
	j->meta = meta;
	if (nt == 1)
		return json_puts(j, "{", err);
	m = pe_meta_json(meta);
	if (!m)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	rc = json_puts(j, "{\"meta\":", err) || json_puts(j, m, err) ||
	     json_puts(j, ",\n\"tensors\":{", err);
	free(m);
	return rc ? -1 : 0;
}

static int json_close_tensor(struct json_sink *j, struct pe_error *err)
{
	if (!j->open)
		return 0;
	j->open = 0;
	return json_puts(j, j->nt > 1 ? "]}" : "]}\n", err);
}

/* After the meta (single tensor) the data array opens. */
static int open_data(struct json_sink *j, const struct pe_meta *meta, struct pe_error *err)
{
	char *m;
	int rc;

	if (j->nt > 1)
		return json_puts(j, "\"data\":[", err);
	m = pe_meta_json(meta);
	if (!m)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	rc = json_puts(j, "\"meta\":", err) || json_puts(j, m, err) ||
	     json_puts(j, ",\"data\":[", err);
	free(m);
	return rc ? -1 : 0;
}

static int json_tensor(struct pe_sink *s, size_t index, struct pe_error *err)
{
	struct json_sink *j = (struct json_sink *)s;
	const struct pe_tensor *t = &j->t[index];
	char *name, head[256];
	int k, n, rc;

	if (json_close_tensor(j, err) != 0)
		return -1;
	j->open = 1;
	if (j->nt > 1) {
		name = pe_json_quote(t->name);
		if (!name)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		rc = json_puts(j, index ? ",\n" : "\n", err) || json_puts(j, name, err) ||
		     json_puts(j, ":{", err);
		free(name);
		if (rc)
			return -1;
	}
	n = snprintf(head, sizeof head, "\"shape\":[");
	for (k = 0; k < t->ndim; k++)
		n += snprintf(head + n, sizeof head - (size_t)n, "%s%llu", k ? "," : "",
			      (unsigned long long)t->shape[k]);
	snprintf(head + n, sizeof head - (size_t)n, "],\"dtype\":\"%s\",", pe_dtype_name(t->dtype));
	if (json_puts(j, head, err) != 0)
		return -1;
	return open_data(j, j->meta, err);
}

/* A row: ",\n[[", at most PE_FMT_F32_MAX characters and a separator per
 * value, "]]" and the NUL pe_fmt_* writes after the last value. */
static size_t json_text_bound(const struct pe_sink *s, const struct pe_tensor *t)
{
	(void)s;
	return (size_t)t->cols * (PE_FMT_F32_MAX + 1) + 8;
}

static int json_encode(const struct pe_sink *s, const struct pe_tensor *t, uint64_t row,
		       const void *data, size_t nrows, char *out, size_t *len,
		       struct pe_error *err)
{
	size_t cols = (size_t)t->cols, r, k, n = 0;
	uint64_t inner = t->ndim == 3 ? t->shape[1] : 0;
	const float *f = data;
	const int32_t *iv = data;
	double v;

	(void)s;
	for (r = 0; r < nrows; r++, row++) {
		if (row)
			out[n++] = ',';
		out[n++] = '\n';
		if (inner && row % inner == 0)
			out[n++] = '[';
		if (t->ndim > 1)
			out[n++] = '[';
		for (k = 0; k < cols; k++) {
			if (k)
				out[n++] = ',';
			if (t->dtype == PE_I32) {
				n += pe_fmt_i64(iv[r * cols + k], out + n);
				continue;
			}
			if (t->dtype != PE_F32) {
				n += pe_sink_fmt(t->dtype, data, r * cols + k, out + n, &v);
				if (!isfinite(v))
					return pe_json_nonfinite(t->name, row, k, v, err);
				continue;
			}
			if (!isfinite(f[r * cols + k]))
				return pe_json_nonfinite(t->name, row, k, f[r * cols + k], err);
			n += pe_fmt_f32(f[r * cols + k], out + n);
		}
		if (t->ndim > 1)
			out[n++] = ']';
		if (inner && row % inner == inner - 1)
			out[n++] = ']';
	}
	*len = n;
	return 0;
}

static int json_text(struct pe_sink *s, const char *text, size_t len, struct pe_error *err)
{
	return pe_write(((struct json_sink *)s)->fp, text, len, err);
}

static int json_end(struct pe_sink *s, struct pe_error *err)
{
	struct json_sink *j = (struct json_sink *)s;

	if (json_close_tensor(j, err) != 0)
		return -1;
	return json_puts(j, j->nt > 1 ? "}}\n" : "", err);
}

static void json_destroy(struct pe_sink *s)
{
	struct json_sink *j = (struct json_sink *)s;

	free(j);
}

static const struct pe_sink_ops json_ops = {
	.begin = json_begin,
	.tensor = json_tensor,
	.end = json_end,
	.destroy = json_destroy,
	.text_bound = json_text_bound,
	.encode = json_encode,
	.text = json_text,
};

struct pe_sink *pe_sink_json_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	struct json_sink *j = calloc(1, sizeof *j);

	(void)opts;
	if (!j) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	j->base.ops = &json_ops;
	j->fp = fp;
	return &j->base;
}
