/*
 * ropeinfo.h - what the frequencies of a RoPE mean, pair by pair: the
 * facts `posenc explain rope` reports, read off an initialised struct
 * pe_rope (core/rope.h), so they are the computation's own and cannot
 * drift from the tables generate writes.
 *
 * For frequency pair j of r (R = r->p.rotary_dim, the whole head for
 * proportional):
 *   col         the two columns it turns: j and j + R/2 (half layout),
 *               2j and 2j + 1 (interleaved)
 *   inv_freq    the exact inv_j rounded to double; inv32 the table's
 *               float32 value (correctly rounded, or PyTorch's in float32
 *               precision)
 *   original    theta^(-2j/R), the frequency before any scaling (an
 *               unscaled struct pe_rope of the same theta and R)
 *   wavelength  2 pi / inv_freq, positions per turn (inf: does not turn)
 *   rotations   context inv_freq / (2 pi): turns over `context` positions
 *   scale       original / inv_freq, what the scaling divides the
 *               frequency by (1 unscaled; NaN for an unrotated pair)
 *   region      r->region[j] (core/rope.h)
 * All in double from the exact frequencies.
 */
#ifndef PE_ROPEINFO_H
#define PE_ROPEINFO_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/rope.h"

struct pe_rope_pair {
	uint64_t col[2];
	double inv_freq;
	float inv32;
	double original;
	double wavelength;
	double rotations;
	double scale;
	enum pe_rope_region region;
};

/* The facts of every pair of r (r->nfreq) into out; context > 0.  Returns
 * 0, or -1 (PE_ERR_NOMEM). */
int pe_rope_pairs(const struct pe_rope *r, uint64_t context, struct pe_rope_pair *out,
		  struct pe_error *err);

/* A run of pairs first..last (inclusive) of one region. */
struct pe_rope_span {
	enum pe_rope_region region;
	size_t first, last;
};

/* The runs of r's regions, in pair order, into spans (room for r->nfreq);
 * returns how many. */
size_t pe_rope_spans(const struct pe_rope *r, struct pe_rope_span *spans);

/* dynamic: the base theta' at sequence length seq_len (theta itself up to
 * L0), as an initialised r with that seq_len computes it (double in exact
 * precision, float32 in float32 precision).  Returns 0 with *theta set,
 * or -1 (PE_ERR_PARAM when that base overflows, PE_ERR_NOMEM). */
int pe_rope_dynamic_theta(const struct pe_rope *r, uint64_t seq_len, double *theta,
			  struct pe_error *err);

#endif
