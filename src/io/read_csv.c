/*
 * csv as numpy.loadtxt reads numbers: one row per line (LF or CRLF), fields
 * separated by commas, or by runs of blanks when the first line read has no
 * comma; blanks around a field ignored; '#' starts a comment anywhere on a
 * line, and lines left empty are skipped; a UTF-8 byte order mark ignored.
 * The first line that is not skipped is a header when none of its fields
 * is a number or looks like one (posenc's own --header output reads back);
 * a line with any number in it, or a field that starts as a number does
 * ("7x"), is data, so a typo in the first row is an error naming its line
 * and column, never a row silently dropped as a header.  The header
 * skipped is reported in info (header_line, header) for the caller to say
 * so.  Every row has the first row's number of fields.  A NUL byte means
 * binary data, not text: raw float32 needs its shape given.
 *
 * The buffer is not NUL-terminated, so each field is copied (into a buffer
 * that grows to the longest field: np.loadtxt reads a number of any length)
 * before strtod sees it; the double is then rounded to float, as loadtxt
 * followed by astype(float32) does, except that a finite number beyond
 * float32's range is an error rather than an infinity.  Numbers are what
 * Python's float() takes ("nan" and "inf" too: what to do with them is the
 * caller's business), not strtod's hex floats.  The value array grows
 * geometrically but never beyond one value per two bytes of input, which
 * bounds it by len.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/readers.h"

#define FIELD_FIRST 64	/* the field buffer's first size */

struct csv {
	const char *name;
	struct pe_error *err;
	int commas;		/* fields separated by commas, else by blanks */
	float *v;
	size_t n, cap, bound;
	char *field;		/* fcap bytes */
	size_t fcap;
};

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* the fields of one line [q, end) */
struct fields {
	const unsigned char *q, *end;
	int commas, done;
};

static void fields_init(struct fields *it, const struct csv *c, const unsigned char *s,
			const unsigned char *e)
{
	it->q = s;
	it->end = e;
	it->commas = c->commas;
	it->done = 0;
}

/* The next field's bounds [*fs, *fe), blanks around it left out; 0 when
 * the line has no more.  With commas, "1,2," has three fields, the last
 * empty. */
static int next_field(struct fields *it, const unsigned char **fs, const unsigned char **fe)
{
	const unsigned char *q = it->q;

	if (it->done)
		return 0;
	while (q < it->end && blank(*q))
		q++;
	if (!it->commas && q == it->end) {
		it->done = 1;
		return 0;
	}
	*fs = q;
	if (it->commas) {
		while (q < it->end && *q != ',')
			q++;
		*fe = q;
		while (*fe > *fs && blank((*fe)[-1]))
			(*fe)--;
		if (q < it->end)
			q++;
		else
			it->done = 1;
	} else {
		while (q < it->end && !blank(*q))
			q++;
		*fe = q;
	}
	it->q = q;
	return 1;
}

static size_t count_fields(const struct csv *c, const unsigned char *s, const unsigned char *e)
{
	struct fields it;
	const unsigned char *fs, *fe;
	size_t k = 0;

	fields_init(&it, c, s, e);
	while (next_field(&it, &fs, &fe))
		k++;
	return k;
}

/* The field as a float: 0, -1 when it is not a number, -2 when it is a
 * finite number beyond float32's range (not silently infinite), -3 when
 * memory runs out (c->err set). */
static int number(struct csv *c, const unsigned char *fs, const unsigned char *fe, float *out)
{
	size_t n = (size_t)(fe - fs);
	char *endp;
	double d;

	if (n == 0)
		return -1;
	if (n >= c->fcap) {
		size_t ncap = c->fcap ? c->fcap : FIELD_FIRST;
		char *nf;

		while (ncap <= n)
			ncap = ncap <= SIZE_MAX / 2 ? ncap * 2 : SIZE_MAX;
		nf = realloc(c->field, ncap);
		if (!nf) {
			pe_fail(c->err, PE_ERR_NOMEM, "%s: out of memory for a field of %zu bytes",
				c->name, n);
			return -3;
		}
		c->field = nf;
		c->fcap = ncap;
	}
	memcpy(c->field, fs, n);
	c->field[n] = '\0';
	/* strtod's C99 extras that Python's float() (hence loadtxt) refuses:
	 * hex floats (0x1p3) and nan(chars) */
	if (strpbrk(c->field, "xXpP("))
		return -1;
	d = strtod(c->field, &endp);
	if (endp != c->field + n)
		return -1;
	*out = (float)d;
	return isfinite(d) && isinf(*out) ? -2 : 0;
}

/* Does the field look like a number that went wrong: it starts as a
 * decimal does ("7x", "0x10", "1_000", ".5e"), or strtod takes all of it
 * (C's "nan(1)", "0x1p3")?  A header's words do not ("d0", "info").
 * number() has just copied it into c->field. */
static int numeric_looking(const struct csv *c)
{
	const char *p = c->field + (c->field[0] == '+' || c->field[0] == '-');
	char *endp;

	if ((p[0] >= '0' && p[0] <= '9') || (p[0] == '.' && p[1] >= '0' && p[1] <= '9'))
		return 1;
	(void)strtod(c->field, &endp);
	return *endp == '\0';
}

/* Is the line a header: no field a number, nor looking like one?  -1
 * when memory runs out. */
static int is_header(struct csv *c, const unsigned char *s, const unsigned char *e)
{
	struct fields it;
	const unsigned char *fs, *fe;
	float x;
	int why;

	fields_init(&it, c, s, e);
	while (next_field(&it, &fs, &fe)) {
		why = number(c, fs, fe, &x);
		if (why == -3)
			return -1;
		if (why != -1 || (fe > fs && numeric_looking(c)))
			return 0;
	}
	return 1;
}

static int push(struct csv *c, float x)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		float *nv;

		if (ncap > c->bound)
			ncap = c->bound;
		if (ncap <= c->n)
			ncap = c->n + 1;
		nv = realloc(c->v, ncap * sizeof *nv);
		if (!nv)
			return pe_fail(c->err, PE_ERR_NOMEM, "%s: out of memory after %zu values",
				       c->name, c->n);
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n++] = x;
	return 0;
}

static int bad_field(struct csv *c, size_t line, size_t col, const unsigned char *fs,
		     const unsigned char *fe, int why)
{
	char q[80];

	if (why == -3)
		return -1;
	if (why == -2) {
		pe_quote(q, sizeof q, fs, (size_t)(fe - fs), 40, 0);
		return pe_fail(c->err, PE_ERR_DATA,
			       "%s: line %zu, column %zu: '%s' is too large for float32 (beyond 3.4e38)",
			       c->name, line, col, q);
	}
	pe_quote(q, sizeof q, fs, (size_t)(fe - fs), 40, 0);
	return pe_fail(c->err, PE_ERR_DATA, "%s: line %zu, column %zu: '%s' is not a number",
		       c->name, line, col, q);
}

int pe_csv_parse(const unsigned char *buf, size_t len, const char *name, struct pe_matrix *out,
		 struct pe_table_info *info, struct pe_error *err)
{
	struct csv *c;
	const unsigned char *p = buf, *end = buf + len, *s, *e, *fs, *fe;
	struct fields it;
	const unsigned char *header = NULL, *header_end = NULL;
	size_t line = 0, cols = 0, first_line = 0, header_line = 0, k, nf;
	int started = 0, rc = -1;
	float x;

	memset(out, 0, sizeof *out);
	c = calloc(1, sizeof *c);
	if (!c)
		return pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", name);
	c->name = name;
	c->err = err;
	c->bound = len / 2 + 1;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	if (memchr(p, '\0', (size_t)(end - p))) {
		rc = pe_fail(err, PE_ERR_DATA,
			     "%s: binary data (a NUL byte at byte %zu), not a text table; raw float32 needs its shape",
			     name, (size_t)((const unsigned char *)memchr(p, '\0', (size_t)(end - p)) - buf));
		goto out;
	}
	while (p < end) {
		line++;
		s = p;
		e = memchr(p, '\n', (size_t)(end - p));
		p = e ? e + 1 : end;
		if (!e)
			e = end;
		if (e > s && e[-1] == '\r')
			e--;
		if (e > s && (fs = memchr(s, '#', (size_t)(e - s))) != NULL)
			e = fs;		/* a comment */
		while (s < e && blank(*s))
			s++;
		while (e > s && blank(e[-1]))
			e--;
		if (s == e)
			continue;
		if (!started) {
			int h;

			started = 1;
			c->commas = memchr(s, ',', (size_t)(e - s)) != NULL;
			h = is_header(c, s, e);
			if (h < 0)
				goto out;
			if (h) {
				header_line = line;
				header = s;
				header_end = e;
				continue;
			}
		}
		nf = count_fields(c, s, e);
		if (!cols) {
			cols = nf;
			first_line = line;
			if (cols > PE_MAX_COLS) {
				rc = pe_fail(err, PE_ERR_DATA,
					     "%s: line %zu has %zu fields, more than %llu", name, line,
					     nf, (unsigned long long)PE_MAX_COLS);
				goto out;
			}
		} else if (nf != cols) {
			rc = pe_fail(err, PE_ERR_DATA, "%s: line %zu has %zu fields, line %zu has %zu",
				     name, line, nf, first_line, cols);
			goto out;
		}
		fields_init(&it, c, s, e);
		for (k = 0; next_field(&it, &fs, &fe); k++) {
			int why = number(c, fs, fe, &x);

			if (why != 0) {
				rc = bad_field(c, line, k + 1, fs, fe, why);
				goto out;
			}
			if (push(c, x) != 0)
				goto out;
		}
	}
	if (!cols) {
		rc = pe_fail(err, PE_ERR_DATA, "%s: no rows", name);
		goto out;
	}
	out->v = c->n < c->cap ? realloc(c->v, c->n * sizeof *c->v) : c->v;
	if (!out->v)
		out->v = c->v;
	c->v = NULL;
	out->rows = c->n / cols;
	out->cols = cols;
	if (info) {
		info->format = PE_IN_CSV;
		snprintf(info->dtype, sizeof info->dtype, "text");
		info->tensor[0] = '\0';
		info->ndim = 2;
		info->shape[0] = out->rows;
		info->shape[1] = out->cols;
		info->header_line = header_line;
		if (header)
			pe_quote(info->header, sizeof info->header, header,
				 (size_t)(header_end - header), 60, 1);
	}
	rc = 0;
out:
	free(c->v);
	free(c->field);
	free(c);
	return rc;
}
