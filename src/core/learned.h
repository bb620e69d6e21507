/*
 * learned.h - random initialisations of learned position tables, seeded and
 * reproducible (core/rng.h).
 *
 *   init          element (row r, column c)
 *   normal        std * z
 *   trunc-normal  std * z, z redrawn while |z| > 2 (TensorFlow's rule)
 *   uniform       (2u - 1) * sqrt(3) * std, so the std is std
 * z = pe_rng_normal(seed, r, c), u = first uniform of counter (c, r, r>>32, 0).
 * Computed in double, rounded once to float.
 *
 * Presets (each model's own initialiser):
 *   gpt2     normal, std 0.02 (Hugging Face GPT-2; OpenAI's code used 0.01)
 *   bert     trunc-normal, std 0.02 (google-research/bert)
 *   fairseq  normal, std D^-0.5 (LearnedPositionalEmbedding)
 *   scaled   normal, std D^-0.5 (torch.randn(N, D) * D**-0.5)
 * With a padding index P the table has N + P + 1 rows and row P is zero,
 * as fairseq builds it.
 */
#ifndef PE_LEARNED_H
#define PE_LEARNED_H

#include <stdint.h>

#include "core/err.h"

/* The init and preset names in enum order, NULL-terminated. */
extern const char *const pe_learned_init_names[];
extern const char *const pe_learned_preset_names[];
#include "core/tensor.h"

enum pe_init { PE_INIT_NORMAL, PE_INIT_TRUNC_NORMAL, PE_INIT_UNIFORM };
enum pe_learned_preset { PE_LEARNED_NONE = -1, PE_LEARNED_GPT2, PE_LEARNED_BERT,
			 PE_LEARNED_FAIRSEQ, PE_LEARNED_SCALED };

struct pe_learned {
	enum pe_init init;
	double std;
	uint64_t seed;
	uint64_t positions, dim;
	int64_t padding_idx;	/* or -1 */
	uint64_t rows;		/* derived by pe_learned_init */
};

int pe_init_by_name(const char *name);
const char *pe_init_name(enum pe_init i);
int pe_learned_preset_by_name(const char *name);
const char *pe_learned_preset_name(enum pe_learned_preset p);

/* Set init and std from a preset (dim must be set). */
void pe_learned_apply_preset(struct pe_learned *l, enum pe_learned_preset p);

/* Validate (std > 0 and finite, sizes) and derive rows. */
int pe_learned_init(struct pe_learned *l, struct pe_error *err);

/* Tensor "learned", rows x D, float32, parallel. */
int pe_learned_tensor(const struct pe_learned *l, struct pe_tensor *t, struct pe_error *err);

int pe_learned_fill(const void *ctx, uint64_t r0, size_t nrows, void *out,
		    struct pe_error *err);

#endif
