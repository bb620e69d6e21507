/*
 * fuzz_mrope - the --sequence parser of generate mrope (core/mrope.h) and
 * the layout of its ids.  The first byte picks the rule, frame splitting,
 * timing, merge and lane layout; the rest is the description.  A parsed
 * sequence that lays out is checked against the header's promises: every
 * id within [0, max_id], max_id reached, rope_delta = max_id + 1 - N, any
 * block of tokens the same ids as the whole, cos values within [-1, 1].
 */
#include "core/mrope.h"
#include "fuzz.h"

#define MOST 4096	/* tokens checked */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double ks[4] = { 0, 2, 0.5, 3 };
	struct pe_mrope_seq seq;
	struct pe_mrope_params p;
	struct pe_mrope m;
	struct pe_tensor t;
	struct pe_error err = { 0 };
	static int32_t ids[3][MOST], part[3][MOST];
	static float cosv[64 * 8];
	uint64_t i, half;
	int32_t top = -1;
	int k;

	if (size < 1)
		return 0;
	if (pe_mrope_seq_parse((const char *)data + 1, size - 1, &seq, &err) != 0) {
		FUZZ_REQUIRE(seq.item == NULL && seq.n == 0);
		fuzz_check_error(&err, "");
		return 0;
	}
	FUZZ_REQUIRE(seq.n >= 1 && seq.item != NULL);
	pe_mrope_defaults(&p);
	p.seq = &seq;
	p.rule = (enum pe_mrope_rule)(data[0] & 1);
	p.split = (data[0] >> 1) & 1;
	p.tokens_per_second = p.split ? 0 : ks[(data[0] >> 2) & 3];
	p.merge = 1 + ((data[0] >> 4) & 3);
	p.layout = (enum pe_mrope_layout)(data[0] >> 7);
	p.rope.rotary_dim = 8;
	p.section[0] = 2;
	p.section[1] = 1;
	p.section[2] = 1;
	if (pe_mrope_init(&m, &p, &err) != 0) {
		fuzz_check_error(&err, "");
		pe_mrope_free(&m);
		pe_mrope_seq_free(&seq);
		return 0;
	}
	FUZZ_REQUIRE(m.n >= 1 && m.max_id >= 0 && m.max_id <= PE_MROPE_MAX_ID);
	FUZZ_REQUIRE(m.delta == m.max_id + 1 - (int64_t)m.n);
	if (m.n <= MOST) {
		pe_mrope_ids(&m, 0, (size_t)m.n, ids[0], ids[1], ids[2]);
		for (k = 0; k < 3; k++)
			for (i = 0; i < m.n; i++) {
				FUZZ_REQUIRE(ids[k][i] >= 0 && ids[k][i] <= m.max_id);
				if (ids[k][i] > top)
					top = ids[k][i];
			}
		FUZZ_REQUIRE(top == m.max_id);
		half = m.n / 2;
		pe_mrope_ids(&m, half, (size_t)(m.n - half), part[0], part[1], part[2]);
		for (k = 0; k < 3; k++)
			FUZZ_REQUIRE(memcmp(part[k], ids[k] + half, (size_t)(m.n - half) * 4) == 0);
		FUZZ_REQUIRE(pe_mrope_tensor(&m, PE_MROPE_COS, &t, &err) == 0);
		FUZZ_REQUIRE(t.rows == m.n && t.cols == 8);
		FUZZ_REQUIRE(t.fill(t.ctx, 0, (size_t)(m.n < 64 ? m.n : 64), cosv, &err) == 0);
		for (i = 0; i < (m.n < 64 ? m.n : 64) * 8; i++)
			FUZZ_REQUIRE(cosv[i] >= -1.0f && cosv[i] <= 1.0f);
	}
	pe_mrope_free(&m);
	pe_mrope_seq_free(&seq);
	return 0;
}
