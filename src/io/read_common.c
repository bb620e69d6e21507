/* What the format readers share (io/readers.h): the shape-to-table rule,
 * allocation with the file's name in front, the tensor listing's free. */
#include "io/readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pe_shape_text(char *buf, size_t n, const uint64_t *shape, int ndim, int python)
{
	size_t at = 0;
	int i, w;

	if (n < 8) {
		if (n)
			buf[0] = '\0';
		return;
	}
	buf[at++] = python ? '(' : '[';
	for (i = 0; i < ndim; i++) {
		w = snprintf(buf + at, n - at, "%s%llu", i ? (python ? ", " : ",") : "",
			     (unsigned long long)shape[i]);
		if (w < 0 || (size_t)w >= n - at - 5) {
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		at += (size_t)w;
	}
	if (python && ndim == 1)
		buf[at++] = ',';
	buf[at++] = python ? ')' : ']';
	buf[at] = '\0';
}

int pe_shape_table(const uint64_t *shape, int ndim, int python, const char *name,
		   const char *what, uint64_t *rows, uint64_t *cols, struct pe_error *err)
{
	char text[160];
	int k = 0, i;

	pe_shape_text(text, sizeof text, shape, ndim, python);
	while (ndim - k > 2 && shape[k] == 1)
		k++;
	if (ndim - k > 2)
		return pe_fail(err, PE_ERR_DATA, "%s: %sshape %s has %d dimensions%s; a table has 1 or 2",
			       name, what, text, ndim - k, k ? " after its leading 1s" : "");
	for (i = 0; i < ndim; i++)
		if (shape[i] == 0)
			return pe_fail(err, PE_ERR_DATA, "%s: %sshape %s has no values", name, what,
				       text);
	*rows = ndim - k >= 1 ? shape[k] : 1;
	*cols = ndim - k == 2 ? shape[k + 1] : 1;
	return 0;
}

int pe_read_alloc(struct pe_matrix *m, uint64_t rows, uint64_t cols, const char *name,
		  struct pe_error *err)
{
	struct pe_error e = { PE_OK, "" };

	if (pe_matrix_alloc(m, rows, cols, &e) == 0)
		return 0;
	return pe_fail(err, e.code, "%s: %s", name, e.msg);
}

void pe_tensor_entries_free(struct pe_tensor_entry *list, size_t n)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}
