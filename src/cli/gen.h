/*
 * gen.h - the table kinds, shared by `posenc generate KIND` and
 * `posenc similarity KIND`.
 *
 * A kind is one gen_<kind>.c exporting a struct pe_gen_kind: its option
 * rows (typed, filling the kind's own options struct), its builder, and
 * whether it has a float32 recipe.  Adding a kind = its core module, its
 * gen_<kind>.c, one word in PE_KIND_LIST (gen.c), its section in
 * man/posenc-generate.1.
 *
 * Calling sequence (the command has parsed argv with pe_command_tables):
 *   pe_gen_bind(&g, kind, &args, err)   -n, -d and the kind's rows
 *   ... the command checks pe_args_unbound() ("does not apply to KIND")
 *       and sets g.float32 ...
 *   pe_gen_build(&g, err)               the kind's tensors, meta, labels
 *   pe_gen_free(&g)                     in every case
 */
#ifndef PE_GEN_H
#define PE_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "cli/opt.h"
#include "core/err.h"
#include "core/meta.h"
#include "core/tensor.h"
#include "core/torch32.h"

#define PE_GEN_MAX_TENSORS 24

struct pe_gen_kind;
struct pe_explain;

struct pe_gen {
	const struct pe_gen_kind *kind;
	const struct pe_args *args;	/* what was given (pe_args_given) */
	uint64_t positions, dim;	/* -n, -d (defaults 512, 768) */
	int float32;			/* the kind's float32 recipe (--precision float32) */
	int explain;			/* posenc explain: every layer type, no table written */
	int torch_cpu, torch_vml;	/* --torch-cpu, --torch-vml as given */
	uint64_t torch_threads;		/* --torch-threads as given */
	struct pe_torch torch;		/* which of PyTorch's kernels the recipe emulates,
					 * resolved by pe_gen_build when float32 */
	void *opts;			/* the kind's options struct (malloc'd) */
	struct pe_meta meta;
	struct pe_tensor tensor[PE_GEN_MAX_TENSORS];
	size_t nt;
	const char *col_prefix;		/* csv header column prefix ("d") */
	int64_t row_origin;		/* the position of row 0 (--offset) */
	const char *xlabel, *ylabel;	/* png axis titles (columns, rows) */
	void *state;
	void (*free_state)(void *state);
};

struct pe_gen_kind {
	const char *name;
	const char *summary;
	const struct pe_optdef *rows;	/* its options, a heading first; { 0 }-ended */
	size_t opts_size;		/* the struct rows fill, zeroed before binding */
	int (*build)(struct pe_gen *g, void *opts, struct pe_error *err);
	/* Has the kind, with these options, a float32 recipe (what
	 * --precision float32 asks for)?  NULL: never. */
	int (*float32)(const void *opts);
	/* posenc explain: after the build, what the kind's parameters mean,
	 * into x (cli/explain.h).  NULL: explain has nothing to say of it. */
	int (*explain)(struct pe_gen *g, struct pe_explain *x, struct pe_error *err);
};

/* -n and -d: the rows of the table size every kind reads. */
extern const struct pe_optdef pe_gen_size_rows[];

/* --torch-cpu, --torch-vml, --torch-threads: which of PyTorch's CPU kernels
 * a kind's float32 recipe reproduces (core/torch32.h). */
extern const struct pe_optdef pe_gen_float32_rows[];

/* The kind named name, or NULL; the kind at index i, NULL past the last. */
const struct pe_gen_kind *pe_gen_kind_by_name(const char *name);
const struct pe_gen_kind *pe_gen_kind_at(size_t i);

/* "  sinusoidal   fixed sin/cos table ..." lines for --help. */
void pe_gen_kinds_help(FILE *fp);

/* "sinusoidal, learned, rope, alibi, sincos2d" for messages. */
const char *pe_gen_kind_list(void);

/* The one KIND operand of a, looked up; names lists the kinds the
 * command takes, for its messages.  Returns 0 or -1 (PE_ERR_USAGE). */
int pe_gen_operand(const struct pe_args *a, const char *names, const struct pe_gen_kind **kind,
		   struct pe_error *err);

/* Is field (in g's size or kind options) given on the command line? */
#define pe_gen_given(g, field) pe_args_given((g)->args, (field))

/* Bind the table size and kind's rows from a into g (zeroed here). */
int pe_gen_bind(struct pe_gen *g, const struct pe_gen_kind *kind, struct pe_args *a,
		struct pe_error *err);

/* Check the size, resolve g->torch when g->float32 (the torch options
 * given without it are refused), run the kind's builder.  Returns 0 or -1. */
int pe_gen_build(struct pe_gen *g, struct pe_error *err);

void pe_gen_free(struct pe_gen *g);

/* --precision's names (exact, float32), for the commands that take it. */
extern const char *const pe_gen_precisions[];

/* torch_cpu, torch_vml, torch_threads of a float32 recipe in m. */
void pe_gen_torch_meta(struct pe_meta *m, const struct pe_torch *t);

#endif
