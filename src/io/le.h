/*
 * le.h - little-endian serialisation by explicit byte shifts, so every
 * binary file posenc writes has the same bytes on any host.  Compilers turn
 * these loops into plain stores on little-endian machines.
 */
#ifndef PE_LE_H
#define PE_LE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void pe_put_u16le(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)(v >> 8);
}

static inline void pe_put_u32le(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
	p[2] = (unsigned char)((v >> 16) & 0xff);
	p[3] = (unsigned char)(v >> 24);
}

static inline void pe_put_u64le(unsigned char *p, uint64_t v)
{
	pe_put_u32le(p, (uint32_t)(v & 0xffffffffu));
	pe_put_u32le(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t pe_get_u16le(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t pe_get_u32le(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t pe_get_u64le(const unsigned char *p)
{
	return (uint64_t)pe_get_u32le(p) | ((uint64_t)pe_get_u32le(p + 4) << 32);
}

/* Big-endian reads, for files from big-endian hosts (npy's '>f4'). */
static inline uint16_t pe_get_u16be(const unsigned char *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t pe_get_u32be(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
	       (uint32_t)p[3];
}

static inline uint64_t pe_get_u64be(const unsigned char *p)
{
	return ((uint64_t)pe_get_u32be(p) << 32) | pe_get_u32be(p + 4);
}

/* n 4-byte values (float or int32_t) from src to little-endian dst. */
static inline void pe_put_4le_block(unsigned char *dst, const void *src, size_t n)
{
	const unsigned char *s = src;
	size_t i;
	uint32_t v;

	for (i = 0; i < n; i++) {
		memcpy(&v, s + 4 * i, 4);
		pe_put_u32le(dst + 4 * i, v);
	}
}

#endif
