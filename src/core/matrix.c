#include "core/matrix.h"

#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

int pe_matrix_alloc(struct pe_matrix *m, uint64_t rows, uint64_t cols, struct pe_error *err)
{
	memset(m, 0, sizeof *m);
	if (rows == 0 || cols == 0)
		return pe_fail(err, PE_ERR_DATA, "a table of %llu x %llu values is empty",
			       (unsigned long long)rows, (unsigned long long)cols);
	if (cols > PE_MAX_COLS || rows > PE_MAX_ELEMS / cols)
		return pe_fail(err, PE_ERR_DATA, "a table of %llu x %llu values is too large",
			       (unsigned long long)rows, (unsigned long long)cols);
	if (rows * cols > SIZE_MAX / sizeof(float))
		return pe_fail(err, PE_ERR_NOMEM, "a table of %llu x %llu values does not fit in memory",
			       (unsigned long long)rows, (unsigned long long)cols);
	m->v = pe_alloc_big((size_t)(rows * cols) * sizeof(float));
	if (!m->v)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for a table of %llu x %llu values",
			       (unsigned long long)rows, (unsigned long long)cols);
	m->rows = rows;
	m->cols = cols;
	return 0;
}

void pe_matrix_free(struct pe_matrix *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

int pe_matrix_select(const struct pe_matrix *m, uint64_t begin, uint64_t end, uint64_t stride,
		     struct pe_matrix_view *out, struct pe_error *err)
{
	memset(out, 0, sizeof *out);
	if (stride == 0)
		return pe_fail(err, PE_ERR_PARAM, "a row stride must be at least 1");
	if (!(begin < end && end <= m->rows))
		return pe_fail(err, PE_ERR_PARAM,
			       "rows %llu:%llu are not inside the table's %llu rows",
			       (unsigned long long)begin, (unsigned long long)end,
			       (unsigned long long)m->rows);
	out->v = m->v + (size_t)begin * (size_t)m->cols;
	out->rows = (end - begin - 1) / stride + 1;
	out->cols = m->cols;
	out->stride = stride;
	out->first = begin;
	return 0;
}

static int view_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_matrix_view *w = ctx;
	size_t i, rb = (size_t)w->cols * sizeof(float);

	(void)err;
	for (i = 0; i < nrows; i++)
		memcpy((unsigned char *)out + i * rb, pe_view_row(w, r0 + i), rb);
	return 0;
}

int pe_matrix_tensor(const struct pe_matrix_view *w, const char *name, struct pe_tensor *t,
		     struct pe_error *err)
{
	uint64_t shape[2] = { w->rows, w->cols };

	return pe_tensor_init(t, name, PE_F32, view_fill, w, 1, 2, shape, err);
}
