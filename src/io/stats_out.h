/*
 * stats_out.h - the statistics of a similarity matrix (core/stats.h) as
 * text: one JSON object, or the offset profile as CSV.
 *
 * Both take offset_step (>= 1): when the matrix's rows were every
 * offset_step-th position of a table, offset k of the matrix is k *
 * offset_step positions, and offsets (and first_increase) are written in
 * positions.  Doubles are written shortest round-trip (io/fmt.h).  The
 * stream is not flushed: the caller commits it (io/output.h).  Both return
 * 0 or -1 (PE_ERR_IO, PE_ERR_PIPE on a closed pipe, PE_ERR_NOMEM,
 * PE_ERR_USAGE for offset_step 0, PE_ERR_DATA when offsets overflow).
 */
#ifndef PE_STATS_OUT_H
#define PE_STATS_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/meta.h"
#include "core/stats.h"

/*
 * One line of JSON and a newline:
 *   {"meta":{...},"n":N,"window":W,"tau":T,"translation_invariance":x,
 *    "monotonicity_forward":x,"monotonicity_backward":x,"symmetry_lr":x,
 *    "locality":x,"first_increase":K,
 *    "profile":{"offset":[...],"mean":[...],"std":[...],"count":[...]}}
 * NaN (JSON has none) is written null.  p: the parameters st was computed
 * with (window, tau); meta NULL gives "meta":{}.  The rows counted for
 * monotonicity are not written.
 */
int pe_stats_write_json(FILE *fp, const struct pe_stats *st, const struct pe_stats_params *p,
			const struct pe_meta *meta, uint64_t offset_step, struct pe_error *err);

/* CSV: the header line "offset,mean,std,count", then one line per offset
 * k = 0..n-1: k * offset_step, mean, std, count; NaN is written "nan". */
int pe_stats_write_profile(FILE *fp, const struct pe_stats *st, uint64_t offset_step,
			   struct pe_error *err);

#endif
