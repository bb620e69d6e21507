/*
 * elem.h - the element encodings of float tables in files, read by
 * explicit byte assembly, so neither the host's byte order nor the
 * buffer's alignment (a mapping of a file from a host of either order)
 * matters.
 */
#ifndef PE_ELEM_H
#define PE_ELEM_H

#include <stddef.h>

enum pe_elem { PE_ELEM_F16, PE_ELEM_BF16, PE_ELEM_F32, PE_ELEM_F64 };

/* Bytes per element. */
size_t pe_elem_size(enum pe_elem e);

/* n values of kind e from src (big-endian if big, else little-endian) to
 * dst[0], dst[stride], ...; float16 and bfloat16 exactly (core/dtype.h),
 * binary64 rounded to nearest (a C cast).  Returns how many finite
 * binary64 values were too large for float32. */
size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big);

/* Is this host big-endian?  (For npy's '=' byte order.) */
int pe_host_big_endian(void);

#endif
