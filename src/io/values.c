/* A list of numbers from a file (see values.h). */
#include "io/values.h"

#include <stdlib.h>
#include <string.h>

#include "core/matrix.h"
#include "core/parse.h"
#include "io/bytes.h"
#include "io/input.h"

/* the longest number token read (digits of a double and then some) */
#define TOKEN_MAX 64

static int is_sep(unsigned char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int pe_values_parse_text(const unsigned char *buf, size_t len, const char *name, size_t max,
			 double **out, size_t *n, struct pe_error *err)
{
	size_t i = 0, j, cap = 0, count = 0, line = 1;
	double *v = NULL, *nv, x;
	char tok[TOKEN_MAX + 1], shown[48];

	*out = NULL;
	*n = 0;
	while (i < len) {
		if (buf[i] == '#') {
			while (i < len && buf[i] != '\n')
				i++;
			continue;
		}
		if (is_sep(buf[i])) {
			line += buf[i] == '\n';
			i++;
			continue;
		}
		for (j = i; j < len && !is_sep(buf[j]) && buf[j] != '#'; j++)
			;
		pe_quote(shown, sizeof shown, buf + i, j - i, 40, 0);
		if (j - i > TOKEN_MAX || memchr(buf + i, '\0', j - i)) {
			free(v);
			return pe_fail(err, PE_ERR_DATA, "%s: line %zu: '%s' is not a number", name, line, shown);
		}
		memcpy(tok, buf + i, j - i);
		tok[j - i] = '\0';
		if (pe_parse_double(tok, &x) != 0) {
			free(v);
			return pe_fail(err, PE_ERR_DATA, "%s: line %zu: '%s' is not a finite number", name,
				       line, shown);
		}
		if (count == max) {
			free(v);
			return pe_fail(err, PE_ERR_DATA, "%s: more than %zu values", name, max);
		}
		if (count == cap) {
			cap = cap ? 2 * cap : 256;
			if (cap > max)
				cap = max;
			nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				free(v);
				return pe_fail(err, PE_ERR_NOMEM, "out of memory");
			}
			v = nv;
		}
		v[count++] = x;
		i = j;
	}
	if (count == 0)
		return pe_fail(err, PE_ERR_DATA, "%s: no numbers in it", name);
	*out = v;
	*n = count;
	return 0;
}

/* a table of one row or one column, as a list */
static int from_table(const struct pe_matrix *m, const char *name, size_t max, double **out,
		      size_t *n, struct pe_error *err)
{
	uint64_t count = m->rows * m->cols, i;

	if (m->rows != 1 && m->cols != 1)
		return pe_fail(err, PE_ERR_DATA, "%s: a table of %llu x %llu values, not a list (one row or one column)",
			       name, (unsigned long long)m->rows, (unsigned long long)m->cols);
	if (count > max)
		return pe_fail(err, PE_ERR_DATA, "%s: more than %zu values", name, max);
	*out = malloc((size_t)count * sizeof **out);
	if (!*out)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (i = 0; i < count; i++)
		(*out)[i] = (double)m->v[i];
	*n = (size_t)count;
	return 0;
}

int pe_read_values(const char *path, const char *tensor, size_t max, size_t max_bytes,
		   double **out, size_t *n, struct pe_table_info *info, struct pe_error *err)
{
	struct pe_input in;
	struct pe_read_opts o;
	struct pe_matrix m = { 0, 0, NULL };
	struct pe_table_info local;
	enum pe_in_format f;
	int rc;

	*out = NULL;
	*n = 0;
	if (!info)
		info = &local;
	memset(info, 0, sizeof *info);
	if (pe_input_open(&in, path, max_bytes, err) != 0) {
		pe_input_close(&in);
		return -1;
	}
	f = pe_in_sniff(in.data, in.len);
	if (f == PE_IN_CSV) {
		if (tensor) {
			pe_input_close(&in);
			return pe_fail(err, PE_ERR_USAGE, "a tensor name applies to safetensors, and %s is text",
				       in.name);
		}
		info->format = PE_IN_CSV;
		strcpy(info->dtype, "text");
		rc = pe_values_parse_text(in.data, in.len, in.name, max, out, n, err);
		if (rc == 0) {
			info->ndim = 1;
			info->shape[0] = *n;
		}
		pe_input_close(&in);
		return rc;
	}
	memset(&o, 0, sizeof o);
	o.format = f;
	o.tensor = tensor;
	rc = pe_table_parse(in.data, in.len, in.name, &o, &m, info, err);
	if (rc == 0)
		rc = from_table(&m, in.name, max, out, n, err);
	pe_matrix_free(&m);
	pe_input_close(&in);
	return rc;
}
