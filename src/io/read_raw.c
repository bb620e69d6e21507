/*
 * raw: rows x cols little-endian float32, row-major, nothing else.  With no
 * header to check, the one defence against a wrong shape is the length: it
 * must be exactly rows x cols x 4.
 */
#include <stdio.h>
#include <string.h>

#include "io/readers.h"

int pe_raw_parse(const unsigned char *buf, size_t len, const char *name, uint64_t rows,
		 uint64_t cols, struct pe_matrix *out, struct pe_table_info *info,
		 struct pe_error *err)
{
	memset(out, 0, sizeof *out);
	if (rows == 0 || cols == 0)
		return pe_fail(err, PE_ERR_USAGE, "%s: raw input needs a shape (rows x cols)", name);
	if (rows > UINT64_MAX / 4 / cols)
		return pe_fail(err, PE_ERR_DATA, "%s: a %llu x %llu float32 table is too large", name,
			       (unsigned long long)rows, (unsigned long long)cols);
	if (rows * cols * 4 != len)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: a %llu x %llu float32 table needs %llu bytes, the file has %zu",
			       name, (unsigned long long)rows, (unsigned long long)cols,
			       (unsigned long long)(rows * cols * 4), len);
	if (pe_read_alloc(out, rows, cols, name, err) != 0)
		return -1;
	pe_elems_to_float(out->v, 1, buf, (size_t)(rows * cols), PE_ELEM_F32, 0);
	if (info) {
		info->format = PE_IN_RAW;
		snprintf(info->dtype, sizeof info->dtype, "<f4");
		info->tensor[0] = '\0';
		info->ndim = 2;
		info->shape[0] = rows;
		info->shape[1] = cols;
	}
	return 0;
}
