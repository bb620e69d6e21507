/*
 * ticks.h - where an axis of cells gets its ticks, and the labels of its
 * cells: cell i of an axis stands for origin + i * step (a position after
 * --offset, --rows or --stride), and ticks fall on round labels.  Pure
 * arithmetic, no drawing: the figure (figure.h) asks how many pixels an
 * axis has and how far apart its labels must be.
 */
#ifndef PE_TICKS_H
#define PE_TICKS_H

#include <stdint.h>

/* Ticks at cells first, first + every, first + 2 * every, ... below n. */
struct pe_ticks {
	uint64_t first, every;
};

/*
 * The ticks of an axis of n cells (n >= 1) drawn across len pixels, where
 * cell i is labelled origin + i * step (step >= 1; every label fits in
 * int64_t) and ticks should be at least minpx pixels apart.
 *
 * The label period T is the smallest that leaves minpx pixels between
 * ticks among the multiples of step that are round, 1, 2 or 5 x 10^k, or
 * are step x (1, 2, 5 x 10^k); every = T / step.  The first tick is the
 * first cell whose label is a multiple of T, or cell 0 when no cell's is.
 * Like the rule before labels had an origin and a step, every stops
 * growing once it reaches n (one tick), so origin 0 and step 1 give cells
 * 0, every, 2 * every, ... with every the first of 1, 2, 5, 10, ... that
 * fits.
 */
struct pe_ticks pe_ticks(uint64_t n, int64_t origin, uint64_t step, double len, double minpx);

/* The smallest of 1, 2, 5, 10, 20, 50, ... whose ticks over n indices
 * drawn across len pixels are at least minpx apart, or the first that
 * reaches n (one tick). */
uint64_t pe_tick_step(uint64_t n, double len, double minpx);

/* Do the labels origin .. origin + (n - 1) * step (n >= 1) fit in int64_t? */
int pe_ticks_fit(int64_t origin, uint64_t step, uint64_t n);

/* The label of cell i, origin + i * step (pe_ticks_fit() said it fits). */
int64_t pe_tick_label(int64_t origin, uint64_t step, uint64_t i);

/* v mod m in [0, m), m >= 1. */
uint64_t pe_mod_i64(int64_t v, uint64_t m);

#endif
