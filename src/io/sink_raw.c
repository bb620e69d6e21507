/*
 * raw and npy: the values little-endian (float32, or int32 for integer
 * results), row-major; npy puts NumPy's header in front.
 *
 * raw: np.fromfile(path, '<f4').reshape(R, C) reads it back.  Several
 * tensors are refused: without a header nothing would tell where one ends.
 *
 * npy: format version 1.0 (numpy/lib/format.py):
 *   "\x93NUMPY" 0x01 0x00, header length (uint16 LE), then the dict
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (R, C), }
 *   padded with spaces and ended by '\n' so the data starts at a multiple of
 *   64 bytes.  The padding rule is NumPy's own (1 to 64 spaces), so the
 *   header matches np.save byte for byte apart from the spare spaces newer
 *   NumPy versions reserve for growing an axis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/le.h"
#include "io/output.h"
#include "io/sink.h"

size_t pe_npy_header(const struct pe_tensor *t, unsigned char *buf, size_t cap)
{
	char dict[192];
	int n, k;
	size_t len, pad, total;

	n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
		     t->dtype == PE_F32 ? "<f4" : "<i4");
	for (k = 0; k < t->ndim; k++)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%llu", k ? ", " : "",
			      (unsigned long long)t->shape[k]);
	n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
	len = (size_t)n;
	pad = 64 - ((10 + len + 1) % 64);
	total = 10 + len + pad + 1;
	if (total > cap)
		return 0;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	pe_put_u16le(buf + 8, (uint16_t)(total - 10));
	memcpy(buf + 10, dict, len);
	memset(buf + 10 + len, ' ', pad);
	buf[total - 1] = '\n';
	return total;
}

struct raw_sink {
	struct pe_sink base;
	FILE *fp;
	int npy;
	uint64_t cols;
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
			       r->npy ? "npy" : "raw", nt);
	r->cols = t->cols;
	pe_write_expect(r->fp, pe_tensor_elems(t) * 4);
	if (!r->npy)
		return 0;
	n = pe_npy_header(t, head, sizeof head);
	if (n == 0)
		return pe_fail(err, PE_ERR_DATA, "npy header too long");
	return pe_write(r->fp, head, n, err);
}

static int raw_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct raw_sink *r = (struct raw_sink *)s;

	return pe_write_le32(r->fp, data, nrows * (size_t)r->cols, err);
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

static struct pe_sink *make(FILE *fp, int npy, struct pe_error *err)
{
	struct raw_sink *r = calloc(1, sizeof *r);

	if (!r) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	r->base.ops = &raw_ops;
	r->fp = fp;
	r->npy = npy;
	return &r->base;
}

struct pe_sink *pe_sink_raw_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	(void)opts;
	return make(fp, 0, err);
}

struct pe_sink *pe_sink_npy_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	(void)opts;
	return make(fp, 1, err);
}
