/*
 * elem.h - the element encodings of tables in files (floats; integers for
 * position ids), read by explicit byte assembly, so neither the host's byte
 * order nor the buffer's alignment (a mapping of a file from a host of
 * either order) matters.
 */
#ifndef PE_ELEM_H
#define PE_ELEM_H

#include <stddef.h>

/* the floats of tables, and the integers read when pe_read_opts.integers
 * asks (position ids) */
enum pe_elem {
	PE_ELEM_F16, PE_ELEM_BF16, PE_ELEM_F32, PE_ELEM_F64,
	PE_ELEM_I8, PE_ELEM_I16, PE_ELEM_I32, PE_ELEM_I64,
	PE_ELEM_U8, PE_ELEM_U16, PE_ELEM_U32, PE_ELEM_U64
};

/* Bytes per element. */
size_t pe_elem_size(enum pe_elem e);

/* n values of kind e from src (big-endian if big, else little-endian) to
 * dst[0], dst[stride], ...; float16 and bfloat16 exactly (core/dtype.h),
 * binary64 and integers beyond 2^24 rounded to nearest (a C cast, as
 * NumPy's astype).  Returns how many finite
 * binary64 values were too large for float32. */
size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big);

/* Is this host big-endian?  (For npy's '=' byte order.) */
int pe_host_big_endian(void);

#endif
