/*
 * generate rope: options (and an optional Hugging Face config.json) to
 * core/rope.h parameters.  Precedence: the config's values, resolved the
 * way transformers resolves them (io/hfconfig.h), then every explicit
 * option replaces the value it names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/generate.h"
#include "cli/msg.h"
#include "core/parse.h"
#include "core/rope.h"
#include "io/hfconfig.h"

const char *const pe_gen_rope_options[] = {
	"offset", "layout", "table", "theta", "rotary-dim", "partial-rotary-factor", "scaling",
	"factor", "original-max-positions", "seq-len", "beta-fast", "beta-slow", "mscale",
	"mscale-all-dim", "attention-factor", "low-freq-factor", "high-freq-factor",
	"short-factor", "long-factor", "truncate", "no-truncate", "precision", "from-config",
	"torch-cpu", "torch-vml", "torch-threads", NULL
};

const char *const pe_gen_rope_tables[] = { "cos", "sin", "inv-freq", "angles", "all", NULL };
const char *const pe_gen_rope_layouts[] = { "half", "interleaved", NULL };

/* which scalings use an option: bit (1 << scaling) */
#define S(x) (1u << PE_ROPE_##x)
static const struct {
	const char *name;
	unsigned mask;
	const char *which;
} scaling_opts[] = {
	{ "factor", S(LINEAR) | S(DYNAMIC) | S(YARN) | S(LLAMA3) | S(LONGROPE),
	  "linear, dynamic, yarn, llama3 and longrope" },
	{ "original-max-positions", S(DYNAMIC) | S(YARN) | S(LLAMA3) | S(LONGROPE),
	  "dynamic, yarn, llama3 and longrope" },
	{ "seq-len", S(DYNAMIC) | S(LONGROPE), "dynamic and longrope" },
	{ "beta-fast", S(YARN), "yarn" },
	{ "beta-slow", S(YARN), "yarn" },
	{ "mscale", S(YARN), "yarn" },
	{ "mscale-all-dim", S(YARN), "yarn" },
	{ "truncate", S(YARN), "yarn" },
	{ "no-truncate", S(YARN), "yarn" },
	{ "attention-factor", S(YARN) | S(LONGROPE), "yarn and longrope" },
	{ "low-freq-factor", S(LLAMA3), "llama3" },
	{ "high-freq-factor", S(LLAMA3), "llama3" },
	{ "short-factor", S(LONGROPE), "longrope" },
	{ "long-factor", S(LONGROPE), "longrope" },
};
#undef S

struct rope_state {
	struct pe_rope rope;
	struct pe_hfconfig cfg;
	double *short_opt, *long_opt;
};

static void free_rope(void *p)
{
	struct rope_state *st = p;

	pe_rope_free(&st->rope);
	pe_hfconfig_free(&st->cfg);
	free(st->short_opt);
	free(st->long_opt);
	free(st);
}

static int opt_list(struct pe_gen *g, const char *name, double **out, size_t *n,
		    struct pe_error *err)
{
	const char *v = pe_gen_val(g, name);

	if (!v)
		return 0;
	if (pe_parse_double_list(v, (size_t)1 << 22, out, n) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--%s must be a comma-separated list of finite numbers, got '%s'", name,
			       v);
	return 0;
}

static void apply_config(const struct pe_hfconfig *c, struct pe_rope_params *p)
{
	p->theta = c->theta;
	p->scaling = c->scaling;
	if (c->interleaved)
		p->layout = PE_ROPE_INTERLEAVED;
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

static int parse_options(struct pe_gen *g, struct rope_state *st, struct pe_rope_params *p,
			 struct pe_error *err)
{
	int scaling = (int)p->scaling, layout = (int)p->layout, precision = 0;
	uint64_t u;

	if (pe_opt_choice("scaling", pe_gen_val(g, "scaling"), pe_rope_scaling_names, &scaling,
			  err) != 0 ||
	    pe_opt_choice("layout", pe_gen_val(g, "layout"), pe_gen_rope_layouts, &layout, err) != 0 ||
	    pe_opt_choice("precision", pe_gen_val(g, "precision"), pe_gen_precisions, &precision, err) != 0)
		return -1;
	p->scaling = (enum pe_rope_scaling)scaling;
	p->layout = (enum pe_rope_layout)layout;
	p->precision = (enum pe_rope_precision)precision;
	if (pe_gen_torch(g, precision == PE_ROPE_FLOAT32, &p->torch, err) != 0)
		return -1;
	if (pe_opt_double("theta", pe_gen_val(g, "theta"), 1, &p->theta, err) != 0 ||
	    pe_opt_double("factor", pe_gen_val(g, "factor"), 1, &p->factor, err) != 0 ||
	    pe_opt_double("beta-fast", pe_gen_val(g, "beta-fast"), 1, &p->beta_fast, err) != 0 ||
	    pe_opt_double("beta-slow", pe_gen_val(g, "beta-slow"), 1, &p->beta_slow, err) != 0 ||
	    pe_opt_double("attention-factor", pe_gen_val(g, "attention-factor"), 1,
			  &p->attention_factor, err) != 0 ||
	    pe_opt_double("low-freq-factor", pe_gen_val(g, "low-freq-factor"), 1,
			  &p->low_freq_factor, err) != 0 ||
	    pe_opt_double("high-freq-factor", pe_gen_val(g, "high-freq-factor"), 1,
			  &p->high_freq_factor, err) != 0 ||
	    pe_opt_double("mscale", pe_gen_val(g, "mscale"), 0, &p->mscale, err) != 0 ||
	    pe_opt_double("mscale-all-dim", pe_gen_val(g, "mscale-all-dim"), 0,
			  &p->mscale_all_dim, err) != 0)
		return -1;
	if (p->mscale < 0 || p->mscale_all_dim < 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s must be a non-negative number, got '%s'",
			       p->mscale < 0 ? "mscale" : "mscale-all-dim",
			       pe_gen_val(g, p->mscale < 0 ? "mscale" : "mscale-all-dim"));
	u = p->original_max;
	if (pe_opt_u64("original-max-positions", pe_gen_val(g, "original-max-positions"), 1,
		       (uint64_t)1 << 40, &u, err) != 0)
		return -1;
	p->original_max = u;
	if (pe_opt_u64("seq-len", pe_gen_val(g, "seq-len"), 1, (uint64_t)1 << 53, &p->seq_len,
		       err) != 0 ||
	    pe_opt_i64("offset", pe_gen_val(g, "offset"), -((int64_t)1 << 53), (int64_t)1 << 53,
		       &p->offset, err) != 0)
		return -1;
	if (pe_gen_val(g, "truncate") && pe_gen_val(g, "no-truncate"))
		return pe_fail(err, PE_ERR_USAGE, "--truncate and --no-truncate contradict each other");
	if (pe_gen_val(g, "truncate"))
		p->truncate = 1;
	if (pe_gen_val(g, "no-truncate"))
		p->truncate = 0;
	if (opt_list(g, "short-factor", &st->short_opt, &p->nshort, err) != 0 ||
	    opt_list(g, "long-factor", &st->long_opt, &p->nlong, err) != 0)
		return -1;
	if (st->short_opt)
		p->short_factor = st->short_opt;
	if (st->long_opt)
		p->long_factor = st->long_opt;
	return 0;
}

/* head dim and rotary width: -d, else the config; --rotary-dim or
 * --partial-rotary-factor, else the config's, else all of the head */
static int rotary_width(struct pe_gen *g, const char *cfgpath, const struct pe_hfconfig *c,
			uint64_t *head_dim, struct pe_rope_params *p, struct pe_error *err)
{
	const char *rd = pe_gen_val(g, "rotary-dim"), *pf = pe_gen_val(g, "partial-rotary-factor");
	double f = cfgpath ? c->partial_rotary_factor : 1.0;
	uint64_t D = g->dim, R;

	if (cfgpath && !pe_gen_val(g, "dim")) {
		if (c->head_dim == 0)
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no head_dim, nor hidden_size and num_attention_heads (give -d)",
				       cfgpath);
		D = c->head_dim;
	}
	*head_dim = D;
	if (rd && pf)
		return pe_fail(err, PE_ERR_USAGE,
			       "give --rotary-dim or --partial-rotary-factor, not both");
	if (pe_opt_double("partial-rotary-factor", pf, 1, &f, err) != 0)
		return -1;
	if (pf && f > 1)
		return pe_fail(err, PE_ERR_USAGE,
			       "--partial-rotary-factor must be in (0, 1], got '%s'", pf);
	/* transformers: dim = int(head_dim * partial_rotary_factor) */
	R = (uint64_t)((double)D * f);
	if (!rd && !pf && cfgpath && c->rotary_dim)
		R = c->rotary_dim;
	if (pe_opt_u64("rotary-dim", rd, 2, PE_MAX_COLS, &R, err) != 0)
		return -1;
	if (R > D)
		return pe_fail(err, PE_ERR_USAGE, "the rotary width %llu exceeds the head dim %llu",
			       (unsigned long long)R, (unsigned long long)D);
	if ((R < 2 || R % 2) && cfgpath && !rd && !pf && !pe_gen_val(g, "dim"))
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
	pe_meta_str(m, "layout", p->layout == PE_ROPE_HALF ? "half" : "interleaved");
	pe_meta_int(m, "positions", (int64_t)p->positions);
	pe_meta_int(m, "offset", p->offset);
	pe_meta_int(m, "head_dim", (int64_t)head_dim);
	pe_meta_int(m, "rotary_dim", (int64_t)p->rotary_dim);
	pe_meta_num(m, "theta", p->theta);
	pe_meta_str(m, "scaling", pe_rope_scaling_name(s));
	pe_meta_str(m, "precision", p->precision == PE_ROPE_EXACT ? "exact" : "float32");
	if (p->precision == PE_ROPE_FLOAT32)
		pe_gen_torch_meta(m, &p->torch);
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

int pe_gen_rope(struct pe_gen *g, struct pe_error *err)
{
	struct rope_state *st;
	struct pe_rope_params p;
	const char *cfgpath = pe_gen_val(g, "from-config");
	int table = PE_ROPE_COS;
	uint64_t head_dim = 0;
	size_t i;

	if (pe_opt_choice("table", pe_gen_val(g, "table"), pe_gen_rope_tables, &table, err) != 0)
		return -1;
	st = calloc(1, sizeof *st);
	if (!st)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = st;
	g->free_state = free_rope;
	pe_rope_defaults(&p);
	p.positions = g->positions;
	if (cfgpath) {
		if (pe_hfconfig_read(cfgpath, &st->cfg, err) != 0)
			return -1;
		if (st->cfg.duplicates)
			pe_msg_warn("%s: '%s'%s is written more than once; using the last value, as Python's json (and so transformers) does",
				    cfgpath, st->cfg.duplicate,
				    st->cfg.duplicates > 1 ? " (and other keys)" : "");
		if (!st->cfg.has_rope && !pe_gen_val(g, "theta"))
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no RoPE field (rope_theta, rope_scaling, rope_parameters, rotary_emb_base, rotary_pct, rotary_dim); give --theta to use it anyway",
				       cfgpath);
		apply_config(&st->cfg, &p);
	}
	if (parse_options(g, st, &p, err) != 0 ||
	    rotary_width(g, cfgpath, &st->cfg, &head_dim, &p, err) != 0)
		return -1;
	for (i = 0; i < sizeof scaling_opts / sizeof scaling_opts[0]; i++)
		if (pe_gen_val(g, scaling_opts[i].name) && !(scaling_opts[i].mask & (1u << p.scaling)))
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to --scaling %s only",
				       scaling_opts[i].name, scaling_opts[i].which);
	if (pe_rope_init(&st->rope, &p, err) != 0)
		return -1;
	if (cfgpath && st->cfg.partial_default && !pe_gen_val(g, "rotary-dim") &&
	    !pe_gen_val(g, "partial-rotary-factor"))
		pe_msg_warn("%s: gpt_neox config without rotary_pct: using transformers' default 0.25 (rotary width %llu)",
			    cfgpath, (unsigned long long)p.rotary_dim);
	if (table == 4) {
		if (pe_rope_tensor(&st->rope, PE_ROPE_COS, &g->tensor[0], err) != 0 ||
		    pe_rope_tensor(&st->rope, PE_ROPE_SIN, &g->tensor[1], err) != 0 ||
		    pe_rope_tensor(&st->rope, PE_ROPE_INV_FREQ, &g->tensor[2], err) != 0)
			return -1;
		g->nt = 3;
	} else {
		if (pe_rope_tensor(&st->rope, (enum pe_rope_table)table, &g->tensor[0], err) != 0)
			return -1;
		g->nt = 1;
	}
	if (table == PE_ROPE_INV_FREQ)
		g->xlabel = "frequency";	/* rows are frequencies, not positions */
	else
		g->row_origin = p.offset;
	record_meta(g, &st->rope, pe_gen_rope_tables[table], head_dim, cfgpath);
	return 0;
}
