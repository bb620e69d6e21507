/*
 * The pump.  Why threads at all: for the tables posenc makes, computing a
 * block (sin/cos, random numbers) and writing it (a kernel copy) cost about
 * the same, so overlapping them, and splitting the computing over the
 * cores, is what puts posenc ahead of an array-at-once NumPy script while
 * still holding only two blocks.  Workers are persistent for one pump call
 * and are handed one block at a time; each takes a contiguous slice of the
 * block's rows, so the result cannot depend on scheduling.
 */
#include "core/pipeline.h"

#include "core/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Below this many values a table is filled on the calling thread. */
#define PARALLEL_MIN_ELEMS ((uint64_t)1 << 17)

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

struct pool;

struct worker_arg {
	struct pool *pool;
	int index;
};

struct pool {
	pthread_t th[PE_MAX_THREADS];
	struct worker_arg args[PE_MAX_THREADS];
	int nth, started;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned long gen;
	int busy, quit, failed, failed_slice;
	struct job job;
	struct pe_error err;
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

static void *worker(void *p)
{
	struct worker_arg *wa = p;
	struct pool *pool = wa->pool;
	unsigned long seen = 0;
	struct job job;
	struct pe_error err;
	size_t a, b, len;
	int rc;

	for (;;) {
		pthread_mutex_lock(&pool->mu);
		while (pool->gen == seen && !pool->quit)
			pthread_cond_wait(&pool->go, &pool->mu);
		if (pool->quit) {
			pthread_mutex_unlock(&pool->mu);
			return NULL;
		}
		seen = pool->gen;
		job = pool->job;
		pthread_mutex_unlock(&pool->mu);

		a = slice_edge(&job, wa->index, pool->nth);
		b = slice_edge(&job, wa->index + 1, pool->nth);
		err.code = PE_OK;
		err.msg[0] = '\0';
		rc = do_slice(&job, a, b, &len, &err);
		pthread_mutex_lock(&pool->mu);
		if (job.tlen)
			job.tlen[wa->index] = len;
		/* the first slice's error, whichever thread ends first */
		if (rc != 0 && (!pool->failed || wa->index < pool->failed_slice)) {
			pool->failed = 1;
			pool->failed_slice = wa->index;
			pool->err = err;
		}
		if (--pool->busy == 0)
			pthread_cond_signal(&pool->done);
		pthread_mutex_unlock(&pool->mu);
	}
}

static int pool_start(struct pool *pool, int nth, struct pe_error *err)
{
	int i, have_go = 0, have_done = 0;

	memset(pool, 0, sizeof *pool);
	pool->nth = nth;
	if (pthread_mutex_init(&pool->mu, NULL) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "cannot create a mutex");
	have_go = pthread_cond_init(&pool->go, NULL) == 0;
	have_done = have_go && pthread_cond_init(&pool->done, NULL) == 0;
	if (!have_done) {
		pe_fail(err, PE_ERR_NOMEM, "cannot create a condition variable");
		goto fail;
	}
	for (i = 0; i < nth; i++) {
		pool->args[i].pool = pool;
		pool->args[i].index = i;
		if (pthread_create(&pool->th[i], NULL, worker, &pool->args[i]) != 0)
			break;
		pool->started++;
	}
	if (pool->started == 0) {
		pe_fail(err, PE_ERR_NOMEM, "cannot start a worker thread");
		goto fail;
	}
	/* Fewer threads than asked for is fine: slices follow nth. */
	pool->nth = pool->started;
	return 0;
fail:
	if (have_done)
		pthread_cond_destroy(&pool->done);
	if (have_go)
		pthread_cond_destroy(&pool->go);
	pthread_mutex_destroy(&pool->mu);
	return -1;
}

static void pool_submit(struct pool *pool, const struct job *job)
{
	pthread_mutex_lock(&pool->mu);
	pool->job = *job;
	pool->busy = pool->nth;
	pool->gen++;
	pthread_cond_broadcast(&pool->go);
	pthread_mutex_unlock(&pool->mu);
}

static int pool_wait(struct pool *pool, struct pe_error *err)
{
	int failed;

	pthread_mutex_lock(&pool->mu);
	while (pool->busy)
		pthread_cond_wait(&pool->done, &pool->mu);
	failed = pool->failed;
	if (failed && err)
		*err = pool->err;
	pthread_mutex_unlock(&pool->mu);
	return failed ? -1 : 0;
}

static void pool_stop(struct pool *pool)
{
	int i;

	pthread_mutex_lock(&pool->mu);
	pool->quit = 1;
	pthread_cond_broadcast(&pool->go);
	pthread_mutex_unlock(&pool->mu);
	for (i = 0; i < pool->started; i++)
		pthread_join(pool->th[i], NULL);
	pthread_cond_destroy(&pool->done);
	pthread_cond_destroy(&pool->go);
	pthread_mutex_destroy(&pool->mu);
}

int pe_rowsel_apply(struct pe_tensor *t, const struct pe_rowsel *sel,
		    uint64_t *offset, struct pe_error *err)
{
	uint64_t shape[2];

	*offset = 0;
	if (!sel || !sel->active)
		return 0;
	if (sel->begin >= sel->end || sel->end > t->rows)
		return pe_fail(err, PE_ERR_USAGE,
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

/* A block's buffers: its rows and, for a text sink, their text. */
struct slot {
	unsigned char *buf;
	char *text;
	size_t tlen[PE_MAX_THREADS];
};

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

/* Workers fill (and encode) block k + 1 while this thread writes block k. */
static int pump_parallel(const struct pe_tensor *t, uint64_t off, struct slot slot[2],
			 size_t brows, int nth, struct pe_sink *sink, struct progress *pr,
			 struct pe_error *err)
{
	struct pool pool;
	struct job job[2];
	uint64_t r, next;
	size_t n, nn;
	int k = 0, rc = 0;

	if (pool_start(&pool, nth, err) != 0)
		return -1;
	n = block_len(t, off, 0, brows);
	job[0] = block_job(t, off, 0, n, sink, &slot[0]);
	pool_submit(&pool, &job[0]);
	if (pool_wait(&pool, err) != 0) {
		rc = -1;
		goto out;
	}
	for (r = 0; r < t->rows; r = next, n = nn, k ^= 1) {
		next = r + n;
		nn = 0;
		if (next < t->rows) {
			nn = block_len(t, off, next, brows);
			job[k ^ 1] = block_job(t, off, next, nn, sink, &slot[k ^ 1]);
			pool_submit(&pool, &job[k ^ 1]);
		}
		rc = put_block(sink, &job[k], pool.nth, err);
		if (nn && pool_wait(&pool, rc ? NULL : err) != 0)
			rc = -1;
		if (rc)
			break;
		advance(pr, n);
	}
out:
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
	struct slot slot[2];
	size_t i, bytes, max_bytes = 0, text, max_text = 0, bound;
	int nth = opts && opts->threads > 1 ? opts->threads : 1, pool = 0, rc = -1;
	struct progress pr = { opts, 0, 0 };

	memset(slot, 0, sizeof slot);
	if (nt == 0)
		return pe_fail(err, PE_ERR_USAGE, "nothing to write");
	if (nth > PE_MAX_THREADS)
		return pe_fail(err, PE_ERR_USAGE, "at most %d threads, got %d", PE_MAX_THREADS, nth);
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
	for (i = 0; i < (pool ? 2u : 1u); i++) {
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
			if (pump_parallel(&t[i], off[i], slot, block_rows(&t[i]), nth, sink, &pr,
					  err) != 0)
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
	for (i = 0; i < 2; i++) {
		free(slot[i].buf);
		free(slot[i].text);
	}
	free(off);
	free(t);
	return rc;
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
