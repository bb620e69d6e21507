/* Column names of a curve file (curves.h). */
#include "io/curves.h"

#include <stdlib.h>
#include <string.h>

#include "io/input.h"

#define NAMES_MAX_BYTES ((size_t)1 << 40)

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* Is [s, e) a number as strtod reads one (inf and nan too)? */
static int is_number(const char *s, const char *e)
{
	char buf[64], *end;
	size_t n = (size_t)(e - s);

	if (n == 0 || n >= sizeof buf)
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	(void)strtod(buf, &end);
	return *end == 0;
}

static int add(struct pe_names *out, const char *s, const char *e, struct pe_error *err)
{
	char **v = realloc(out->name, (out->n + 1) * sizeof *v), *d;

	if (!v)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	out->name = v;
	while (s < e && blank((unsigned char)*s))
		s++;
	while (e > s && blank((unsigned char)e[-1]))
		e--;
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	d = malloc((size_t)(e - s) + 1);
	if (!d)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	memcpy(d, s, (size_t)(e - s));
	d[e - s] = 0;
	out->name[out->n++] = d;
	return 0;
}

int pe_names_parse(const unsigned char *buf, size_t len, struct pe_names *out,
		   struct pe_error *err)
{
	const char *p = (const char *)buf, *end = p + len, *s, *e, *f, *q;
	int commas, header = 0;

	memset(out, 0, sizeof *out);
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	for (;;) {
		if (p >= end)
			return 0;
		s = p;
		e = memchr(p, '\n', (size_t)(end - p));
		p = e ? e + 1 : end;
		if (!e)
			e = end;
		if (e > s && e[-1] == '\r')
			e--;
		if ((f = memchr(s, '#', (size_t)(e - s))) != NULL)
			e = f;
		while (s < e && blank((unsigned char)*s))
			s++;
		while (e > s && blank((unsigned char)e[-1]))
			e--;
		if (s < e)
			break;
	}
	/* binary (npy, safetensors) is no csv: no names */
	if (memchr(s, '\0', (size_t)(e - s)))
		return 0;
	commas = memchr(s, ',', (size_t)(e - s)) != NULL;
	for (f = s; f <= e;) {
		if (commas) {
			q = memchr(f, ',', (size_t)(e - f));
			q = q ? q : e;
		} else {
			for (q = f; q < e && !blank((unsigned char)*q); q++)
				;
		}
		{
			const char *a = f, *b = q;

			while (a < b && blank((unsigned char)*a))
				a++;
			while (b > a && blank((unsigned char)b[-1]))
				b--;
			if (!is_number(a, b))
				header = 1;
		}
		if (add(out, f, q, err) != 0) {
			pe_names_free(out);
			return -1;
		}
		if (q == e)
			break;
		f = q + 1;
		while (!commas && f < e && blank((unsigned char)*f))
			f++;
	}
	if (!header)
		pe_names_free(out);
	return 0;
}

int pe_names_read(const char *path, struct pe_names *out, struct pe_error *err)
{
	struct pe_input in;
	int rc;

	memset(out, 0, sizeof *out);
	if (strcmp(path, "-") == 0)
		return 0;
	if (pe_input_open(&in, path, NAMES_MAX_BYTES, err) != 0) {
		pe_input_close(&in);
		return -1;
	}
	rc = pe_names_parse(in.data, in.len, out, err);
	pe_input_close(&in);
	return rc;
}

void pe_names_free(struct pe_names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->name[i]);
	free(n->name);
	n->name = NULL;
	n->n = 0;
}
