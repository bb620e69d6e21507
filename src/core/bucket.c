/*
 * Relative-position buckets (see bucket.h for the conventions and the
 * float32 arithmetic each scheme repeats).
 *
 * T5 and DeBERTa ids depend on the distance only, so an L x L grid is a
 * Toeplitz matrix: the ids of the 2L - 1 distances are computed once and
 * every row is a slice of that vector (row i starts at distance -i), which
 * keeps the fill a memcpy.  A gathered bias is the same with one vector
 * per head.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bucket.h"

const char *const pe_bucket_scheme_names[] = { "t5", "deberta", "swin", NULL };

void pe_bucket_defaults(struct pe_bucket_params *p, enum pe_bucket_scheme scheme)
{
	memset(p, 0, sizeof *p);
	p->scheme = scheme;
	p->num_buckets = 32;
	p->max_distance = 128;
	p->bidirectional = 1;
	p->bucket_size = 256;
	p->max_position = 512;
	p->wh = p->ww = 7;
}

static int64_t t5_half(const struct pe_bucket_params *p)
{
	return p->bidirectional ? p->num_buckets / 2 : p->num_buckets;
}

int pe_bucket_check(const struct pe_bucket_params *p, struct pe_error *err)
{
	int64_t nb, me;

	switch (p->scheme) {
	case PE_BUCKET_T5:
		if (p->num_buckets < 2 || p->num_buckets > PE_BUCKET_MAX_BUCKETS)
			return pe_fail(err, PE_ERR_PARAM, "{num_buckets} must be 2..%lld, got %lld",
				       (long long)PE_BUCKET_MAX_BUCKETS, (long long)p->num_buckets);
		if (p->bidirectional && (p->num_buckets % 2 != 0 || p->num_buckets < 4))
			return pe_fail(err, PE_ERR_PARAM,
				       "{num_buckets} must be even and at least 4 when bidirectional (half the buckets for each direction), got %lld",
				       (long long)p->num_buckets);
		nb = t5_half(p);
		me = nb / 2;
		if (p->max_distance <= me || p->max_distance > PE_BUCKET_MAX_DISTANCE)
			return pe_fail(err, PE_ERR_PARAM,
				       "{max_distance} must exceed max_exact = %lld (%s{num_buckets} %lld / %d: the distances that get a bucket each) and be at most 2^53, got %lld",
				       (long long)me, p->bidirectional ? "bidirectional " : "causal ",
				       (long long)p->num_buckets, p->bidirectional ? 4 : 2,
				       (long long)p->max_distance);
		return 0;
	case PE_BUCKET_DEBERTA:
		if (p->bucket_size < 2 || p->bucket_size > PE_BUCKET_MAX_BUCKETS)
			return pe_fail(err, PE_ERR_PARAM, "{bucket_size} must be 2..%lld, got %lld",
				       (long long)PE_BUCKET_MAX_BUCKETS, (long long)p->bucket_size);
		if (p->max_position - 1 <= p->bucket_size / 2 || p->max_position > PE_BUCKET_MAX_DISTANCE)
			return pe_fail(err, PE_ERR_PARAM,
				       "{max_position} must exceed {bucket_size} / 2 + 1 = %lld (the log buckets span mid .. max-position - 1) and be at most 2^53, got %lld",
				       (long long)(p->bucket_size / 2 + 1), (long long)p->max_position);
		return 0;
	case PE_BUCKET_SWIN:
		if (p->wh < 1 || p->ww < 1 || p->wh > PE_BUCKET_MAX_WINDOW || p->ww > PE_BUCKET_MAX_WINDOW)
			return pe_fail(err, PE_ERR_PARAM, "{window} must be HxW with H and W in 1..%d, got %lldx%lld",
				       PE_BUCKET_MAX_WINDOW, (long long)p->wh, (long long)p->ww);
		return 0;
	}
	return pe_fail(err, PE_ERR_PARAM, "unknown bucket scheme");
}

/* The float32 logarithm, correctly rounded (double log, one rounding). */
static float log32(float x)
{
	return (float)log((double)x);
}

/* T5 / HF T5Attention._relative_position_bucket:
 *   max_exact + long(log(float(n) / max_exact) / math.log(max_distance /
 *   max_exact) * (num_buckets - max_exact)), at most num_buckets - 1,
 * every operation on float32 tensors; the Python constant log(md / me) is
 * a double rounded to float32 when it meets the tensor. */
int64_t pe_t5_bucket(const struct pe_bucket_params *p, int64_t d)
{
	int64_t nb = t5_half(p), me = nb / 2, ret = 0, n, v;
	float q, c;

	if (p->bidirectional) {
		if (d > 0)
			ret = nb;
		n = d < 0 ? -d : d;
	} else {
		n = d < 0 ? -d : 0;
	}
	if (n < me)
		return ret + n;
	q = (float)n / (float)me;
	c = log32(q) / (float)log((double)p->max_distance / (double)me);
	v = me + (int64_t)(c * (float)(nb - me));
	return ret + (v < nb - 1 ? v : nb - 1);
}

/* HF DeBERTa-v2 make_log_bucket_position: |d| <= mid keeps d; else
 * sign(d) * (ceil(log(|d| / mid) / log(float32((max_position - 1) / mid))
 * * (mid - 1)) + mid), all float32. */
int64_t pe_deberta_bucket(const struct pe_bucket_params *p, int64_t d)
{
	int64_t mid = p->bucket_size / 2, a = d < 0 ? -d : d;
	float den, x, lp;

	if (a <= mid)
		return d;
	den = log32((float)((double)(p->max_position - 1) / (double)mid));
	x = log32((float)a / (float)mid) / den;
	lp = ceilf(x * (float)(mid - 1)) + (float)mid;
	return d < 0 ? -(int64_t)lp : (int64_t)lp;
}

uint64_t pe_swin_tokens(const struct pe_bucket_params *p)
{
	return (uint64_t)(p->wh * p->ww) + (p->cls_token ? 1 : 0);
}

int32_t pe_swin_index(const struct pe_bucket_params *p, uint64_t q, uint64_t k)
{
	int64_t rel = (2 * p->wh - 1) * (2 * p->ww - 1), hq, wq, hk, wk;

	if (p->cls_token) {
		if (q == 0 && k == 0)
			return (int32_t)(rel + 2);
		if (q == 0)
			return (int32_t)rel;
		if (k == 0)
			return (int32_t)(rel + 1);
		q--;
		k--;
	}
	hq = (int64_t)q / p->ww;
	wq = (int64_t)q % p->ww;
	hk = (int64_t)k / p->ww;
	wk = (int64_t)k % p->ww;
	return (int32_t)((hq - hk + p->wh - 1) * (2 * p->ww - 1) + (wq - wk + p->ww - 1));
}

uint64_t pe_bucket_table_rows(const struct pe_bucket_params *p)
{
	switch (p->scheme) {
	case PE_BUCKET_T5:
		return (uint64_t)p->num_buckets;
	case PE_BUCKET_DEBERTA:
		return 2 * (uint64_t)p->bucket_size;
	case PE_BUCKET_SWIN:
		break;
	}
	return (uint64_t)((2 * p->wh - 1) * (2 * p->ww - 1)) + (p->cls_token ? 3 : 0);
}

uint64_t pe_bucket_table_row(const struct pe_bucket_params *p, int32_t id)
{
	int64_t r;

	if (p->scheme != PE_BUCKET_DEBERTA)
		return (uint64_t)id;
	r = (int64_t)id + p->bucket_size;
	if (r < 0)
		r = 0;
	if (r > 2 * p->bucket_size - 1)
		r = 2 * p->bucket_size - 1;
	return (uint64_t)r;
}

/* ---- the tensors ---- */

/* The id of distance d in the scheme's own sign (t5: key - query). */
static int64_t id_of(const struct pe_bucket_params *p, int64_t d)
{
	return p->scheme == PE_BUCKET_T5 ? pe_t5_bucket(p, d) : pe_deberta_bucket(p, d);
}

/* lut[k] = the id of distance first + k (key - query for a grid: deberta's
 * query - key is its negation), k < len.  Ids beyond int32 are refused. */
static int fill_lut(struct pe_bucket *b, int64_t first, uint64_t len, int grid,
		    struct pe_error *err)
{
	uint64_t k;
	int64_t d, v;

	b->lut = malloc((size_t)len * sizeof *b->lut);
	if (!b->lut)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory for %llu bucket ids",
			       (unsigned long long)len);
	for (k = 0; k < len; k++) {
		d = first + (int64_t)k;
		v = id_of(&b->p, grid && b->p.scheme == PE_BUCKET_DEBERTA ? -d : d);
		if (v > INT32_MAX || v < -INT32_MAX)
			return pe_fail(err, PE_ERR_PARAM,
				       "distance %lld gets bucket %lld, beyond int32: {max_position} is too close to {bucket_size} / 2",
				       (long long)d, (long long)v);
		b->lut[k] = (int32_t)v;
	}
	return 0;
}

static int fill_ids(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_bucket *b = ctx;
	int32_t *o = out;
	uint64_t n = b->n, i, j;
	size_t r;

	(void)err;
	for (r = 0; r < nrows; r++, o += n) {
		i = r0 + r;
		if (b->p.scheme == PE_BUCKET_SWIN) {
			for (j = 0; j < n; j++)
				o[j] = pe_swin_index(&b->p, i, j);
		} else {
			memcpy(o, b->lut + (n - 1 - i), (size_t)n * sizeof *o);
		}
	}
	return 0;
}

static int fill_distances(const void *ctx, uint64_t r0, size_t nrows, void *out,
			  struct pe_error *err)
{
	const struct pe_bucket *b = ctx;
	int32_t *o = out;
	size_t r;

	(void)err;
	for (r = 0; r < nrows; r++) {
		o[2 * r] = (int32_t)(b->first + (int64_t)(r0 + r));
		o[2 * r + 1] = b->lut[r0 + r];
	}
	return 0;
}

/* Bias rows: a grid's row r is head r / L, query r % L; a distance row
 * holds every selected head. */
static int fill_bias(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_bucket *b = ctx;
	float *o = out;
	uint64_t n = b->n, nh = b->head < 0 ? b->heads : 1, lutlen, r, i, j, h, hc;
	size_t k;

	(void)err;
	if (b->distances) {
		for (k = 0; k < nrows; k++)
			for (h = 0; h < nh; h++)
				*o++ = b->blut[h * n + r0 + k];
		return 0;
	}
	lutlen = 2 * n - 1;
	for (k = 0; k < nrows; k++, o += n) {
		r = r0 + k;
		h = r / n;
		i = r % n;
		if (b->p.scheme != PE_BUCKET_SWIN) {
			memcpy(o, b->blut + h * lutlen + (n - 1 - i), (size_t)n * sizeof *o);
			continue;
		}
		hc = b->head < 0 ? h : (uint64_t)b->head;
		for (j = 0; j < n; j++)
			o[j] = b->table[(uint64_t)pe_swin_index(&b->p, i, j) * b->heads + hc];
	}
	return 0;
}

static uint64_t grid_side(const struct pe_bucket_params *p, uint64_t n)
{
	return p->scheme == PE_BUCKET_SWIN ? pe_swin_tokens(p) : n;
}

static int setup(struct pe_bucket *b, const struct pe_bucket_params *p, uint64_t n, int distances,
		 int64_t a, int64_t e, struct pe_error *err)
{
	memset(b, 0, sizeof *b);
	b->p = *p;
	b->head = -1;
	b->distances = distances;
	if (pe_bucket_check(p, err) != 0)
		return -1;
	if (distances) {
		if (p->scheme == PE_BUCKET_SWIN)
			return pe_fail(err, PE_ERR_PARAM, "swin ids depend on two offsets, not one distance: use {window}");
		if (a >= e || a < -(int64_t)INT32_MAX || e > (int64_t)INT32_MAX)
			return pe_fail(err, PE_ERR_PARAM, "distances A:B need A < B within +-%d",
				       INT32_MAX);
		b->n = (uint64_t)(e - a);
		b->first = a;
		return fill_lut(b, a, b->n, 0, err);
	}
	b->n = grid_side(p, n);
	if (b->n < 1 || b->n > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_PARAM, "{positions} must be 1..%llu, got %llu",
			       (unsigned long long)PE_MAX_COLS, (unsigned long long)b->n);
	if (p->scheme == PE_BUCKET_SWIN)
		return 0;
	return fill_lut(b, -(int64_t)(b->n - 1), 2 * b->n - 1, 1, err);
}

int pe_bucket_ids(struct pe_bucket *b, const struct pe_bucket_params *p, uint64_t n,
		  struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2];

	if (setup(b, p, n, 0, 0, 0, err) != 0)
		return -1;
	shape[0] = shape[1] = b->n;
	return pe_tensor_init(t, "bucket_ids", PE_I32, fill_ids, b, 1, 2, shape, err);
}

int pe_bucket_distances(struct pe_bucket *b, const struct pe_bucket_params *p, int64_t a,
			int64_t e, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[2];

	if (setup(b, p, 0, 1, a, e, err) != 0)
		return -1;
	shape[0] = b->n;
	shape[1] = 2;
	return pe_tensor_init(t, "bucket_distances", PE_I32, fill_distances, b, 1, 2, shape, err);
}

int pe_bucket_bias(struct pe_bucket *b, const struct pe_bucket_params *p, uint64_t n,
		   int distances, int64_t a, int64_t e, const float *table, uint64_t rows,
		   uint64_t heads, int64_t head, struct pe_tensor *t, struct pe_error *err)
{
	uint64_t shape[3], need, nh, len, h, k, hc;
	int ndim;

	if (setup(b, p, n, distances, a, e, err) != 0)
		return -1;
	need = pe_bucket_table_rows(p);
	if (rows != need)
		return pe_fail(err, PE_ERR_DATA,
			       "the bias table must have %llu rows (one per %s) and one column per head, got %llu x %llu%s",
			       (unsigned long long)need,
			       p->scheme == PE_BUCKET_SWIN ? "relative offset" : "bucket",
			       (unsigned long long)rows, (unsigned long long)heads,
			       heads == need ? " (transposed? the reference stores buckets x heads)" : "");
	if (head >= 0 && (uint64_t)head >= heads)
		return pe_fail(err, PE_ERR_PARAM, "{head} must be below the table's %llu heads, got %lld",
			       (unsigned long long)heads, (long long)head);
	b->heads = heads;
	b->head = head;
	nh = head < 0 ? heads : 1;
	if (p->scheme == PE_BUCKET_SWIN) {
		b->table = malloc((size_t)(rows * heads) * sizeof *b->table);
		if (!b->table)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory for the bias table");
		memcpy(b->table, table, (size_t)(rows * heads) * sizeof *b->table);
	} else {
		len = distances ? b->n : 2 * b->n - 1;
		if (nh > SIZE_MAX / sizeof(float) / len)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory for the gathered bias");
		b->blut = malloc((size_t)(nh * len) * sizeof *b->blut);
		if (!b->blut)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory for the gathered bias");
		for (h = 0; h < nh; h++) {
			hc = head < 0 ? h : (uint64_t)head;
			for (k = 0; k < len; k++)
				b->blut[h * len + k] =
					table[pe_bucket_table_row(p, b->lut[k]) * heads + hc];
		}
	}
	if (distances) {
		shape[0] = b->n;
		shape[1] = nh;
		ndim = 2;
	} else if (head >= 0) {
		shape[0] = shape[1] = b->n;
		ndim = 2;
	} else {
		shape[0] = heads;
		shape[1] = shape[2] = b->n;
		ndim = 3;
	}
	if (pe_tensor_init(t, "bucket_bias", PE_F32, fill_bias, b, 1, ndim, shape, err) != 0)
		return -1;
	t->f32_exact = 1;	/* a gather of the float32 table read */
	return 0;
}

void pe_bucket_free(struct pe_bucket *b)
{
	free(b->lut);
	free(b->blut);
	free(b->table);
	b->lut = NULL;
	b->blut = NULL;
	b->table = NULL;
}
