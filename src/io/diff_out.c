/*
 * The report is composed in memory (it is a few lines) and written with
 * one pe_write, so a failing output fails once, with the right code.
 */
#include "io/diff_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/ulp.h"
#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/strbuf.h"

/* printf onto the report (io/strbuf: out of memory is found once, at the
 * end) */
static void put(struct pe_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void put(struct pe_strbuf *b, const char *fmt, ...)
{
	char line[512], *big;
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (w < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)w < sizeof line) {
		pe_sb_put(b, line, (size_t)w);
		return;
	}
	big = malloc((size_t)w + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)w + 1, fmt, ap);
	va_end(ap);
	pe_sb_put(b, big, (size_t)w);
	free(big);
}

static int flush(FILE *fp, struct pe_strbuf *b, struct pe_error *err)
{
	int rc;

	if (b->oom) {
		free(b->s);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for the report");
	}
	rc = pe_write(fp, b->s ? b->s : "", b->len, err);
	free(b->s);
	return rc;
}

enum { TEXT, JSON, CSV };

/* a double: 7 digits for reading (TEXT), else shortest round-trip; inf
 * as text (quoted in JSON) */
static const char *num(double v, char *tmp, int how)
{
	if (isinf(v))
		return how == JSON ? "\"inf\"" : "inf";
	if (isnan(v))
		return how == JSON ? "\"nan\"" : "nan";
	if (how == TEXT)
		snprintf(tmp, PE_FMT_BUF, "%.7g", v);
	else
		pe_fmt_f64(v, tmp);
	return tmp;
}

static const char *ulps(uint64_t u, char *tmp, int json)
{
	if (u == PE_ULP_INF)
		return json ? "\"inf\"" : "inf";
	snprintf(tmp, PE_FMT_BUF, "%llu", (unsigned long long)u);
	return tmp;
}

static uint64_t lines_differ(const struct pe_diff_line *l, uint64_t n)
{
	uint64_t k, c = 0;

	for (k = 0; l && k < n; k++)
		c += l[k].differ != 0;
	return c;
}

static const char *tol_text(const struct pe_diff_tol *t, char *buf, size_t n)
{
	char a[PE_FMT_BUF], r[PE_FMT_BUF];
	size_t at = 0;

	if (t->atol == 0 && t->rtol == 0 && t->ulps == 0) {
		snprintf(buf, n, "identical float32 values");
		return buf;
	}
	buf[0] = '\0';
	if (t->atol > 0 || t->rtol > 0)
		at += (size_t)snprintf(buf, n, "|a - b| <= %s + %s |b|", num(t->atol, a, 0),
				       num(t->rtol, r, 0));
	if (t->ulps > 0 && at < n)
		snprintf(buf + at, n - at, "%s%llu ulps", at ? " or " : "within ",
			 (unsigned long long)t->ulps);
	return buf;
}

static void text_diag(struct pe_strbuf *b, const struct pe_diag *d)
{
	char r[PE_FMT_BUF];
	size_t k;

	if (!d)
		return;
	if (d->n == 0) {
		put(b, "diagnosis: no simple explanation");
		if (d->has_closest)
			put(b, " (closest: %s, residual %s: %s)", pe_cause_names[d->closest.cause],
			    num(d->closest.residual, r, 0), d->closest.text);
		put(b, "\n");
	} else {
		put(b, "diagnosis (best first; residual = difference left / difference):\n");
		for (k = 0; k < d->n; k++)
			put(b, "  %zu. %s (residual %s): %s\n", k + 1, pe_cause_names[d->f[k].cause],
			    num(d->f[k].residual, r, 0), d->f[k].text);
	}
	put(b, "  examined: %s\n", d->sample);
}

int pe_diff_write_text(FILE *fp, const struct pe_diff_report *r, struct pe_error *err)
{
	const struct pe_diff_stats *s = r->st;
	struct pe_strbuf b = PE_STRBUF_INIT;
	char x[PE_FMT_BUF], y[PE_FMT_BUF], t[200];

	put(&b, "A: %s (%s, %llu x %llu)\n", r->a.label, r->a.what, (unsigned long long)r->a.rows,
	    (unsigned long long)r->a.cols);
	put(&b, "B: %s (%s, %llu x %llu)\n", r->b.label, r->b.what, (unsigned long long)r->b.rows,
	    (unsigned long long)r->b.cols);
	if (r->shape_note[0])
		put(&b, "shapes differ: %s\n", r->shape_note);
	if (!s) {
		put(&b, "different\n");
		text_diag(&b, r->diag);
		return flush(fp, &b, err);
	}
	if (r->shape_note[0])
		put(&b, "compared: rows 0..%llu, columns 0..%llu\n", (unsigned long long)r->rows - 1,
		    (unsigned long long)r->cols - 1);
	if (s->differ)
		put(&b, "different: %llu of %llu values differ (%.4g%%; tolerance: %s)\n",
		    (unsigned long long)s->differ, (unsigned long long)s->values,
		    100.0 * (double)s->differ / (double)s->values, tol_text(&r->tol, t, sizeof t));
	else if (r->shape_note[0])
		put(&b, "different: the shapes differ; all %llu values compared are %s\n",
		    (unsigned long long)s->values, s->inexact ? "equal within the tolerance" : "equal");
	else if (s->inexact)
		put(&b, "equal: no value differs beyond the tolerance (%llu of %llu not identical; tolerance: %s)\n",
		    (unsigned long long)s->inexact, (unsigned long long)s->values,
		    tol_text(&r->tol, t, sizeof t));
	else
		put(&b, "equal: all %llu values equal (%s)\n", (unsigned long long)s->values,
		    tol_text(&r->tol, t, sizeof t));
	if (s->abs.v > 0) {
		put(&b, "max abs error  %s at row %llu, column %llu\n", num(s->abs.v, x, 0),
		    (unsigned long long)s->abs.row, (unsigned long long)s->abs.col);
		put(&b, "max rel error  %s at row %llu, column %llu\n", num(s->rel.v, x, 0),
		    (unsigned long long)s->rel.row, (unsigned long long)s->rel.col);
		put(&b, "max ulp error  %s at row %llu, column %llu\n", ulps(s->max_ulp, x, 0),
		    (unsigned long long)s->ulp.row, (unsigned long long)s->ulp.col);
		put(&b, "mean abs error %s, rms %s (over %llu comparable values)\n",
		    num(s->comparable ? s->sum_abs / (double)s->comparable : 0, x, 0),
		    num(s->comparable ? sqrt(s->sum_sq / (double)s->comparable) : 0, y, 0),
		    (unsigned long long)s->comparable);
	}
	if (s->incomparable)
		put(&b, "incomparable: %llu values (NaN or inf against another value)\n",
		    (unsigned long long)s->incomparable);
	if (s->differ) {
		put(&b, "first differing value: row %llu, column %llu\n",
		    (unsigned long long)s->first_row, (unsigned long long)s->first_col);
		put(&b, "columns that differ: %llu of %llu", (unsigned long long)lines_differ(s->col, s->cols),
		    (unsigned long long)s->cols);
		if (s->row)
			put(&b, "; rows that differ: %llu of %llu",
			    (unsigned long long)lines_differ(s->row, s->rows), (unsigned long long)s->rows);
		put(&b, "\n");
	}
	text_diag(&b, r->diag);
	return flush(fp, &b, err);
}

static void json_str(struct pe_strbuf *b, const char *s)
{
	char *q = pe_json_quote(s);

	if (!q) {
		b->oom = 1;
		return;
	}
	put(b, "%s", q);
	free(q);
}

static void json_side(struct pe_strbuf *b, const char *key, const struct pe_diff_side *d)
{
	put(b, "\"%s\":{\"label\":", key);
	json_str(b, d->label);
	put(b, ",\"what\":");
	json_str(b, d->what);
	put(b, ",\"shape\":[%llu,%llu]},", (unsigned long long)d->rows, (unsigned long long)d->cols);
}

static void json_finding(struct pe_strbuf *b, const struct pe_diag_finding *f)
{
	char x[PE_FMT_BUF];
	char *ev = pe_meta_json(&f->ev);

	if (!ev) {
		b->oom = 1;
		return;
	}
	put(b, "{\"cause\":\"%s\",\"residual\":%s,\"evidence\":", pe_cause_names[f->cause],
	    num(f->residual, x, 1));
	/* the meta's object with "text" first */
	put(b, "{\"text\":");
	json_str(b, f->text);
	put(b, "%s%s}", strcmp(ev, "{}") ? "," : "", strcmp(ev, "{}") ? ev + 1 : "}");
	free(ev);
}

static void json_where(struct pe_strbuf *b, const char *key, const struct pe_diff_max *m)
{
	if (m->v > 0)
		put(b, ",\"%s\":[%llu,%llu]", key, (unsigned long long)m->row,
		    (unsigned long long)m->col);
	else
		put(b, ",\"%s\":null", key);
}

int pe_diff_write_json(FILE *fp, const struct pe_diff_report *r, const struct pe_meta *meta,
		       struct pe_error *err)
{
	const struct pe_diff_stats *s = r->st;
	const struct pe_diag *d = r->diag;
	struct pe_strbuf b = PE_STRBUF_INIT;
	char x[PE_FMT_BUF], y[PE_FMT_BUF];
	char *mj = meta ? pe_meta_json(meta) : NULL;
	size_t k;

	if (meta && !mj)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for the report");
	put(&b, "{");
	json_side(&b, "a", &r->a);
	json_side(&b, "b", &r->b);
	put(&b, "\"equal\":%s,\"shape_finding\":", r->equal ? "true" : "false");
	if (r->shape_note[0])
		json_str(&b, r->shape_note);
	else
		put(&b, "null");
	if (s) {
		put(&b, ",\"shape\":[%llu,%llu],\"values\":%llu,\"differ\":%llu,\"not_identical\":%llu,\"incomparable\":%llu",
		    (unsigned long long)r->rows, (unsigned long long)r->cols,
		    (unsigned long long)s->values, (unsigned long long)s->differ,
		    (unsigned long long)s->inexact, (unsigned long long)s->incomparable);
		put(&b, ",\"max_abs\":%s", num(s->abs.v > 0 ? s->abs.v : 0, x, 1));
		json_where(&b, "where", &s->abs);
		put(&b, ",\"max_rel\":%s", num(s->rel.v > 0 ? s->rel.v : 0, x, 1));
		json_where(&b, "where_rel", &s->rel);
		put(&b, ",\"max_ulp\":%s", ulps(s->max_ulp, x, 1));
		json_where(&b, "where_ulp", &s->ulp);
		put(&b, ",\"mean_abs\":%s,\"rms\":%s",
		    num(s->comparable ? s->sum_abs / (double)s->comparable : 0, x, 1),
		    num(s->comparable ? sqrt(s->sum_sq / (double)s->comparable) : 0, y, 1));
		if (s->differ)
			put(&b, ",\"first_row\":%llu,\"first_col\":%llu", (unsigned long long)s->first_row,
			    (unsigned long long)s->first_col);
		else
			put(&b, ",\"first_row\":null,\"first_col\":null");
		put(&b, ",\"cols_differ\":%llu", (unsigned long long)lines_differ(s->col, s->cols));
		if (s->row)
			put(&b, ",\"rows_differ\":%llu", (unsigned long long)lines_differ(s->row, s->rows));
		put(&b, ",\"tolerance\":{\"atol\":%s,\"rtol\":%s,\"ulps\":%llu}", num(r->tol.atol, x, 1),
		    num(r->tol.rtol, y, 1), (unsigned long long)r->tol.ulps);
	}
	if (d) {
		put(&b, ",\"diagnosis\":[");
		for (k = 0; k < d->n; k++) {
			put(&b, "%s", k ? "," : "");
			json_finding(&b, &d->f[k]);
		}
		put(&b, "],\"closest\":");
		if (d->n == 0 && d->has_closest)
			json_finding(&b, &d->closest);
		else
			put(&b, "null");
		put(&b, ",\"sample\":");
		json_str(&b, d->sample);
	}
	if (mj)
		put(&b, ",\"meta\":%s", mj);
	put(&b, "}\n");
	free(mj);
	return flush(fp, &b, err);
}

int pe_diff_write_lines(FILE *fp, const char *what, const struct pe_diff_line *l, uint64_t n,
			uint64_t len, int64_t origin, struct pe_error *err)
{
	char line[5 * PE_FMT_BUF + 64], x[PE_FMT_BUF], y[PE_FMT_BUF], z[PE_FMT_BUF], u[PE_FMT_BUF];
	uint64_t k;
	int w;

	w = snprintf(line, sizeof line, "%s,max_abs,mean_abs,max_rel,max_ulp,differ\n", what);
	if (pe_write(fp, line, (size_t)w, err) != 0)
		return -1;
	for (k = 0; k < n; k++) {
		w = snprintf(line, sizeof line, "%lld,%s,%s,%s,%s,%llu\n", (long long)origin + (long long)k,
			     num(l[k].max_abs, x, CSV), num(l[k].sum_abs / (double)len, y, CSV),
			     num(l[k].max_rel, z, CSV), ulps(l[k].max_ulp, u, 0),
			     (unsigned long long)l[k].differ);
		if (pe_write(fp, line, (size_t)w, err) != 0)
			return -1;
	}
	return 0;
}
