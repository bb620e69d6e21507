/*
 * bucket.h - relative positions mapped to the ids a model looks its bias
 * up with: T5's log buckets, DeBERTa's signed log buckets, Swin's 2-D
 * relative_position_index.
 *
 * Numerics: T5 and DeBERTa compute the log branch in float32 (Hugging Face
 * transformers, PyTorch; mesh-tensorflow likewise), and a bucket is the
 * truncation (T5) or ceiling (DeBERTa) of that float32 value, so the
 * float32 steps are what decide an id near a boundary.  posenc repeats
 * them operation by operation: int -> float32, one float32 division, the
 * float32 logarithm (correctly rounded here: the double log rounded once),
 * the constant's log as each reference takes it, one float32 division, one
 * float32 product, then trunc / ceil.  Checked against PyTorch 1.13 over
 * every distance |d| <= 300000 and 400 parameter sets (tests/data/
 * buckets/): identical ids.  PyTorch's vectorised float32 log is not
 * correctly rounded (it differs from it for about 1 in 2500 arguments), so
 * a framework can still land one id away where a parameter set puts a
 * product within an ulp of an integer; the realistic configurations tested
 * have no such distance.
 *
 * Sign conventions (each as its reference):
 *   T5       relative position = key - query (memory - context);
 *            bidirectional: keys after the query add num_buckets/2;
 *            causal: keys after the query are bucket 0
 *   DeBERTa  relative position = query - key, ids signed, no clamp at
 *            max_position (HF DeBERTa-v2/v3 make_log_bucket_position)
 *   Swin     per axis query - key; id = (dh + Wh - 1)(2Ww - 1) + dw + Ww - 1;
 *            with a class token (BEiT, timm) token 0 is the class token:
 *            row 0 -> R, column 0 -> R + 1, [0][0] -> R + 2, R = (2Wh-1)(2Ww-1)
 */
#ifndef PE_BUCKET_H
#define PE_BUCKET_H

#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"

enum pe_bucket_scheme { PE_BUCKET_T5, PE_BUCKET_DEBERTA, PE_BUCKET_SWIN };

/* "t5", "deberta", "swin", NULL: in enum order. */
extern const char *const pe_bucket_scheme_names[];

/* Largest parameters accepted: ids and table rows stay far inside int32
 * and every count exact in float32. */
#define PE_BUCKET_MAX_BUCKETS ((int64_t)1 << 24)
#define PE_BUCKET_MAX_DISTANCE ((int64_t)1 << 53)
#define PE_BUCKET_MAX_WINDOW 2048

struct pe_bucket_params {
	enum pe_bucket_scheme scheme;
	/* t5 */
	int64_t num_buckets, max_distance;
	int bidirectional;
	/* deberta */
	int64_t bucket_size, max_position;
	/* swin */
	int64_t wh, ww;
	int cls_token;
};

/* The defaults of each reference: t5 32 / 128 bidirectional, deberta
 * 256 / 512, swin 7x7 without class token. */
void pe_bucket_defaults(struct pe_bucket_params *p, enum pe_bucket_scheme scheme);

/*
 * Check p's parameters for its scheme: t5 needs max_exact >= 1 (num_buckets
 * >= 2, and even and >= 4 when bidirectional) and max_distance > max_exact;
 * deberta bucket_size >= 2 and max_position - 1 > bucket_size / 2; swin a
 * window of 1..PE_BUCKET_MAX_WINDOW each way.  PE_ERR_PARAM with a message
 * naming what is needed (in option words: --num-buckets ...).  0 or -1.
 */
int pe_bucket_check(const struct pe_bucket_params *p, struct pe_error *err);

/* The id of relative position d (t5: key - query; deberta: query - key);
 * |d| < 2^62.  p must have passed pe_bucket_check.  A deberta id can
 * exceed int32 when max_position - 1 is barely above bucket_size / 2 (the
 * tensors below refuse that). */
int64_t pe_t5_bucket(const struct pe_bucket_params *p, int64_t d);
int64_t pe_deberta_bucket(const struct pe_bucket_params *p, int64_t d);

/* Swin: the id of query token q and key token k (0-based, row-major in
 * the window, token 0 the class token when cls_token). */
int32_t pe_swin_index(const struct pe_bucket_params *p, uint64_t q, uint64_t k);

/* Tokens of a Swin window: wh * ww (+ 1 with the class token). */
uint64_t pe_swin_tokens(const struct pe_bucket_params *p);

/*
 * Rows of the bias table the ids index (one row per id, one column per
 * head): t5 num_buckets; deberta 2 * bucket_size (HF DeBERTa's
 * rel_embeddings, indexed clamp(id + bucket_size, 0, 2 * bucket_size - 1));
 * swin (2Wh-1)(2Ww-1), + 3 with the class token.
 */
uint64_t pe_bucket_table_rows(const struct pe_bucket_params *p);

/* The bias-table row of an id (deberta clamps as above; the others are
 * the id itself). */
uint64_t pe_bucket_table_row(const struct pe_bucket_params *p, int32_t id);

/*
 * The results, as streamed tensors (core/tensor.h).  A struct pe_bucket
 * holds what their fills read; it must outlive them.
 *   ids        L x L int32, row = query i, column = key j (t5, deberta: the
 *              bucket of j - i resp. i - j; swin: L = tokens)
 *   distances  (B - A) x 2 int32 rows (d, bucket of d), d = A .. B-1
 *   bias       heads x L x L float32: bias[row of id(i, j)][h]; with a
 *              head selected, L x L; with distances, (B - A) x heads
 *              (row k: distance A + k)
 */
struct pe_bucket {
	struct pe_bucket_params p;
	uint64_t n;		/* L (ids, bias) or B - A (distances) */
	int64_t first;		/* A (distances) */
	int distances;
	int32_t *lut;		/* t5 / deberta: the id of every distance a row
				 * needs (2L - 1 ids; B - A for distances) */
	/* bias */
	uint64_t heads;		/* of the table */
	int64_t head;		/* -1: all heads */
	float *blut;		/* t5 / deberta: per selected head, the bias of
				 * every distance in lut (heads x len of lut) */
	float *table;		/* swin: the bias table (rows x heads), copied */
	uint64_t table_rows;
};

/* Ids of an L x L query/key grid (L = tokens for swin, n ignored).
 * 0 or -1 (PE_ERR_NOMEM). */
int pe_bucket_ids(struct pe_bucket *b, const struct pe_bucket_params *p, uint64_t n,
		  struct pe_tensor *t, struct pe_error *err);

/* Ids of distances [a, b), a < b, |a|, |b| <= 2^31 - 1 (t5, deberta). */
int pe_bucket_distances(struct pe_bucket *b, const struct pe_bucket_params *p, int64_t a,
			int64_t e, struct pe_tensor *t, struct pe_error *err);

/*
 * Gather a bias table (rows x heads, row-major, float32) by the ids of an
 * L x L grid (distances 0: as pe_bucket_ids) or of distances [a, e)
 * (distances 1; n ignored).  The table must have pe_bucket_table_rows()
 * rows: else PE_ERR_DATA naming the shape needed.  head -1 for all heads,
 * else 0 <= head < heads (PE_ERR_PARAM).  0 or -1.
 */
int pe_bucket_bias(struct pe_bucket *b, const struct pe_bucket_params *p, uint64_t n,
		   int distances, int64_t a, int64_t e, const float *table, uint64_t rows,
		   uint64_t heads, int64_t head, struct pe_tensor *t, struct pe_error *err);

void pe_bucket_free(struct pe_bucket *b);

#endif
