/*
 * mrope.h - multimodal rotary position embedding (M-RoPE) as Qwen2-VL,
 * Qwen2.5-VL and Qwen3-VL compute it: every token has three positions
 * (temporal, height, width), and each frequency of the rotary half turns by
 * one of them.
 *
 * Calling sequence:
 *   pe_mrope_seq_parse(text, len, &seq, err)   a --sequence description
 *   pe_mrope_init(&m, &params, err)            ids, lanes, frequencies
 *   pe_mrope_tensor(&m, table, &t, err)        any number of tables
 *   pe_mrope_free(&m); pe_mrope_seq_free(&seq) in every case
 * The sequence (or the given ids) must outlive m.
 *
 * Position ids (transformers 5.18's get_rope_index, and the Qwen reference
 * code; research/rope-2026.md B.1-B.3).  A sequence is a list of items: a
 * run of n text tokens; an image or a video of t x h x w patches before the
 * spatial merge m (h and w multiples of m), lt = t by lh = h/m by lw = w/m
 * tokens in raster order (temporal, then rows, then columns).  From the
 * item's start st:
 *     text      T = H = W = st, st + 1, ...
 *     vision    T = st + k(t_idx),  H = st + h_idx,  W = st + w_idx
 * k(t) = t, but for the videos of a timed model (Qwen2.5-VL: tokens per
 * second K > 0, the video's seconds per temporal grid S, 1 when not given),
 * computed as PyTorch does in float32 and truncated (.long()):
 *     hf         k(t) = trunc(fl(t fl(fl(S) fl(K))))   (transformers 5.18:
 *                `arange(lt) * (tokens_per_second * second_per_grid_t)`)
 *     reference  k(t) = trunc(fl(fl(t fl(S)) fl(K)))   (Qwen's code, vLLM:
 *                `arange(lt) * second_per_grid_t * tokens_per_second`;
 *                a timed model's images have S = 0 there, so k = 0)
 * Where the next item starts:
 *     hf         st + n after text, st + max(lh, lw) after a vision item
 *                (transformers since 2026-02)
 *     reference  1 + the largest id so far in any stream (0 first)
 * The two rules differ only after a video whose temporal ids outrun its
 * spatial ones.  Split videos (Qwen3-VL: every frame a block of its own, the
 * timestamps between them text): a t x h x w video is t frames of 1 x h x w,
 * frame f starting at st + f max(lh, lw) under both rules.  rope_delta =
 * the largest id + 1 - N: decoding continues at N + rope_delta.
 * Or the ids are given: 3 x N integers, rows T, H, W.
 *
 * Lanes: frequency j < R/2 (columns j and j + R/2 of cat(freqs, freqs))
 * takes stream lane[j]; the sections s0, s1, s2 must sum to R/2:
 *     chunked      (Qwen2/2.5-VL, mrope_section doubled over the head): T for
 *                  j < s0, H for j < s0 + s1, W after
 *     interleaved  (Qwen3-VL): H for j = 1 mod 3 below 3 s1, W for j = 2
 *                  mod 3 below 3 s2, T otherwise
 *
 * Values: cos/sin[n][c] = attention * cos/sin(ids[lane[j]][n] inv_j),
 * j = c mod R/2, inv_j as core/rope.h computes it (theta, R, unscaled).
 * PE_ROPE_EXACT: correctly rounded (pe_rope_exact).  PE_ROPE_FLOAT32: the
 * rotary module's float32 forward on PyTorch's CPU kernels, bit for bit:
 * freqs = inv_freq @ position_ids (3 x R/2 x N in memory, fl(fl(p) inv_j)),
 * .cos() / .sin() of that whole tensor through its transpose -- so ATen's
 * vector kernels run along the positions of one stream and frequency
 * (core/torch32.h) -- then the lanes pick.
 *
 * Streaming: the ids of a block of tokens are computed when it is filled
 * (a binary search for its first item, then a walk), never held for the
 * whole sequence.  Exact text runs (16 tokens and more) are rope's rows,
 * its step kernel's speed; vision tokens take a correctly rounded sin or
 * cos each (pe_rope_exact).
 */
#ifndef PE_MROPE_H
#define PE_MROPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/rope.h"
#include "core/tensor.h"

enum pe_mrope_kind { PE_MROPE_TEXT, PE_MROPE_IMAGE, PE_MROPE_VIDEO };
enum pe_mrope_rule { PE_MROPE_HF, PE_MROPE_REFERENCE };
enum pe_mrope_layout { PE_MROPE_CHUNKED, PE_MROPE_INTERLEAVED };
enum pe_mrope_table {
	PE_MROPE_IDS, PE_MROPE_COS, PE_MROPE_SIN, PE_MROPE_LANES, PE_MROPE_INV_FREQ,
	PE_MROPE_NTABLES
};

#define PE_MROPE_MAX_TEXT ((uint64_t)1 << 40)	/* tokens of one text item */
#define PE_MROPE_MAX_GRID ((uint64_t)1 << 24)	/* t, h, w (float32-exact) */
#define PE_MROPE_MAX_ITEMS ((size_t)1 << 20)
#define PE_MROPE_MAX_ID (((int64_t)1 << 31) - 1)	/* ids are int32 */
#define PE_MROPE_MAX_FILE_ID ((int64_t)1 << 24)	/* |id| below it: a file's float32 is exact */

struct pe_mrope_item {
	enum pe_mrope_kind kind;
	uint64_t n;		/* text: tokens */
	uint64_t t, h, w;	/* image, video: the grid in patches, before merging */
	double seconds;		/* video: seconds per temporal grid; 0 when not given */
	size_t at, len;		/* where it is in the text parsed (for messages) */
};

struct pe_mrope_seq {
	struct pe_mrope_item *item;
	size_t n;
	char *text;		/* a NUL-terminated copy of what was parsed */
};

/*
 * Parse a sequence description from text[0, len) (need not end in NUL):
 * items separated by commas, blanks allowed around them:
 *     text:N   image:TxHxW   image:HxW (T = 1)   video:TxHxW   video:TxHxW@S
 * N from 1 to PE_MROPE_MAX_TEXT, T, H, W from 1 to PE_MROPE_MAX_GRID, S a
 * positive finite real (core/parse.h's strict forms), at most
 * PE_MROPE_MAX_ITEMS items.  Returns 0, or -1 with PE_ERR_PARAM naming
 * {sequence} and the item ("{sequence} item 2 'imge:1x4x6': ...") or
 * PE_ERR_NOMEM; seq is then empty.  Free with pe_mrope_seq_free.
 */
int pe_mrope_seq_parse(const char *text, size_t len, struct pe_mrope_seq *seq,
		       struct pe_error *err);
void pe_mrope_seq_free(struct pe_mrope_seq *seq);

struct pe_mrope_params {
	const struct pe_mrope_seq *seq;	/* the items, or NULL: ids */
	const int32_t *ids;		/* 3 x n ids, rows T, H, W, |id| below
					 * PE_MROPE_MAX_FILE_ID (not copied) */
	uint64_t n;			/* ids: tokens */
	enum pe_mrope_rule rule;
	uint64_t merge;			/* spatial merge m >= 1 (2) */
	double tokens_per_second;	/* K > 0: timed videos; 0: untimed */
	int split;			/* videos split into frames */
	enum pe_mrope_layout layout;
	uint64_t section[3];		/* summing to R/2 */
	struct pe_rope_params rope;	/* theta, rotary_dim, precision, torch;
					 * unscaled; positions and offset are the ids' */
};

/* One run of tokens whose ids follow one formula (private to mrope.c). */
struct pe_mrope_block;
struct pe_mrope;

/* A tensor's view of one table. */
struct pe_mrope_view {
	const struct pe_mrope *m;
	enum pe_mrope_table table;
};

struct pe_mrope {
	struct pe_mrope_params p;
	uint64_t n;			/* tokens */
	struct pe_mrope_block *block;
	size_t nblock;
	int64_t min_id, max_id;		/* over the three streams */
	int64_t delta;			/* rope_delta = max_id + 1 - n */
	unsigned char *lane;		/* R/2 streams: 0 T, 1 H, 2 W */
	size_t nlane[3];		/* frequencies per stream */
	struct pe_rope rope;		/* the frequencies, over min_id .. max_id */
	struct pe_tensor rope_table[2];	/* its cos and sin: text runs are plain RoPE */
	struct pe_mrope_view view[PE_MROPE_NTABLES];
};

/* Defaults: hf rule, merge 2, untimed, whole videos, chunked sections
 * 16, 24, 24 (Qwen2-VL's), core/rope.h's defaults with theta 1000000 and
 * R 128. */
void pe_mrope_defaults(struct pe_mrope_params *p);

/*
 * Lay out the ids (a sequence's blocks, checked: grids divisible by the
 * merge, ids within int32, seconds only on timed whole videos), the lanes
 * (sections summing to R/2) and the frequencies.  PE_ERR_PARAM naming
 * {sequence}, {merge}, {tokens_per_second}, {mrope_section}, {theta}, ...;
 * PE_ERR_NOMEM.  Free m in every case.
 */
int pe_mrope_init(struct pe_mrope *m, const struct pe_mrope_params *p, struct pe_error *err);
void pe_mrope_free(struct pe_mrope *m);

/* The lanes alone: lane[j] for j < half, sections summing to half
 * (PE_ERR_PARAM naming {mrope_section} otherwise). */
int pe_mrope_lanes(enum pe_mrope_layout layout, const uint64_t section[3], size_t half,
		   unsigned char *lane, struct pe_error *err);

/* The ids of tokens [first, first + count) (within n): ids[s][i] for
 * stream s of token first + i.  Thread-safe. */
void pe_mrope_ids(const struct pe_mrope *m, uint64_t first, size_t count, int32_t *t, int32_t *h,
		  int32_t *w);

/* A tensor of one table: mrope_ids (int32, 3 x N), mrope_cos, mrope_sin
 * (N x R), mrope_lanes (int32, R: the stream of each column),
 * mrope_inv_freq (R/2); parallel. */
int pe_mrope_tensor(struct pe_mrope *m, enum pe_mrope_table table, struct pe_tensor *t,
		    struct pe_error *err);

#endif
