/*
 * generate.h - the table kinds, shared by `posenc generate KIND` and
 * `posenc similarity KIND`.
 *
 * A command puts PE_GEN_KIND_OPTDEFS in its option table (with its own
 * --preset and --precision rows, whose meaning it words for itself), parses
 * once, and calls pe_gen_build: that checks that only the kind's own
 * options (or the command's) were given, reads -n and -d, and runs the
 * kind's builder (gen_<kind>.c), which turns the option strings into core
 * parameters, fills the tensors and the meta, and leaves what the tensors
 * point at in state.  Adding a kind = one gen_<kind>.c, one row in the kind
 * table (gen.c), its options in PE_GEN_KIND_OPTDEFS, the man pages.
 */
#ifndef PE_GENERATE_H
#define PE_GENERATE_H

#include <stdint.h>
#include <stdio.h>

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
	int64_t row_origin;		/* the position of row 0 (--offset) */
	const char *xlabel, *ylabel;	/* png axis titles (columns, rows) */
	void *state;
	void (*free_state)(void *state);
};

/* The value of option name (NULL if not given). */
const char *pe_gen_val(const struct pe_gen *g, const char *name);

/* The rows of every kind's options, for a command's option table. */
#define PE_GEN_KIND_OPTDEFS                                                               \
	{ NULL, 0, NULL, "Table size:" },                                                  \
	{ "positions", 'n', "N", "number of positions (rows), default 512" },              \
	{ "dim", 'd', "D", "embedding width (columns), default 768" },                     \
	{ "offset", 0, "P", "first position (sinusoidal, rope), default 0; may be negative" }, \
	{ "padding-idx", 0, "P", "fairseq: table of N+P+1 rows whose row P is zero" },    \
	{ NULL, 0, NULL, "Sinusoidal:" },                                                  \
	{ "layout", 0, "L", "interleaved (sin,cos,sin,...) or half ([sin|cos]);\n"        \
			    "overrides the preset's (rope: half (default) or interleaved)" }, \
	{ "base", 0, "B", "frequency base, default 10000 (t2t: alias of --max-timescale;\n" \
			  "also sincos2d)" },                                               \
	{ "min-timescale", 0, "T", "t2t: smallest timescale, default 1" },                 \
	{ "max-timescale", 0, "T", "t2t: largest timescale, default 10000" },              \
	{ NULL, 0, NULL, "Learned:" },                                                     \
	{ "init", 0, "DIST", "normal (default), trunc-normal (redraw beyond 2 std), uniform" }, \
	{ "std", 0, "S", "standard deviation, default 0.02 (preset may change it)" },      \
	{ "seed", 0, "N", "random seed, 0..2^64-1, default 0: same seed, same bytes" },    \
	{ NULL, 0, NULL, "Rope (-d is the head dim):" },                                   \
	{ "table", 0, "T", "rope: cos (default), sin, inv-freq, angles, all\n"            \
			   "alibi: bias (default), slopes" },                               \
	{ "theta", 0, "B", "rotary base (rope_theta), default 10000" },                    \
	{ "rotary-dim", 0, "R", "rotary width R (even, <= head dim), default the head dim" }, \
	{ "partial-rotary-factor", 0, "F", "R = int(head dim * F), 0 < F <= 1" },          \
	{ "scaling", 0, "TYPE", "none (default), linear, dynamic, yarn, llama3, longrope" }, \
	{ "factor", 0, "F", "scaling factor" },                                            \
	{ "original-max-positions", 0, "L", "pre-training context length L0" },           \
	{ "seq-len", 0, "L", "dynamic, longrope: sequence length, default offset + N" },   \
	{ "beta-fast", 0, "B", "yarn: default 32" },                                       \
	{ "beta-slow", 0, "B", "yarn: default 1" },                                        \
	{ "mscale", 0, "M", "yarn: attention factor numerator weight" },                   \
	{ "mscale-all-dim", 0, "M", "yarn: attention factor denominator weight" },         \
	{ "truncate", 0, NULL, "yarn: floor/ceil the correction range (default)" },        \
	{ "no-truncate", 0, NULL, "yarn: keep the correction range fractional" },          \
	{ "attention-factor", 0, "A", "yarn, longrope: replace the derived attention factor" }, \
	{ "low-freq-factor", 0, "F", "llama3: default 1" },                                \
	{ "high-freq-factor", 0, "F", "llama3: default 4" },                               \
	{ "short-factor", 0, "LIST", "longrope: R/2 comma-separated factors" },            \
	{ "long-factor", 0, "LIST", "longrope: R/2 factors, used when seq-len > L0" },     \
	{ "from-config", 0, "FILE", "read a Hugging Face config.json; options override it" }, \
	{ NULL, 0, NULL, "PyTorch's float32 kernels (rope, sinusoidal; --precision float32):" }, \
	{ "torch-cpu", 0, "V", "auto (default: what PyTorch picks on this CPU), avx2, avx512:\n" \
			       "ATen's vector kernels (pow, and SLEEF's cos/sin/exp)" }, \
	{ "torch-vml", 0, "V", "sleef (default: builds without MKL, same bytes on every CPU)\n" \
			       "or mkl (pip's x86-64 wheels: loads libmkl_rt.so.2) for cos/sin/exp" }, \
	{ "torch-threads", 0, "T", "torch.get_num_threads() (sleef: cos/sin chunks), default 1" }, \
	{ NULL, 0, NULL, "Alibi:" },                                                       \
	{ "heads", 0, "H", "number of heads, default 8" },                                 \
	{ "head", 0, "K", "only head K's N x N bias (0-based)" },                          \
	{ "form", 0, "F", "causal (default: -m(i-j), 0 above), symmetric (-m|i-j|), bloom (+m j)" }, \
	{ "alibi-bias-max", 0, "B", "slopes 2^(-B k/H), default 8 (MPT's alibi_bias_max)" }, \
	{ NULL, 0, NULL, "Sincos2d (-d is the width D, divisible by 4):" },                \
	{ "grid", 0, "HxW", "patch grid: H rows, W columns (rows of the table: H*W)" },    \
	{ "cls-token", 0, NULL, "prepend an all-zero row (MAE)" }

/* The presets of the kinds, for a command's --preset help text. */
#define PE_GEN_PRESET_HELP "sinusoidal: vaswani (default), t2t, fairseq, marian\n" \
			   "learned: gpt2, bert, fairseq, scaled\n"            \
			   "sincos2d: mae (default), timm"

struct pe_gen_kind {
	const char *name;
	const char *summary;
	const char *const *options;	/* the kind's own options, NULL-terminated */
	int (*build)(struct pe_gen *g, struct pe_error *err);
};

/* The kind named name, or NULL. */
const struct pe_gen_kind *pe_gen_kind_by_name(const char *name);

/* The name of kind i, or NULL past the last. */
const char *pe_gen_kind_name(size_t i);

/* "  sinusoidal   fixed sin/cos table ..." lines for --help. */
void pe_gen_kinds_help(FILE *fp);

/* "sinusoidal, learned, rope, alibi, sincos2d" for messages. */
const char *pe_gen_kind_list(void);

/*
 * Build kind's tensors into g from the parsed option values (defs/values,
 * as pe_opt_parse filled them).  An option given that belongs to another
 * kind is refused, unless the calling command lists it in own (NULL-
 * terminated) or it is an output option.  Free with pe_gen_free in every
 * case.  Returns 0 or -1.
 */
int pe_gen_build(struct pe_gen *g, const struct pe_gen_kind *kind, const struct pe_optdef *defs,
		 size_t ndefs, const char **values, const char *const *own,
		 struct pe_error *err);

void pe_gen_free(struct pe_gen *g);

/* --torch-cpu, --torch-vml, --torch-threads into t (core/torch32.h); a
 * usage error when one is given without float32 (given: --precision). */
struct pe_torch;
int pe_gen_torch(const struct pe_gen *g, int float32, struct pe_torch *t, struct pe_error *err);
void pe_gen_torch_meta(struct pe_meta *m, const struct pe_torch *t);

int pe_gen_sinusoidal(struct pe_gen *g, struct pe_error *err);
int pe_gen_learned(struct pe_gen *g, struct pe_error *err);
int pe_gen_rope(struct pe_gen *g, struct pe_error *err);
int pe_gen_alibi(struct pe_gen *g, struct pe_error *err);
int pe_gen_sincos2d(struct pe_gen *g, struct pe_error *err);

/* The names options take (in their enum's order), shared by the builders
 * and the shell completion (cli/complete.c). */
extern const char *const pe_gen_precisions[];
extern const char *const pe_gen_sinusoidal_layouts[];
extern const char *const pe_gen_rope_tables[];
extern const char *const pe_gen_rope_layouts[];
extern const char *const pe_gen_alibi_tables[];
extern const char *const pe_gen_alibi_forms[];
extern const char *const pe_gen_sincos2d_presets[];
extern const char *const pe_gen_torch_cpus[];

extern const char *const pe_gen_sinusoidal_options[];
extern const char *const pe_gen_learned_options[];
extern const char *const pe_gen_rope_options[];
extern const char *const pe_gen_alibi_options[];
extern const char *const pe_gen_sincos2d_options[];

#endif
