/*
 * raw: the values little-endian (float32, or int32 for integer results;
 * float16, bfloat16 or float64 with --dtype), row-major, nothing else:
 * np.fromfile(path, '<f4').reshape(R, C) reads it back.  Several tensors are refused: without a header nothing would
 * tell where one ends.  npy is this sink with NumPy's header in front
 * (sink_npy.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/output.h"
#include "io/sink.h"

struct raw_sink {
	struct pe_sink base;
	FILE *fp;
	const char *name;
	size_t (*header)(const struct pe_tensor *t, unsigned char *buf, size_t cap);
	uint64_t cols;
	size_t size;		/* bytes per value */
};

static int raw_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err)
{
	struct raw_sink *r = (struct raw_sink *)s;
	unsigned char head[256];
	size_t n;

	(void)meta;
	if (nt != 1)
		return pe_fail(err, PE_ERR_USAGE,
			       "%s holds one array, this result has %zu (use safetensors or json)",
			       r->name, nt);
	r->cols = t->cols;
	r->size = pe_dtype_size(t->dtype);
	pe_write_expect(r->fp, pe_tensor_elems(t) * r->size);
	if (!r->header)
		return 0;
	n = r->header(t, head, sizeof head);
	if (n == 0)
		return pe_fail(err, PE_ERR_DATA, "%s header too long", r->name);
	return pe_write(r->fp, head, n, err);
}

static int raw_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct raw_sink *r = (struct raw_sink *)s;

	return pe_write_le(r->fp, data, nrows * (size_t)r->cols, r->size, err);
}

static void raw_destroy(struct pe_sink *s)
{
	free(s);
}

static const struct pe_sink_ops raw_ops = {
	.begin = raw_begin,
	.tensor = pe_sink_nop_tensor,
	.rows = raw_rows,
	.end = pe_sink_nop_end,
	.destroy = raw_destroy,
};

struct pe_sink *pe_sink_raw_headed(FILE *fp, const char *name,
				   size_t (*header)(const struct pe_tensor *t, unsigned char *buf,
						    size_t cap),
				   struct pe_error *err)
{
	struct raw_sink *r = calloc(1, sizeof *r);

	if (!r) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->base.ops = &raw_ops;
	r->fp = fp;
	r->name = name;
	r->header = header;
	return &r->base;
}

struct pe_sink *pe_sink_raw_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	(void)opts;
	return pe_sink_raw_headed(fp, "raw", NULL, err);
}
