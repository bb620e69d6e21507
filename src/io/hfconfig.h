/*
 * hfconfig.h - the RoPE settings of a Hugging Face config.json.
 *
 * Reads the fields transformers itself honours and resolves them the way
 * it does (v5 rules, modeling_rope_utils.py standardize_rope_params and the
 * _compute_*_parameters functions):
 *   - the scaling dict is "rope_scaling" (v4) when it is a non-empty object,
 *     else "rope_parameters" (v5); its type is "rope_type", else the legacy
 *     "type", else "default";
 *   - theta: rope_parameters.rope_theta, else rope_theta, else
 *     rotary_emb_base (GPT-NeoX), else 10000;
 *   - head_dim: head_dim, else hidden_size // num_attention_heads (GPT-J's
 *     n_embd // n_head);
 *   - partial rotary factor: partial_rotary_factor (top level, then in the
 *     dict), else rotary_pct (GPT-NeoX), else 0.25 when model_type is
 *     gpt_neox (transformers' GPTNeoXConfig default; flagged in
 *     partial_default), else 1; GPT-J's rotary_dim gives the width directly
 *     and the interleaved layout;
 *   - polar: model_type llama4, llama4_text or deepseek_v2, whose rotary
 *     modules take cos and sin from torch.polar;
 *   - original max positions (yarn, llama3, longrope): the top-level
 *     original_max_position_embeddings, else the dict's, else
 *     max_position_embeddings; dynamic uses max_position_embeddings;
 *   - factor (yarn, longrope) when absent: max_position_embeddings /
 *     original_max_position_embeddings.
 * null counts as absent, as in Python's dict.get.  A field of the wrong
 * type, a non-finite, negative or non-integral number where a count is
 * needed, an unknown rope type or a field transformers requires missing
 * is a PE_ERR_DATA error naming the file and the field.  Rules between
 * values (llama3's low < high, longrope's list lengths, yarn's theta > 1)
 * are core/rope.h's alone; its messages name the file's keys through
 * pe_hfconfig_key.
 *
 * The file is untrusted: at most PE_HFCONFIG_MAX_BYTES are read.
 */
#ifndef PE_HFCONFIG_H
#define PE_HFCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/rope.h"

#define PE_HFCONFIG_MAX_BYTES ((size_t)16 << 20)

struct pe_hfconfig {
	int has_rope;			/* any RoPE field at all */
	char model_type[64];		/* "" if absent */
	const char *dict;		/* "rope_scaling", "rope_parameters" or NULL */
	enum pe_rope_scaling scaling;
	double theta;
	uint64_t head_dim;		/* 0 if the file does not say */
	int head_dim_derived;		/* head_dim is hidden_size / num_attention_heads */
	double partial_rotary_factor;	/* resolved, (0, 1] */
	int partial_default;		/* the gpt_neox default 0.25 was applied */
	uint64_t rotary_dim;		/* GPT-J rotary_dim, else 0 */
	int interleaved;		/* GPT-J: pairs (2i, 2i+1) */
	int polar;			/* cos/sin from torch.polar (Llama 4, DeepSeek-V2) */
	uint64_t max_positions;		/* max_position_embeddings, 0 if absent */
	uint64_t original_max;		/* resolved L0, 0 if none */
	double factor;			/* 0 if absent */
	double attention_factor;	/* NaN if absent */
	double beta_fast, beta_slow;	/* 0 if absent (transformers: `or 32`, `or 1`) */
	double mscale, mscale_all_dim;	/* 0 if absent */
	int truncate;			/* -1 if absent */
	double low_freq_factor, high_freq_factor;	/* 0 if absent */
	double *short_factor, *long_factor;		/* malloc'd, or NULL */
	size_t nshort, nlong;
	/* A key written twice in one object: Python's json (and so the
	 * model) keeps the last value, and so does posenc.  The count of
	 * such keys and the path of the first ("rope_scaling.factor"), for a
	 * warning. */
	size_t duplicates;
	char duplicate[96];
	/* Where each RoPE parameter is read ("rope_theta", "rope_scaling.factor"),
	 * whether or not the file gives it: pe_hfconfig_key. */
	char theta_key[40], type_key[40], original_key[64], dict_key[24];
};

/* The key of the file that sets the RoPE parameter param (core/rope.h's
 * words: "theta", "factor", "original_max_positions", "beta_fast", ...),
 * as given or where it would be read; NULL for one no config key sets
 * (positions, offset).  For naming parameters in messages (cli/param.h);
 * the text is valid until the next call. */
const char *pe_hfconfig_key(const struct pe_hfconfig *c, const char *param);

/* Read and resolve path.  Returns 0, or -1 with PE_ERR_IO (cannot read),
 * PE_ERR_DATA (bad content) or PE_ERR_NOMEM.  Free with pe_hfconfig_free
 * in every case. */
int pe_hfconfig_read(const char *path, struct pe_hfconfig *c, struct pe_error *err);

/* The same for text already in memory (len bytes, need not end in NUL);
 * name is used in messages. */
int pe_hfconfig_parse(const char *text, size_t len, const char *name, struct pe_hfconfig *c,
		      struct pe_error *err);

void pe_hfconfig_free(struct pe_hfconfig *c);

#endif
