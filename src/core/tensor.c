#include "core/tensor.h"

#include <stdio.h>
#include <string.h>

size_t pe_dtype_size(enum pe_dtype d)
{
	switch (d) {
	case PE_F32:
		return sizeof(float);
	case PE_I32:
		return sizeof(int32_t);
	}
	return 4;
}

int pe_tensor_init(struct pe_tensor *t, const char *name, enum pe_dtype dtype, pe_fill_fn fill,
		   const void *ctx, int parallel, int ndim, const uint64_t *shape,
		   struct pe_error *err)
{
	size_t n = strlen(name);

	memset(t, 0, sizeof *t);
	if (n >= sizeof t->name)
		return pe_fail(err, PE_ERR_PARAM, "tensor name '%.40s...' is longer than %d bytes",
			       name, PE_NAME_MAX - 1);
	memcpy(t->name, name, n + 1);
	t->dtype = dtype;
	t->fill = fill;
	t->ctx = ctx;
	t->parallel = parallel;
	return pe_tensor_shape(t, ndim, shape, err);
}

int pe_tensor_shape(struct pe_tensor *t, int ndim, const uint64_t *shape,
		    struct pe_error *err)
{
	uint64_t elems = 1;
	int i;

	if (ndim < 1 || ndim > PE_MAX_NDIM)
		return pe_fail(err, PE_ERR_PARAM, "a tensor has 1 to %d dimensions, got %d",
			       PE_MAX_NDIM, ndim);
	for (i = 0; i < ndim; i++) {
		if (shape[i] == 0)
			return pe_fail(err, PE_ERR_PARAM, "tensor '%s' has an empty dimension",
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
		return pe_fail(err, PE_ERR_PARAM,
			       "tensor '%s' rows of %llu values are too wide (at most %llu)",
			       t->name, (unsigned long long)t->cols,
			       (unsigned long long)PE_MAX_COLS);
	return 0;
too_large:
	return pe_fail(err, PE_ERR_PARAM, "tensor '%s' is too large to address (more than 2^60 values)",
		       t->name);
}

uint64_t pe_tensor_elems(const struct pe_tensor *t)
{
	return t->rows * t->cols;
}
