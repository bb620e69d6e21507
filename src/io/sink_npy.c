/*
 * npy: NumPy's format version 1.0 (numpy/lib/format.py), the raw sink's
 * values after a header:
 *   "\x93NUMPY" 0x01 0x00, header length (uint16 LE), then the dict
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (R, C), }
 *   ('<i4' for integers; '<f2' or '<f8' for --dtype float16 or float64)
 *   padded with spaces and ended by '\n' so the data starts at a multiple of
 *   64 bytes.  The padding rule is NumPy's own (1 to 64 spaces), so the
 *   header matches np.save byte for byte apart from the spare spaces newer
 *   NumPy versions reserve for growing an axis.
 */
#include <stdio.h>
#include <string.h>

#include "io/le.h"
#include "io/sink.h"

static size_t npy_header(const struct pe_tensor *t, unsigned char *buf, size_t cap)
{
	char dict[192];
	int n, k;
	size_t len, pad, total;

	static const char *const descr[] = { [PE_F32] = "<f4", [PE_I32] = "<i4", [PE_F16] = "<f2",
					     [PE_F64] = "<f8" };

	/* NumPy has no bfloat16: cli/emit.c refuses it before this */
	if (t->dtype == PE_BF16)
		return 0;
	n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
		     descr[t->dtype]);
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

struct pe_sink *pe_sink_npy_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err)
{
	(void)opts;
	return pe_sink_raw_headed(fp, "npy", npy_header, err);
}
