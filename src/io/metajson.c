#include "io/metajson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/bytes.h"

#include <math.h>

struct buf {
	char *p;
	size_t n, cap;
	int oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
	char *q;
	size_t cap;

	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Put the byte or UTF-8 sequence at p (NUL-terminated); a byte that starts
 * no valid sequence becomes U+FFFD, as Python's errors='replace' does, so
 * JSON, safetensors and PNG iTXt text is always valid UTF-8 whatever bytes
 * a path or title held.  Returns the bytes consumed. */
static size_t put_utf8(struct buf *b, const unsigned char *p)
{
	size_t k;

	if (*p < 0x80) {
		put(b, (const char *)p, 1);
		return 1;
	}
	k = pe_utf8_seq(p, strnlen((const char *)p, 4));
	if (k) {
		put(b, (const char *)p, k);
		return k;
	}
	put(b, "\xef\xbf\xbd", 3);
	return 1;
}

static void puts_utf8(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p)
		p += put_utf8(b, p);
}

/* A number; JSON has no inf or NaN, so those are the strings "inf",
 * "-inf" and "nan" (as skew records a non-finite --fill). */
static void number(struct buf *b, double v, int json)
{
	char num[PE_FMT_BUF];

	if (isfinite(v)) {
		put(b, num, pe_fmt_f64(v, num));
		return;
	}
	if (json)
		put(b, "\"", 1);
	puts_(b, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	if (json)
		put(b, "\"", 1);
}

static void quote(struct buf *b, const char *s)
{
	char esc[8];
	const unsigned char *p;

	put(b, "\"", 1);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			put(b, esc, 2);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			put(b, esc, 6);
		} else {
			p += put_utf8(b, p) - 1;
		}
	}
	put(b, "\"", 1);
}

static char *finish(struct buf *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		return NULL;
	}
	return b->p;
}

char *pe_utf8_clean(const char *s)
{
	struct buf b = { 0 };

	put(&b, "", 0);
	puts_utf8(&b, s);
	return finish(&b);
}

char *pe_json_quote(const char *s)
{
	struct buf b = { 0 };

	quote(&b, s);
	return finish(&b);
}

/* A value as JSON (strings quoted) or as plain text (strings bare). */
static void value(struct buf *b, const struct pe_meta_item *it, int json)
{
	char num[PE_FMT_BUF];
	size_t k;

	switch (it->kind) {
	case PE_META_STR:
		if (json)
			quote(b, it->str);
		else
			puts_utf8(b, it->str);
		break;
	case PE_META_NUM:
		number(b, it->num, json);
		break;
	case PE_META_INT:
		put(b, num, pe_fmt_i64(it->i, num));
		break;
	case PE_META_BOOL:
		puts_(b, it->i ? "true" : "false");
		break;
	case PE_META_LIST:
		put(b, "[", 1);
		for (k = 0; k < it->nlist; k++) {
			if (k)
				put(b, ",", 1);
			number(b, it->list[k], 1);
		}
		put(b, "]", 1);
		break;
	}
}

char *pe_meta_value_text(const struct pe_meta_item *it)
{
	struct buf b = { 0 };

	value(&b, it, 0);
	if (!b.p)
		put(&b, "", 0);
	return finish(&b);
}

char *pe_meta_json(const struct pe_meta *m)
{
	struct buf b = { 0 };
	size_t i;

	put(&b, "{", 1);
	for (i = 0; i < m->n; i++) {
		if (i)
			put(&b, ",", 1);
		quote(&b, m->item[i].key);
		put(&b, ":", 1);
		value(&b, &m->item[i], 1);
	}
	put(&b, "}", 1);
	return finish(&b);
}
