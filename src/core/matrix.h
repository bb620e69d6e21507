/*
 * matrix.h - a table held in memory: rows x cols float32, row-major, owned.
 *
 * Everything posenc reads (io/read.h: npy, safetensors, csv, raw) arrives as
 * a struct pe_matrix, whatever the file's dtype; what consumes a table
 * (similarity) takes a view of it: a range of rows taken every stride-th
 * row, without copying.  A 1-D array is an N x 1 matrix.
 */
#ifndef PE_MATRIX_H
#define PE_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"

struct pe_matrix {
	uint64_t rows, cols;
	float *v;		/* rows * cols values, malloc'd */
};

/*
 * Allocate an uninitialised rows x cols matrix.  Both must be at least 1,
 * cols at most PE_MAX_COLS and rows * cols at most PE_MAX_ELEMS (checked
 * before multiplying): PE_ERR_DATA otherwise, naming the shape; PE_ERR_NOMEM
 * when memory runs out.  On failure m is empty (safe to free).
 */
int pe_matrix_alloc(struct pe_matrix *m, uint64_t rows, uint64_t cols, struct pe_error *err);

/* Release m's values; m becomes empty.  Safe on an empty or zeroed matrix. */
void pe_matrix_free(struct pe_matrix *m);

/* Rows begin, begin + stride, ... (below end) of a matrix, not copied. */
struct pe_matrix_view {
	const float *v;		/* the first selected row */
	uint64_t rows, cols;	/* selected rows, columns */
	uint64_t stride;	/* rows of the matrix from one selected row to the next */
	uint64_t first;		/* index in the matrix of the first selected row */
};

/* The view of rows [begin, end) taken every stride-th row: needs
 * begin < end <= m->rows and stride >= 1 (PE_ERR_PARAM otherwise, in the
 * matrix's words, without option names). */
int pe_matrix_select(const struct pe_matrix *m, uint64_t begin, uint64_t end, uint64_t stride,
		     struct pe_matrix_view *out, struct pe_error *err);

/* Selected row i of a view (i < rows). */
static inline const float *pe_view_row(const struct pe_matrix_view *w, uint64_t i)
{
	return w->v + (size_t)(i * w->stride) * (size_t)w->cols;
}

/* A tensor (name, rows x cols, F32, parallel) whose rows are the view's;
 * the view must outlive the tensor. */
int pe_matrix_tensor(const struct pe_matrix_view *w, const char *name, struct pe_tensor *t,
		     struct pe_error *err);

#endif
