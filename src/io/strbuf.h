/*
 * strbuf.h - a growing NUL-terminated text buffer, as git's strbuf: the
 * writers that build a text in memory before writing it once (io/metajson,
 * io/report).  An append never fails where the caller has to look: out of
 * memory it sets oom and the appends after it do nothing, so the caller
 * checks oom once, at the end.
 *
 *   struct pe_strbuf b = PE_STRBUF_INIT;
 *   pe_sb_puts(&b, "..."); ...
 *   if (b.oom) ...          else b.s holds b.len bytes and a NUL
 *   free(b.s);              (NULL until the first append)
 */
#ifndef PE_STRBUF_H
#define PE_STRBUF_H

#include <stddef.h>

struct pe_strbuf {
	char *s;
	size_t len, cap;
	int oom;
};

#define PE_STRBUF_INIT { NULL, 0, 0, 0 }

/* n bytes of p (n may be 0: b.s is then allocated, an empty string). */
void pe_sb_put(struct pe_strbuf *b, const void *p, size_t n);
void pe_sb_puts(struct pe_strbuf *b, const char *s);

#endif
