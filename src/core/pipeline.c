/*
 * The pump.  Why threads at all: for the tables posenc makes, computing a
 * block (sin/cos, random numbers) and writing it (a kernel copy) cost about
 * the same, so overlapping them, and splitting the computing over the
 * cores, is what puts posenc ahead of an array-at-once NumPy script while
 * still holding only a few blocks.
 *
 * Workers are persistent for one tensor.  Blocks go round a ring of
 * PUMP_SLOTS slots (two for blocks above SMALL_BLOCK_BYTES, such as a
 * large similarity's: a third would cost more memory than it saves time);
 * each block is cut into one slice per worker (a
 * contiguous run of rows, edges fixed by the block alone, so the result
 * cannot depend on scheduling), and a worker takes the oldest slice nobody
 * has taken, opening the next block in a free slot when there is none.
 * The calling thread writes the blocks in order and frees their slots.
 * So nobody waits for a slowest slice or for the writer to hand out work:
 * a worker sleeps only when every slot is full (the writer is the
 * bottleneck), the writer only when its next block is not done (the
 * workers are).  A barrier per block, as before, cost a third of the
 * second core: a 1 MiB block computes in about 0.1 ms, and each wake-up
 * on the virtual machines measured costs tens of microseconds.
 */
#include "core/pipeline.h"

#include "core/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Below this many values a table is filled on the calling thread. */
#define PARALLEL_MIN_ELEMS ((uint64_t)1 << 17)
/* Blocks in flight with worker threads: written, being filled, filled. */
#define PUMP_SLOTS 3
#define SMALL_BLOCK_BYTES ((size_t)4 << 20)

/* One block: rows r0 .. r0 + nrows - 1 of t (absolute), filled into buf;
 * with a text sink also encoded, slice k's text at text + (its first row)
 * * bound, tlen[k] bytes long.  row: the block's first row among the rows
 * written of t. */
struct job {
	const struct pe_tensor *t;
	uint64_t r0, row;
	size_t nrows;
	unsigned char *buf;
	size_t row_bytes;
	const struct pe_sink *sink;
	char *text;
	size_t bound;
	size_t *tlen;
};

/* A block's buffers: its rows and, for a text sink, their text; with
 * worker threads also its state (under the pool's mutex). */
struct slot {
	unsigned char *buf;
	char *text;
	size_t tlen[PE_MAX_THREADS];
	struct job job;
	enum { SLOT_FREE, SLOT_FILLING, SLOT_READY } state;
	int taken, done;	/* slices handed out, slices finished */
	int failed;		/* the first failed slice's error is err */
	int failed_slice;
	struct pe_error err;
};

struct pool {
	pthread_t th[PE_MAX_THREADS];
	int nth, started;
	pthread_mutex_t mu;
	pthread_cond_t work, ready;
	int quit, idle_workers, writer_waits;
	struct slot *slot;
	unsigned long nslots;
	const struct pe_tensor *t;
	const struct pe_sink *sink;
	uint64_t off, next_row;	/* the next block to open starts at next_row */
	size_t brows;
	unsigned long opened, written;	/* blocks */
};

int pe_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > PE_MAX_THREADS)
		n = PE_MAX_THREADS;
	return (int)n;
}

/* Fill slice [a, b) of the job's block and, with a text sink, encode it;
 * *len: the text's length. */
static int do_slice(const struct job *job, size_t a, size_t b, size_t *len,
		    struct pe_error *err)
{
	unsigned char *rows = job->buf + a * job->row_bytes;

	*len = 0;
	if (b <= a)
		return 0;
	if (job->t->fill(job->t->ctx, job->r0 + a, b - a, rows, err) != 0)
		return -1;
	if (!job->text)
		return 0;
	return job->sink->ops->encode(job->sink, job->t, job->row + a, rows, b - a,
				      job->text + a * job->bound, len, err);
}

/* Where worker k of nth starts in the job's block: an even share, moved
 * down to a multiple of the tensor's slice_grain (absolute row index). */
static size_t slice_edge(const struct job *job, int k, int nth)
{
	size_t a = job->nrows * (size_t)k / (size_t)nth, g = job->t->slice_grain;
	uint64_t abs;

	if (g <= 1 || k == 0 || k == nth)
		return a;
	abs = (job->r0 + a) / g * g;
	return abs <= job->r0 ? 0 : (size_t)(abs - job->r0);
}

int pe_rowsel_apply(struct pe_tensor *t, const struct pe_rowsel *sel,
		    uint64_t *offset, struct pe_error *err)
{
	uint64_t shape[2];

	*offset = 0;
	if (!sel || !sel->active)
		return 0;
	if (sel->begin >= sel->end || sel->end > t->rows)
		return pe_fail(err, PE_ERR_PARAM,
			       "rows %llu:%llu are outside the %llu rows of '%s' (need A < B <= %llu)",
			       (unsigned long long)sel->begin, (unsigned long long)sel->end,
			       (unsigned long long)t->rows, t->name,
			       (unsigned long long)t->rows);
	*offset = sel->begin;
	if (t->ndim == 1) {
		shape[0] = sel->end - sel->begin;
		return pe_tensor_shape(t, 1, shape, err);
	}
	shape[0] = sel->end - sel->begin;
	shape[1] = t->cols;
	return pe_tensor_shape(t, 2, shape, err);
}

static size_t block_rows(const struct pe_tensor *t)
{
	size_t b;

	if (t->block_rows)
		b = t->block_rows;
	else if ((b = PE_BLOCK_BYTES / ((size_t)t->cols * pe_dtype_size(t->dtype))) == 0)
		b = 1;
	if ((uint64_t)b > t->rows)
		b = (size_t)t->rows;
	return b;
}

/* Rows in the block that starts at selected row r (absolute row off + r):
 * at most brows, and for a tensor with its own block_rows the block ends
 * at the next multiple of it, so its blocks sit on the fill's grid. */
static size_t block_len(const struct pe_tensor *t, uint64_t off, uint64_t r, size_t brows)
{
	uint64_t n = t->rows - r;

	if (t->block_rows)
		n = n < t->block_rows - (off + r) % t->block_rows
			    ? n : t->block_rows - (off + r) % t->block_rows;
	return n < brows ? (size_t)n : brows;
}

struct progress {
	const struct pe_pump_opts *o;
	uint64_t done, total;
};

static void advance(struct progress *p, size_t n)
{
	p->done += n;
	if (p->o && p->o->progress)
		p->o->progress(p->o->progress_arg, p->done, p->total);
}

/* The job for the block of n rows at selected row r of t into slot. */
static struct job block_job(const struct pe_tensor *t, uint64_t off, uint64_t r, size_t n,
			    const struct pe_sink *sink, struct slot *slot)
{
	struct job job;

	job.t = t;
	job.r0 = off + r;
	job.row = r;
	job.nrows = n;
	job.buf = slot->buf;
	job.row_bytes = (size_t)t->cols * pe_dtype_size(t->dtype);
	job.sink = sink;
	job.text = sink->ops->encode ? slot->text : NULL;
	job.bound = job.text ? sink->ops->text_bound(sink, t) : 0;
	job.tlen = slot->tlen;
	return job;
}

/* Give the sink a block that nslices slices filled (and encoded). */
static int put_block(struct pe_sink *sink, const struct job *job, int nslices,
		     struct pe_error *err)
{
	int k;

	if (!job->text)
		return sink->ops->rows(sink, job->buf, job->nrows, err);
	for (k = 0; k < nslices; k++)
		if (job->tlen[k] &&
		    sink->ops->text(sink, job->text + slice_edge(job, k, nslices) * job->bound,
				    job->tlen[k], err) != 0)
			return -1;
	return 0;
}

/* Under the mutex: a slice to fill, from the oldest open block with one
 * left, else from a new block in the next slot if it is free; NULL when
 * there is none. */
static struct slot *take_slice(struct pool *pool, int *k)
{
	unsigned long b;
	struct slot *sl;
	size_t n;

	for (b = pool->written; b < pool->opened; b++) {
		sl = &pool->slot[b % pool->nslots];
		if (sl->state == SLOT_FILLING && sl->taken < pool->nth) {
			*k = sl->taken++;
			return sl;
		}
	}
	sl = &pool->slot[pool->opened % pool->nslots];
	if (pool->next_row >= pool->t->rows || sl->state != SLOT_FREE)
		return NULL;
	n = block_len(pool->t, pool->off, pool->next_row, pool->brows);
	sl->job = block_job(pool->t, pool->off, pool->next_row, n, pool->sink, sl);
	sl->state = SLOT_FILLING;
	sl->taken = 1;
	sl->done = 0;
	sl->failed = 0;
	pool->next_row += n;
	pool->opened++;
	if (pool->idle_workers && pool->nth > 1)
		pthread_cond_broadcast(&pool->work);	/* the block's other slices */
	*k = 0;
	return sl;
}

static void *worker(void *p)
{
	struct pool *pool = p;
	struct slot *sl;
	struct pe_error err;
	size_t len;
	int k, rc;

	pthread_mutex_lock(&pool->mu);
	while (!pool->quit) {
		sl = take_slice(pool, &k);
		if (!sl) {
			pool->idle_workers++;
			pthread_cond_wait(&pool->work, &pool->mu);
			pool->idle_workers--;
			continue;
		}
		pthread_mutex_unlock(&pool->mu);
		err.code = PE_OK;
		err.msg[0] = '\0';
		rc = do_slice(&sl->job, slice_edge(&sl->job, k, pool->nth),
			      slice_edge(&sl->job, k + 1, pool->nth), &len, &err);
		pthread_mutex_lock(&pool->mu);
		sl->tlen[k] = len;
		/* the first slice's error, whichever thread ends first */
		if (rc != 0 && (!sl->failed || k < sl->failed_slice)) {
			sl->failed = 1;
			sl->failed_slice = k;
			sl->err = err;
		}
		if (++sl->done == pool->nth) {
			sl->state = SLOT_READY;
			if (pool->writer_waits)
				pthread_cond_signal(&pool->ready);
		}
	}
	pthread_mutex_unlock(&pool->mu);
	return NULL;
}

static int pool_start(struct pool *pool, int nth, struct pe_error *err)
{
	int i, have_work = 0, have_ready = 0;

	pool->nth = nth;
	pool->started = 0;
	pool->quit = pool->idle_workers = pool->writer_waits = 0;
	if (pthread_mutex_init(&pool->mu, NULL) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "cannot create a mutex");
	have_work = pthread_cond_init(&pool->work, NULL) == 0;
	have_ready = have_work && pthread_cond_init(&pool->ready, NULL) == 0;
	if (!have_ready) {
		pe_fail(err, PE_ERR_NOMEM, "cannot create a condition variable");
		goto fail;
	}
	/* the slices follow nth: set before any worker runs */
	pthread_mutex_lock(&pool->mu);
	for (i = 0; i < nth; i++) {
		if (pthread_create(&pool->th[i], NULL, worker, pool) != 0)
			break;
		pool->started++;
	}
	/* fewer threads than asked for is fine: as many slices as threads */
	pool->nth = pool->started;
	pthread_mutex_unlock(&pool->mu);
	if (pool->started == 0) {
		pe_fail(err, PE_ERR_NOMEM, "cannot start a worker thread");
		goto fail;
	}
	return 0;
fail:
	if (have_ready)
		pthread_cond_destroy(&pool->ready);
	if (have_work)
		pthread_cond_destroy(&pool->work);
	pthread_mutex_destroy(&pool->mu);
	return -1;
}

static void pool_stop(struct pool *pool)
{
	int i;

	pthread_mutex_lock(&pool->mu);
	pool->quit = 1;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->mu);
	for (i = 0; i < pool->started; i++)
		pthread_join(pool->th[i], NULL);
	pthread_cond_destroy(&pool->ready);
	pthread_cond_destroy(&pool->work);
	pthread_mutex_destroy(&pool->mu);
}

static int pump_serial(const struct pe_tensor *t, uint64_t off, struct slot *slot,
		       size_t brows, struct pe_sink *sink, struct progress *pr,
		       struct pe_error *err)
{
	struct job job;
	uint64_t r;
	size_t n;

	for (r = 0; r < t->rows; r += n) {
		n = block_len(t, off, r, brows);
		job = block_job(t, off, r, n, sink, slot);
		if (do_slice(&job, 0, n, &slot->tlen[0], err) != 0 ||
		    put_block(sink, &job, 1, err) != 0)
			return -1;
		advance(pr, n);
	}
	return 0;
}

/* Workers fill (and encode) the next blocks while this thread writes
 * them in order. */
static int pump_parallel(const struct pe_tensor *t, uint64_t off, struct slot *slot,
			 int nslots, size_t brows, int nth, struct pe_sink *sink,
			 struct progress *pr, struct pe_error *err)
{
	struct pool pool;
	struct slot *sl;
	uint64_t r;
	size_t n = 0;
	int i, rc = 0;

	for (i = 0; i < nslots; i++)
		slot[i].state = SLOT_FREE;
	pool.slot = slot;
	pool.nslots = (unsigned long)nslots;
	pool.t = t;
	pool.sink = sink;
	pool.off = off;
	pool.next_row = 0;
	pool.brows = brows;
	pool.opened = pool.written = 0;
	if (pool_start(&pool, nth, err) != 0)
		return -1;
	for (r = 0; r < t->rows && rc == 0; r += n) {
		sl = &slot[pool.written % pool.nslots];
		pthread_mutex_lock(&pool.mu);
		while (sl->state != SLOT_READY) {	/* FREE until a worker opens it */
			pool.writer_waits = 1;
			pthread_cond_wait(&pool.ready, &pool.mu);
			pool.writer_waits = 0;
		}
		pthread_mutex_unlock(&pool.mu);
		if (sl->failed) {
			*err = sl->err;
			rc = -1;
			break;
		}
		n = sl->job.nrows;
		rc = put_block(sink, &sl->job, pool.nth, err);
		pthread_mutex_lock(&pool.mu);
		sl->state = SLOT_FREE;
		pool.written++;
		if (pool.idle_workers)
			pthread_cond_signal(&pool.work);
		pthread_mutex_unlock(&pool.mu);
		if (rc == 0)
			advance(pr, n);
	}
	pool_stop(&pool);
	return rc;
}

static int use_pool(const struct pe_tensor *t, int nth)
{
	return nth > 1 && t->parallel && pe_tensor_elems(t) >= PARALLEL_MIN_ELEMS;
}

int pe_pump(const struct pe_tensor *tin, size_t nt, const struct pe_rowsel *sel,
	    const struct pe_meta *meta, struct pe_sink *sink, const struct pe_pump_opts *opts,
	    struct pe_error *err)
{
	struct pe_tensor *t = NULL;
	uint64_t *off = NULL;
	struct slot slot[PUMP_SLOTS];
	size_t i, bytes, max_bytes = 0, text, max_text = 0, bound;
	int nth = opts && opts->threads > 1 ? opts->threads : 1, pool = 0, nslots, rc = -1;
	struct progress pr = { opts, 0, 0 };

	memset(slot, 0, sizeof slot);
	if (nt == 0)
		return pe_fail(err, PE_ERR_PARAM, "nothing to write");
	if (nth > PE_MAX_THREADS)
		return pe_fail(err, PE_ERR_PARAM, "at most %d threads, got %d", PE_MAX_THREADS, nth);
	t = calloc(nt, sizeof *t);
	off = calloc(nt, sizeof *off);
	if (!t || !off) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nt; i++) {
		t[i] = tin[i];
		if (pe_rowsel_apply(&t[i], sel, &off[i], err) != 0)
			goto out;
		bytes = block_rows(&t[i]) * (size_t)t[i].cols * pe_dtype_size(t[i].dtype);
		if (bytes > max_bytes)
			max_bytes = bytes;
		if (sink->ops->encode) {
			bound = sink->ops->text_bound(sink, &t[i]);
			if (block_rows(&t[i]) && bound > SIZE_MAX / block_rows(&t[i])) {
				pe_fail(err, PE_ERR_NOMEM, "rows too long as text");
				goto out;
			}
			text = block_rows(&t[i]) * bound;
			if (text > max_text)
				max_text = text;
		}
		pool |= use_pool(&t[i], nth);
		pr.total += t[i].rows;
	}
	nslots = !pool ? 1 : max_bytes <= SMALL_BLOCK_BYTES ? PUMP_SLOTS : 2;
	for (i = 0; i < (size_t)nslots; i++) {
		slot[i].buf = pe_alloc_big(max_bytes);
		slot[i].text = max_text ? pe_alloc_big(max_text) : NULL;
		if (!slot[i].buf || (max_text && !slot[i].text)) {
			pe_fail(err, PE_ERR_NOMEM, "out of memory for a block of %zu bytes",
				max_bytes + max_text);
			goto out;
		}
	}
	if (sink->ops->begin(sink, t, nt, meta, err) != 0)
		goto out;
	for (i = 0; i < nt; i++) {
		if (sink->ops->tensor(sink, i, err) != 0)
			goto out;
		if (use_pool(&t[i], nth)) {
			if (pump_parallel(&t[i], off[i], slot, nslots, block_rows(&t[i]), nth, sink,
					  &pr, err) != 0)
				goto out;
		} else if (pump_serial(&t[i], off[i], &slot[0], block_rows(&t[i]), sink, &pr,
				       err) != 0) {
			goto out;
		}
	}
	if (sink->ops->end(sink, err) != 0)
		goto out;
	rc = 0;
out:
	for (i = 0; i < PUMP_SLOTS; i++) {
		free(slot[i].buf);
		free(slot[i].text);
	}
	free(off);
	free(t);
	return rc;
}

/* pe_tensor_fill_rows: a tensor whose row 0 is row r0 of another */
struct window {
	const struct pe_tensor *t;
	uint64_t r0;
};

static int window_fill(const void *ctx, uint64_t r0, size_t n, void *out, struct pe_error *err)
{
	const struct window *w = ctx;

	return w->t->fill(w->t->ctx, w->r0 + r0, n, out, err);
}

/* pe_tensor_materialize: a sink that copies rows into memory. */
struct copy_sink {
	struct pe_sink base;
	unsigned char *dst;
	size_t row_bytes;
};

static int copy_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		      const struct pe_meta *meta, struct pe_error *err)
{
	struct copy_sink *c = (struct copy_sink *)s;

	(void)nt;
	(void)meta;
	(void)err;
	c->row_bytes = (size_t)t->cols * pe_dtype_size(t->dtype);
	return 0;
}

static int copy_tensor(struct pe_sink *s, size_t index, struct pe_error *err)
{
	(void)s;
	(void)index;
	(void)err;
	return 0;
}

static int copy_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct copy_sink *c = (struct copy_sink *)s;

	(void)err;
	memcpy(c->dst, data, nrows * c->row_bytes);
	c->dst += nrows * c->row_bytes;
	return 0;
}

static int copy_end(struct pe_sink *s, struct pe_error *err)
{
	(void)s;
	(void)err;
	return 0;
}

static void copy_destroy(struct pe_sink *s)
{
	(void)s;
}

int pe_tensor_materialize(const struct pe_tensor *t, void *dst, const struct pe_pump_opts *opts,
			  struct pe_error *err)
{
	static const struct pe_sink_ops ops = {
		.begin = copy_begin,
		.tensor = copy_tensor,
		.rows = copy_rows,
		.end = copy_end,
		.destroy = copy_destroy,
	};
	struct copy_sink c;
	struct pe_pump_opts quiet = { opts ? opts->threads : 1, NULL, NULL };

	c.base.ops = &ops;
	c.dst = dst;
	c.row_bytes = 0;
	return pe_pump(t, 1, NULL, NULL, &c.base, &quiet, err);
}

int pe_tensor_fill_rows(const struct pe_tensor *t, uint64_t r0, size_t n, void *dst,
			const struct pe_pump_opts *opts, struct pe_error *err)
{
	struct window w = { t, r0 };
	struct pe_tensor v = *t;

	if (r0 > t->rows || n > t->rows - r0)
		return pe_fail(err, PE_ERR_PARAM, "rows %llu..%llu of a tensor of %llu",
			       (unsigned long long)r0, (unsigned long long)(r0 + n),
			       (unsigned long long)t->rows);
	if (n == 0)
		return 0;
	if (!t->parallel || !opts || opts->threads <= 1 || n < 2)
		return t->fill(t->ctx, r0, n, dst, err);
	v.fill = window_fill;
	v.ctx = &w;
	v.ndim = 2;
	v.shape[0] = v.rows = n;
	v.shape[1] = v.cols = t->cols;
	return pe_tensor_materialize(&v, dst, opts, err);
}
