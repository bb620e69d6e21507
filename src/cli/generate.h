/*
 * generate.h - what `posenc generate KIND` hands to each kind's builder.
 *
 * cmd_generate.c parses the options once (one table for every kind) and
 * checks that only the kind's own options were given; a builder
 * (gen_<kind>.c) turns the option strings into core parameters, fills the
 * tensors and the meta, and leaves what the tensors point at in state.
 * Adding a kind = one gen_<kind>.c, one row in the kind table, its options
 * in the option table, the man page.
 */
#ifndef PE_GENERATE_H
#define PE_GENERATE_H

#include <stdint.h>

#include "cli/opt.h"
#include "core/err.h"
#include "core/meta.h"
#include "core/tensor.h"

#define PE_GEN_MAX_TENSORS 4

struct pe_gen {
	const struct pe_optdef *defs;
	size_t ndefs;
	const char **values;
	uint64_t positions, dim;	/* -n, -d (defaults 512, 768) */
	struct pe_meta meta;
	struct pe_tensor tensor[PE_GEN_MAX_TENSORS];
	size_t nt;
	const char *col_prefix;		/* csv header column prefix ("d") */
	void *state;
	void (*free_state)(void *state);
};

/* The value of option name (NULL if not given). */
const char *pe_gen_val(const struct pe_gen *g, const char *name);

struct pe_gen_kind {
	const char *name;
	const char *summary;
	const char *const *options;	/* the kind's own options, NULL-terminated */
	int (*build)(struct pe_gen *g, struct pe_error *err);
};

int pe_gen_sinusoidal(struct pe_gen *g, struct pe_error *err);
int pe_gen_learned(struct pe_gen *g, struct pe_error *err);
int pe_gen_rope(struct pe_gen *g, struct pe_error *err);
int pe_gen_alibi(struct pe_gen *g, struct pe_error *err);
int pe_gen_sincos2d(struct pe_gen *g, struct pe_error *err);

extern const char *const pe_gen_sinusoidal_options[];
extern const char *const pe_gen_learned_options[];
extern const char *const pe_gen_rope_options[];
extern const char *const pe_gen_alibi_options[];
extern const char *const pe_gen_sincos2d_options[];

#endif
