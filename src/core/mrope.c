#include "core/mrope.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

static const char *const table_names[] = { "mrope_ids", "mrope_cos", "mrope_sin", "mrope_lanes",
					   "mrope_inv_freq" };

/* Tokens whose ids follow one formula: a text run, or a vision item. */
struct pe_mrope_block {
	uint64_t first, ntok;	/* its tokens */
	int64_t st;		/* its start position */
	int vision;
	uint64_t lw, frame;	/* vision: tokens per row, per frame (lh lw) */
	uint64_t step;		/* split: max(lh, lw), frame f starts at st + f step */
	int split, timed;
	float s32, k32, iv32;	/* timed: fl(S), fl(K), fl(fl(S) fl(K)) */
};

/* ---- the sequence description ---- */

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

void pe_mrope_seq_free(struct pe_mrope_seq *seq)
{
	free(seq->item);
	free(seq->text);
	memset(seq, 0, sizeof *seq);
}

/* the item at s[0, n) quoted for a message, at most 60 bytes of it */
static int item_fail(struct pe_error *err, const char *s, size_t n, size_t k, const char *what)
{
	return pe_fail(err, PE_ERR_PARAM, "{sequence} item %zu '%.*s%s': %s", k + 1,
		       (int)(n > 60 ? 60 : n), s, n > 60 ? "..." : "", what);
}

/* "AxBxC" (at most `most` parts), each part digits within [1, hi]: how
 * many parts, 0 when malformed, -1 when a part is out of range */
static int dims(const char *s, size_t n, uint64_t hi, uint64_t *v, int most)
{
	size_t i = 0, j, d;
	int k;

	for (k = 0; k < most; k++) {
		for (j = i; j < n && s[j] != 'x'; j++)
			;
		for (d = i; d < j && s[d] >= '0' && s[d] <= '9'; d++)
			;
		if (j == i || d != j)
			return 0;
		if (pe_parse_digits(s + i, j - i, &v[k]) != 0 || v[k] < 1 || v[k] > hi)
			return -1;
		if (j == n)
			return k + 1;
		i = j + 1;
	}
	return 0;
}

/* one item s[0, n) (no blanks around it) into it */
static int parse_item(const char *s, size_t n, size_t k, struct pe_mrope_item *it,
		      struct pe_error *err)
{
	static const char *const kinds[] = { "text", "image", "video" };
	const char *colon = memchr(s, ':', n), *at;
	size_t klen = colon ? (size_t)(colon - s) : n, rest;
	uint64_t v[3];
	int kind, got;
	char num[64];

	for (kind = 0; kind < 3; kind++)
		if (strlen(kinds[kind]) == klen && memcmp(s, kinds[kind], klen) == 0)
			break;
	if (kind == 3)
		return item_fail(err, s, n, k, "not text:N, image:TxHxW or video:TxHxW[@S]");
	if (!colon)
		return item_fail(err, s, n, k, kind == 0 ? "expected text:N" : kind == 1
				 ? "expected image:TxHxW" : "expected video:TxHxW[@S]");
	it->kind = (enum pe_mrope_kind)kind;
	s = colon + 1;
	rest = n - klen - 1;
	if (kind == PE_MROPE_TEXT) {
		got = dims(s, rest, PE_MROPE_MAX_TEXT, &it->n, 1);
		if (got == 0)
			return item_fail(err, s - klen - 1, n, k, "expected text:N, N a count of tokens");
		if (got < 0)
			return item_fail(err, s - klen - 1, n, k,
					 "the count of tokens must be from 1 to 2^40");
		return 0;
	}
	at = kind == PE_MROPE_VIDEO ? memchr(s, '@', rest) : NULL;
	got = dims(s, at ? (size_t)(at - s) : rest, PE_MROPE_MAX_GRID, v, 3);
	if (got < 0)
		return item_fail(err, s - klen - 1, n, k,
				 "grid sizes must be from 1 to 2^24 patches");
	if (got == 3 || (got == 2 && kind == PE_MROPE_IMAGE)) {
		it->t = got == 3 ? v[0] : 1;
		it->h = v[got - 2];
		it->w = v[got - 1];
	} else {
		return item_fail(err, s - klen - 1, n, k, kind == PE_MROPE_IMAGE
				 ? "expected image:TxHxW or image:HxW, the grid in patches"
				 : "expected video:TxHxW[@S], the grid in patches (S seconds per temporal grid)");
	}
	if (!at)
		return 0;
	rest -= (size_t)(at - s) + 1;
	if (rest == 0 || rest >= sizeof num)
		return item_fail(err, s - klen - 1, n, k,
				 "@S must be the seconds per temporal grid, a positive number");
	memcpy(num, at + 1, rest);
	num[rest] = '\0';
	if (pe_parse_double(num, &it->seconds) != 0 || !(it->seconds > 0))
		return item_fail(err, s - klen - 1, n, k,
				 "@S must be the seconds per temporal grid, a positive number");
	return 0;
}

int pe_mrope_seq_parse(const char *text, size_t len, struct pe_mrope_seq *seq,
		       struct pe_error *err)
{
	size_t i = 0, j, a, b, cap = 0, k;
	struct pe_mrope_item *grown;

	memset(seq, 0, sizeof *seq);
	if (memchr(text, '\0', len))
		return pe_fail(err, PE_ERR_PARAM, "{sequence} holds a NUL byte");
	seq->text = malloc(len + 1);
	if (!seq->text)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (len)
		memcpy(seq->text, text, len);
	seq->text[len] = '\0';
	text = seq->text;
	for (;;) {
		for (j = i; j < len && text[j] != ','; j++)
			;
		for (a = i; a < j && blank(text[a]); a++)
			;
		for (b = j; b > a && blank(text[b - 1]); b--)
			;
		k = seq->n;
		if (a == b) {
			if (len == 0 || (j == len && i == 0 && a == b)) {
				pe_mrope_seq_free(seq);
				return pe_fail(err, PE_ERR_PARAM,
					       "{sequence} is empty: give items such as text:3,image:1x4x6");
			}
			pe_mrope_seq_free(seq);
			return pe_fail(err, PE_ERR_PARAM, "{sequence} item %zu is empty (a comma too many)",
				       k + 1);
		}
		if (k == PE_MROPE_MAX_ITEMS) {
			pe_mrope_seq_free(seq);
			return pe_fail(err, PE_ERR_PARAM, "{sequence} has more than %zu items",
				       PE_MROPE_MAX_ITEMS);
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(seq->item, cap * sizeof *grown);
			if (!grown) {
				pe_mrope_seq_free(seq);
				return pe_fail(err, PE_ERR_NOMEM, "out of memory");
			}
			seq->item = grown;
		}
		memset(&seq->item[k], 0, sizeof seq->item[k]);
		seq->item[k].at = a;
		seq->item[k].len = b - a;
		if (parse_item(text + a, b - a, k, &seq->item[k], err) != 0) {
			pe_mrope_seq_free(seq);
			return -1;
		}
		seq->n++;
		if (j == len)
			return 0;
		i = j + 1;
	}
}

/* ---- ids ---- */

void pe_mrope_defaults(struct pe_mrope_params *p)
{
	memset(p, 0, sizeof *p);
	p->rule = PE_MROPE_HF;
	p->merge = 2;
	p->layout = PE_MROPE_CHUNKED;
	p->section[0] = 16;
	p->section[1] = 24;
	p->section[2] = 24;
	pe_rope_defaults(&p->rope);
	p->rope.theta = 1000000.0;
	p->rope.rotary_dim = 128;
}

/* the temporal offset k(t) of a vision block (mrope.h) */
static float k_of(const struct pe_mrope_block *b, enum pe_mrope_rule rule, uint64_t t)
{
	float ft = (float)t, x;

	if (!b->timed)
		return ft;
	if (rule == PE_MROPE_HF)
		return ft * b->iv32;
	x = ft * b->s32;
	return x * b->k32;
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* the blocks of the sequence, their start positions, the largest id */
static int lay_out(struct pe_mrope *m, struct pe_error *err)
{
	const struct pe_mrope_params *p = &m->p;
	const struct pe_mrope_seq *seq = p->seq;
	int64_t cur = 0, top = -1, st, last;
	uint64_t lt, lh, lw, tokens = 0;
	size_t i;
	float kmax;

	m->block = calloc(seq->n ? seq->n : 1, sizeof *m->block);
	if (!m->block)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (i = 0; i < seq->n; i++) {
		const struct pe_mrope_item *it = &seq->item[i];
		const char *q = seq->text + it->at;
		int qn = (int)(it->len > 60 ? 60 : it->len);
		struct pe_mrope_block *b = &m->block[i];

		st = p->rule == PE_MROPE_HF ? cur : top + 1;
		b->first = tokens;
		b->st = st;
		if (it->kind == PE_MROPE_TEXT) {
			b->ntok = it->n;
			last = st + (int64_t)(it->n - 1);
			if (it->n > (uint64_t)PE_MROPE_MAX_ID || last > PE_MROPE_MAX_ID)
				goto too_far;
			cur = last + 1;
			top = last > top ? last : top;
		} else {
			if (it->h % p->merge || it->w % p->merge)
				return pe_fail(err, PE_ERR_PARAM,
					       "{sequence} item %zu '%.*s': the grid's height %llu and width %llu must be multiples of the spatial merge, %llu ({merge})",
					       i + 1, qn, q, (unsigned long long)it->h,
					       (unsigned long long)it->w, (unsigned long long)p->merge);
			if (it->seconds > 0 && p->split)
				return pe_fail(err, PE_ERR_PARAM,
					       "{sequence} item %zu '%.*s': seconds per grid (@S) do not apply to videos split into frames ({video_frames} split: their timestamps are text tokens)",
					       i + 1, qn, q);
			if (it->seconds > 0 && !(p->tokens_per_second > 0))
				return pe_fail(err, PE_ERR_PARAM,
					       "{sequence} item %zu '%.*s': seconds per grid (@S) space a video's temporal ids by {tokens_per_second} (Qwen2.5-VL's timing), not given",
					       i + 1, qn, q);
			lt = it->t;
			lh = it->h / p->merge;
			lw = it->w / p->merge;
			b->vision = 1;
			b->lw = lw;
			b->frame = lh * lw;	/* both below 2^24 */
			if (lt > PE_MROPE_MAX_TEXT / b->frame)
				goto too_many;
			b->ntok = lt * b->frame;
			b->step = lh > lw ? lh : lw;
			b->split = it->kind == PE_MROPE_VIDEO && p->split;
			if (b->split) {
				/* frame f: st + f step .. st + f step + step - 1 */
				if (lt > (uint64_t)PE_MROPE_MAX_ID / b->step ||
				    st + (int64_t)(lt * b->step) - 1 > PE_MROPE_MAX_ID)
					goto too_far;
				last = st + (int64_t)(lt * b->step) - 1;
				cur = last + 1;
				/* under the hf rule st can lie below an earlier
				 * block's temporal ids (an image of T > 1) */
				top = last > top ? last : top;
			} else {
				if (p->tokens_per_second > 0 &&
				    (it->kind == PE_MROPE_VIDEO || p->rule == PE_MROPE_REFERENCE)) {
					b->timed = 1;
					b->s32 = it->kind == PE_MROPE_IMAGE ? 0.0f
						 : (float)(it->seconds > 0 ? it->seconds : 1.0);
					b->k32 = (float)p->tokens_per_second;
					b->iv32 = b->s32 * b->k32;
				}
				kmax = k_of(b, p->rule, lt - 1);
				if (!(kmax < 2147483648.0f) ||
				    st + (int64_t)kmax > PE_MROPE_MAX_ID ||
				    st + (int64_t)b->step - 1 > PE_MROPE_MAX_ID)
					goto too_far;
				last = max3(st + (int64_t)kmax, st + (int64_t)lh - 1, st + (int64_t)lw - 1);
				cur = st + (int64_t)b->step;
				top = last > top ? last : top;
			}
		}
		if (b->ntok > PE_MROPE_MAX_TEXT - tokens)
			goto too_many;
		tokens += b->ntok;
		continue;
too_far:
		return pe_fail(err, PE_ERR_PARAM,
			       "{sequence} item %zu '%.*s' takes position ids beyond 2^31 - 1 (int32)",
			       i + 1, qn, q);
too_many:
		return pe_fail(err, PE_ERR_PARAM, "{sequence} has more than 2^40 tokens (at item %zu '%.*s')",
			       i + 1, qn, q);
	}
	m->nblock = seq->n;
	m->n = tokens;
	m->min_id = 0;
	m->max_id = top;
	return 0;
}

/* the block holding token n */
static const struct pe_mrope_block *block_of(const struct pe_mrope *m, uint64_t n)
{
	size_t lo = 0, hi = m->nblock, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (m->block[mid].first <= n)
			lo = mid;
		else
			hi = mid;
	}
	return &m->block[lo];
}

/* the ids of token first + o of block b */
static void block_ids(const struct pe_mrope *m, const struct pe_mrope_block *b, uint64_t o,
		      int32_t *t, int32_t *h, int32_t *w)
{
	uint64_t f, r;
	int64_t base;

	if (!b->vision) {
		*t = *h = *w = (int32_t)(b->st + (int64_t)o);
		return;
	}
	f = o / b->frame;
	r = o % b->frame;
	if (b->split) {
		base = b->st + (int64_t)(f * b->step);
		*t = (int32_t)base;
	} else {
		base = b->st;
		*t = (int32_t)(base + (int64_t)k_of(b, m->p.rule, f));
	}
	*h = (int32_t)(base + (int64_t)(r / b->lw));
	*w = (int32_t)(base + (int64_t)(r % b->lw));
}

void pe_mrope_ids(const struct pe_mrope *m, uint64_t first, size_t count, int32_t *t, int32_t *h,
		  int32_t *w)
{
	const struct pe_mrope_block *b, *end = m->block + m->nblock;
	size_t i;

	if (m->p.ids) {
		memcpy(t, m->p.ids + first, count * sizeof *t);
		memcpy(h, m->p.ids + m->n + first, count * sizeof *h);
		memcpy(w, m->p.ids + 2 * m->n + first, count * sizeof *w);
		return;
	}
	if (count == 0)
		return;
	b = block_of(m, first);
	for (i = 0; i < count; i++) {
		while (b + 1 < end && first + i >= b[1].first)
			b++;
		block_ids(m, b, first + i - b->first, &t[i], &h[i], &w[i]);
	}
}

/* stream s's id of token n */
static int32_t one_id(const struct pe_mrope *m, uint64_t n, unsigned s)
{
	int32_t v[3];

	pe_mrope_ids(m, n, 1, &v[0], &v[1], &v[2]);
	return v[s];
}

/* ---- lanes ---- */

int pe_mrope_lanes(enum pe_mrope_layout layout, const uint64_t section[3], size_t half,
		   unsigned char *lane, struct pe_error *err)
{
	uint64_t sum = 0;
	size_t j;
	int k;

	for (k = 0; k < 3; k++) {
		if (section[k] > (uint64_t)half)
			sum = (uint64_t)half + 1;
		else
			sum += section[k];
	}
	if (sum != (uint64_t)half)
		return pe_fail(err, PE_ERR_PARAM,
			       "{mrope_section} %llu,%llu,%llu must sum to the rotary half R/2 = %zu (one section per stream, in frequencies)",
			       (unsigned long long)section[0], (unsigned long long)section[1],
			       (unsigned long long)section[2], half);
	for (j = 0; j < half; j++) {
		if (layout == PE_MROPE_CHUNKED)
			lane[j] = j < section[0] ? 0 : j < section[0] + section[1] ? 1 : 2;
		else	/* T, then H over j = 1 mod 3 and W over j = 2 mod 3 below 3 s */
			lane[j] = j % 3 == 1 && j < 3 * section[1] ? 1
				  : j % 3 == 2 && j < 3 * section[2] ? 2 : 0;
	}
	return 0;
}

/* ---- init ---- */

int pe_mrope_init(struct pe_mrope *m, const struct pe_mrope_params *p, struct pe_error *err)
{
	struct pe_rope_params rp;
	size_t half, j;
	uint64_t i;
	int t;

	memset(m, 0, sizeof *m);
	m->p = *p;
	if (p->rope.scaling != PE_ROPE_NONE)
		return pe_fail(err, PE_ERR_PARAM,
			       "multimodal RoPE is unscaled here ({scaling} %s): posenc reads the Qwen-VL rotary module's default RoPE only",
			       pe_rope_scaling_name(p->rope.scaling));
	if (p->merge < 1 || p->merge > PE_MROPE_MAX_GRID)
		return pe_fail(err, PE_ERR_PARAM, "{merge} must be from 1 to 2^24, got %llu",
			       (unsigned long long)p->merge);
	if (p->tokens_per_second != 0 && !(p->tokens_per_second > 0 && isfinite(p->tokens_per_second)))
		return pe_fail(err, PE_ERR_PARAM, "{tokens_per_second} must be a positive number, got %g",
			       p->tokens_per_second);
	if (p->tokens_per_second > 0 && p->split)
		return pe_fail(err, PE_ERR_PARAM,
			       "{tokens_per_second} does not apply to videos split into frames ({video_frames} split: their timestamps are text tokens)");
	if (p->rope.rotary_dim < 2 || p->rope.rotary_dim % 2 || p->rope.rotary_dim > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_PARAM,
			       "the rotary width must be an even integer from 2 to %llu, got %llu",
			       (unsigned long long)PE_MAX_COLS, (unsigned long long)p->rope.rotary_dim);
	half = (size_t)(p->rope.rotary_dim / 2);
	m->lane = malloc(half);
	if (!m->lane)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (pe_mrope_lanes(p->layout, p->section, half, m->lane, err) != 0)
		return -1;
	for (j = 0; j < half; j++)
		m->nlane[m->lane[j]]++;
	if (p->seq) {
		if (lay_out(m, err) != 0)
			return -1;
	} else {
		if (!p->ids || p->n == 0)
			return pe_fail(err, PE_ERR_PARAM, "no position ids");
		m->n = p->n;
		m->min_id = m->max_id = p->ids[0];
		for (i = 0; i < 3 * p->n; i++) {
			if (p->ids[i] < m->min_id)
				m->min_id = p->ids[i];
			if (p->ids[i] > m->max_id)
				m->max_id = p->ids[i];
		}
		if (m->min_id <= -PE_MROPE_MAX_FILE_ID || m->max_id >= PE_MROPE_MAX_FILE_ID)
			return pe_fail(err, PE_ERR_PARAM,
				       "{position_ids} holds %lld, beyond +-2^24 (where float32 positions stop being exact)",
				       (long long)(m->max_id >= PE_MROPE_MAX_FILE_ID ? m->max_id
										  : m->min_id));
	}
	m->delta = m->max_id + 1 - (int64_t)m->n;
	rp = p->rope;
	rp.offset = m->min_id;
	rp.positions = (uint64_t)(m->max_id - m->min_id) + 1;
	rp.layout = PE_LAYOUT_HALF;
	if (pe_rope_init(&m->rope, &rp, err) != 0 ||
	    pe_rope_tensor(&m->rope, PE_ROPE_COS, &m->rope_table[0], err) != 0 ||
	    pe_rope_tensor(&m->rope, PE_ROPE_SIN, &m->rope_table[1], err) != 0)
		return -1;
	for (t = 0; t < PE_MROPE_NTABLES; t++) {
		m->view[t].m = m;
		m->view[t].table = (enum pe_mrope_table)t;
	}
	return 0;
}

void pe_mrope_free(struct pe_mrope *m)
{
	pe_rope_free(&m->rope);
	free(m->block);
	free(m->lane);
	m->block = NULL;
	m->lane = NULL;
}

/* ---- tables ---- */

#define CHUNK 4096
#define TEXT_RUN 16	/* rows from which a text run is filled as plain RoPE */

/* rows r0 .. r0 + nrows - 1 of the 3 x N ids */
static int fill_ids(const struct pe_mrope *m, uint64_t r0, size_t nrows, int32_t *out,
		    struct pe_error *err)
{
	int32_t *v = malloc(3 * CHUNK * sizeof *v), *s[3];
	uint64_t c, N = m->n;
	size_t k, cn;

	if (!v)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	s[0] = v;
	s[1] = v + CHUNK;
	s[2] = v + 2 * CHUNK;
	for (c = 0; c < N; c += cn) {
		cn = N - c < CHUNK ? (size_t)(N - c) : CHUNK;
		pe_mrope_ids(m, c, cn, s[0], s[1], s[2]);
		for (k = 0; k < nrows; k++)
			memcpy(out + k * N + c, s[r0 + k], cn * sizeof *out);
	}
	free(v);
	return 0;
}

/* the float32 forward's freqs tensor, 3 x R/2 x N in memory (mrope.h), with
 * the ids of rows r0 .. r0 + nrows - 1 at hand */
struct f32_freqs {
	const struct pe_mrope *m;
	uint64_t r0;
	size_t nrows;
	const int32_t *win[3];
};

static float f32_freq(const void *ctx, uint64_t g)
{
	const struct f32_freqs *c = ctx;
	const struct pe_mrope *m = c->m;
	uint64_t N = m->n, half = m->rope.nfreq, n = g % N, j = g / N % half;
	unsigned s = (unsigned)(g / N / half);
	int32_t id = n >= c->r0 && n - c->r0 < c->nrows ? c->win[s][n - c->r0] : one_id(m, n, s);
	float pos = (float)id;

	return pos * m->rope.inv32[j];
}

static int fill_trig(const struct pe_mrope *m, int want_cos, uint64_t r0, size_t nrows, float *out,
		     struct pe_error *err)
{
	size_t half = m->rope.nfreq, R = 2 * half, i, j, run;
	int32_t *ids = malloc(3 * nrows * sizeof *ids), *s[3];
	float *val = NULL, att = m->rope.attention32, v;
	struct f32_freqs c;

	val = m->p.rope.precision == PE_ROPE_FLOAT32 ? malloc(nrows * sizeof *val) : NULL;
	if (!ids || (m->p.rope.precision == PE_ROPE_FLOAT32 && !val)) {
		free(ids);
		free(val);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	s[0] = ids;
	s[1] = ids + nrows;
	s[2] = ids + 2 * nrows;
	pe_mrope_ids(m, r0, nrows, s[0], s[1], s[2]);
	if (!val) {
		for (i = 0; i < nrows; i += run) {
			/* a text run (one position in every stream, consecutive) is
			 * plain RoPE: rope's own rows, its step kernel's speed */
			for (run = 0; i + run < nrows && s[0][i + run] == s[0][i] + (int64_t)run &&
				      s[1][i + run] == s[0][i + run] && s[2][i + run] == s[0][i + run];
			     run++)
				;
			if (run >= TEXT_RUN) {
				const struct pe_tensor *rt = &m->rope_table[!want_cos];

				if (rt->fill(rt->ctx, (uint64_t)(s[0][i] - m->min_id), run, out + i * R,
					     err) != 0) {
					free(ids);
					return -1;
				}
				continue;
			}
			run = 1;
			for (j = 0; j < half; j++) {
				v = pe_rope_exact(&m->rope, j, s[m->lane[j]][i], want_cos);
				out[i * R + j] = out[i * R + j + half] = v;
			}
		}
		free(ids);
		return 0;
	}
	c.m = m;
	c.r0 = r0;
	c.nrows = nrows;
	c.win[0] = s[0];
	c.win[1] = s[1];
	c.win[2] = s[2];
	for (j = 0; j < half; j++) {
		pe_torch_unary(&m->p.rope.torch, want_cos ? PE_TORCH_COS : PE_TORCH_SIN, f32_freq, &c,
			       3 * half * m->n, ((uint64_t)m->lane[j] * half + j) * m->n + r0, nrows,
			       val);
		for (i = 0; i < nrows; i++)
			out[i * R + j] = out[i * R + j + half] = val[i] * att;
	}
	free(ids);
	free(val);
	return 0;
}

static int mrope_fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_mrope_view *view = ctx;
	const struct pe_mrope *m = view->m;
	enum pe_mrope_table table = view->table;
	size_t i, half = m->rope.nfreq;

	switch (table) {
	case PE_MROPE_IDS:
		return fill_ids(m, r0, nrows, out, err);
	case PE_MROPE_LANES:
		for (i = 0; i < nrows; i++)
			((int32_t *)out)[i] = m->lane[(r0 + i) % half];
		return 0;
	case PE_MROPE_COS:
	case PE_MROPE_SIN:
		return fill_trig(m, table == PE_MROPE_COS, r0, nrows, out, err);
	default:
		return pe_fail(err, PE_ERR_PARAM, "no such table");
	}
}

int pe_mrope_tensor(struct pe_mrope *m, enum pe_mrope_table table, struct pe_tensor *t,
		    struct pe_error *err)
{
	uint64_t shape[2] = { m->n, m->p.rope.rotary_dim };
	int ndim = 2;

	if (table == PE_MROPE_INV_FREQ) {
		if (pe_rope_tensor(&m->rope, PE_ROPE_INV_FREQ, t, err) != 0)
			return -1;
		snprintf(t->name, sizeof t->name, "%s", table_names[table]);
		return 0;
	}
	if (table == PE_MROPE_IDS) {
		if (m->n > PE_MAX_COLS)
			return pe_fail(err, PE_ERR_PARAM,
				       "the ids table is 3 x N and holds at most 2^24 tokens a row, the sequence has %llu",
				       (unsigned long long)m->n);
		shape[0] = 3;
		shape[1] = m->n;
	}
	if (table == PE_MROPE_LANES) {
		shape[0] = m->p.rope.rotary_dim;
		ndim = 1;
	}
	return pe_tensor_init(t, table_names[table],
			      table == PE_MROPE_IDS || table == PE_MROPE_LANES ? PE_I32 : PE_F32,
			      mrope_fill, &m->view[table], 1, ndim, shape, err);
}
