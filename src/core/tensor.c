#include "core/tensor.h"

#include <stdio.h>
#include <string.h>

int pe_tensor_shape(struct pe_tensor *t, int ndim, const uint64_t *shape,
		    struct pe_error *err)
{
	uint64_t elems = 1;
	int i;

	if (ndim < 1 || ndim > PE_MAX_NDIM)
		return pe_fail(err, PE_ERR_USAGE, "a tensor has 1 to %d dimensions, got %d",
			       PE_MAX_NDIM, ndim);
	for (i = 0; i < ndim; i++) {
		if (shape[i] == 0)
			return pe_fail(err, PE_ERR_USAGE, "tensor '%s' has an empty dimension",
				       t->name);
		if (shape[i] > PE_MAX_ELEMS / elems)
			goto too_large;
		elems *= shape[i];
	}
	if (elems > PE_MAX_ELEMS)
		goto too_large;
	t->ndim = ndim;
	memset(t->shape, 0, sizeof t->shape);
	memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
	t->cols = ndim == 1 ? 1 : shape[ndim - 1];
	t->rows = elems / t->cols;
	if (t->cols > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_USAGE,
			       "tensor '%s' rows of %llu values are too wide (at most %llu)",
			       t->name, (unsigned long long)t->cols,
			       (unsigned long long)PE_MAX_COLS);
	return 0;
too_large:
	return pe_fail(err, PE_ERR_USAGE, "tensor '%s' is too large to address (more than 2^60 values)",
		       t->name);
}

uint64_t pe_tensor_elems(const struct pe_tensor *t)
{
	return t->rows * t->cols;
}
