/*
 * generate rope: options (and an optional Hugging Face config.json) to
 * core/rope.h parameters.  Precedence: the config's values, resolved the
 * way transformers resolves them (io/hfconfig.h), then every explicit
 * option replaces the value it names.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/explain.h"
#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "core/qscale.h"
#include "core/rope.h"
#include "io/hfconfig.h"

struct rope_opts {
	int table, layout, scaling, truncate, no_truncate, torch_trig;
	int64_t offset;
	double theta, partial_rotary_factor, factor, beta_fast, beta_slow, mscale, mscale_all_dim;
	double attention_factor, low_freq_factor, high_freq_factor;
	uint64_t rotary_dim, original_max_positions, seq_len;
	struct pe_reals short_factor, long_factor;
	const char *from_config, *layer_type;
	uint64_t layer;
};

#define O(f) offsetof(struct rope_opts, f)
#define POS_LIMIT ((int64_t)1 << 53)
#define LIST_MOST ((uint64_t)1 << 22)

/* --table's names: core's first four tables, all of them, the query
 * scale, the engines' caches (table_of: which core table each is) */
enum { TABLE_ALL = 4, TABLE_ATTN = 5, TABLE_GGUF = 9 };
static const char *const tables[] = { "cos", "sin", "inv-freq", "angles", "all", "attn-scale",
				      "ort-cos", "ort-sin", "vllm-cache", "gguf-freqs", NULL };
static const enum pe_rope_table table_of[] = {
	PE_ROPE_COS, PE_ROPE_SIN, PE_ROPE_INV_FREQ, PE_ROPE_ANGLES, PE_ROPE_NTABLES,
	PE_ROPE_NTABLES, PE_ROPE_ORT_COS, PE_ROPE_ORT_SIN, PE_ROPE_VLLM, PE_ROPE_GGUF_FREQS
};
/* --layout's names: half (0, the default) or interleaved (1) */
static const char *const layouts[] = { "half", "interleaved", NULL };
/* --torch-trig's names: Tensor.cos()/.sin() (0) or torch.polar (1) */
static const char *const trigs[] = { "tensor", "polar", NULL };

/* which scalings use an option: bit (1 << scaling) */
#define S(x) (1u << PE_ROPE_##x)
#define SCALED (S(LINEAR) | S(DYNAMIC) | S(YARN) | S(LLAMA3) | S(LONGROPE) | S(PROPORTIONAL))

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Rope (-d is the head dim):") },
	{ PE_CHOICE("table", 0, "T", O(table), tables,
		    "cos (default), sin, inv-freq, angles, all (cos, sin and\n"
		    "inv-freq); attn-scale (--from-config: the query scale of\n"
		    "Llama 4 or llama_4_scaling_beta, one value a position);\n"
		    "engine caches: ort-cos, ort-sin (ONNX Runtime, N x R/2),\n"
		    "vllm-cache (N x R, [cos|sin]), gguf-freqs (llama.cpp's\n"
		    "rope_freqs for llama3, rope_factors_long/short for longrope)") },
	{ PE_I64("offset", 0, "P", O(offset), -POS_LIMIT, POS_LIMIT,
		 "first position, default 0; may be negative") },
	{ PE_CHOICE("layout", 0, "L", O(layout), layouts,
		    "half (default: HF/NeoX [f|f]) or interleaved (GPT-J pairs)") },
	{ PE_REAL("theta", 0, "B", O(theta), PE_REAL_POSITIVE, "rotary base (rope_theta), default 10000") },
	{ PE_U64("rotary-dim", 0, "R", O(rotary_dim), 2, PE_MAX_COLS,
		 "rotary width R (even, <= head dim), default the head dim") },
	{ PE_REAL("partial-rotary-factor", 0, "F", O(partial_rotary_factor), PE_REAL_POSITIVE,
		  "R = int(head dim * F), 0 < F <= 1") },
	{ PE_CHOICE("scaling", 0, "TYPE", O(scaling), pe_rope_scaling_names,
		    "none (default), linear, dynamic, yarn, llama3, longrope,\n"
		    "proportional (Gemma 4: the first F x D / 2 pairs turn)") },
	{ PE_REAL("factor", 0, "F", O(factor), PE_REAL_POSITIVE, "scaling factor"), .applies = SCALED },
	{ PE_U64("original-max-positions", 0, "L", O(original_max_positions), 1, (uint64_t)1 << 40,
		 "pre-training context length L0"),
	  .applies = S(DYNAMIC) | S(YARN) | S(LLAMA3) | S(LONGROPE) },
	{ PE_U64("seq-len", 0, "L", O(seq_len), 1, (uint64_t)1 << 53,
		 "dynamic, longrope: sequence length, default offset + N"),
	  .applies = S(DYNAMIC) | S(LONGROPE) },
	{ PE_REAL("beta-fast", 0, "B", O(beta_fast), PE_REAL_POSITIVE, "yarn: default 32"),
	  .applies = S(YARN) },
	{ PE_REAL("beta-slow", 0, "B", O(beta_slow), PE_REAL_POSITIVE, "yarn: default 1"),
	  .applies = S(YARN) },
	{ PE_REAL("mscale", 0, "M", O(mscale), PE_REAL_NONNEG,
		  "yarn: attention factor numerator weight"), .applies = S(YARN) },
	{ PE_REAL("mscale-all-dim", 0, "M", O(mscale_all_dim), PE_REAL_NONNEG,
		  "yarn: attention factor denominator weight"), .applies = S(YARN) },
	{ PE_FLAG("truncate", 0, O(truncate), "yarn: floor/ceil the correction range (default)"),
	  .applies = S(YARN) },
	{ PE_FLAG("no-truncate", 0, O(no_truncate), "yarn: keep the correction range fractional"),
	  .applies = S(YARN) },
	{ PE_REAL("attention-factor", 0, "A", O(attention_factor), PE_REAL_POSITIVE,
		  "yarn, longrope: replace the derived attention factor"),
	  .applies = S(YARN) | S(LONGROPE) },
	{ PE_REAL("low-freq-factor", 0, "F", O(low_freq_factor), PE_REAL_POSITIVE,
		  "llama3: default 1"), .applies = S(LLAMA3) },
	{ PE_REAL("high-freq-factor", 0, "F", O(high_freq_factor), PE_REAL_POSITIVE,
		  "llama3: default 4"), .applies = S(LLAMA3) },
	{ PE_REALS("short-factor", 0, "LIST", O(short_factor), LIST_MOST,
		   "longrope: R/2 comma-separated factors"), .applies = S(LONGROPE) },
	{ PE_REALS("long-factor", 0, "LIST", O(long_factor), LIST_MOST,
		   "longrope: R/2 factors, used when seq-len > L0"), .applies = S(LONGROPE) },
	{ PE_FILE("from-config", 0, "FILE", O(from_config),
		  "read a Hugging Face config.json as transformers 5.18 does;\n"
		  "options override it; without -n, N is its max_position_embeddings") },
	{ PE_TEXT("layer-type", 0, "NAME", O(layer_type),
		  "--from-config: the RoPE of this layer type (full_attention, ...)") },
	{ PE_U64("layer", 0, "K", O(layer), 0, (uint64_t)1 << 40,
		 "--from-config: the RoPE of layer K (0-based)") },
	{ PE_CHOICE("torch-trig", 0, "T", O(torch_trig), trigs,
		    "float32 cos/sin: tensor (emb.cos()/.sin(), per --torch-vml) or\n"
		    "polar (torch.polar: glibc's cosf/sinf; Llama 4's, DeepSeek-V2's)") },
	{ 0 }
};
#undef S

struct rope_state {
	struct pe_hfconfig cfg;
	size_t n;			/* layer types built */
	int first;			/* the config's type of rope[0] */
	struct pe_rope rope[PE_HF_MAX_TYPES];
	uint64_t head_dim[PE_HF_MAX_TYPES];
	char keys[PE_HF_MAX_TYPES][PE_HF_NAME_MAX];	/* the meta's keys for them */
	const struct pe_hfrope *cur;	/* the type being built, for messages */
	struct pe_qscale qscale;	/* --table attn-scale */
};

static void free_rope(void *p)
{
	struct rope_state *st = p;
	size_t i;

	for (i = 0; i < st->n; i++)
		pe_rope_free(&st->rope[i]);
	pe_hfconfig_free(&st->cfg);
	free(st);
}

static void apply_config(const struct pe_hfconfig *h, const struct pe_hfrope *c,
			 struct pe_rope_params *p)
{
	p->theta = c->theta;
	p->scaling = c->scaling;
	if (h->interleaved)
		p->layout = PE_LAYOUT_INTERLEAVED;
	p->polar = h->polar;
	if (c->factor > 0)
		p->factor = c->factor;
	p->original_max = c->original_max;
	p->attention_factor = c->attention_factor;
	/* transformers: `get("beta_fast") or 32` -- 0 and null mean the default */
	if (c->beta_fast > 0)
		p->beta_fast = c->beta_fast;
	if (c->beta_slow > 0)
		p->beta_slow = c->beta_slow;
	p->mscale = c->mscale;
	p->mscale_all_dim = c->mscale_all_dim;
	if (c->truncate >= 0)
		p->truncate = c->truncate;
	if (c->low_freq_factor > 0)
		p->low_freq_factor = c->low_freq_factor;
	if (c->high_freq_factor > 0)
		p->high_freq_factor = c->high_freq_factor;
	p->short_factor = c->short_factor;
	p->nshort = c->nshort;
	p->long_factor = c->long_factor;
	p->nlong = c->nlong;
}

static const char *config_key(const void *rope, const char *param)
{
	return pe_hfconfig_key(rope, param);
}

/* A warning about parameters, named as core's errors are (cli/param.h). */
static void warn_param(const struct pe_gen *g, const struct rope_opts *o,
		       const struct rope_state *st, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static void warn_param(const struct pe_gen *g, const struct rope_opts *o,
		       const struct rope_state *st, const char *fmt, ...)
{
	struct pe_param_file file = { o->from_config, config_key, st->cur };
	struct pe_error w = { PE_ERR_PARAM, "" };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof w.msg, fmt, ap);
	va_end(ap);
	pe_param_explain(&w, g->args, &file);
	pe_msg_warn("%s", w.msg);
}

/* every explicit option replaces the value it names */
static int apply_options(struct pe_gen *g, const struct rope_opts *o, struct pe_rope_params *p,
			 struct pe_error *err)
{
	if (pe_gen_given(g, &o->scaling))
		p->scaling = (enum pe_rope_scaling)o->scaling;
	if (pe_gen_given(g, &o->layout))
		p->layout = o->layout == 0 ? PE_LAYOUT_HALF : PE_LAYOUT_INTERLEAVED;
	p->precision = g->float32 ? PE_ROPE_FLOAT32 : PE_ROPE_EXACT;
	p->torch = g->torch;
	if (pe_gen_given(g, &o->torch_trig) && !g->float32)
		return pe_fail(err, PE_ERR_USAGE,
			       "--torch-trig applies to --precision float32 (PyTorch's kernels)");
	if (pe_gen_given(g, &o->torch_trig))
		p->polar = o->torch_trig == 1;
	if (pe_gen_given(g, &o->theta))
		p->theta = o->theta;
	if (pe_gen_given(g, &o->factor))
		p->factor = o->factor;
	if (pe_gen_given(g, &o->beta_fast))
		p->beta_fast = o->beta_fast;
	if (pe_gen_given(g, &o->beta_slow))
		p->beta_slow = o->beta_slow;
	if (pe_gen_given(g, &o->attention_factor))
		p->attention_factor = o->attention_factor;
	if (pe_gen_given(g, &o->low_freq_factor))
		p->low_freq_factor = o->low_freq_factor;
	if (pe_gen_given(g, &o->high_freq_factor))
		p->high_freq_factor = o->high_freq_factor;
	if (pe_gen_given(g, &o->mscale))
		p->mscale = o->mscale;
	if (pe_gen_given(g, &o->mscale_all_dim))
		p->mscale_all_dim = o->mscale_all_dim;
	if (pe_gen_given(g, &o->original_max_positions))
		p->original_max = o->original_max_positions;
	if (pe_gen_given(g, &o->seq_len))
		p->seq_len = o->seq_len;
	p->offset = o->offset;
	if (o->truncate && o->no_truncate)
		return pe_fail(err, PE_ERR_USAGE, "--truncate and --no-truncate contradict each other");
	if (o->truncate)
		p->truncate = 1;
	if (o->no_truncate)
		p->truncate = 0;
	if (pe_gen_given(g, &o->short_factor)) {
		p->short_factor = o->short_factor.v;
		p->nshort = o->short_factor.n;
	}
	if (pe_gen_given(g, &o->long_factor)) {
		p->long_factor = o->long_factor.v;
		p->nlong = o->long_factor.n;
	}
	return 0;
}

/* head dim and rotary width: -d, else the config; --rotary-dim or
 * --partial-rotary-factor, else the config's, else all of the head */
static int rotary_width(struct pe_gen *g, const struct rope_opts *o, const struct pe_hfrope *c,
			uint64_t *head_dim, struct pe_rope_params *p, struct pe_error *err)
{
	const char *cfgpath = o->from_config;
	const char *rd = pe_gen_given(g, &o->rotary_dim);
	const char *pf = pe_gen_given(g, &o->partial_rotary_factor);
	int dim_given = pe_gen_given(g, &g->dim) != NULL;
	double f = cfgpath && !c->partial_ignored ? c->partial_rotary_factor : 1.0;
	uint64_t D = g->dim, R;

	if (cfgpath && !dim_given) {
		if (c->head_dim == 0)
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no %s, nor hidden_size and num_attention_heads (give -d)",
				       cfgpath, c->src[PE_HF_HEAD_DIM].key[0] ? c->src[PE_HF_HEAD_DIM].key
									: "head_dim");
		D = c->head_dim;
	}
	*head_dim = D;
	if (rd && pf)
		return pe_fail(err, PE_ERR_USAGE,
			       "give --rotary-dim or --partial-rotary-factor, not both");
	if (pf)
		f = o->partial_rotary_factor;
	if (pf && f > 1)
		return pe_fail(err, PE_ERR_USAGE,
			       "--partial-rotary-factor must be in (0, 1], got '%s'", pf);
	if (p->scaling == PE_ROPE_PROPORTIONAL) {
		/* the whole head, its first int(F * D // 2) pairs turning */
		if (rd)
			return pe_fail(err, PE_ERR_USAGE,
				       "--rotary-dim does not apply to proportional scaling: it rotates the whole head, --partial-rotary-factor of its pairs");
		if (D < 2 || D % 2)
			return pe_fail(err, PE_ERR_USAGE,
				       "proportional scaling needs an even head dim, got %llu",
				       (unsigned long long)D);
		p->rotary_dim = D;
		p->rotated = (uint64_t)floor((double)D * f / 2.0);
		return 0;
	}
	/* transformers: dim = int(head_dim * partial_rotary_factor) */
	R = (uint64_t)((double)D * f);
	if (!rd && !pf && cfgpath && c->rotary_dim)
		R = c->rotary_dim;
	if (rd)
		R = o->rotary_dim;
	if (R > D)
		return pe_fail(err, PE_ERR_USAGE, "the rotary width %llu exceeds the head dim %llu",
			       (unsigned long long)R, (unsigned long long)D);
	if ((R < 2 || R % 2) && cfgpath && !rd && !pf && !dim_given)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: the rotary width must be even and at least 2; the file's head dim %llu%s x partial rotary factor %g gives %llu",
			       cfgpath, (unsigned long long)D,
			       c->head_dim_derived ? " (hidden_size / num_attention_heads)" : "", f,
			       (unsigned long long)R);
	if (R < 2 || R % 2)
		return pe_fail(err, PE_ERR_USAGE,
			       "the rotary width must be even and at least 2, got %llu (head dim %llu x factor %g)",
			       (unsigned long long)R, (unsigned long long)D, f);
	p->rotary_dim = R;
	return 0;
}

static void record_meta(struct pe_gen *g, const struct pe_rope *r, const char *table,
			uint64_t head_dim, const char *cfgpath)
{
	const struct pe_rope_params *p = &r->p;
	struct pe_meta *m = &g->meta;
	enum pe_rope_scaling s = p->scaling;

	pe_meta_str(m, "kind", "rope");
	pe_meta_str(m, "table", table);
	pe_meta_str(m, "layout", p->layout != PE_LAYOUT_INTERLEAVED ? "half" : "interleaved");
	pe_meta_int(m, "positions", (int64_t)p->positions);
	pe_meta_int(m, "offset", p->offset);
	pe_meta_int(m, "head_dim", (int64_t)head_dim);
	pe_meta_int(m, "rotary_dim", (int64_t)p->rotary_dim);
	pe_meta_num(m, "theta", p->theta);
	pe_meta_str(m, "scaling", pe_rope_scaling_name(s));
	pe_meta_str(m, "precision", p->precision == PE_ROPE_EXACT ? "exact" : "float32");
	if (p->precision == PE_ROPE_FLOAT32) {
		pe_gen_torch_meta(m, &p->torch);
		pe_meta_str(m, "torch_trig", trigs[p->polar]);
	}
	if (cfgpath)
		pe_meta_str(m, "config", cfgpath);
	if (s != PE_ROPE_NONE && p->factor > 0)
		pe_meta_num(m, "factor", p->factor);
	if (s != PE_ROPE_NONE && s != PE_ROPE_LINEAR)
		pe_meta_int(m, "original_max_positions", (int64_t)p->original_max);
	if (s == PE_ROPE_DYNAMIC || s == PE_ROPE_LONGROPE)
		pe_meta_int(m, "seq_len", (int64_t)r->seq_len);
	if (s == PE_ROPE_DYNAMIC)
		pe_meta_num(m, "dynamic_theta", r->dynamic_theta);
	if (s == PE_ROPE_YARN) {
		pe_meta_num(m, "beta_fast", p->beta_fast);
		pe_meta_num(m, "beta_slow", p->beta_slow);
		if (p->mscale != 0)
			pe_meta_num(m, "mscale", p->mscale);
		if (p->mscale_all_dim != 0)
			pe_meta_num(m, "mscale_all_dim", p->mscale_all_dim);
		pe_meta_bool(m, "truncate", p->truncate);
		pe_meta_num(m, "yarn_low", r->yarn_low);
		pe_meta_num(m, "yarn_high", r->yarn_high);
	}
	if (s == PE_ROPE_LLAMA3) {
		pe_meta_num(m, "low_freq_factor", p->low_freq_factor);
		pe_meta_num(m, "high_freq_factor", p->high_freq_factor);
	}
	if (s == PE_ROPE_LONGROPE) {
		pe_meta_list(m, "short_factor", p->short_factor, p->nshort);
		pe_meta_list(m, "long_factor", p->long_factor, p->nlong);
		pe_meta_str(m, "longrope_factors", r->use_long ? "long" : "short");
	}
	pe_meta_num(m, "attention_factor", r->attention);
}

/* The layer types to build: --layer-type, --layer, the one type, or all of
 * them for --table all; a config with several and no choice is refused,
 * naming them. */
static int choose_types(struct pe_gen *g, const struct rope_opts *o, struct rope_state *st,
			int all, int *first, int *last, struct pe_error *err)
{
	const struct pe_hfconfig *c = &st->cfg;
	char list[768], layers[256];
	size_t n = 0, t;
	int k;

	if (!o->from_config) {
		if (o->layer_type || pe_gen_given(g, &o->layer))
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to --from-config only",
				       o->layer_type ? "layer-type" : "layer");
		*first = *last = 0;
		return 0;
	}
	if (o->layer_type && pe_gen_given(g, &o->layer))
		return pe_fail(err, PE_ERR_USAGE, "give --layer-type or --layer, not both");
	list[0] = '\0';
	for (t = 0; t < c->ntypes && n < sizeof list; t++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s%s%s%s", t ? "; " : "",
				      c->rope[t].name, c->nlayers ? " (layers " : "",
				      c->nlayers ? pe_hfconfig_layers_of(c, (int)t, layers, sizeof layers)
						 : "", c->nlayers ? ")" : "");
	if (o->layer_type) {
		k = pe_hfconfig_type(c, o->layer_type);
		if (k < 0 && c->ntypes == 1 && !c->rope[0].name[0] && c->nkinds) {
			/* a flat dict: every layer type with RoPE has it */
			for (t = 0; t < c->nkinds; t++)
				if (strcmp(c->kinds[t], o->layer_type) == 0)
					k = 0;
		}
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE, "--layer-type '%s' is not a RoPE layer type of %s (%s)",
				       o->layer_type, o->from_config,
				       c->rope[0].name[0] ? list : "it has one RoPE for every layer");
		*first = *last = k;
		return 0;
	}
	if (pe_gen_given(g, &o->layer)) {
		k = pe_hfconfig_layer(c, o->layer);
		if (k == -2)
			return pe_fail(err, PE_ERR_USAGE, "--layer %llu: %s describes %llu layers (0 to %llu)",
				       (unsigned long long)o->layer, o->from_config,
				       (unsigned long long)c->nlayers,
				       (unsigned long long)(c->nlayers ? c->nlayers - 1 : 0));
		if (k == -1)
			return pe_fail(err, PE_ERR_USAGE, "--layer %llu of %s has no RoPE (a NoPE layer: %s)",
				       (unsigned long long)o->layer, o->from_config,
				       pe_hfconfig_layers_of(c, -1, layers, sizeof layers));
		*first = *last = k;
		return 0;
	}
	if (c->ntypes == 1 || all || g->explain) {
		*first = 0;
		*last = (int)c->ntypes - 1;
		return 0;
	}
	return pe_fail(err, PE_ERR_USAGE,
		       "%s has %zu RoPE layer types: %s; give --layer-type NAME or --layer K (or --table all)",
		       o->from_config, c->ntypes, list);
}

/* Warnings about what the file says, as transformers would give them. */
static void config_warnings(struct pe_gen *g, const struct rope_opts *o, struct rope_state *st)
{
	const struct pe_hfconfig *c = &st->cfg;
	size_t i;

	if (c->duplicates)
		pe_msg_warn("%s: '%s'%s is written more than once; using the last value, as Python's json (and so transformers) does",
			    o->from_config, c->duplicate, c->duplicates > 1 ? " (and other keys)" : "");
	for (i = 0; i < c->nwarn; i++)
		pe_msg_warn("%s", c->warn[i]);
	if (c->has_rope && c->model_type[0] && !c->family_known && strcmp(c->model_type, "gptj") != 0)
		pe_msg_warn("%s: model_type '%s' is not a family of transformers %s with rotary embeddings: read with its generic rules",
			    o->from_config, c->model_type, "5.18");
	(void)g;
}

/* One layer type's table(s) into g's tensors from index *nt. */
static int build_type(struct pe_gen *g, const struct rope_opts *o, struct rope_state *st, int t,
		      int multi, uint64_t *head_dim, struct pe_rope_params *out, struct pe_error *err)
{
	const char *cfgpath = o->from_config;
	const struct pe_optdef *w;
	struct pe_rope_params p;
	struct pe_rope *r = &st->rope[st->n];
	const struct pe_hfrope *c = cfgpath ? &st->cfg.rope[t] : NULL;
	int table = o->table;
	size_t k;
	char which[96];

	pe_rope_defaults(&p);
	p.positions = g->positions;
	st->cur = c;
	if (c)
		apply_config(&st->cfg, c, &p);
	if (apply_options(g, o, &p, err) != 0)
		return -1;
	if (p.scaling == PE_ROPE_PROPORTIONAL && p.factor == 0)
		p.factor = 1.0;	/* transformers: .get("factor", 1.0) */
	if (rotary_width(g, o, c ? c : &st->cfg.rope[0], head_dim, &p, err) != 0)
		return -1;
	if ((w = pe_args_misplaced(g->args, rows, o, 1u << p.scaling)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --scaling %s only", w->name,
			       pe_opt_mask_names(w->applies, pe_rope_scaling_names, which,
						 sizeof which));
	st->head_dim[st->n] = *head_dim;
	st->n++;	/* freed with the state, failed or not */
	if (pe_rope_init(r, &p, err) != 0) {
		/* core names parameters: the file's keys, or the options */
		struct pe_param_file file = { cfgpath, config_key, c };

		pe_param_explain(err, g->args, &file);
		return -1;
	}
	if (r->llama3_unordered)
		warn_param(g, o, st, "{high_freq_factor} (%g) is not above {low_freq_factor} (%g): as transformers does (with a warning), frequencies whose wavelength exceeds L0 / low_freq_factor are divided by the factor and the others kept",
			   p.high_freq_factor, p.low_freq_factor);
	if (c && c->src[PE_HF_PARTIAL].origin == PE_HF_DEFAULT &&
	    strcmp(st->cfg.model_type, "gpt_neox") == 0 && !pe_gen_given(g, &o->rotary_dim) &&
	    !pe_gen_given(g, &o->partial_rotary_factor))
		pe_msg_warn("%s: gpt_neox config without rotary_pct: using transformers' default 0.25 (rotary width %llu)",
			    cfgpath, (unsigned long long)p.rotary_dim);
	if (c && c->partial_ignored && !pe_gen_given(g, &o->rotary_dim) &&
	    !pe_gen_given(g, &o->partial_rotary_factor))
		pe_msg_warn("%s: %s %g is not read by model_type %s's default RoPE: transformers rotates the whole head (%llu)",
			    cfgpath, c->src[PE_HF_PARTIAL].key, c->partial_rotary_factor,
			    st->cfg.model_type, (unsigned long long)p.rotary_dim);
	if (table == TABLE_GGUF && p.scaling != PE_ROPE_LLAMA3 && p.scaling != PE_ROPE_LONGROPE)
		return pe_fail(err, PE_ERR_USAGE,
			       "--table gguf-freqs: llama.cpp's converter writes rope_freqs for llama3 scaling and rope_factors_long/short for longrope; %s%s%s",
			       p.scaling == PE_ROPE_NONE ? "this RoPE is not scaled: a GGUF file needs no such tensor"
							 : "this RoPE's scaling is ",
			       p.scaling == PE_ROPE_NONE ? "" : pe_rope_scaling_name(p.scaling),
			       p.scaling == PE_ROPE_NONE ? ""
							 : ", which a GGUF file describes by its metadata alone (rope.scaling.type, rope.scaling.factor, ...)");
	for (k = 0; k < (table == TABLE_ALL ? 3u : table == TABLE_GGUF &&
					p.scaling == PE_ROPE_LONGROPE ? 2u : 1u); k++) {
		static const enum pe_rope_table all[] = { PE_ROPE_COS, PE_ROPE_SIN, PE_ROPE_INV_FREQ };
		static const enum pe_rope_table longrope[] = { PE_ROPE_GGUF_LONG, PE_ROPE_GGUF_SHORT };
		struct pe_tensor *ten = &g->tensor[g->nt];

		if (g->nt == PE_GEN_MAX_TENSORS)
			return pe_fail(err, PE_ERR_USAGE, "at most %d tensors in one result",
				       PE_GEN_MAX_TENSORS);
		if (pe_rope_tensor(r, table == TABLE_ALL ? all[k]
				   : table == TABLE_GGUF && p.scaling == PE_ROPE_LONGROPE ? longrope[k]
				   : table_of[table], ten, err) != 0)
			return -1;
		if (multi) {
			char name[sizeof ten->name];

			snprintf(name, sizeof name, "%s.%s", ten->name, c->name);
			memcpy(ten->name, name, sizeof name);
		}
		g->nt++;
	}
	*out = p;
	return 0;
}

_Static_assert(sizeof ((struct rope_state *)0)->keys[0] ==
	       sizeof ((struct pe_hfrope *)0)->name, "meta keys hold a layer type's name");

static void record_types(struct pe_gen *g, struct rope_state *st, int first, int last)
{
	char desc[256];
	int t;

	for (t = first; t <= last; t++) {
		const struct pe_rope *r = &st->rope[t - first];

		/* same size, always terminated (memcpy: snprintf between two
		 * members of *st trips GCC's -Wrestrict at -O1) */
		memcpy(st->keys[t - first], st->cfg.rope[t].name, sizeof st->keys[0]);
		snprintf(desc, sizeof desc, "%s, theta %.17g, rotary_dim %llu, attention_factor %.17g",
			 pe_rope_scaling_name(r->p.scaling), r->p.theta,
			 (unsigned long long)r->p.rotary_dim, r->attention);
		pe_meta_str(&g->meta, st->keys[t - first], desc);
	}
}

/* The rope options that say nothing about the query scale. */
static const char *qscale_misfit(const struct pe_gen *g, const struct rope_opts *o)
{
	const struct pe_optdef *d;
	size_t off;

	for (d = rows; d->name || d->help; d++) {
		off = d->off;
		if (d->name && off != O(table) && off != O(offset) && off != O(from_config) &&
		    off != O(layer) && off != O(layer_type) &&
		    pe_gen_given(g, (const char *)o + off))
			return d->name;
	}
	return pe_gen_given(g, &g->dim) ? "dim" : NULL;
}

/* --table attn-scale: the config's query scale (hfconfig.h), for the
 * layers it applies to (Llama 4: its NoPE layers; llama_4_scaling_beta:
 * all); --layer or --layer-type must name one of those. */
static int build_qscale(struct pe_gen *g, const struct rope_opts *o, struct rope_state *st,
			struct pe_error *err)
{
	const struct pe_hfconfig *c = &st->cfg;
	struct pe_qscale_params qp;
	struct pe_qscale *q;
	char layers[256];
	const char *w;
	int llama4 = c->qscale == PE_HF_QSCALE_LLAMA4;
	size_t k;

	if (!o->from_config)
		return pe_fail(err, PE_ERR_USAGE,
			       "--table attn-scale needs --from-config: the query scale is a model's (Llama 4's attention temperature tuning, llama_4_scaling_beta of Ministral 3 and Mistral 4)");
	if (c->qscale == PE_HF_QSCALE_NONE)
		return pe_fail(err, PE_ERR_USAGE,
			       "--table attn-scale: %s scales no query by its position%s (transformers does so for Llama 4's NoPE layers with attn_temperature_tuning, and for rope_parameters.llama_4_scaling_beta)",
			       o->from_config,
			       strcmp(c->model_type, "llama4_text") == 0 ? ": its attn_temperature_tuning is false" : "");
	if ((w = qscale_misfit(g, o)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --table attn-scale", w);
	if (!llama4 && c->qL0 == 0)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: %s needs %s (transformers divides the position by it)",
			       o->from_config, c->rope[c->qbeta_type].src[PE_HF_LLAMA4_BETA].key,
			       c->rope[c->qbeta_type].src[PE_HF_ORIGINAL_MAX].key);
	if (llama4)
		pe_hfconfig_layers_of(c, -1, layers, sizeof layers);
	if (pe_gen_given(g, &o->layer)) {
		int t = pe_hfconfig_layer(c, o->layer);

		if (t == -2)
			return pe_fail(err, PE_ERR_USAGE, "--layer %llu: %s describes %llu layers (0 to %llu)",
				       (unsigned long long)o->layer, o->from_config,
				       (unsigned long long)c->nlayers,
				       (unsigned long long)(c->nlayers ? c->nlayers - 1 : 0));
		if (llama4 && t != -1)
			return pe_fail(err, PE_ERR_USAGE,
				       "--layer %llu of %s applies RoPE: Llama 4 scales the queries of its NoPE layers only (%s)",
				       (unsigned long long)o->layer, o->from_config, layers);
	}
	if (o->layer_type) {
		for (k = 0; k < c->nlayers; k++)
			if (strcmp(c->kinds[c->layer_kind[k]], o->layer_type) == 0 &&
			    (!llama4 || c->layer_rope[k] == -1))
				break;
		if (k == c->nlayers && (c->nlayers || llama4))
			return pe_fail(err, PE_ERR_USAGE, "--layer-type '%s': no layer of %s of that type scales its queries%s%s",
				       o->layer_type, o->from_config, llama4 ? " (Llama 4: its NoPE layers " : "",
				       llama4 ? layers : "");
	}
	q = &st->qscale;
	memset(&qp, 0, sizeof qp);
	qp.kind = llama4 ? PE_QSCALE_LLAMA4 : PE_QSCALE_BETA;
	qp.positions = g->positions;
	qp.offset = o->offset;
	qp.scale = llama4 ? c->attn_scale : c->qbeta;
	qp.divisor = llama4 ? c->floor_scale : (double)c->qL0;
	qp.float32 = g->float32;
	qp.torch = g->torch;
	if (pe_qscale_init(q, &qp, err) != 0) {
		pe_param_explain(err, g->args, NULL);
		return -1;
	}
	if (pe_qscale_tensor(q, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;
	g->row_origin = o->offset;
	g->xlabel = "position";
	pe_meta_str(&g->meta, "kind", "rope");
	pe_meta_str(&g->meta, "table", "attn-scale");
	pe_meta_str(&g->meta, "config", o->from_config);
	pe_meta_str(&g->meta, "query_scale", llama4 ? "llama4 attn_temperature_tuning"
						      : "llama_4_scaling_beta");
	pe_meta_str(&g->meta, "formula", llama4 ? "1 + attn_scale * log1p(floor((p + 1) / floor_scale))"
						: "1 + beta * log(1 + floor(p / original_max_position_embeddings))");
	pe_meta_num(&g->meta, llama4 ? "attn_scale" : "llama_4_scaling_beta", qp.scale);
	pe_meta_num(&g->meta, llama4 ? "floor_scale" : "original_max_position_embeddings",
		    qp.divisor);
	pe_meta_str(&g->meta, "layers", llama4 ? layers : "all");
	pe_meta_int(&g->meta, "positions", (int64_t)qp.positions);
	pe_meta_int(&g->meta, "offset", qp.offset);
	pe_meta_str(&g->meta, "precision", g->float32 ? "float32" : "exact");
	if (g->float32)
		pe_gen_torch_meta(&g->meta, &g->torch);
	return 0;
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct rope_opts *o = opts;
	struct rope_state *st;
	struct pe_rope_params p;
	const char *cfgpath = o->from_config;
	int table = o->table, first = 0, last = 0, t;
	uint64_t head_dim = 0;

	pe_rope_defaults(&p);
	st = calloc(1, sizeof *st);
	if (!st)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = st;
	g->free_state = free_rope;
	if (cfgpath) {
		if (pe_hfconfig_read(cfgpath, &st->cfg, err) != 0)
			return -1;
		config_warnings(g, o, st);
		if (!st->cfg.has_rope && !pe_gen_given(g, &o->theta))
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no RoPE field (rope_theta, rope_scaling, rope_parameters, rotary_emb_base, rotary_pct, rotary_dim); give --theta to use it anyway",
				       cfgpath);
		/* without -n: max_position_embeddings, or the class's default
		 * where the file leaves it out (Gemma 3 27B: 131072) */
		if (!pe_gen_given(g, &g->positions) && st->cfg.max_positions)
			g->positions = st->cfg.max_positions;
		else if (!pe_gen_given(g, &g->positions) && st->cfg.class_max_positions)
			g->positions = st->cfg.class_max_positions;
	} else {
		st->cfg.ntypes = 1;
	}
	if (g->explain && pe_gen_given(g, &o->table))
		return pe_fail(err, PE_ERR_USAGE, "--table does not apply to explain (it reports what every table holds)");
	if (table == TABLE_ATTN)
		return build_qscale(g, o, st, err);
	if (choose_types(g, o, st, table == TABLE_ALL, &first, &last, err) != 0)
		return -1;
	st->first = first;
	for (t = first; t <= last; t++)
		if (build_type(g, o, st, t, last > first, &head_dim, &p, err) != 0)
			return -1;
	if (table == PE_ROPE_INV_FREQ || table == TABLE_GGUF)
		g->xlabel = "frequency";	/* rows are frequencies, not positions */
	else
		g->row_origin = p.offset;
	record_meta(g, &st->rope[0], tables[table], head_dim, cfgpath);
	if (cfgpath && st->cfg.rope[first].name[0]) {
		pe_meta_str(&g->meta, "layer_type", last > first ? "several" : st->cfg.rope[first].name);
		if (last > first)
			record_types(g, st, first, last);
	}
	return 0;
}

static int float32(const void *opts)
{
	(void)opts;
	return 1;	/* transformers' float32 pipeline */
}

static int explain(struct pe_gen *g, struct pe_explain *x, struct pe_error *err)
{
	const struct rope_state *st = g->state;
	const struct rope_opts *o = g->opts;
	struct pe_explain_rope in = {
		o->from_config, o->from_config ? &st->cfg : NULL, st->rope, st->n, st->first,
		st->head_dim, g->args, g->positions, pe_gen_given(g, &g->positions) != NULL
	};

	return pe_explain_rope(x, &in, err);
}

extern const struct pe_gen_kind pe_kind_rope;

const struct pe_rope *pe_gen_rope(const struct pe_gen *g, uint64_t *max_positions)
{
	const struct rope_state *st = g->state;

	if (g->kind != &pe_kind_rope || !st || st->n == 0)
		return NULL;
	if (max_positions)
		*max_positions = st->cfg.max_positions ? st->cfg.max_positions
						       : st->cfg.class_max_positions;
	return &st->rope[0];
}

const struct pe_gen_kind pe_kind_rope = {
	"rope", "rotary cos/sin tables, inv_freq, every Hugging Face scaling",
	rows, sizeof(struct rope_opts), build, float32, explain
};
