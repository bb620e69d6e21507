/*
 * A rotary table's steps in a narrow type (audit.h).  Every step is one
 * rounding of a value computed exactly in double: the product of two
 * float32 (or narrower) numbers has at most 48 significant bits, so the
 * double holds it and rounding it to d is the correctly rounded product d
 * would give.
 */
#include "core/audit.h"

#include <math.h>

#include "core/diff.h"
#include "core/ulp.h"

const char *const pe_audit_step_names[] = { "inv-freq", "positions", "angles", "table", NULL };

/* the frequency of column j */
static size_t freq_of(const struct pe_rope *r, uint64_t j)
{
	if (r->p.layout == PE_LAYOUT_INTERLEAVED)
		return (size_t)(j / 2);
	return (size_t)(j % r->nfreq);
}

static double inv_of(const struct pe_rope *r, size_t k, enum pe_store d, unsigned steps)
{
	double inv = (double)r->inv32[k];

	return steps & PE_AUDIT_INV_FREQ ? pe_store_round(d, inv) : inv;
}

void pe_audit_rope_rows(const struct pe_rope *r, enum pe_rope_table table, enum pe_store d,
			unsigned steps, uint64_t r0, size_t n, float *out)
{
	uint64_t cols = 2 * (uint64_t)r->nfreq, j;
	double att = steps & PE_AUDIT_TABLE ? pe_store_round(d, r->attention)
					    : (double)(float)r->attention;
	size_t i;

	if (table == PE_ROPE_INV_FREQ) {
		for (i = 0; i < n; i++)
			out[i] = (float)inv_of(r, (size_t)(r0 + i), d, steps);
		return;
	}
	for (i = 0; i < n; i++) {
		double pos = (double)(r->p.offset + (int64_t)(r0 + i));

		pos = steps & PE_AUDIT_POSITIONS ? pe_store_round(d, pos) : (double)(float)pos;
		for (j = 0; j < cols; j++) {
			double a = pos * inv_of(r, freq_of(r, j), d, steps), v;

			a = steps & PE_AUDIT_ANGLES ? pe_store_round(d, a) : (double)(float)a;
			if (table == PE_ROPE_ANGLES) {
				out[i * cols + j] = (float)a;
				continue;
			}
			v = table == PE_ROPE_SIN ? sin(a) : cos(a);
			if (steps & PE_AUDIT_TABLE) {
				v = pe_store_round(d, v);
				if (att != 1)
					v = pe_store_round(d, v * att);
			} else {
				v = (double)(float)v;
				if (att != 1)
					v = (double)(float)(v * att);
			}
			out[i * cols + j] = (float)v;
		}
	}
}

void pe_audit_compare_row(const float *exact, const float *low, uint64_t cols,
			  struct pe_audit_row *out)
{
	struct pe_diff_err e;
	uint64_t j;

	out->max_abs = out->sum_abs = out->max_rel = 0;
	out->max_ulp = 0;
	out->worst_col = 0;
	for (j = 0; j < cols; j++) {
		if (low[j] == exact[j])
			continue;
		pe_diff_pair(low[j], exact[j], &e);
		if (e.abs > out->max_abs) {
			out->max_abs = e.abs;
			out->worst_col = j;
		}
		if (!e.incomparable)
			out->sum_abs += e.abs;
		if (e.rel > out->max_rel)
			out->max_rel = e.rel;
		if (e.ulp > out->max_ulp)
			out->max_ulp = e.ulp;
	}
}
