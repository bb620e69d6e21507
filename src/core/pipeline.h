/*
 * pipeline.h - pump tensors from their fill functions into a sink.
 *
 * A sink is the abstract consumer of rows; io/ implements one per format
 * (see io/sink.h).  The call order is fixed:
 *     begin(all tensors, meta)
 *     for each tensor: tensor(i), rows(...) until all its rows are given
 *     end()
 * begin() sees every tensor's (selected) shape before any data, so formats
 * with a header that describes all tensors (safetensors) can stream.
 *
 * Memory: with worker threads three blocks of about PE_BLOCK_BYTES each (or
 * of the tensor's own block_rows; two when those are above 4 MiB), one
 * alone without; for a text sink as many blocks of their text too;
 * whatever the table size.  Parallel tensors are filled by worker threads
 * (struct pe_pump_opts: the caller decides how many) while the calling
 * thread writes the blocks before, so computing and writing overlap.  Each
 * block is cut into one contiguous slice per worker, so output bytes do not
 * depend on the number of threads or on which thread fills what.
 *
 * Lifetimes: every tensor's ctx must outlive the pump; a sink may keep the
 * tensor pointers it gets in begin() until end().
 */
#ifndef PE_PIPELINE_H
#define PE_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/meta.h"
#include "core/tensor.h"

#define PE_BLOCK_BYTES ((size_t)1 << 20)
#define PE_MAX_THREADS 16

struct pe_sink;

struct pe_sink_ops {
	int (*begin)(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		     const struct pe_meta *meta, struct pe_error *err);
	int (*tensor)(struct pe_sink *s, size_t index, struct pe_error *err);
	/* nrows rows of the current tensor, row-major, dtype of the tensor */
	int (*rows)(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err);
	int (*end)(struct pe_sink *s, struct pe_error *err);
	void (*destroy)(struct pe_sink *s);
	/*
	 * Optional text stage, for formats that are text (csv, json): when
	 * encode is set, the pump calls encode and text instead of rows.
	 * text_bound: the most bytes encode writes per row of tensor t.
	 * encode: nrows rows of t (row: the index of the first one among the
	 * rows written of t, 0-based) as text in out, its length in *len; it
	 * must not change the sink, because the pump's workers call it on
	 * their slices at once, right after filling them.  Returns 0 or -1.
	 * text: the next len bytes of the file, in order.
	 */
	size_t (*text_bound)(const struct pe_sink *s, const struct pe_tensor *t);
	int (*encode)(const struct pe_sink *s, const struct pe_tensor *t, uint64_t row,
		      const void *data, size_t nrows, char *out, size_t *len,
		      struct pe_error *err);
	int (*text)(struct pe_sink *s, const char *text, size_t len, struct pe_error *err);
};

/* Every sink starts with this member. */
struct pe_sink {
	const struct pe_sink_ops *ops;
};

/* Optional row selection applied to every tensor's streaming view. */
struct pe_rowsel {
	int active;
	uint64_t begin, end;	/* [begin, end), checked against rows */
};

/* How the pump runs: worker threads (1..PE_MAX_THREADS; 0 means 1) and an
 * optional progress callback, called on the calling thread after each block
 * is written with the rows written so far and the total of all tensors. */
struct pe_pump_opts {
	int threads;
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/*
 * Apply a row selection to t: with sel active, t must have
 * begin < end <= rows; the shape becomes (end - begin) x cols (a 3-D tensor
 * becomes 2-D: its rows are the stacked first two axes).  The fill
 * function is not changed; *offset receives the first row to fill.
 */
int pe_rowsel_apply(struct pe_tensor *t, const struct pe_rowsel *sel,
		    uint64_t *offset, struct pe_error *err);

/* Stream nt tensors (each with sel applied) into sink.  opts may be NULL
 * (one thread, no progress).  Returns 0 or -1. */
int pe_pump(const struct pe_tensor *t, size_t nt, const struct pe_rowsel *sel,
	    const struct pe_meta *meta, struct pe_sink *sink, const struct pe_pump_opts *opts,
	    struct pe_error *err);

/* Fill all of t (rows * cols elements of its dtype) into dst, with the
 * pump's workers.  Returns 0 or -1. */
int pe_tensor_materialize(const struct pe_tensor *t, void *dst, const struct pe_pump_opts *opts,
			  struct pe_error *err);

/* Rows [r0, r0 + n) of t (r0 + n <= rows) into dst, with the pump's
 * workers when t is parallel: a window of t materialized.  r0 must be a
 * multiple of t's block_rows and slice_grain when it has them.  Returns 0
 * or -1. */
int pe_tensor_fill_rows(const struct pe_tensor *t, uint64_t r0, size_t n, void *dst,
			const struct pe_pump_opts *opts, struct pe_error *err);

/* Online CPUs, 1..PE_MAX_THREADS: the callers' default thread count. */
int pe_cpu_count(void);

#endif
