/*
 * tensor.h - a result as a stream of rows.
 *
 * Every command produces one or more tensors.  A tensor is not held in
 * memory: it is a shape plus a fill function that computes any block of
 * rows [r0, r0 + nrows) into a caller-owned buffer of nrows * cols
 * elements (float for PE_F32, int32_t for PE_I32), row-major.
 *
 * The streaming view is always 2-D: rows x cols.  The logical shape may be
 * 1-D (K values: rows = K, cols = 1), 2-D (rows x cols) or 3-D
 * (H x N x M: rows = H * N, cols = M), and writers that know about shape
 * (npy, safetensors, json) use it.
 */
#ifndef PE_TENSOR_H
#define PE_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PE_MAX_NDIM 3
#define PE_NAME_MAX 96

/* Limits that keep every size product well inside 64 bits and one row in
 * memory; larger requests are refused, never clamped. */
#define PE_MAX_COLS ((uint64_t)1 << 24)
#define PE_MAX_ELEMS ((uint64_t)1 << 60)

enum pe_dtype { PE_F32, PE_I32 };

/* Bytes per element of a dtype. */
size_t pe_dtype_size(enum pe_dtype d);

/* Fill rows [r0, r0 + nrows) into out.  When the tensor is marked parallel,
 * fill must be deterministic (the same values whichever rows were filled
 * before) and safe to call concurrently on disjoint ranges; it may keep
 * state behind ctx (similarity's block cache does).  ctx must outlive
 * every pump of the tensor.  Returns 0 or -1. */
typedef int (*pe_fill_fn)(const void *ctx, uint64_t r0, size_t nrows,
			  void *out, struct pe_error *err);

struct pe_tensor {
	char name[PE_NAME_MAX];	/* tensor name in safetensors and json */
	enum pe_dtype dtype;
	int ndim;		/* 1, 2 or 3 */
	uint64_t shape[PE_MAX_NDIM];
	uint64_t rows, cols;	/* the streaming view */
	pe_fill_fn fill;
	const void *ctx;
	int parallel;		/* fill is deterministic, and safe to call
				 * concurrently on disjoint ranges */
	size_t block_rows;	/* 0: blocks of about PE_BLOCK_BYTES (core/pipeline.h);
				 * else exactly this many rows per block, block edges
				 * at multiples of it (for fills that work on a grid) */
	size_t slice_grain;	/* 0 or 1: workers split a block anywhere; else only
				 * at rows that are multiples of it (for fills whose
				 * results depend on how rows are grouped) */
};

/* Initialise t: the name (at most PE_NAME_MAX - 1 bytes), dtype, fill,
 * ctx, parallel flag and shape (as pe_tensor_shape); block_rows 0.
 * Returns 0 or -1. */
int pe_tensor_init(struct pe_tensor *t, const char *name, enum pe_dtype dtype, pe_fill_fn fill,
		   const void *ctx, int parallel, int ndim, const uint64_t *shape,
		   struct pe_error *err);

/* Set shape and derive rows/cols; rejects zero or oversized shapes.
 * Returns 0 or -1 (PE_ERR_PARAM: the sizes come from options). */
int pe_tensor_shape(struct pe_tensor *t, int ndim, const uint64_t *shape,
		    struct pe_error *err);

/* Number of elements (rows * cols); never overflows after pe_tensor_shape. */
uint64_t pe_tensor_elems(const struct pe_tensor *t);

#endif
