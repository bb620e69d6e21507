/*
 * tensor.h - a result as a stream of rows.
 *
 * Every command produces one or more tensors.  A tensor is not held in
 * memory: it is a shape plus a fill function that computes any block of
 * rows [r0, r0 + nrows) into a caller-owned buffer of nrows * cols
 * elements (float for PE_F32, int32_t for PE_I32), row-major.
 *
 * The stored type (--dtype, core/dtype.h).  A float result is made as
 * float32; another stored type is made from the values themselves, never
 * from their float32 roundings (a value rounded to float32 and then to
 * bfloat16 is rounded twice): a tensor whose float32 values round a real
 * number (exact mode) also has fill64, the same rows as doubles, each the
 * real value correctly rounded to double; one whose float32 values are the
 * result itself (PyTorch's float32 pipeline emulated, values read from a
 * float32 file, random draws made as float32) says so with f32_exact, and
 * they are widened or rounded from there.  pe_tensor_as makes a tensor
 * holding another's values in a stored type: PE_F16, PE_BF16 (IEEE bits,
 * uint16_t) or PE_F64 (double).  A tensor with neither cannot be stored
 * otherwise than as float32.
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

#include "core/dtype.h"
#include "core/err.h"

#define PE_MAX_NDIM 3
#define PE_NAME_MAX 96

/* Limits that keep every size product well inside 64 bits and one row in
 * memory; larger requests are refused, never clamped. */
#define PE_MAX_COLS ((uint64_t)1 << 24)
#define PE_MAX_ELEMS ((uint64_t)1 << 60)

enum pe_dtype { PE_F32, PE_I32, PE_F16, PE_BF16, PE_F64 };

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
	pe_fill_fn fill64;	/* NULL, or the rows as doubles (see above), same ctx */
	int f32_exact;		/* the float32 values are the result itself */
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
 * ctx, parallel flag and shape (as pe_tensor_shape); block_rows 0, no
 * fill64, not f32_exact.  Returns 0 or -1. */
int pe_tensor_init(struct pe_tensor *t, const char *name, enum pe_dtype dtype, pe_fill_fn fill,
		   const void *ctx, int parallel, int ndim, const uint64_t *shape,
		   struct pe_error *err);

/* Set shape and derive rows/cols; rejects zero or oversized shapes.
 * Returns 0 or -1 (PE_ERR_PARAM: the sizes come from options). */
int pe_tensor_shape(struct pe_tensor *t, int ndim, const uint64_t *shape,
		    struct pe_error *err);

/* Number of elements (rows * cols); never overflows after pe_tensor_shape. */
uint64_t pe_tensor_elems(const struct pe_tensor *t);

/* The dtype holding a stored type's values (PE_F32, PE_F16, PE_BF16, PE_F64). */
enum pe_dtype pe_dtype_of_store(enum pe_store s);

/* Can t's values be stored as s, each rounded once from the value itself?
 * (an integer tensor keeps its int32 whatever s is). */
int pe_tensor_storable(const struct pe_tensor *t, enum pe_store s);

/*
 * dst: a tensor with src's name, shape and blocking whose rows are src's
 * values stored as s -- float64 from fill64, or widened from f32_exact
 * float32; float16 and bfloat16 rounded to nearest even once from the same
 * (core/dtype.h).  A finite value beyond the type's range is an error
 * (PE_ERR_DATA, naming the tensor, the row and column among those filled,
 * the value), not an infinity.  *as holds what dst's fill reads (a copy
 * of src): it must outlive dst.  An integer tensor, or s float32, gives
 * dst = src.  PE_ERR_PARAM when !pe_tensor_storable(src, s).
 */
struct pe_tensor_as {
	struct pe_tensor src;
	enum pe_store store;
};
int pe_tensor_as(struct pe_tensor *dst, struct pe_tensor_as *as, const struct pe_tensor *src,
		 enum pe_store s, struct pe_error *err);

#endif
