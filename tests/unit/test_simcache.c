/*
 * core/simcache: the let-go protocol under scripted interleavings, instead
 * of hoping for them under load.  simcache.c is compiled in here, so that
 * after every step the pool itself can be checked.
 *
 * A slice (rows [a, a+m) of block b) has two steps: T, take() and at once
 * write its stored columns into every `to` block (its own rows' share, or
 * the whole block for a caller that stores whole blocks, as float32 does);
 * and D, check what it copies from every `from` block and that its `to`
 * blocks still hold what it wrote, then done().  Between its T and its D a
 * slice owns its pointers (simcache.h), so after every step:
 *   - a block a live slice holds (from or to) is the one the cache still
 *     has at that place, and is not in the pool's free list;
 *   - no block is copied from while a live slice may write it;
 *   - what a slice reads is what the writers of that block wrote;
 * and when every slice is done, no block is held.  Every interleaving of
 * the T and D steps of small grids is run, plus named scripts: the race
 * fixed in 4d64b88 (a take of block 1 between the two of block 0) and rows
 * filled twice.  With a later slice of a block also letting go (the code
 * before 4d64b88), test_race_script and test_every_interleaving_any_order
 * fail; with done() alone deciding when a block is complete (the code
 * before the writers and readers were counted), test_refill_script and the
 * whole-block runs of both interleaving tests fail.
 */
#include <stdlib.h>
#include <string.h>

#include "core/simcache.c"

#include "testutil.h"

#define MAX_SLICES 12
#define MAX_BAND 8

struct slice {
	size_t b;
	uint64_t a;
	size_t m;
	int live, over, storing;
	const float *from[MAX_BAND];
	float *to[MAX_BAND];
};

/* A grid: blocks of `block` rows over n rows, each block cut at the given
 * row offsets into slices, a budget in blocks, and whether a slice stores
 * its whole block (float32) or its own rows (exact). */
struct grid {
	const char *name;
	uint64_t n;
	size_t block;
	size_t cuts[6][4];	/* per block: offsets of slice starts after 0, 0-ended */
	long budget_blocks;	/* 0: room for 64 (all of them); -1: none at all */
	int whole;
};

struct run {
	const struct grid *g;
	struct pe_simcache *c;
	size_t nb, band, ns;
	struct slice s[MAX_SLICES];
	char why[300];
	uint64_t hits;		/* from blocks copied */
};

static uint64_t rows_in(const struct run *r, size_t b)
{
	uint64_t r0 = (uint64_t)b * r->g->block;

	return r->g->n - r0 < r->g->block ? r->g->n - r0 : r->g->block;
}

/* The value of element (row i of block rb, row j of block kb): exact in a
 * float, different for every pair. */
static float code(uint64_t i, uint64_t j)
{
	return (float)(i * 1024 + j + 1);
}

static void setup(struct run *r, const struct grid *g)
{
	struct pe_error err;
	size_t b, k, blk = g->block * g->block * sizeof(float);

	memset(r, 0, sizeof *r);
	r->g = g;
	r->nb = (size_t)((g->n + g->block - 1) / g->block);
	r->c = pe_simcache_new(g->n, g->block,
			       g->budget_blocks < 0 ? 1
			       : g->budget_blocks ? (size_t)g->budget_blocks * blk : 64 * blk,
			       &err);
	assert_non_null(r->c);
	r->band = pe_simcache_band(r->c);
	assert_true(r->band <= MAX_BAND);
	for (b = 0; b < r->nb; b++) {
		uint64_t a = (uint64_t)b * g->block, end = a + rows_in(r, b);

		for (k = 0; k == 0 || g->cuts[b][k - 1]; k++) {
			uint64_t e = g->cuts[b][k] ? (uint64_t)b * g->block + g->cuts[b][k] : end;

			assert_true(r->ns < MAX_SLICES);
			r->s[r->ns].b = b;
			r->s[r->ns].a = a;
			r->s[r->ns].m = (size_t)(e - a);
			r->ns++;
			a = e;
		}
	}
}

static int on_free_list(const struct pe_simcache *c, const float *p)
{
	const void *q = c->free_list;

	while (q) {
		if (q == (const void *)p)
			return 1;
		memcpy(&q, q, sizeof q);
	}
	return 0;
}

/* Whether a live slice other than skip writes p. */
static int written(const struct run *r, const float *p, size_t skip)
{
	size_t i, t;

	for (i = 0; i < r->ns; i++)
		for (t = 0; i != skip && r->s[i].live && t < r->band; t++)
			if (r->s[i].to[t] == p)
				return 1;
	return 0;
}

/* The first broken invariant after a step, in r->why; 0 when none. */
static int check(struct run *r)
{
	size_t i, t;

	for (i = 0; i < r->ns; i++) {
		const struct slice *s = &r->s[i];

		for (t = 0; s->live && t < r->band; t++) {
			if (s->from[t] && written(r, s->from[t], i)) {
				snprintf(r->why, sizeof r->why,
					 "slice at row %llu copies from block (%zu, %zu) while a slice writes it",
					 (unsigned long long)s->a, s->b, s->b - 1 - t);
				return 1;
			}
		}

		for (t = 0; s->live && t < r->band; t++) {
			if (s->from[t] && (*slot(r->c, s->b, s->b - 1 - t) != s->from[t] ||
					   on_free_list(r->c, s->from[t]))) {
				snprintf(r->why, sizeof r->why,
					 "slice at row %llu still copies from block (%zu, %zu), which the cache let go",
					 (unsigned long long)s->a, s->b, s->b - 1 - t);
				return 1;
			}
			if (s->to[t] && (*slot(r->c, s->b + 1 + t, s->b) != s->to[t] ||
					 on_free_list(r->c, s->to[t]))) {
				snprintf(r->why, sizeof r->why,
					 "slice at row %llu still writes block (%zu, %zu), which the cache let go",
					 (unsigned long long)s->a, s->b + 1 + t, s->b);
				return 1;
			}
		}
	}
	return 0;
}

/* The rows of block b whose columns a slice stores. */
static void stored_rows(const struct run *r, const struct slice *s, uint64_t *sa, size_t *sm)
{
	*sa = r->g->whole ? (uint64_t)s->b * r->g->block : s->a;
	*sm = r->g->whole ? (size_t)rows_in(r, s->b) : s->m;
}

/* Write (check 0) or check the values slice s stores into its `to`
 * blocks: block (b + 1 + t, b) holds element (row k0 + i of block b + 1 + t,
 * row j of block b) at i rows(b) + j - r0, r0 and k0 the blocks' first
 * rows.  1 (r->why) when one is not what the slice wrote. */
static int own_blocks(struct run *r, const struct slice *s, int check)
{
	uint64_t sa, i, j, r0 = (uint64_t)s->b * r->g->block, k0;
	size_t sm, t;
	float *v;

	stored_rows(r, s, &sa, &sm);
	for (t = 0; s->storing && t < r->band; t++) {
		if (!s->to[t])
			continue;
		k0 = (uint64_t)(s->b + 1 + t) * r->g->block;
		for (i = 0; i < rows_in(r, s->b + 1 + t); i++) {
			for (j = sa; j < sa + sm; j++) {
				v = &s->to[t][i * rows_in(r, s->b) + (j - r0)];
				if (!check) {
					*v = code(k0 + i, j);
				} else if (*v != code(k0 + i, j)) {
					snprintf(r->why, sizeof r->why,
						 "block (%zu, %zu) lost what the slice at row %llu wrote",
						 s->b + 1 + t, s->b, (unsigned long long)s->a);
					return 1;
				}
			}
		}
	}
	return 0;
}

static void take(struct run *r, struct slice *s)
{
	s->storing = pe_simcache_take(r->c, s->b, s->from, s->to);
	s->live = 1;
	own_blocks(r, s, 0);
}

/* 0, or 1 with r->why when a value read or kept is not what was written */
static int finish(struct run *r, struct slice *s)
{
	uint64_t sa, i, j, r0 = (uint64_t)s->b * r->g->block, k0, kr;
	size_t sm, t;

	if (own_blocks(r, s, 1) != 0)
		return 1;
	stored_rows(r, s, &sa, &sm);
	for (t = 0; t < r->band && t < s->b; t++) {
		if (!s->from[t])
			continue;
		r->hits++;
		k0 = (uint64_t)(s->b - 1 - t) * r->g->block;
		kr = rows_in(r, s->b - 1 - t);
		for (i = s->a; i < s->a + s->m; i++)
			for (j = 0; j < kr; j++)
				if (s->from[t][(i - r0) * kr + j] != code(i, k0 + j)) {
					snprintf(r->why, sizeof r->why,
						 "the slice at row %llu read a wrong value in block (%zu, %zu)",
						 (unsigned long long)s->a, s->b, s->b - 1 - t);
					return 1;
				}
	}
	s->live = 0;
	s->over = 1;
	pe_simcache_done(r->c, s->b, sa, sm, s->storing, s->a, s->m);
	return 0;
}

/* Steps: slice index k as a take (2k) or a done (2k + 1).  0, or 1 with
 * r->why naming the step. */
static int play(struct run *r, const int *step, size_t nsteps)
{
	size_t i;
	char what[64];

	for (i = 0; i < nsteps; i++) {
		struct slice *s = &r->s[step[i] / 2];

		if (step[i] % 2 == 0)
			take(r, s);
		else if (finish(r, s) != 0)
			goto bad;
		if (check(r) != 0)
			goto bad;
	}
	if (pe_simcache_held(r->c) != 0) {
		snprintf(r->why, sizeof r->why, "%zu blocks still held after every row was written",
			 pe_simcache_held(r->c));
		return 1;
	}
	return 0;
bad:
	snprintf(what, sizeof what, " (at step %zu)", i + 1);
	strncat(r->why, what, sizeof r->why - strlen(r->why) - 1);
	return 1;
}

/* "T0.0 T1.0 T0.1 ..." (T or D, block, slice within it) for a message */
static void describe(const struct run *r, const int *step, size_t nsteps, char *out, size_t len)
{
	size_t i, k, w = 0;

	out[0] = '\0';
	for (i = 0; i < nsteps && w + 16 < len; i++) {
		const struct slice *s = &r->s[step[i] / 2];

		for (k = step[i] / 2; k > 0 && r->s[k - 1].b == s->b; k--)
			;
		w += (size_t)snprintf(out + w, len - w, "%s%c%zu.%zu", i ? " " : "",
				      step[i] % 2 ? 'D' : 'T', s->b, (size_t)step[i] / 2 - k);
	}
}

/* Parse a script of describe()'s form into steps. */
static size_t parse(const struct run *r, const char *script, int *step)
{
	size_t n = 0, b, k, i;
	char c;
	int used;

	while (sscanf(script, " %c%zu.%zu%n", &c, &b, &k, &used) == 3) {
		for (i = 0; i < r->ns && r->s[i].b != b; i++)
			;
		assert_true(i + k < r->ns && r->s[i + k].b == b);
		step[n++] = (int)(2 * (i + k)) + (c == 'D');
		script += used;
	}
	return n;
}

/* Every interleaving of the slices' T and D steps (T before D; with
 * ordered, takes in slice order); returns how many were run. */
struct walk {
	const struct grid *g;
	int ordered;
	int step[2 * MAX_SLICES];
	int state[MAX_SLICES];	/* 0 not taken, 1 live, 2 done */
	size_t ns, depth;
	uint64_t runs, hits;
};

static void walk(struct walk *w)
{
	size_t k;
	int next_take = 1;

	if (w->depth == 2 * w->ns) {
		struct run r;
		char seq[400];

		setup(&r, w->g);
		if (play(&r, w->step, w->depth) != 0) {
			describe(&r, w->step, w->depth, seq, sizeof seq);
			pe_simcache_free(r.c);
			fail_msg("%s, budget %ld blocks, %s: %s, in %s", w->g->name, w->g->budget_blocks,
				 w->g->whole ? "whole blocks stored" : "own rows stored", r.why, seq);
		}
		w->runs++;
		w->hits += r.hits;
		pe_simcache_free(r.c);
		return;
	}
	for (k = 0; k < w->ns; k++) {
		if (w->state[k] == 2 || (w->state[k] == 0 && !next_take))
			continue;
		if (w->state[k] == 0 && w->ordered)
			next_take = 0;
		w->step[w->depth++] = (int)(2 * k) + (w->state[k] == 1);
		w->state[k]++;
		walk(w);
		w->state[k]--;
		w->depth--;
	}
}

static uint64_t every_interleaving(const struct grid *g, int ordered, uint64_t *hits)
{
	struct walk w;
	struct run r;

	memset(&w, 0, sizeof w);
	w.g = g;
	w.ordered = ordered;
	setup(&r, g);
	w.ns = r.ns;
	pe_simcache_free(r.c);
	walk(&w);
	*hits = w.hits;
	return w.runs;
}

/* 4 blocks of 16 rows (the last 11), the first three cut in two. */
static const struct grid seven = { "4 blocks in 7 slices", 59, 16,
				   { { 8 }, { 5 }, { 9 }, { 0 } }, 0, 0 };

/* The race of 4d64b88, as scripts: slice 1 of block 0 takes block (1, 0)
 * to write; rows of block 1 begin; slice 2 of block 0 takes (and must not
 * let go of (1, 0)); block 2's column is reserved (a block let go would be
 * handed out again here); then the first slice writes and checks. */
static void test_race_script(void **state)
{
	static const char *const scripts[] = {
		"T0.0 T1.0 T0.1 T2.0 D0.0 D0.1 D1.0 T1.1 D1.1 D2.0 T2.1 D2.1 T3.0 D3.0",
		"T0.0 T1.0 T0.1 D1.0 T1.1 T2.0 D1.1 D0.1 T2.1 T3.0 D0.0 D2.0 D2.1 D3.0",
		"T0.0 T0.1 T1.0 D0.1 T1.1 T2.0 D1.0 T2.1 T3.0 D0.0 D1.1 D2.1 D3.0 D2.0",
	};
	static const long budgets[] = { 0, 6, 3, 2 };
	struct grid g = seven;
	int step[2 * MAX_SLICES];
	size_t i, n, k;

	(void)state;
	for (k = 0; k < sizeof budgets / sizeof *budgets; k++) {
		g.budget_blocks = budgets[k];
		for (i = 0; i < sizeof scripts / sizeof *scripts; i++) {
			struct run r;

			setup(&r, &g);
			n = parse(&r, scripts[i], step);
			assert_int_equal(n, 2 * r.ns);
			if (play(&r, step, n) != 0) {
				pe_simcache_free(r.c);
				fail_msg("budget %ld blocks, %s: %s", budgets[k], scripts[i], r.why);
			}
			pe_simcache_free(r.c);
		}
	}
}

/* Rows filled again (tensor.h allows it: a fill is deterministic) while
 * other rows are filled: a slice that writes a block again, or copies it
 * again, holds it as any other; and a block is never read while a slice
 * may still write it. */
static void test_refill_script(void **state)
{
	static const char *const scripts[] = {
		/* block 0's first slice again, block 1's rows meanwhile */
		"T0.0 D0.0 T0.1 D0.1 T0.0 T1.0 D1.0 T1.1 D1.1 D0.0 T2.0 D2.0 T2.1 D2.1 T3.0 D3.0",
		/* block 1's first slice again while its second finishes */
		"T0.0 D0.0 T0.1 D0.1 T1.0 D1.0 T1.0 T1.1 D1.1 D1.0 T2.0 D2.0 T2.1 D2.1 T3.0 D3.0",
	};
	static const long budgets[] = { 0, 3, 2 };
	struct grid g = seven;
	int step[2 * MAX_SLICES], whole;
	size_t i, n, k;

	(void)state;
	for (whole = 0; whole < 2; whole++) {
		for (k = 0; k < sizeof budgets / sizeof *budgets; k++) {
			g.budget_blocks = budgets[k];
			g.whole = whole;
			for (i = 0; i < sizeof scripts / sizeof *scripts; i++) {
				struct run r;

				setup(&r, &g);
				n = parse(&r, scripts[i], step);
				if (play(&r, step, n) != 0) {
					pe_simcache_free(r.c);
					fail_msg("budget %ld blocks, %s, %s: %s", budgets[k],
						 whole ? "whole blocks stored" : "own rows stored",
						 scripts[i], r.why);
				}
				pe_simcache_free(r.c);
			}
		}
	}
}

/* In order, one slice after another, with room for every block: every
 * block within the band is copied, none computed twice; then with
 * no budget, none is. */
static void test_sequential_hits(void **state)
{
	struct grid g = { "4 blocks", 61, 16, { { 8 }, { 8 }, { 4, 12 }, { 0 } }, 0, 0 };
	int step[2 * MAX_SLICES];
	struct run r;
	size_t i, b, want = 0;

	(void)state;
	setup(&r, &g);
	assert_true(r.band >= 3);
	for (i = 0; i < r.ns; i++) {
		step[2 * i] = (int)(2 * i);
		step[2 * i + 1] = (int)(2 * i + 1);
		for (b = 0; b < r.s[i].b; b++)
			want++;
	}
	if (play(&r, step, 2 * r.ns) != 0)
		fail_msg("%s", r.why);
	assert_int_equal(r.hits, want);
	pe_simcache_free(r.c);

	g.budget_blocks = -1;
	setup(&r, &g);
	if (play(&r, step, 2 * r.ns) != 0)
		fail_msg("no budget: %s", r.why);
	assert_int_equal(r.hits, 0);
	pe_simcache_free(r.c);
}

/* Every interleaving of a larger grid whose slices take in row order (the
 * pump hands slices out in that order, but a worker may reach take() after
 * a later slice's worker: the next test), with room for every block (band
 * 3), or for 3 blocks (band 2) or 2 (band 1), fewer than the columns
 * reserve, so the pool hands out again the blocks let go (a wrong let-go
 * then corrupts data); callers storing their own rows (exact) and whole
 * blocks (float32). */
static void test_every_interleaving_in_order(void **state)
{
	static const long budgets[] = { 0, 3, 2 };
	struct grid g = seven;
	uint64_t runs, hits;
	size_t i;
	int whole;

	(void)state;
	for (whole = 0; whole < 2; whole++) {
		for (i = 0; i < sizeof budgets / sizeof *budgets; i++) {
			g.budget_blocks = budgets[i];
			g.whole = whole;
			runs = every_interleaving(&g, 1, &hits);
			assert_int_equal(runs, 135135);	/* 14! / (2^7 7!) */
			assert_true(hits > 0);
			if (pe_test_quick())
				return;
		}
	}
}

/* Every interleaving, takes in any order, as the pump's workers reach them
 * (the race of 4d64b88 needs a take of block 1 between two of block 0) or
 * as fills out of order come: three grids of 5 slices, band 3 and band 1,
 * callers storing their own rows and whole blocks. */
static void test_every_interleaving_any_order(void **state)
{
	static const struct grid grids[] = {
		{ "4 blocks, the first in 2 slices", 55, 16, { { 8 }, { 0 }, { 0 }, { 0 } }, 0, 0 },
		{ "4 blocks, the second in 2 slices", 55, 16, { { 0 }, { 8 }, { 0 }, { 0 } }, 0, 0 },
		{ "3 blocks, two in 2 slices", 40, 16, { { 5 }, { 11 }, { 0 } }, 0, 0 },
	};
	struct grid g;
	uint64_t runs, hits;
	size_t i;
	int budget, whole;

	(void)state;
	for (i = 0; i < sizeof grids / sizeof *grids; i++) {
		for (whole = 0; whole < 2; whole++) {
			for (budget = 0; budget <= 2; budget += 2) {
				g = grids[i];
				g.budget_blocks = budget;
				g.whole = whole;
				runs = every_interleaving(&g, 0, &hits);
				assert_int_equal(runs, 113400);	/* 10! / 2^5 */
				assert_true(hits > 0);
				if (pe_test_quick())
					return;
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_race_script),
		cmocka_unit_test(test_refill_script),
		cmocka_unit_test(test_sequential_hits),
		cmocka_unit_test(test_every_interleaving_in_order),
		cmocka_unit_test(test_every_interleaving_any_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
