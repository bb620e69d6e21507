/*
 * sink_png.h - internals of the png writer (sink_png.c) exposed for its
 * unit test; nothing else includes this.  The writer itself is reached
 * through io/sink.h.
 */
#ifndef PE_SINK_PNG_H
#define PE_SINK_PNG_H

#include <stdint.h>

/* Ticks at cells first, first + every, first + 2 * every, ... below n. */
struct pe_png_ticks {
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
struct pe_png_ticks pe_png_ticks(uint64_t n, int64_t origin, uint64_t step, double len,
				 double minpx);

#endif
