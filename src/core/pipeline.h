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
 * Memory: two blocks of about PE_BLOCK_BYTES each, whatever the table size.
 * Parallel tensors are filled by worker threads (POSENC_THREADS, default
 * the number of online CPUs) while the calling thread writes the previous
 * block, so computing and writing overlap.  Output bytes do not depend on
 * the number of threads.
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

/*
 * Apply a row selection to t: with sel active, t must have
 * begin < end <= rows; the shape becomes (end - begin) x cols (a 3-D tensor
 * becomes 2-D: its rows are the stacked first two axes).  The fill
 * function is not changed; *offset receives the first row to fill.
 */
int pe_rowsel_apply(struct pe_tensor *t, const struct pe_rowsel *sel,
		    uint64_t *offset, struct pe_error *err);

/* Stream nt tensors (each with sel applied) into sink.  Returns 0 or -1. */
int pe_pump(const struct pe_tensor *t, size_t nt, const struct pe_rowsel *sel,
	    const struct pe_meta *meta, struct pe_sink *sink, struct pe_error *err);

/* Worker threads the pump uses for parallel tensors (>= 1). */
int pe_threads(void);

#endif
