/*
 * bytes.h - untrusted bytes in messages: UTF-8 sequences checked, other
 * bytes quoted as \xNN, JSON values shown short.  Used by the readers, the
 * config reader and the metadata writer alike.
 */
#ifndef PE_BYTES_H
#define PE_BYTES_H

#include <stddef.h>

/* JSON's whitespace (RFC 8259): space, tab, LF, CR. */
static inline int pe_json_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The length of the valid UTF-8 sequence (2 to 4 bytes: shortest form,
 * no surrogates, at most U+10FFFF) at s[0, n), or 0 if there is none. */
size_t pe_utf8_seq(const unsigned char *s, size_t n);

/* Untrusted bytes quoted for a message: at most max bytes of s[0, n),
 * bytes outside printable ASCII as \xNN (valid UTF-8 kept when utf8),
 * "..." when cut. */
void pe_quote(char *buf, size_t size, const unsigned char *s, size_t n, size_t max, int utf8);

struct cJSON;

/* A JSON value as text for a message: compact, quoted as pe_quote does,
 * at most 40 bytes and "...". */
void pe_json_text(const struct cJSON *v, char *buf, size_t size);

#endif
