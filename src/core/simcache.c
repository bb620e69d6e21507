/*
 * The block cache: a small pool allocator and the let-go protocol, both
 * under one mutex (a take or a done is a few hundred bytes of bookkeeping
 * against a block's GEMM).
 *
 * Why only the first slice of a column block lets go at take(): with the
 * pump's ring of slots, rows of a later block may begin between two slices
 * of one block, so a block let go by a later slice could still have a
 * writer among the earlier ones, and its memory could go to another column
 * while that writer fills it (the race of 4d64b88).  The later slices take
 * what is left as it is; what they must not write has already been let go
 * by the first, and the rest is let go in done() once the whole column is
 * stored.
 *
 * Why the slices between take and done are counted (live): rows counted
 * as stored or written do not say that nobody holds a block.  A caller
 * that stores whole blocks (float32) marks the whole column stored at its
 * first slice's done, while a second slice may still be writing it; a row
 * filled again holds its blocks again.  The pump does neither (float32
 * slices are whole blocks, no row is filled twice), but the fill's
 * contract (core/tensor.h) allows both; test_simcache found them.
 */
#include "core/simcache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

#define CHUNK_BYTES ((size_t)8 << 20)

enum { COL_UNTRIED, COL_STORING, COL_NOT_STORED };

struct pe_simcache {
	pthread_mutex_t mu;
	int mu_ok;		/* mu was initialised */
	uint64_t n;
	size_t block, nb;
	/* nb x band: the block of rows of r x rows of k (k < r <= k + band)
	 * at blk[k * band + (r - k - 1)]; see slot() */
	float **blk;
	unsigned char *col;	/* per column block: COL_* */
	unsigned char *begun;	/* per block: rows of it have been taken on */
	unsigned char *stored, *read;	/* per row */
	uint64_t *nstored, *nread;	/* per block: distinct rows */
	uint64_t *live;		/* per block: slices between take and done */
	size_t cap;		/* bytes of blocks at most */
	size_t band;
	/* blocks (block x block floats) carved from big chunks and recycled,
	 * so their pages are touched once */
	size_t blk_bytes, pool_bytes, chunk_left;
	unsigned char *chunk_next;
	void **chunks;
	size_t nchunks;
	void *free_list;
	size_t held;		/* blocks out of the pool */
};

static uint64_t rows_of(const struct pe_simcache *c, size_t b)
{
	uint64_t r0 = (uint64_t)b * c->block;

	return c->n - r0 < c->block ? c->n - r0 : c->block;
}

/* A block from the pool, or NULL when the budget is spent. */
static float *blk_get(struct pe_simcache *c)
{
	void *p = c->free_list, **grown;
	size_t n;

	if (p) {
		memcpy(&c->free_list, p, sizeof(void *));
		c->held++;
		return p;
	}
	if (c->chunk_left < c->blk_bytes) {
		n = c->blk_bytes > CHUNK_BYTES ? c->blk_bytes : CHUNK_BYTES;
		if (c->pool_bytes + n > c->cap)
			n = c->blk_bytes;
		if (c->pool_bytes + n > c->cap)
			return NULL;
		grown = realloc(c->chunks, (c->nchunks + 1) * sizeof *grown);
		if (!grown)
			return NULL;
		c->chunks = grown;
		if (!(c->chunks[c->nchunks] = pe_alloc_big(n)))
			return NULL;
		c->chunk_next = c->chunks[c->nchunks++];
		c->chunk_left = n;
		c->pool_bytes += n;
	}
	p = c->chunk_next;
	c->chunk_next += c->blk_bytes;
	c->chunk_left -= c->blk_bytes;
	c->held++;
	return p;
}

static void blk_put(struct pe_simcache *c, float *b)
{
	memcpy(b, &c->free_list, sizeof(void *));
	c->free_list = b;
	c->held--;
}

/* Where the block of rows of r x rows of k (k < r) is kept, or NULL when r
 * is beyond k's band (never kept). */
static float **slot(const struct pe_simcache *c, size_t r, size_t k)
{
	return r > k && r - k <= c->band && r < c->nb ? &c->blk[k * c->band + (r - k - 1)] : NULL;
}

/* Let go of the block at slot p, if any. */
static void slot_put(struct pe_simcache *c, float **p)
{
	if (p && *p) {
		blk_put(c, *p);
		*p = NULL;
	}
}

struct pe_simcache *pe_simcache_new(uint64_t n, size_t block, size_t budget,
				    struct pe_error *err)
{
	struct pe_simcache *c = calloc(1, sizeof *c);
	size_t nb;

	if (!c) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	nb = (size_t)((n + block - 1) / block);
	c->n = n;
	c->block = block;
	c->nb = nb;
	c->cap = budget;
	c->blk_bytes = block * block * sizeof(float);
	/* About band (band + 1) / 2 blocks are held at once; the index, nb
	 * band pointers, is held to an eighth of the budget too. */
	for (c->band = 1; c->band < nb && (c->band + 1) * (c->band + 2) / 2 * c->blk_bytes <= c->cap &&
			  (c->band + 1) * nb * sizeof *c->blk <= c->cap / 8;
	     c->band++)
		;
	c->blk = calloc(nb * c->band, sizeof *c->blk);
	c->col = calloc(nb, 1);
	c->begun = calloc(nb, 1);
	c->stored = calloc((size_t)n, 1);
	c->read = calloc((size_t)n, 1);
	c->nstored = calloc(nb, sizeof *c->nstored);
	c->nread = calloc(nb, sizeof *c->nread);
	c->live = calloc(nb, sizeof *c->live);
	c->mu_ok = c->blk && c->col && c->begun && c->stored && c->read && c->nstored && c->nread &&
		   c->live && pthread_mutex_init(&c->mu, NULL) == 0;
	if (!c->mu_ok) {
		pe_simcache_free(c);
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return c;
}

void pe_simcache_free(struct pe_simcache *c)
{
	size_t i;

	if (!c)
		return;
	if (c->mu_ok)
		pthread_mutex_destroy(&c->mu);
	for (i = 0; i < c->nchunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	free(c->blk);
	free(c->col);
	free(c->begun);
	free(c->stored);
	free(c->read);
	free(c->nstored);
	free(c->nread);
	free(c->live);
	free(c);
}

size_t pe_simcache_band(const struct pe_simcache *c)
{
	return c->band;
}

size_t pe_simcache_held(struct pe_simcache *c)
{
	size_t n;

	pthread_mutex_lock(&c->mu);
	n = c->held;
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* Under the lock: make room for column block b, once; when the budget does
 * not allow all of it, none (the rows below compute it).  Returns 1 on
 * that first call, 0 once it has been decided. */
static int reserve_column(struct pe_simcache *c, size_t b)
{
	size_t r;

	if (c->col[b] != COL_UNTRIED)
		return 0;
	c->col[b] = COL_NOT_STORED;
	for (r = b + 1; slot(c, r, b); r++) {
		*slot(c, r, b) = blk_get(c);
		if (!*slot(c, r, b)) {
			while (r-- > b + 1)
				slot_put(c, slot(c, r, b));
			return 1;
		}
	}
	if (b + 1 < c->nb)
		c->col[b] = COL_STORING;
	return 1;
}

/* Column block k is all stored and nobody writes it: rows below may copy. */
static int complete(const struct pe_simcache *c, size_t k)
{
	return c->nstored[k] == rows_of(c, k) && c->live[k] == 0;
}

/* Row block r is all written and nobody copies from its blocks. */
static int all_read(const struct pe_simcache *c, size_t r)
{
	return c->nread[r] == rows_of(c, r) && c->live[r] == 0;
}

int pe_simcache_take(struct pe_simcache *c, size_t b, const float **from, float **to)
{
	size_t r, t;
	float **p;
	int storing, first, whole;

	pthread_mutex_lock(&c->mu);
	c->begun[b] = 1;
	first = reserve_column(c, b);
	storing = c->col[b] == COL_STORING;
	whole = c->nstored[b] == rows_of(c, b);
	for (t = 0; t < c->band; t++) {
		from[t] = NULL;
		to[t] = NULL;
	}
	for (t = 0; t < c->band && t < b; t++)
		if (complete(c, b - 1 - t))
			from[t] = *slot(c, b, b - 1 - t);
	for (r = b + 1, t = 0; storing && (p = slot(c, r, b)) != NULL; r++, t++) {
		if (first && c->begun[r])
			slot_put(c, p);
		else if (!whole)
			to[t] = *p;
	}
	c->live[b]++;
	pthread_mutex_unlock(&c->mu);
	return storing;
}

void pe_simcache_done(struct pe_simcache *c, size_t b, uint64_t sa, size_t sm, int stored,
		      uint64_t a, size_t m)
{
	uint64_t i;
	size_t k;

	pthread_mutex_lock(&c->mu);
	c->live[b]--;
	for (i = sa; stored && i < sa + sm; i++) {
		if (!c->stored[i]) {
			c->stored[i] = 1;
			c->nstored[b]++;
		}
	}
	for (i = a; i < a + m; i++) {
		if (!c->read[i]) {
			c->read[i] = 1;
			c->nread[b]++;
		}
	}
	if (all_read(c, b))
		for (k = b > c->band ? b - c->band : 0; k < b; k++)
			if (complete(c, k))
				slot_put(c, slot(c, b, k));
	if (complete(c, b))
		for (k = b + 1; slot(c, k, b); k++)
			if (all_read(c, k))
				slot_put(c, slot(c, k, b));
	pthread_mutex_unlock(&c->mu);
}
