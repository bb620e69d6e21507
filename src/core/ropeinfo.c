#include "core/ropeinfo.h"

#include <math.h>
#include <string.h>

#define PE_PI 3.141592653589793

/* r's parameters for one position, without the float32 pipeline: the
 * exact frequencies are all these facts read */
static void one_row(const struct pe_rope *r, struct pe_rope_params *p)
{
	*p = r->p;
	p->positions = 1;
	p->offset = 0;
	p->precision = PE_ROPE_EXACT;
	if (p->seq_len == 0)
		p->seq_len = r->seq_len;
}

int pe_rope_pairs(const struct pe_rope *r, uint64_t context, struct pe_rope_pair *out,
		  struct pe_error *err)
{
	struct pe_rope_params p;
	struct pe_rope base;
	size_t j, half = r->nfreq;
	double inv;

	one_row(r, &p);
	p.scaling = PE_ROPE_NONE;
	if (pe_rope_init(&base, &p, err) != 0) {
		pe_rope_free(&base);
		return -1;
	}
	for (j = 0; j < r->nfreq; j++) {
		struct pe_rope_pair *q = &out[j];

		memset(q, 0, sizeof *q);
		if (r->p.layout != PE_LAYOUT_INTERLEAVED) {
			q->col[0] = j;
			q->col[1] = j + half;
		} else {
			q->col[0] = 2 * j;
			q->col[1] = 2 * j + 1;
		}
		inv = r->freq[j].f;
		q->inv_freq = inv;
		q->inv32 = r->inv32[j];
		q->original = base.freq[j].f;
		q->region = (enum pe_rope_region)r->region[j];
		if (q->region == PE_REGION_UNROTATED || !(inv > 0)) {
			q->wavelength = INFINITY;
			q->rotations = 0;
			q->scale = NAN;
			continue;
		}
		q->wavelength = 2 * PE_PI / inv;
		q->rotations = (double)context * inv / (2 * PE_PI);
		q->scale = q->original / inv;
	}
	pe_rope_free(&base);
	return 0;
}

size_t pe_rope_spans(const struct pe_rope *r, struct pe_rope_span *spans)
{
	size_t j, n = 0;

	for (j = 0; j < r->nfreq; j++) {
		if (n && spans[n - 1].region == r->region[j]) {
			spans[n - 1].last = j;
			continue;
		}
		spans[n].region = (enum pe_rope_region)r->region[j];
		spans[n].first = spans[n].last = j;
		n++;
	}
	return n;
}

int pe_rope_dynamic_theta(const struct pe_rope *r, uint64_t seq_len, double *theta,
			  struct pe_error *err)
{
	struct pe_rope_params p = r->p;
	struct pe_rope d;
	int rc;

	p.positions = 1;
	p.offset = 0;
	p.seq_len = seq_len;
	rc = pe_rope_init(&d, &p, err);
	*theta = d.dynamic_theta;
	pe_rope_free(&d);
	return rc;
}
