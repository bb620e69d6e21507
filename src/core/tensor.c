#include "core/tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pe_dtype_size(enum pe_dtype d)
{
	switch (d) {
	case PE_F32:
		return sizeof(float);
	case PE_I32:
		return sizeof(int32_t);
	case PE_F16:
	case PE_BF16:
		return sizeof(uint16_t);
	case PE_F64:
		return sizeof(double);
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

enum pe_dtype pe_dtype_of_store(enum pe_store s)
{
	switch (s) {
	case PE_STORE_FLOAT16:
		return PE_F16;
	case PE_STORE_BFLOAT16:
		return PE_BF16;
	case PE_STORE_FLOAT64:
		return PE_F64;
	default:
		return PE_F32;
	}
}

int pe_tensor_storable(const struct pe_tensor *t, enum pe_store s)
{
	return t->dtype != PE_F32 || s == PE_STORE_FLOAT32 || t->fill64 || t->f32_exact;
}

/* The float16 or bfloat16 bits of v; 0 with an error for a finite v the
 * type cannot hold. */
static int narrow(const struct pe_tensor_as *as, double v, uint64_t row, uint64_t col,
		  uint16_t *out, struct pe_error *err)
{
	int half = as->store == PE_STORE_FLOAT16;
	uint16_t h = half ? pe_to_f16(v) : pe_to_bf16(v);
	float back = half ? pe_from_f16(h) : pe_from_bf16(h);

	if (isfinite(v) && !isfinite(back))
		return pe_fail(err, PE_ERR_DATA,
			       "%s[%llu, %llu] = %.9g is beyond %s's range (largest finite value %s)",
			       as->src.name, (unsigned long long)row, (unsigned long long)col, v,
			       pe_store_names[as->store], half ? "65504" : "3.3895314e+38");
	*out = h;
	return 0;
}

/* The stored rows: float64 straight from fill64 or widened in place (each
 * double at 8 i overwrites floats 2 i and 2 i + 1, read before, going
 * down); the narrow types from a scratch block of the values. */
static int as_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_tensor_as *as = ctx;
	const struct pe_tensor *t = &as->src;
	size_t n = nrows * (size_t)t->cols, i;
	unsigned char *buf, *o = out;
	int wide = t->fill64 != NULL, rc = -1;
	uint16_t h = 0;
	double d;
	float f;

	if (as->store == PE_STORE_FLOAT64) {
		if (wide)
			return t->fill64(t->ctx, r0, nrows, out, err);
		if (t->fill(t->ctx, r0, nrows, out, err) != 0)
			return -1;
		for (i = n; i-- > 0;) {
			memcpy(&f, o + 4 * i, 4);
			d = (double)f;
			memcpy(o + 8 * i, &d, 8);
		}
		return 0;
	}
	buf = malloc(n * (wide ? 8 : 4));
	if (!buf)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if ((wide ? t->fill64 : t->fill)(t->ctx, r0, nrows, buf, err) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (wide) {
			memcpy(&d, buf + 8 * i, 8);
		} else {
			memcpy(&f, buf + 4 * i, 4);
			d = (double)f;
		}
		if (narrow(as, d, r0 + i / t->cols, i % t->cols, &h, err) != 0)
			goto out;
		memcpy(o + 2 * i, &h, 2);
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

int pe_tensor_as(struct pe_tensor *dst, struct pe_tensor_as *as, const struct pe_tensor *src,
		 enum pe_store s, struct pe_error *err)
{
	*dst = *src;
	if (src->dtype != PE_F32 || s == PE_STORE_FLOAT32)
		return 0;
	if (!pe_tensor_storable(src, s))
		return pe_fail(err, PE_ERR_PARAM,
			       "'%s' holds float32 roundings of values it does not keep: it cannot be stored as %s",
			       src->name, pe_store_names[s]);
	as->src = *src;
	as->store = s;
	dst->dtype = pe_dtype_of_store(s);
	dst->fill = as_fill;
	dst->fill64 = NULL;
	dst->f32_exact = 0;
	dst->ctx = as;
	return 0;
}
