#include "io/strbuf.h"

#include <stdlib.h>
#include <string.h>

void pe_sb_put(struct pe_strbuf *b, const void *p, size_t n)
{
	char *t;
	size_t cap;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		t = realloc(b->s, cap);
		if (!t) {
			b->oom = 1;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void pe_sb_puts(struct pe_strbuf *b, const char *s)
{
	pe_sb_put(b, s, strlen(s));
}
