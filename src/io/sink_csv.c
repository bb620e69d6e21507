/*
 * csv: one matrix row per line, values separated by commas, LF line ends
 * (accepted by every CSV reader in practice).  A 1-D tensor is one value per
 * line.  Only one tensor fits in a csv file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/output.h"
#include "io/sink.h"

struct csv_sink {
	struct pe_sink base;
	FILE *fp;
	struct pe_sink_opts opts;
	char *line;		/* the header */
	size_t cap;
};

static int csv_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err)
{
	struct csv_sink *c = (struct csv_sink *)s;
	uint64_t k;
	size_t len = 0;
	const char *prefix = c->opts.col_prefix ? c->opts.col_prefix : "c";

	(void)meta;
	if (nt != 1)
		return pe_fail(err, PE_ERR_USAGE,
			       "csv holds one tensor, this result has %zu (use json or safetensors)", nt);
	if (t->cols > (SIZE_MAX - 2) / (PE_FMT_BUF + strlen(prefix) + 1) ||
	    t->cols > (SIZE_MAX - 2) / (pe_sink_fmt_max(t->dtype) + 1))
		return pe_fail(err, PE_ERR_USAGE, "rows too wide for csv");
	c->cap = (size_t)t->cols * (PE_FMT_BUF + strlen(prefix) + 1) + 2;
	if (c->cap < strlen(t->name) + 2)
		c->cap = strlen(t->name) + 2;	/* a 1-D tensor's header is its name */
	if (c->opts.col_names && c->cap < strlen(c->opts.col_names) + 2)
		c->cap = strlen(c->opts.col_names) + 2;
	c->line = malloc(c->cap);
	if (!c->line)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a csv line");
	if (!c->opts.header)
		return 0;
	if (c->opts.col_names || t->ndim == 1) {
		const char *names = c->opts.col_names ? c->opts.col_names : t->name;

		len = strlen(names);
		memcpy(c->line, names, len);
	} else {
		/* column k stands for col_origin + k * col_step (real positions
		 * for a similarity matrix); the products are in range because
		 * cols <= PE_MAX_COLS and the caller's labels are */
		for (k = 0; k < t->cols; k++)
			len += (size_t)snprintf(c->line + len, c->cap - len, "%s%s%lld",
						k ? "," : "", prefix,
						(long long)(c->opts.col_origin +
							    (int64_t)(k * (c->opts.col_step ? c->opts.col_step : 1))));
	}
	c->line[len++] = '\n';
	return pe_write(c->fp, c->line, len, err);
}

/* A row: at most pe_sink_fmt_max characters and a separator per value, and
 * the NUL pe_fmt_* writes after the last. */
static size_t csv_text_bound(const struct pe_sink *s, const struct pe_tensor *t)
{
	(void)s;
	return (size_t)t->cols * (pe_sink_fmt_max(t->dtype) + 1) + 1;
}

static int csv_encode(const struct pe_sink *s, const struct pe_tensor *t, uint64_t row,
		      const void *data, size_t nrows, char *out, size_t *len,
		      struct pe_error *err)
{
	size_t cols = (size_t)t->cols, r, k, n = 0;
	const float *f = data;
	const int32_t *iv = data;
	double v;

	(void)s;
	(void)row;
	(void)err;
	for (r = 0; r < nrows; r++) {
		for (k = 0; k < cols; k++) {
			if (k)
				out[n++] = ',';
			if (t->dtype == PE_F32)
				n += pe_fmt_f32(f[r * cols + k], out + n);
			else if (t->dtype == PE_I32)
				n += pe_fmt_i64(iv[r * cols + k], out + n);
			else
				n += pe_sink_fmt(t->dtype, data, r * cols + k, out + n, &v);
		}
		out[n++] = '\n';
	}
	*len = n;
	return 0;
}

static int csv_text(struct pe_sink *s, const char *text, size_t len, struct pe_error *err)
{
	return pe_write(((struct csv_sink *)s)->fp, text, len, err);
}

static void csv_destroy(struct pe_sink *s)
{
	struct csv_sink *c = (struct csv_sink *)s;

	free(c->line);
	free(c);
}

static const struct pe_sink_ops csv_ops = {
	.begin = csv_begin,
	.tensor = pe_sink_nop_tensor,
	.end = pe_sink_nop_end,
	.destroy = csv_destroy,
	.text_bound = csv_text_bound,
	.encode = csv_encode,
	.text = csv_text,
};

struct pe_sink *pe_sink_csv_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	struct csv_sink *c = calloc(1, sizeof *c);

	if (!c) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	c->base.ops = &csv_ops;
	c->fp = fp;
	c->opts = *opts;
	return &c->base;
}
