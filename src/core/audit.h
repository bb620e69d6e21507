/*
 * audit.h - a rotary table as a model computes it in float16 or bfloat16
 * (or float32), step by step, for `posenc audit` and the precision causes
 * of `posenc diff`.
 *
 * The steps a model can run in the narrow type d (the parity threads of
 * rope-2026 G #7, #8: GPT-NeoX #1003, transformers #25681, ...):
 *   inv-freq   inv_freq held in d (model.to(bfloat16) casts the buffer)
 *   positions  the positions in d (torch.arange(n, dtype=bfloat16): 257
 *              is the first integer bfloat16 cannot hold, 2049 float16's;
 *              bfloat16 holds 15962 as 15936)
 *   angles     the product position x inv_freq rounded to d (the einsum
 *              or matmul in d)
 *   table      cos and sin rounded to d, then times the attention factor
 *              in d (a table stored in d)
 * A step not in d runs as PyTorch's float32 pipeline does: inv_freq the
 * rope's float32 values (its inv32: the emulated torch pipeline, or the
 * exact values rounded), positions float32, the product rounded to
 * float32, cos/sin rounded to float32 and times the float32 attention
 * factor.  cos and sin themselves are computed exactly (libm in double)
 * of the angle the steps give, so what is measured is the steps' rounding,
 * not a library's cos: the position 1857 of a 64-wide float16 table with
 * inv-freq, positions and angles in float16 has the angle 1044.27 as 1045
 * (inv_freq[2] = 0.5623413 is 0.5625 in float16), its cos 0.715 off.
 *
 * Each row's errors against the exact table are a struct pe_audit_row:
 * the pair arithmetic of core/diff.h (abs, rel, float32 ulps).
 */
#ifndef PE_AUDIT_H
#define PE_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/rope.h"

enum {
	PE_AUDIT_INV_FREQ = 1,
	PE_AUDIT_POSITIONS = 2,
	PE_AUDIT_ANGLES = 4,
	PE_AUDIT_TABLE = 8,
	PE_AUDIT_ALL = 15
};

/* "inv-freq", "positions", "angles", "table" (bit k is name k), NULL-ended. */
extern const char *const pe_audit_step_names[];

/* Rows [r0, r0 + n) of r's table (cos, sin, angles: n x R; inv_freq: one
 * value per row, rows being frequencies) with the steps in d, into out. */
void pe_audit_rope_rows(const struct pe_rope *r, enum pe_rope_table table, enum pe_store d,
			unsigned steps, uint64_t r0, size_t n, float *out);

/* How far one row of low is from the exact row (cols values each). */
struct pe_audit_row {
	double max_abs, sum_abs, max_rel;
	uint64_t max_ulp;		/* PE_ULP_INF when a pair is incomparable */
	uint64_t worst_col;		/* of max_abs (the first, on ties) */
};

void pe_audit_compare_row(const float *exact, const float *low, uint64_t cols,
			  struct pe_audit_row *out);

#endif
