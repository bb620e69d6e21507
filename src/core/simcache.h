/*
 * simcache.h - the block cache of a symmetric n x n result computed in row
 * blocks (core/similarity.c): blocks of the upper triangle kept for the
 * rows below, and the protocol that lets each go.
 *
 * The rows 0..n-1 come as a grid of nb blocks of `block` rows (the last
 * one may be shorter).  The rows of block r need the columns of every
 * earlier block k < r, and S[rows of r][rows of k] is S[rows of k][rows of
 * r] transposed, which block k's rows compute anyway.  So block k's rows
 * store it, and block r's rows copy it, for r - k <= band: a cached block
 * holds rows of r x rows of k, row-major (rows(k) floats a row).  band
 * follows from the budget (blocks near the diagonal first: they are let go
 * soonest, so a budget saves the most work that way); a column block k is
 * stored whole or not at all.
 *
 * Calling sequence, for each slice of rows [a, a+m) of block b that the
 * caller fills -- from any number of threads at once, slices of any size,
 * in any order, a row more than once:
 *     storing = pe_simcache_take(c, b, from, to);   (band pointers each)
 *     for t < band: from[t] not NULL: copy rows [a, a+m) of block
 *         (b, b-1-t) from it; NULL: compute those columns;
 *     when storing, for t < band: to[t] not NULL: write (transposed) the
 *         columns of block b+1+t of rows [sa, sa+sm) of b into it, at
 *         to[t][j * rows(b) + (i - b block)] for row i, column j of b+1+t;
 *     pe_simcache_done(c, b, sa, sm, storing, a, m);
 * where [sa, sa+sm) are the rows of b whose columns were stored (the slice
 * itself, or the whole block when the caller computes whole blocks) and
 * [a, a+m) the rows written.  Every pointer from take() stays the
 * caller's until its done(); then the cache may give the block to another
 * column.  A block is copied from only when its column block is all
 * stored and no slice of that block is between take and done (none writes
 * it: a column all stored gets no `to` blocks again).  It is let go at the
 * later of its two ends -- its column block all stored, its row block all
 * written, no slice of either between take and done -- or at once, when
 * the first slice of its column block finds rows of its row block begun
 * already (they compute it).  Once every row has been written, every
 * block is let go (pe_simcache_held() is 0).  tests/unit/test_simcache.c
 * runs every interleaving of small grids.
 *
 * Memory: at most budget bytes of blocks (carved from 8 MiB chunks whose
 * pages are touched once, then recycled), plus an index of nb x band
 * pointers held to an eighth of the budget, plus 2 n + 26 nb bytes.
 */
#ifndef PE_SIMCACHE_H
#define PE_SIMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct pe_simcache;

/* A cache for n rows in blocks of `block` rows (1 <= block <= n), holding
 * at most budget bytes of blocks (0 or less than a block: none).  Returns
 * NULL (err: PE_ERR_NOMEM) on failure.  Free with pe_simcache_free. */
struct pe_simcache *pe_simcache_new(uint64_t n, size_t block, size_t budget,
				    struct pe_error *err);

void pe_simcache_free(struct pe_simcache *c);

/* Blocks of rows below their own column block that are kept (>= 1; the
 * length of take()'s from and to). */
size_t pe_simcache_band(const struct pe_simcache *c);

/* Before rows of block b are computed: the blocks they may copy (from)
 * and store into (to), see the calling sequence.  Returns whether b's
 * columns are stored at all. */
int pe_simcache_take(struct pe_simcache *c, size_t b, const float **from, float **to);

/* After a slice: rows [sa, sa+sm) of block b stored (when stored), rows
 * [a, a+m) of b written. */
void pe_simcache_done(struct pe_simcache *c, size_t b, uint64_t sa, size_t sm, int stored,
		      uint64_t a, size_t m);

/* Blocks out of the pool now. */
size_t pe_simcache_held(struct pe_simcache *c);

#endif
