/*
 * The report tree and its three writers (see report.h).  Each writer
 * renders into memory and writes once, so an out-of-memory report writes
 * nothing and a write error is the output's own (pe_write).
 */
#include "io/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/strbuf.h"

enum rtype { R_RECORD, R_LIST, R_NUM, R_F32, R_INT, R_BOOL, R_NULL, R_STR };

struct pe_rnode {
	struct pe_report *rep;
	enum rtype type;
	const char *key;
	double num;
	int64_t i;
	char *str;
	struct pe_rnode *child, *last, *next;
	size_t n;
};

struct pe_report {
	struct pe_rnode root;
	int oom;
};

struct pe_report *pe_report_new(void)
{
	struct pe_report *r = calloc(1, sizeof *r);

	if (r) {
		r->root.rep = r;
		r->root.type = R_RECORD;
	}
	return r;
}

static void free_children(struct pe_rnode *n)
{
	struct pe_rnode *c = n->child, *next;

	for (; c; c = next) {
		next = c->next;
		free_children(c);
		free(c->str);
		free(c);
	}
}

void pe_report_free(struct pe_report *r)
{
	if (!r)
		return;
	free_children(&r->root);
	free(r);
}

struct pe_rnode *pe_report_root(struct pe_report *r)
{
	return r ? &r->root : NULL;
}

static struct pe_rnode *add(struct pe_rnode *parent, const char *key, enum rtype type)
{
	struct pe_rnode *n;

	if (!parent)
		return NULL;
	n = calloc(1, sizeof *n);
	if (!n) {
		parent->rep->oom = 1;
		return NULL;
	}
	n->rep = parent->rep;
	n->type = type;
	n->key = key;
	if (parent->last)
		parent->last->next = n;
	else
		parent->child = n;
	parent->last = n;
	parent->n++;
	return n;
}

struct pe_rnode *pe_rep_record(struct pe_rnode *parent, const char *key)
{
	return add(parent, key, R_RECORD);
}

struct pe_rnode *pe_rep_list(struct pe_rnode *parent, const char *key)
{
	return add(parent, key, R_LIST);
}

/* a scalar member: its number (R_NUM, R_F32) or integer (R_INT, R_BOOL) */
static void leaf(struct pe_rnode *parent, const char *key, enum rtype type, double num, int64_t i)
{
	struct pe_rnode *n = add(parent, key, type);

	if (n) {
		n->num = num;
		n->i = i;
	}
}

void pe_rep_num(struct pe_rnode *parent, const char *key, double v)
{
	leaf(parent, key, R_NUM, v, 0);
}

void pe_rep_f32(struct pe_rnode *parent, const char *key, float v)
{
	leaf(parent, key, R_F32, (double)v, 0);
}

void pe_rep_int(struct pe_rnode *parent, const char *key, int64_t v)
{
	leaf(parent, key, R_INT, 0, v);
}

void pe_rep_bool(struct pe_rnode *parent, const char *key, int v)
{
	leaf(parent, key, R_BOOL, 0, v != 0);
}

void pe_rep_null(struct pe_rnode *parent, const char *key)
{
	add(parent, key, R_NULL);
}

void pe_rep_str(struct pe_rnode *parent, const char *key, const char *fmt, ...)
{
	struct pe_rnode *n = add(parent, key, R_STR);
	va_list ap;
	int len;

	if (!n)
		return;
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	n->str = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!n->str) {
		n->rep->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(n->str, (size_t)len + 1, fmt, ap);
	va_end(ap);
}

void pe_rep_nums(struct pe_rnode *parent, const char *key, const double *v, size_t n)
{
	struct pe_rnode *l = pe_rep_list(parent, key);
	size_t k;

	for (k = 0; l && k < n; k++)
		pe_rep_num(l, NULL, v[k]);
}

struct pe_rnode *pe_rep_param(struct pe_rnode *parent, const char *key, const char *origin,
			      const char *srckey)
{
	struct pe_rnode *p = pe_rep_record(parent, key);

	pe_rep_str(p, "origin", "%s", origin);
	if (srckey && *srckey)
		pe_rep_str(p, "key", "%s", srckey);
	return p;
}

size_t pe_rep_count(const struct pe_rnode *n)
{
	return n ? n->n : 0;
}

/* ---- writing ---- */

static void pad(struct pe_strbuf *b, size_t n)
{
	static const char spaces[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;

		pe_sb_put(b, spaces, k);
		n -= k;
	}
}

/* Write what b holds; its errors or the report's out of memory. */
static int flush(FILE *fp, const struct pe_report *r, struct pe_strbuf *b, struct pe_error *err)
{
	int rc;

	if (r->oom || b->oom)
		rc = pe_fail(err, PE_ERR_NOMEM, "out of memory");
	else
		rc = b->len ? pe_write(fp, b->s, b->len, err) : 0;
	free(b->s);
	return rc;
}

static int is_scalar(const struct pe_rnode *n)
{
	return n->type != R_RECORD && n->type != R_LIST;
}

static int scalar_list(const struct pe_rnode *n)
{
	const struct pe_rnode *c;

	if (n->type != R_LIST)
		return 0;
	for (c = n->child; c; c = c->next)
		if (!is_scalar(c))
			return 0;
	return 1;
}

/* a record of scalars and scalar lists only */
static int flat(const struct pe_rnode *n)
{
	const struct pe_rnode *c;

	if (n->type != R_RECORD)
		return 0;
	for (c = n->child; c; c = c->next)
		if (!is_scalar(c) && !scalar_list(c))
			return 0;
	return 1;
}

static const struct pe_rnode *member(const struct pe_rnode *n, const char *key)
{
	const struct pe_rnode *c;

	for (c = n ? n->child : NULL; c; c = c->next)
		if (c->key && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

/* {"value", "origin"[, "key"]} */
static int is_param(const struct pe_rnode *n)
{
	const struct pe_rnode *c;

	if (n->type != R_RECORD || !member(n, "value") || !member(n, "origin"))
		return 0;
	for (c = n->child; c; c = c->next)
		if (strcmp(c->key, "value") != 0 && strcmp(c->key, "origin") != 0 &&
		    strcmp(c->key, "key") != 0 && strcmp(c->key, "note") != 0)
			return 0;
	return flat(n);
}

/* ---- scalars, in each format ---- */

enum form { JSON, TEXT, CSV };

/* A non-finite number: null in JSON, empty in csv, inf or nan in text. */
static const char *nonfinite(double v, enum form f)
{
	return f == JSON ? "null" : f == CSV ? "" : isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
}

/* Text in csv: quoted (quotes doubled) when it holds a comma, quote or
 * line break (RFC 4180). */
static void csv_text(struct pe_strbuf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		pe_sb_puts(b, s);
		return;
	}
	pe_sb_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			pe_sb_puts(b, "\"\"");
		else
			pe_sb_put(b, s, 1);
	}
	pe_sb_puts(b, "\"");
}

static void scalar(struct pe_strbuf *b, const struct pe_rnode *n, enum form f)
{
	char num[64], *q;
	const char *s = n->str ? n->str : "";

	switch (n->type) {
	case R_NUM:
	case R_F32:
		if (!isfinite(n->num))
			pe_sb_puts(b, nonfinite(n->num, f));
		else if (n->type == R_F32)
			pe_sb_put(b, num, pe_fmt_f32((float)n->num, num));
		else if (f == TEXT)
			pe_sb_put(b, num, (size_t)snprintf(num, sizeof num, "%.8g", n->num));
		else
			pe_sb_put(b, num, pe_fmt_f64(n->num, num));
		break;
	case R_INT:
		pe_sb_put(b, num, pe_fmt_i64(n->i, num));
		break;
	case R_BOOL:
		pe_sb_puts(b, n->i ? "true" : "false");
		break;
	case R_STR:
		if (f == TEXT) {
			pe_sb_puts(b, s);
		} else if (f == CSV) {
			csv_text(b, s);
		} else if ((q = pe_json_quote(s))) {
			pe_sb_puts(b, q);
			free(q);
		} else {
			b->oom = 1;
		}
		break;
	default:
		pe_sb_puts(b, f == JSON ? "null" : f == TEXT ? "-" : "");
		break;
	}
}

/* ---- JSON ---- */

static void json_key(struct pe_strbuf *b, const char *key)
{
	char *q = pe_json_quote(key);

	if (!q) {
		b->oom = 1;
		return;
	}
	pe_sb_puts(b, q);
	pe_sb_puts(b, ": ");
	free(q);
}

static void json_node(struct pe_strbuf *b, const struct pe_rnode *n, size_t depth)
{
	const struct pe_rnode *c;
	int inline_ = is_scalar(n) || scalar_list(n) || flat(n);
	const char *open = n->type == R_RECORD ? "{" : "[", *close = n->type == R_RECORD ? "}" : "]";

	if (is_scalar(n)) {
		scalar(b, n, JSON);
		return;
	}
	if (is_param(n)) {
		/* its value first, whatever order it was added in */
		static const char *const order[] = { "value", "origin", "key", "note" };
		size_t i;

		pe_sb_puts(b, "{");
		for (i = 0; i < 4; i++) {
			if (!(c = member(n, order[i])))
				continue;
			if (i)
				pe_sb_puts(b, ", ");
			json_key(b, c->key);
			json_node(b, c, depth + 1);
		}
		pe_sb_puts(b, "}");
		return;
	}
	pe_sb_puts(b, open);
	for (c = n->child; c; c = c->next) {
		if (c != n->child)
			pe_sb_puts(b, inline_ ? ", " : ",");
		if (!inline_) {
			pe_sb_puts(b, "\n");
			pad(b, 2 * (depth + 1));
		}
		if (n->type == R_RECORD)
			json_key(b, c->key);
		json_node(b, c, depth + 1);
	}
	if (!inline_ && n->child) {
		pe_sb_puts(b, "\n");
		pad(b, 2 * depth);
	}
	pe_sb_puts(b, close);
}

int pe_report_json(FILE *fp, const struct pe_report *r, struct pe_error *err)
{
	struct pe_strbuf b = PE_STRBUF_INIT;

	json_node(&b, &r->root, 0);
	pe_sb_puts(&b, "\n");
	return flush(fp, r, &b, err);
}

/* ---- text ---- */

#define WRAP 100

/* a scalar or a scalar list as text into b (sep between items), at
 * column col: long lists wrap under col */
static void text_value(struct pe_strbuf *b, const struct pe_rnode *n, const char *sep, size_t col)
{
	const struct pe_rnode *c;
	size_t line_start;

	if (is_scalar(n)) {
		scalar(b, n, TEXT);
		return;
	}
	line_start = b->len - (b->len >= col ? col : 0);
	for (c = n->child; c; c = c->next) {
		if (c != n->child) {
			pe_sb_puts(b, sep);
			if (col && b->len - line_start > WRAP) {
				while (b->len && b->s[b->len - 1] == ' ')
					b->s[--b->len] = '\0';
				pe_sb_puts(b, "\n");
				line_start = b->len;
				pad(b, col);
			}
		}
		scalar(b, c, TEXT);
	}
}

/* the width of n as text_value writes it on one line */
static size_t text_width(const struct pe_rnode *n, const char *sep)
{
	struct pe_strbuf t = PE_STRBUF_INIT;
	size_t w;

	text_value(&t, n, sep, 0);
	w = t.oom ? 0 : t.len;
	free(t.s);
	return w;
}

static int line_member(const struct pe_rnode *c)
{
	return is_scalar(c) || scalar_list(c) || is_param(c);
}

static void text_table(struct pe_strbuf *b, const struct pe_rnode *list, size_t indent);
static void text_record(struct pe_strbuf *b, const struct pe_rnode *n, size_t indent, int skip_name);

static int records_list(const struct pe_rnode *n)
{
	const struct pe_rnode *c;

	if (n->type != R_LIST || !n->child)
		return 0;
	for (c = n->child; c; c = c->next)
		if (c->type != R_RECORD)
			return 0;
	return 1;
}

static int flat_records(const struct pe_rnode *n)
{
	const struct pe_rnode *c;

	if (!records_list(n))
		return 0;
	for (c = n->child; c; c = c->next)
		if (!flat(c) || is_param(c))
			return 0;
	return 1;
}

static void text_record(struct pe_strbuf *b, const struct pe_rnode *n, size_t indent, int skip_name)
{
	const struct pe_rnode *c, *v, *k;
	size_t wkey = 0, wval = 0, worig = 0, col;
	int blank = 0, printed = 0;

	for (c = n->child; c; c = c->next) {
		if (!line_member(c) || (skip_name && c == n->child))
			continue;
		wkey = strlen(c->key) > wkey ? strlen(c->key) : wkey;
		if (is_param(c)) {
			v = member(c, "value");
			col = text_width(v, ", ");
			wval = col > wval && col <= 24 ? col : wval;
			col = strlen(member(c, "origin")->str ? member(c, "origin")->str : "");
			worig = col > worig ? col : worig;
		}
	}
	for (c = n->child; c; c = c->next) {
		if (skip_name && c == n->child)
			continue;
		if (line_member(c)) {
			if (blank)
				pe_sb_puts(b, "\n");
			blank = 0;
			printed = 1;
			pad(b, indent);
			pe_sb_puts(b, c->key);
			pad(b, wkey - strlen(c->key) + 2);
			col = indent + wkey + 2;
			if (!is_param(c)) {
				text_value(b, c, ", ", col);
				pe_sb_puts(b, "\n");
				continue;
			}
			v = member(c, "value");
			k = member(c, "key");
			col = b->len;
			text_value(b, v, ", ", indent + wkey + 2);
			col = b->len - col;
			if (col > wval) {
				/* a long value: origin and key on the next line */
				pe_sb_puts(b, "\n");
				pad(b, indent + wkey + 2 + wval);
			} else {
				pad(b, wval - col);
			}
			pe_sb_puts(b, "  ");
			scalar(b, member(c, "origin"), TEXT);
			if (k) {
				pad(b, worig - strlen(member(c, "origin")->str ? member(c, "origin")->str : "") + 2);
				scalar(b, k, TEXT);
			}
			if (member(c, "note")) {
				pe_sb_puts(b, " (");
				scalar(b, member(c, "note"), TEXT);
				pe_sb_puts(b, ")");
			}
			while (b->len && b->s[b->len - 1] == ' ')
				b->s[--b->len] = '\0';
			pe_sb_puts(b, "\n");
			continue;
		}
		/* a section */
		if (printed)
			pe_sb_puts(b, "\n");
		printed = 1;
		if (flat_records(c)) {
			pad(b, indent);
			pe_sb_puts(b, c->key);
			pe_sb_puts(b, ":\n");
			text_table(b, c, indent + 2);
		} else if (c->type == R_RECORD) {
			pad(b, indent);
			pe_sb_puts(b, c->key);
			pe_sb_puts(b, ":\n");
			text_record(b, c, indent + 2, 0);
		} else {
			const struct pe_rnode *e, *name;

			for (e = c->child; e; e = e->next) {
				if (e != c->child)
					pe_sb_puts(b, "\n");
				pad(b, indent);
				name = e->type == R_RECORD && e->child && e->child->type == R_STR
					       ? e->child : NULL;
				pe_sb_puts(b, c->key);
				if (name && name->str && *name->str) {
					pe_sb_puts(b, " ");
					scalar(b, name, TEXT);
				}
				pe_sb_puts(b, ":\n");
				if (e->type == R_RECORD)
					text_record(b, e, indent + 2, name != NULL);
				else {
					pad(b, indent + 2);
					text_value(b, e, ", ", indent + 2);
					pe_sb_puts(b, "\n");
				}
			}
		}
		blank = 1;
	}
}

/* the columns of a table: the members of its records, in order of first
 * appearance (at most MAXCOL) */
#define MAXCOL 32

static size_t table_columns(const struct pe_rnode *list, const char **cols)
{
	const struct pe_rnode *e, *c;
	size_t n = 0, k;

	for (e = list->child; e; e = e->next)
		for (c = e->child; c; c = c->next) {
			for (k = 0; k < n && strcmp(cols[k], c->key) != 0; k++)
				;
			if (k == n && n < MAXCOL)
				cols[n++] = c->key;
		}
	return n;
}

static int right_aligned(const struct pe_rnode *v)
{
	return v && (v->type == R_NUM || v->type == R_F32 || v->type == R_INT);
}

static void text_table(struct pe_strbuf *b, const struct pe_rnode *list, size_t indent)
{
	const char *cols[MAXCOL];
	size_t ncol = table_columns(list, cols), w[MAXCOL], k, len;
	int right[MAXCOL];
	const struct pe_rnode *e, *v;

	for (k = 0; k < ncol; k++) {
		w[k] = strlen(cols[k]);
		right[k] = 0;
		for (e = list->child; e; e = e->next) {
			v = member(e, cols[k]);
			len = v ? text_width(v, ",") : 1;
			w[k] = len > w[k] ? len : w[k];
			right[k] |= right_aligned(v);
		}
	}
	pad(b, indent);
	for (k = 0; k < ncol; k++) {
		len = strlen(cols[k]);
		if (right[k])
			pad(b, w[k] - len);
		pe_sb_puts(b, cols[k]);
		if (k + 1 < ncol)
			pad(b, (right[k] ? 0 : w[k] - len) + 2);
	}
	pe_sb_puts(b, "\n");
	for (e = list->child; e; e = e->next) {
		pad(b, indent);
		for (k = 0; k < ncol; k++) {
			v = member(e, cols[k]);
			len = v ? text_width(v, ",") : 1;
			if (right[k])
				pad(b, w[k] - len);
			if (v)
				text_value(b, v, ",", 0);
			else
				pe_sb_puts(b, "-");
			if (k + 1 < ncol)
				pad(b, (right[k] ? 0 : w[k] - len) + 2);
		}
		while (b->len && b->s[b->len - 1] == ' ')
			b->s[--b->len] = '\0';
		pe_sb_puts(b, "\n");
	}
}

int pe_report_text(FILE *fp, const struct pe_report *r, struct pe_error *err)
{
	struct pe_strbuf b = PE_STRBUF_INIT;

	text_record(&b, &r->root, 0, 0);
	return flush(fp, r, &b, err);
}

/* ---- csv ---- */

int pe_report_csv(FILE *fp, const struct pe_report *r, const struct pe_rnode *list,
		  struct pe_error *err)
{
	struct pe_strbuf b = PE_STRBUF_INIT;
	const char *cols[MAXCOL];
	const struct pe_rnode *e, *v, *c;
	size_t ncol = list ? table_columns(list, cols) : 0, k;

	for (k = 0; k < ncol; k++) {
		if (k)
			pe_sb_puts(&b, ",");
		pe_sb_puts(&b, cols[k]);
	}
	if (ncol)
		pe_sb_puts(&b, "\n");
	for (e = list ? list->child : NULL; e; e = e->next) {
		for (k = 0; k < ncol; k++) {
			if (k)
				pe_sb_puts(&b, ",");
			v = member(e, cols[k]);
			if (!v)
				continue;
			if (is_scalar(v)) {
				scalar(&b, v, CSV);
				continue;
			}
			for (c = v->child; c; c = c->next) {
				if (c != v->child)
					pe_sb_puts(&b, ";");
				scalar(&b, c, CSV);
			}
		}
		pe_sb_puts(&b, "\n");
	}
	return flush(fp, r, &b, err);
}
