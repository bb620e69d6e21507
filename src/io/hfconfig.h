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
 *     n_embd // n_head); a layer type's own from per_layer_config (the
 *     overrides of its first layer, its layers agreeing: Gemma 4 always,
 *     the scaled types of other families) or Gemma 4's global_head_dim;
 *   - partial rotary factor: partial_rotary_factor (top level, then in the
 *     dict), else rotary_pct (GPT-NeoX), else 0.25 when model_type is
 *     gpt_neox (transformers' GPTNeoXConfig default; flagged in
 *     partial_default), else 1; GPT-J's rotary_dim gives the width directly
 *     and the interleaved layout;
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
#define PE_HF_MAX_TYPES 8	/* layer types with a RoPE of their own */
#define PE_HF_MAX_LAYERS ((uint64_t)1 << 16)
#define PE_HF_NAME_MAX 48
#define PE_HF_MAX_WARN 16
#define PE_HF_MROPE_MAX 8
#define PE_HF_MROPE_BAD ((size_t)-1)

/* The parameters a config sets, in core/rope.h's words (pe_hf_param_names). */
enum pe_hf_param {
	PE_HF_THETA, PE_HF_SCALING, PE_HF_FACTOR, PE_HF_ORIGINAL_MAX, PE_HF_ATTENTION,
	PE_HF_BETA_FAST, PE_HF_BETA_SLOW, PE_HF_MSCALE, PE_HF_MSCALE_ALL_DIM, PE_HF_TRUNCATE,
	PE_HF_LOW_FREQ, PE_HF_HIGH_FREQ, PE_HF_SHORT, PE_HF_LONG, PE_HF_PARTIAL, PE_HF_HEAD_DIM,
	PE_HF_LLAMA4_BETA, PE_HF_NPARAMS
};

/* Where a parameter's value came from. */
enum pe_hf_origin {
	PE_HF_ABSENT,	/* nowhere: the rope type does not use it */
	PE_HF_GIVEN,	/* the file, at key */
	PE_HF_DEFAULT,	/* a default of transformers or of the model's class (key: where
			 * the file would set it) */
	PE_HF_DERIVED	/* computed from other fields (key names them) */
};

/* One layer type's RoPE, resolved as transformers resolves it. */
struct pe_hfrope {
	char name[PE_HF_NAME_MAX];	/* its layer type; "" for one flat dict */
	enum pe_rope_scaling scaling;
	double theta;
	uint64_t head_dim;		/* 0 if the file does not say */
	int head_dim_derived;		/* hidden_size / num_attention_heads */
	double partial_rotary_factor;	/* (0, 1]; 1 when absent */
	int partial_ignored;		/* the family's default RoPE does not read it */
	uint64_t rotary_dim;		/* GPT-J's rotary_dim, else 0 */
	uint64_t original_max;		/* L0, 0 if the type has none */
	double factor;			/* 0 if absent */
	double attention_factor;	/* NaN if absent */
	double beta_fast, beta_slow;	/* 0 if absent (transformers: `or 32`, `or 1`) */
	double mscale, mscale_all_dim;	/* 0 if absent */
	int truncate;			/* -1 if absent */
	double low_freq_factor, high_freq_factor;	/* 0 if absent */
	double *short_factor, *long_factor;		/* malloc'd, or NULL */
	size_t nshort, nlong;
	double llama4_beta;		/* llama_4_scaling_beta, 0 if absent */
	/* M-RoPE's keys of the dict, read as they are (transformers ignores
	 * them in its validation): mrope_section's integers (nsection 0 when
	 * absent, PE_HF_MROPE_BAD when not a list of at most PE_HF_MROPE_MAX
	 * non-negative integers; its text as written then), mrope_interleaved
	 * (-1 when absent or not a boolean) */
	uint64_t mrope_section[PE_HF_MROPE_MAX];
	size_t nsection;
	char mrope_section_key[112];	/* where it is (or would be) written */
	char mrope_section_text[64];
	int mrope_interleaved;
	struct {
		enum pe_hf_origin origin;
		char key[112];		/* "rope_parameters.full_attention.rope_theta" */
	} src[PE_HF_NPARAMS];
};

/* What a query is multiplied by, position by position (--table attn-scale). */
enum pe_hf_qscale {
	PE_HF_QSCALE_NONE,
	PE_HF_QSCALE_LLAMA4,	/* Llama 4's NoPE layers: log1p(floor((p + 1) / floor_scale))
				 * attn_scale + 1 (attn_temperature_tuning) */
	PE_HF_QSCALE_BETA	/* Ministral 3 / Mistral 4, every layer:
				 * 1 + beta ln(1 + floor(p / L0)) */
};

/* How a family's rotary module composes the three position streams of
 * multimodal RoPE (Qwen2-VL's chunks, Qwen3-VL's interleaving). */
enum pe_hf_mrope { PE_HF_MROPE_NONE, PE_HF_MROPE_CHUNKS, PE_HF_MROPE_INTERLEAVE };

enum { PE_HF_QGIVEN_FLOOR = 1, PE_HF_QGIVEN_ATTN = 2, PE_HF_QGIVEN_TUNING = 4 };

struct pe_hfconfig {
	int has_rope;			/* any RoPE field at all, or a family that has one */
	char model_type[64];		/* "" if absent */
	char prefix[16];		/* "text_config." when the text model is nested */
	int interleaved;		/* pairs (2k, 2k+1): GPT-J, Llama 4, Cohere, ... */
	int polar;			/* cos/sin from torch.polar (Llama 4, DeepSeek-V2) */
	int mscale_softmax;		/* the attention's softmax scale qk_head_dim^-0.5 is
					 * multiplied by yarn's mscale squared (DeepSeek-V2/V3
					 * and the MLA families after them) */
	uint64_t qk_head_dim;		/* their qk_head_dim, 0 if the file does not say */
	char qk_key[64];		/* the key(s) it came from */
	int family_known;		/* model_type is a family of transformers with RoPE */
	uint64_t max_positions;		/* max_position_embeddings, 0 if absent */
	uint64_t class_max_positions;	/* absent: the family class's default (what
					 * transformers' config then holds), 0 if none */
	size_t ntypes;
	struct pe_hfrope rope[PE_HF_MAX_TYPES];	/* one per RoPE layer type */
	uint64_t nlayers;		/* layers the config describes, 0: it does not say */
	signed char *layer_rope;	/* per layer: index into rope[], -1 NoPE (malloc'd) */
	unsigned char *layer_kind;	/* per layer: index into kinds[] (malloc'd) */
	char kinds[2 * PE_HF_MAX_TYPES][PE_HF_NAME_MAX];	/* layer_types' names */
	size_t nkinds;
	/* multimodal RoPE, as the family's code does it (transformers 5.18) */
	enum pe_hf_mrope mrope;		/* its rotary module's composition */
	int mrope_split;		/* get_rope_index splits each video into frames */
	int mrope_timed;		/* ... spaces a video's temporal ids by
					 * vision_config.tokens_per_second */
	uint64_t spatial_merge;		/* vision_config.spatial_merge_size, 0 if absent */
	double tokens_per_second;	/* vision_config.tokens_per_second, 0 if absent */
	enum pe_hf_qscale qscale;
	double floor_scale, attn_scale;	/* LLAMA4: floor_scale, attn_scale (8192, 0.1) */
	double qbeta;			/* BETA: llama_4_scaling_beta of rope[qbeta_type] */
	uint64_t qL0;			/* and its original_max_position_embeddings, 0 if none */
	int qbeta_type;
	unsigned qgiven;		/* PE_HF_QGIVEN_* bits: which Llama 4 keys the file has */
	/* A key written twice in one object: Python's json (and so the
	 * model) keeps the last value, and so does posenc.  The count of
	 * such keys and the path of the first ("rope_scaling.factor"), for a
	 * warning. */
	size_t duplicates;
	char duplicate[96];
	/* what transformers would warn about (unknown keys, ...), for the cli */
	size_t nwarn;
	char warn[PE_HF_MAX_WARN][240];
};

/* core/rope.h's name of each parameter ("theta", "original_max_positions"). */
extern const char *const pe_hf_param_names[];

/* The key of the file that sets the RoPE parameter param of type r
 * (core/rope.h's words: "theta", "factor", "original_max_positions", ...),
 * as given or where it would be written; NULL for one no config key sets
 * (positions, offset).  For naming parameters in messages (cli/param.h). */
const char *pe_hfconfig_key(const struct pe_hfrope *r, const char *param);

/* The type of layer k (index into c->rope), -1 for a NoPE layer, -2 when
 * the config does not describe layer k. */
int pe_hfconfig_layer(const struct pe_hfconfig *c, uint64_t k);

/* The type named name, or -1. */
int pe_hfconfig_type(const struct pe_hfconfig *c, const char *name);

/* "5, 11, 17" or "0-4, 6-10": the layers using type t (-1: NoPE), into buf. */
const char *pe_hfconfig_layers_of(const struct pe_hfconfig *c, int t, char *buf, size_t n);

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
