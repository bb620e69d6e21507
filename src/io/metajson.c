#include "io/metajson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/bytes.h"
#include "io/strbuf.h"

#include <math.h>

/* Put the byte or UTF-8 sequence at p (NUL-terminated); a byte that starts
 * no valid sequence becomes U+FFFD, as Python's errors='replace' does, so
 * JSON, safetensors and PNG iTXt text is always valid UTF-8 whatever bytes
 * a path or title held.  Returns the bytes consumed. */
static size_t put_utf8(struct pe_strbuf *b, const unsigned char *p)
{
	size_t k;

	if (*p < 0x80) {
		pe_sb_put(b, (const char *)p, 1);
		return 1;
	}
	k = pe_utf8_seq(p, strnlen((const char *)p, 4));
	if (k) {
		pe_sb_put(b, (const char *)p, k);
		return k;
	}
	pe_sb_put(b, "\xef\xbf\xbd", 3);
	return 1;
}

static void puts_utf8(struct pe_strbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p)
		p += put_utf8(b, p);
}

/* A number; JSON has no inf or NaN, so those are the strings "inf",
 * "-inf" and "nan" (as skew records a non-finite --fill). */
static void number(struct pe_strbuf *b, double v, int json)
{
	char num[PE_FMT_BUF];

	if (isfinite(v)) {
		pe_sb_put(b, num, pe_fmt_f64(v, num));
		return;
	}
	if (json)
		pe_sb_put(b, "\"", 1);
	pe_sb_puts(b, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	if (json)
		pe_sb_put(b, "\"", 1);
}

static void quote(struct pe_strbuf *b, const char *s)
{
	char esc[8];
	const unsigned char *p;

	pe_sb_put(b, "\"", 1);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			pe_sb_put(b, esc, 2);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			pe_sb_put(b, esc, 6);
		} else {
			p += put_utf8(b, p) - 1;
		}
	}
	pe_sb_put(b, "\"", 1);
}

static char *finish(struct pe_strbuf *b)
{
	if (b->oom || !b->s) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

char *pe_utf8_clean(const char *s)
{
	struct pe_strbuf b = PE_STRBUF_INIT;

	pe_sb_put(&b, "", 0);
	puts_utf8(&b, s);
	return finish(&b);
}

char *pe_json_quote(const char *s)
{
	struct pe_strbuf b = PE_STRBUF_INIT;

	quote(&b, s);
	return finish(&b);
}

/* A value as JSON (strings quoted) or as plain text (strings bare). */
static void value(struct pe_strbuf *b, const struct pe_meta_item *it, int json)
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
		pe_sb_put(b, num, pe_fmt_i64(it->i, num));
		break;
	case PE_META_BOOL:
		pe_sb_puts(b, it->i ? "true" : "false");
		break;
	case PE_META_LIST:
		pe_sb_put(b, "[", 1);
		for (k = 0; k < it->nlist; k++) {
			if (k)
				pe_sb_put(b, ",", 1);
			number(b, it->list[k], 1);
		}
		pe_sb_put(b, "]", 1);
		break;
	}
}

char *pe_meta_value_text(const struct pe_meta_item *it)
{
	struct pe_strbuf b = PE_STRBUF_INIT;

	value(&b, it, 0);
	if (!b.s)
		pe_sb_put(&b, "", 0);
	return finish(&b);
}

char *pe_meta_json(const struct pe_meta *m)
{
	struct pe_strbuf b = PE_STRBUF_INIT;
	size_t i;

	pe_sb_put(&b, "{", 1);
	for (i = 0; i < m->n; i++) {
		if (i)
			pe_sb_put(&b, ",", 1);
		quote(&b, m->item[i].key);
		pe_sb_put(&b, ":", 1);
		value(&b, &m->item[i], 1);
	}
	pe_sb_put(&b, "}", 1);
	return finish(&b);
}
