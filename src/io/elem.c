/* Element encodings of tables (io/elem.h). */
#include "io/elem.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/dtype.h"
#include "io/le.h"

size_t pe_elem_size(enum pe_elem e)
{
	switch (e) {
	case PE_ELEM_F16:
	case PE_ELEM_BF16:
		return 2;
	case PE_ELEM_F32:
		return 4;
	case PE_ELEM_F64:
	case PE_ELEM_I64:
	case PE_ELEM_U64:
		return 8;
	case PE_ELEM_I8:
	case PE_ELEM_U8:
		return 1;
	case PE_ELEM_I16:
	case PE_ELEM_U16:
		return 2;
	case PE_ELEM_I32:
	case PE_ELEM_U32:
		return 4;
	}
	return 0;
}

/* one integer element, rounded to nearest float */
static float int_to_float(const unsigned char *p, enum pe_elem e, int big)
{
	size_t k, sz = pe_elem_size(e);
	uint64_t u = 0;
	int neg;

	for (k = 0; k < sz; k++)
		u |= (uint64_t)p[big ? sz - 1 - k : k] << (8 * k);
	neg = e <= PE_ELEM_I64 && e >= PE_ELEM_I8 && (u >> (8 * sz - 1)) & 1;
	if (neg)	/* two's complement of sz bytes: minus its complement */
		return -(float)((~u & (sz == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sz)) - 1)) + 1);
	return (float)u;
}

size_t pe_elems_to_float(float *dst, size_t stride, const unsigned char *src, size_t n,
			 enum pe_elem e, int big)
{
	size_t i, over = 0;
	uint32_t u32;
	uint64_t u64;
	double d;

	switch (e) {
	case PE_ELEM_F16:
		for (i = 0; i < n; i++, src += 2)
			dst[i * stride] = pe_from_f16(big ? pe_get_u16be(src) : pe_get_u16le(src));
		break;
	case PE_ELEM_BF16:
		for (i = 0; i < n; i++, src += 2)
			dst[i * stride] = pe_from_bf16(big ? pe_get_u16be(src) : pe_get_u16le(src));
		break;
	case PE_ELEM_F32:
		if (stride == 1 && big == pe_host_big_endian()) {
			/* the host's own order: the bytes are the floats */
			memcpy(dst, src, n * 4);
			break;
		}
		for (i = 0; i < n; i++, src += 4) {
			u32 = big ? pe_get_u32be(src) : pe_get_u32le(src);
			memcpy(&dst[i * stride], &u32, 4);
		}
		break;
	case PE_ELEM_F64:
		for (i = 0; i < n; i++, src += 8) {
			u64 = big ? pe_get_u64be(src) : pe_get_u64le(src);
			memcpy(&d, &u64, 8);
			dst[i * stride] = (float)d;
			over += isfinite(d) && isinf(dst[i * stride]);
		}
		break;
	default:
		for (i = 0; i < n; i++, src += pe_elem_size(e))
			dst[i * stride] = int_to_float(src, e, big);
		break;
	}
	return over;
}

int pe_host_big_endian(void)
{
	uint16_t one = 1;
	unsigned char first;

	memcpy(&first, &one, 1);
	return first == 0;
}
