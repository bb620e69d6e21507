/*
 * explain rope: what generate rope's build resolved (cli/gen_rope.c: the
 * config as transformers reads it, then the options), layer type by layer
 * type, with where every value came from: the option given, the file's
 * key, a transformers default, or derived from other values.  The
 * per-pair facts are core/ropeinfo.h's, read off the same struct pe_rope
 * the tables come from.
 */
#include "cli/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/qscale.h"
#include "core/ropeinfo.h"

#define PE_PI 3.141592653589793
#define KEY_MAX 200

struct ctx {
	struct pe_explain *x;
	const struct pe_explain_rope *in;
	const struct pe_hfconfig *cfg;	/* NULL: no config */
	const struct pe_hfrope *c;	/* this type's, NULL: no config */
	const struct pe_rope *r;
	uint64_t head_dim;
};

static const char *opt_given(const struct ctx *k, const char *param)
{
	int given = 0;
	const char *opt = pe_args_option_of(k->in->args, param, &given);

	return opt && given ? opt : NULL;
}

/*
 * A param of the type's parameters: the option when given, else the
 * file's key for it (core's parameter hp, -1: none), as hfconfig marked
 * it; without a file, posenc's default (transformers' own).
 */
static struct pe_rnode *param(const struct ctx *k, struct pe_rnode *ps, const char *name, int hp)
{
	char key[KEY_MAX];
	const char *opt = opt_given(k, name), *origin = "default";

	key[0] = '\0';
	if (opt) {
		snprintf(key, sizeof key, "--%s", opt);
		origin = "option";
	} else if (k->c && hp >= 0) {
		snprintf(key, sizeof key, "%s", k->c->src[hp].key);
		origin = k->c->src[hp].origin == PE_HF_GIVEN ? "config"
		       : k->c->src[hp].origin == PE_HF_DERIVED ? "derived" : "default";
	}
	return pe_rep_param(ps, name, origin, key);
}

static void derived(struct pe_rnode *ps, const char *name, double v, const char *how)
{
	pe_rep_num(pe_rep_param(ps, name, "derived", how), "value", v);
}

/* "a-b, c" of the layers using type t (-1: NoPE layers), and their count */
static int layers(const struct pe_hfconfig *cfg, int t, struct pe_rnode *o, const char *key,
		  const char *count_key)
{
	size_t n = (size_t)cfg->nlayers * 8 + 16;
	char *buf = malloc(n);
	uint64_t i, count = 0;

	if (!buf)
		return -1;
	for (i = 0; i < cfg->nlayers; i++)
		count += pe_hfconfig_layer(cfg, i) == t;
	pe_hfconfig_layers_of(cfg, t, buf, n);
	pe_rep_str(o, key, "%s", count ? buf : "none");
	if (count_key)
		pe_rep_int(o, count_key, (int64_t)count);
	free(buf);
	return 0;
}

/* the columns no pair turns: beyond the rotary width, and proportional's
 * middle ones */
static void unrotated(const struct ctx *k, struct pe_rnode *o)
{
	const struct pe_rope_params *p = &k->r->p;
	uint64_t D = k->head_dim, R = p->rotary_dim, n = p->rotated, count;
	char a[48], b[48];

	if (p->scaling == PE_ROPE_PROPORTIONAL && n < R / 2) {
		if (p->layout != PE_LAYOUT_INTERLEAVED) {
			pe_explain_columns(a, sizeof a, n, R / 2);
			pe_explain_columns(b, sizeof b, R / 2 + n, R);
			pe_rep_str(o, "unrotated_columns", "%s, %s", a, b);
		} else {
			pe_explain_columns(a, sizeof a, 2 * n, R);
			pe_rep_str(o, "unrotated_columns", "%s", a);
		}
		count = R - 2 * n;
	} else {
		pe_explain_columns(a, sizeof a, R, D > R ? D : R);
		pe_rep_str(o, "unrotated_columns", "%s", a);
		count = D > R ? D - R : 0;
	}
	pe_rep_int(o, "unrotated_count", (int64_t)count);
}

static const char *layout_name(const struct pe_rope *r)
{
	return r->p.layout != PE_LAYOUT_INTERLEAVED ? "half" : "interleaved";
}

/* The attention factor and where it came from. */
static void attention(const struct ctx *k, struct pe_rnode *ps)
{
	const struct pe_rope_params *p = &k->r->p;
	struct pe_rnode *a;
	char how[KEY_MAX];

	if (opt_given(k, "attention_factor") ||
	    (k->c && k->c->src[PE_HF_ATTENTION].origin == PE_HF_GIVEN)) {
		a = param(k, ps, "attention_factor", PE_HF_ATTENTION);
	} else if (p->scaling == PE_ROPE_YARN) {
		if (p->mscale != 0 && p->mscale_all_dim != 0)
			snprintf(how, sizeof how, "(0.1 mscale ln(factor) + 1) / (0.1 mscale_all_dim ln(factor) + 1)");
		else
			snprintf(how, sizeof how, "0.1 ln(factor) + 1%s",
				 p->mscale != 0 || p->mscale_all_dim != 0
					 ? " (transformers takes the mscale ratio only when both are set)" : "");
		a = pe_rep_param(ps, "attention_factor", "derived", p->factor <= 1 ? "1 (factor <= 1)" : how);
	} else if (p->scaling == PE_ROPE_LONGROPE) {
		a = pe_rep_param(ps, "attention_factor", "derived",
				 p->factor <= 1 ? "1 (factor <= 1)"
						: "sqrt(1 + ln(factor) / ln(original_max_positions))");
	} else {
		a = pe_rep_param(ps, "attention_factor", "default", "");
	}
	pe_rep_num(a, "value", k->r->attention);
	pe_rep_str(a, "note", "cos and sin are multiplied by it");
}

/* The rope's parameters, those its scaling reads; returns the record. */
static struct pe_rnode *parameters(const struct ctx *k, struct pe_rnode *o)
{
	const struct pe_rope *r = k->r;
	const struct pe_rope_params *p = &r->p;
	const struct pe_hfrope *c = k->c;
	enum pe_rope_scaling s = p->scaling;
	struct pe_rnode *ps = pe_rep_record(o, "parameters"), *v;
	char how[KEY_MAX];
	int given;

	v = param(k, ps, "scaling", PE_HF_SCALING);
	pe_rep_str(v, "value", "%s", pe_rope_scaling_name(s));
	pe_rep_num(param(k, ps, "theta", PE_HF_THETA), "value", p->theta);

	/* the head dim: -d, the file's, or the default */
	given = 0;
	if (pe_args_option_of(k->in->args, "dim", &given) && given)
		v = pe_rep_param(ps, "head_dim", "option", "--dim");
	else
		v = param(k, ps, "head_dim", c ? PE_HF_HEAD_DIM : -1);
	pe_rep_int(v, "value", (int64_t)k->head_dim);

	if (s != PE_ROPE_PROPORTIONAL || c || opt_given(k, "partial_rotary_factor")) {
		v = param(k, ps, "partial_rotary_factor", PE_HF_PARTIAL);
		pe_rep_num(v, "value", c && !c->partial_ignored && !opt_given(k, "rotary_dim")
					       ? (opt_given(k, "partial_rotary_factor")
							  ? (double)p->rotary_dim / (double)k->head_dim
							  : c->partial_rotary_factor)
					       : (double)p->rotary_dim / (double)k->head_dim);
		if (c && c->partial_ignored && !opt_given(k, "partial_rotary_factor"))
			pe_rep_str(v, "note", "not read by model_type %s's default RoPE",
				   k->cfg->model_type);
	}
	if (opt_given(k, "rotary_dim"))
		v = pe_rep_param(ps, "rotary_dim", "option", "--rotary-dim");
	else if (s == PE_ROPE_PROPORTIONAL)
		v = pe_rep_param(ps, "rotary_dim", "derived", "head_dim (proportional: the whole head)");
	else if (c && c->rotary_dim && !opt_given(k, "partial_rotary_factor"))
		v = pe_rep_param(ps, "rotary_dim", "config", "rotary_dim");
	else
		v = pe_rep_param(ps, "rotary_dim", "derived", "int(head_dim x partial_rotary_factor)");
	pe_rep_int(v, "value", (int64_t)p->rotary_dim);
	if (s == PE_ROPE_PROPORTIONAL) {
		v = pe_rep_param(ps, "rotated_pairs", "derived",
				 "int(partial_rotary_factor x head_dim // 2)");
		pe_rep_int(v, "value", (int64_t)p->rotated);
	}
	if (opt_given(k, "layout"))
		v = pe_rep_param(ps, "layout", "option", "--layout");
	else if (k->cfg && k->cfg->interleaved)
		v = pe_rep_param(ps, "layout", "derived", k->cfg->model_type);
	else
		v = pe_rep_param(ps, "layout", "default", "");
	pe_rep_str(v, "value", "%s", layout_name(r));
	if (p->layout == PE_LAYOUT_INTERLEAVED)
		pe_rep_str(v, "note", "pairs of adjacent columns 2j, 2j+1");
	else
		pe_rep_str(v, "note", "pair j turns columns j and j + R/2, R = rotary_dim");

	if (s != PE_ROPE_NONE && (s != PE_ROPE_PROPORTIONAL || p->factor != 1 || opt_given(k, "factor") ||
				  (c && c->src[PE_HF_FACTOR].origin == PE_HF_GIVEN))) {
		v = param(k, ps, "factor", PE_HF_FACTOR);
		pe_rep_num(v, "value", p->factor);
		if (s == PE_ROPE_LONGROPE && !opt_given(k, "factor") && !(c && c->factor > 0))
			pe_rep_str(v, "note", "used only for the attention factor");
	}
	if (s == PE_ROPE_DYNAMIC || s == PE_ROPE_YARN || s == PE_ROPE_LLAMA3 ||
	    s == PE_ROPE_LONGROPE)
		pe_rep_int(param(k, ps, "original_max_positions", PE_HF_ORIGINAL_MAX), "value",
			   (int64_t)p->original_max);
	if (s == PE_ROPE_YARN) {
		static const struct { const char *name; int hp; double dflt; } bs[] = {
			{ "beta_fast", PE_HF_BETA_FAST, 32 }, { "beta_slow", PE_HF_BETA_SLOW, 1 }
		};
		size_t i;

		for (i = 0; i < 2; i++) {
			double val = i ? p->beta_slow : p->beta_fast;
			double filed = c ? (i ? c->beta_slow : c->beta_fast) : 0;

			if (c && !opt_given(k, bs[i].name) &&
			    c->src[bs[i].hp].origin == PE_HF_GIVEN && filed == 0) {
				/* transformers: get(...) or 32 */
				v = pe_rep_param(ps, bs[i].name, "default", c->src[bs[i].hp].key);
				pe_rep_str(v, "note", "0 in the file: transformers' `or %g`", bs[i].dflt);
			} else {
				v = param(k, ps, bs[i].name, bs[i].hp);
			}
			pe_rep_num(v, "value", val);
		}
		if (p->mscale != 0 || opt_given(k, "mscale") ||
		    (c && c->src[PE_HF_MSCALE].origin == PE_HF_GIVEN))
			pe_rep_num(param(k, ps, "mscale", PE_HF_MSCALE), "value", p->mscale);
		if (p->mscale_all_dim != 0 || opt_given(k, "mscale_all_dim") ||
		    (c && c->src[PE_HF_MSCALE_ALL_DIM].origin == PE_HF_GIVEN))
			pe_rep_num(param(k, ps, "mscale_all_dim", PE_HF_MSCALE_ALL_DIM), "value",
				   p->mscale_all_dim);
		if (opt_given(k, "truncate") || opt_given(k, "no_truncate")) {
			v = pe_rep_param(ps, "truncate", "option",
					 opt_given(k, "truncate") ? "--truncate" : "--no-truncate");
		} else if (c && c->src[PE_HF_TRUNCATE].origin == PE_HF_GIVEN && c->name[0]) {
			v = pe_rep_param(ps, "truncate", "default", c->src[PE_HF_TRUNCATE].key);
			pe_rep_str(v, "note", "transformers reads truncate from a flat dict only: a nested one truncates");
		} else {
			v = param(k, ps, "truncate", PE_HF_TRUNCATE);
		}
		pe_rep_bool(v, "value", p->truncate);
		snprintf(how, sizeof how, "%sR ln(L0 / (2 pi beta_fast)) / (2 ln theta)%s, at least 0",
			 p->truncate ? "floor(" : "", p->truncate ? ")" : "");
		derived(ps, "yarn_low", r->yarn_low, how);
		snprintf(how, sizeof how, "%sR ln(L0 / (2 pi beta_slow)) / (2 ln theta)%s, at most R - 1",
			 p->truncate ? "ceil(" : "", p->truncate ? ")" : "");
		derived(ps, "yarn_high", r->yarn_high, how);
	}
	if (s == PE_ROPE_LLAMA3) {
		pe_rep_num(param(k, ps, "low_freq_factor", PE_HF_LOW_FREQ), "value", p->low_freq_factor);
		pe_rep_num(param(k, ps, "high_freq_factor", PE_HF_HIGH_FREQ), "value", p->high_freq_factor);
		derived(ps, "wavelength_kept_below", (double)p->original_max / p->high_freq_factor,
			"original_max_positions / high_freq_factor");
		derived(ps, "wavelength_interpolated_above", (double)p->original_max / p->low_freq_factor,
			"original_max_positions / low_freq_factor");
	}
	if (s == PE_ROPE_LONGROPE) {
		pe_rep_str(param(k, ps, "short_factor", PE_HF_SHORT), "value", "%zu values", p->nshort);
		pe_rep_str(param(k, ps, "long_factor", PE_HF_LONG), "value", "%zu values", p->nlong);
	}
	if (s == PE_ROPE_DYNAMIC || s == PE_ROPE_LONGROPE) {
		if (opt_given(k, "seq_len"))
			v = pe_rep_param(ps, "seq_len", "option", "--seq-len");
		else
			v = pe_rep_param(ps, "seq_len", "derived", "offset + N: max(position_ids) + 1 of the table");
		pe_rep_int(v, "value", (int64_t)r->seq_len);
	}
	if (s == PE_ROPE_DYNAMIC) {
		v = pe_rep_param(ps, "dynamic_theta", "derived",
				 "theta ((factor L / L0) - (factor - 1))^(R / (R - 2)), L = max(seq_len, L0)");
		pe_rep_num(v, "value", r->dynamic_theta);
		if (r->seq_len <= p->original_max)
			pe_rep_str(v, "note", "seq_len <= L0: theta itself");
	}
	if (s == PE_ROPE_LONGROPE) {
		v = pe_rep_param(ps, "switch_position", "derived", "original_max_positions");
		pe_rep_int(v, "value", (int64_t)p->original_max);
		pe_rep_str(v, "note", "long factors when max(position_ids) + 1 > L0");
		v = pe_rep_param(ps, "factors", "derived", "long when seq_len > original_max_positions");
		pe_rep_str(v, "value", "%s", r->use_long ? "long" : "short");
	}
	attention(k, ps);
	return ps;
}

/* dynamic: the base at a few sequence lengths */
static int dynamic_schedule(const struct ctx *k, struct pe_rnode *o, struct pe_error *err)
{
	const struct pe_rope_params *p = &k->r->p;
	struct pe_rnode *list = pe_rep_list(o, "dynamic_theta_at"), *e;
	uint64_t L0 = p->original_max, m;
	double th;

	for (m = 1; m <= 16; m *= 2) {
		if (L0 > ((uint64_t)1 << 53) / m)
			break;
		if (pe_rope_dynamic_theta(k->r, L0 * m, &th, err) != 0) {
			/* a base beyond double: the schedule stops there */
			err->code = PE_OK;
			break;
		}
		e = pe_rep_record(list, NULL);
		pe_rep_int(e, "seq_len", (int64_t)(L0 * m));
		pe_rep_num(e, "dynamic_theta", th);
	}
	return 0;
}

/* The positions the rotations are counted over, and where that number is
 * from. */
static uint64_t context(const struct ctx *k, struct pe_rnode *ps)
{
	const struct pe_rope_params *p = &k->r->p;
	struct pe_rnode *v;
	char key[KEY_MAX];
	uint64_t L;

	if (p->original_max) {
		L = p->original_max;
		v = pe_rep_param(ps, "context", "derived", "original_max_positions");
	} else if (k->cfg && k->cfg->max_positions) {
		L = k->cfg->max_positions;
		snprintf(key, sizeof key, "%smax_position_embeddings", k->cfg->prefix);
		v = pe_rep_param(ps, "context", "config", key);
	} else if (k->cfg && k->cfg->class_max_positions && !k->in->positions_given) {
		L = k->cfg->class_max_positions;
		snprintf(key, sizeof key, "%smax_position_embeddings (the class's)", k->cfg->prefix);
		v = pe_rep_param(ps, "context", "default", key);
	} else {
		L = k->in->positions;
		v = pe_rep_param(ps, "context", k->in->positions_given ? "option" : "default",
				 k->in->positions_given ? "--positions" : "");
	}
	pe_rep_int(v, "value", (int64_t)L);
	pe_rep_str(v, "note", "rotations are counted over these positions");
	return L;
}

static void pair_record(struct pe_rnode *e, const struct ctx *k, const char *type, size_t j,
			const struct pe_rope_pair *q, int csv)
{
	const struct pe_rope_params *p = &k->r->p;
	struct pe_rnode *cols;

	if (csv)
		pe_rep_str(e, "layer_type", "%s", type);
	pe_rep_int(e, "pair", (int64_t)j);
	if (csv) {
		pe_rep_int(e, "col1", (int64_t)q->col[0]);
		pe_rep_int(e, "col2", (int64_t)q->col[1]);
	} else {
		cols = pe_rep_list(e, "columns");
		pe_rep_int(cols, NULL, (int64_t)q->col[0]);
		pe_rep_int(cols, NULL, (int64_t)q->col[1]);
	}
	pe_rep_num(e, "inv_freq", q->inv_freq);
	pe_rep_f32(e, "inv_freq_f32", q->inv32);
	pe_rep_num(e, "wavelength", q->wavelength);
	pe_rep_num(e, "rotations", q->rotations);
	pe_rep_str(e, "region", "%s", pe_rope_region_names[q->region]);
	pe_rep_num(e, "scale", q->scale);
	if (p->scaling == PE_ROPE_LONGROPE) {
		pe_rep_num(e, "short_factor", p->short_factor[j]);
		pe_rep_num(e, "long_factor", p->long_factor[j]);
	}
}

/* The figure's panel of one type: the wavelengths, those before scaling,
 * the context as a line, the regions shaded. */
static int panel(const struct ctx *k, const char *type, const struct pe_rope_pair *q,
		 const struct pe_rope_span *sp, size_t nsp, uint64_t L, struct pe_error *err)
{
	const struct pe_rope *r = k->r;
	struct pe_explain_panel *pa;
	size_t j, i, n = r->nfreq;
	int scaled = 0;

	for (j = 0; j < n; j++)
		scaled |= q[j].region != PE_REGION_KEPT && q[j].region != PE_REGION_UNROTATED;
	pa = pe_explain_panel(k->x, 3, n, err);
	if (!pa)
		return -1;
	snprintf(pa->title, sizeof pa->title, "%s", *type ? type : "");
	pa->chart.logy = 1;
	/* before scaling first, so the wavelengths are drawn over it */
	pa->series[0].name = scaled ? "before scaling" : NULL;
	pa->series[1].name = "wavelength";
	pa->series[2].name = "context";
	pa->chart.nseries = 3;
	pa->chart.legend = PE_LEGEND_LOWER_RIGHT;
	for (j = 0; j < n; j++) {
		pe_explain_point(pa, 1, j, (double)j, isfinite(q[j].wavelength) ? q[j].wavelength : (double)NAN);
		if (scaled && q[j].region != PE_REGION_UNROTATED)
			pe_explain_point(pa, 0, j, (double)j, 2 * PE_PI / q[j].original);
	}
	pe_explain_point(pa, 2, 0, 0, (double)L);
	pe_explain_point(pa, 2, 1, (double)(n - 1), (double)L);
	pa->series[2].n = n > 1 ? 2 : 1;
	if (!scaled && nsp == 1 && sp[0].region == PE_REGION_KEPT)
		return 0;
	for (i = 0; i < nsp && i < PE_EXPLAIN_SHADES; i++) {
		pa->shades[i].x0 = (double)sp[i].first - (sp[i].first ? 0.5 : 0);
		pa->shades[i].x1 = (double)sp[i].last + (sp[i].last + 1 < n ? 0.5 : 0);
		snprintf(pa->labels[i], sizeof pa->labels[i], "%s", pe_rope_region_names[sp[i].region]);
		pa->shades[i].label = pa->labels[i];
		pa->chart.nshades = i + 1;
	}
	return 0;
}

static int one_type(struct ctx *k, struct pe_rnode *list, int t, struct pe_error *err)
{
	const struct pe_rope *r = k->r;
	const char *type = k->c ? k->c->name : "";
	struct pe_rnode *o = pe_rep_record(list, NULL), *regions, *pairs, *e;
	struct pe_rope_pair *q = NULL;
	struct pe_rope_span *sp = NULL;
	size_t j, nsp;
	uint64_t L;
	char span[64];
	int rc = -1;

	if (r->nfreq > PE_EXPLAIN_MAX_ROWS)
		return pe_fail(err, PE_ERR_USAGE, "explain reports at most %zu frequency pairs, this rope has %zu",
			       PE_EXPLAIN_MAX_ROWS, r->nfreq);
	pe_rep_str(o, "layer_type", "%s", type);
	if (k->cfg && k->cfg->nlayers && layers(k->cfg, t, o, "layers", "layer_count") != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	L = context(k, parameters(k, o));
	unrotated(k, o);
	if (r->p.scaling == PE_ROPE_DYNAMIC && dynamic_schedule(k, o, err) != 0)
		return -1;
	q = malloc(r->nfreq * sizeof *q);
	sp = malloc(r->nfreq * sizeof *sp);
	if (!q || !sp) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (pe_rope_pairs(r, L, q, err) != 0)
		goto out;
	nsp = pe_rope_spans(r, sp);
	regions = pe_rep_list(o, "regions");
	for (j = 0; j < nsp; j++) {
		e = pe_rep_record(regions, NULL);
		pe_rep_str(e, "region", "%s", pe_rope_region_names[sp[j].region]);
		if (sp[j].first == sp[j].last)
			snprintf(span, sizeof span, "%zu", sp[j].first);
		else
			snprintf(span, sizeof span, "%zu-%zu", sp[j].first, sp[j].last);
		pe_rep_str(e, "pairs", "%s", span);
		pe_rep_int(e, "count", (int64_t)(sp[j].last - sp[j].first + 1));
	}
	pairs = pe_rep_list(o, "pairs");
	for (j = 0; j < r->nfreq; j++) {
		pair_record(pe_rep_record(pairs, NULL), k, type, j, &q[j], 0);
		pair_record(pe_rep_record(k->x->table, NULL), k, type, j, &q[j], 1);
	}
	rc = panel(k, type, q, sp, nsp, L, err);
out:
	free(q);
	free(sp);
	return rc;
}

static void sample(const struct pe_hfconfig *cfg, struct pe_rnode *list, uint64_t pos,
		   uint64_t *prev, uint64_t last)
{
	struct pe_rnode *e;

	if (pos == *prev || pos > last)
		return;
	e = pe_rep_record(list, NULL);
	pe_rep_int(e, "position", (int64_t)pos);
	pe_rep_num(e, "scale", cfg->qscale == PE_HF_QSCALE_LLAMA4
				       ? pe_qscale_llama4(pos, cfg->floor_scale, cfg->attn_scale)
				       : pe_qscale_beta(pos, cfg->qbeta, cfg->qL0));
	*prev = pos;
}

/* The query scale's steps: position 0, the last one before the first
 * step, then the steps at 1, 2, 4, ... times the period, and the last
 * position.  Llama 4 steps where p + 1 reaches a multiple of floor_scale
 * (p = ceil(m floor_scale) - 1), the beta rule where p does of L0. */
static void qscale_samples(const struct pe_hfconfig *cfg, uint64_t last, struct pe_rnode *list)
{
	int llama4 = cfg->qscale == PE_HF_QSCALE_LLAMA4;
	double period = llama4 ? cfg->floor_scale : (double)cfg->qL0, at;
	uint64_t m, prev = UINT64_MAX;

	sample(cfg, list, 0, &prev, last);
	at = llama4 ? ceil(period) - 1 : period;
	if (at >= 1 && at <= (double)last + 1)
		sample(cfg, list, (uint64_t)at - 1, &prev, last);
	for (m = 1; m <= ((uint64_t)1 << 40); m *= 2) {
		at = llama4 ? ceil((double)m * period) - 1 : (double)m * period;
		if (!(at <= (double)last))
			break;
		sample(cfg, list, (uint64_t)at, &prev, last);
	}
	sample(cfg, list, last, &prev, last);
}

static void query_scale(const struct ctx *k, struct pe_rnode *root, uint64_t positions,
			int positions_given)
{
	const struct pe_hfconfig *cfg = k->cfg;
	struct pe_rnode *o, *v;
	const struct pe_hfrope *c = NULL;
	char key[KEY_MAX];
	uint64_t last;
	size_t t;

	if (cfg->qscale == PE_HF_QSCALE_NONE) {
		pe_rep_str(root, "query_scale", "none");
		return;
	}
	o = pe_rep_record(root, "query_scale");
	if (cfg->qscale == PE_HF_QSCALE_LLAMA4) {
		pe_rep_str(o, "rule", "llama4 attention temperature tuning");
		pe_rep_str(o, "formula", "log1p(floor((p + 1) / floor_scale)) attn_scale + 1");
		if (cfg->nlayers)
			layers(cfg, -1, o, "layers", NULL);
		pe_rep_str(o, "positions", "arange(seq_len) + past tokens, not position_ids");
		snprintf(key, sizeof key, "%sattn_temperature_tuning", cfg->prefix);
		v = pe_rep_param(o, "attn_temperature_tuning",
				 cfg->qgiven & PE_HF_QGIVEN_TUNING ? "config" : "default", key);
		pe_rep_bool(v, "value", 1);
		snprintf(key, sizeof key, "%sfloor_scale", cfg->prefix);
		v = pe_rep_param(o, "floor_scale", cfg->qgiven & PE_HF_QGIVEN_FLOOR ? "config" : "default",
				 key);
		pe_rep_num(v, "value", cfg->floor_scale);
		snprintf(key, sizeof key, "%sattn_scale", cfg->prefix);
		v = pe_rep_param(o, "attn_scale", cfg->qgiven & PE_HF_QGIVEN_ATTN ? "config" : "default",
				 key);
		pe_rep_num(v, "value", cfg->attn_scale);
	} else {
		for (t = 0; t < cfg->ntypes; t++)
			if (cfg->rope[t].llama4_beta > 0)
				c = &cfg->rope[t];
		pe_rep_str(o, "rule", "llama_4_scaling_beta");
		pe_rep_str(o, "formula", "1 + beta ln(1 + floor(p / original_max_positions))");
		pe_rep_str(o, "layers", "all");
		pe_rep_str(o, "positions", "position_ids");
		v = pe_rep_param(o, "beta", "config", c ? c->src[PE_HF_LLAMA4_BETA].key : "");
		pe_rep_num(v, "value", cfg->qbeta);
		v = pe_rep_param(o, "original_max_positions",
				 c && c->src[PE_HF_ORIGINAL_MAX].origin == PE_HF_GIVEN ? "config" : "derived",
				 c ? c->src[PE_HF_ORIGINAL_MAX].key : "");
		pe_rep_int(v, "value", (int64_t)cfg->qL0);
	}
	pe_rep_str(o, "note", "queries are multiplied by it, position by position (computed in double; transformers in float32)");
	last = positions ? positions - 1 : 0;
	(void)positions_given;
	qscale_samples(cfg, last, pe_rep_list(o, "samples"));
}

/*
 * DeepSeek-V2/V3 and the MLA families after them: the attention's softmax
 * scale qk_head_dim^-0.5 is multiplied by g(factor, mscale_all_dim)^2
 * (yarn_apply_mscale) when the rope type is not default and
 * mscale_all_dim is set; cos and sin then carry only the mscale ratio.
 */
static void softmax_scale(const struct ctx *k, struct pe_rnode *root)
{
	const struct pe_rope_params *p = &k->r->p;
	struct pe_rnode *o = pe_rep_record(root, "softmax_scale"), *v;
	int applies = p->scaling != PE_ROPE_NONE && p->mscale_all_dim != 0;
	double m = applies ? pe_rope_yarn_mscale(p->factor, p->mscale_all_dim) : 1.0;

	pe_rep_str(o, "rule", "qk_head_dim^-0.5 g(factor, mscale_all_dim)^2, g(s, m) = 0.1 m ln s + 1 (model_type %s)",
		   k->cfg->model_type);
	v = pe_rep_param(o, "mscale_squared", "derived",
			 applies ? "(0.1 mscale_all_dim ln(factor) + 1)^2"
				 : "1 (the rope type is default or mscale_all_dim is not set)");
	pe_rep_num(v, "value", m * m);
	if (!k->cfg->qk_head_dim) {
		pe_rep_str(o, "scale", "unknown: the file gives neither qk_nope_head_dim and qk_rope_head_dim nor qk_head_dim");
		return;
	}
	pe_rep_int(pe_rep_param(o, "qk_head_dim", "config", k->cfg->qk_key), "value",
		   (int64_t)k->cfg->qk_head_dim);
	v = pe_rep_param(o, "scale", "derived", "qk_head_dim^-0.5 mscale_squared");
	pe_rep_num(v, "value", m * m / sqrt((double)k->cfg->qk_head_dim));
	pe_rep_str(v, "note", "queries times keys are multiplied by it before the softmax");
}

int pe_explain_rope(struct pe_explain *x, const struct pe_explain_rope *in, struct pe_error *err)
{
	struct pe_rnode *root = x->root, *list, *v;
	const struct pe_hfconfig *cfg = in->cfg;
	const char *base;
	struct ctx k;
	size_t i;

	memset(&k, 0, sizeof k);
	k.x = x;
	k.in = in;
	k.cfg = cfg;
	pe_rep_str(root, "kind", "rope");
	if (in->config) {
		pe_rep_str(root, "config", "%s", in->config);
		pe_rep_str(root, "model_type", "%s", cfg->model_type[0] ? cfg->model_type : "(none)");
		if (cfg->nlayers)
			pe_rep_int(root, "layers", (int64_t)cfg->nlayers);
	}
	pe_rep_str(root, "precision", "%s",
		   in->n && in->rope[0].p.precision == PE_ROPE_FLOAT32 ? "float32" : "exact");
	if (in->positions_given)
		v = pe_rep_param(root, "positions", "option", "--positions");
	else if (cfg && cfg->max_positions)
		v = pe_rep_param(root, "positions", "config", "max_position_embeddings");
	else if (cfg && cfg->class_max_positions)
		v = pe_rep_param(root, "positions", "default", "max_position_embeddings (the class's)");
	else
		v = pe_rep_param(root, "positions", "default", "");
	pe_rep_int(v, "value", (int64_t)in->positions);
	list = pe_rep_list(root, "rope");
	for (i = 0; i < in->n; i++) {
		k.r = &in->rope[i];
		k.c = cfg ? &cfg->rope[in->first + (int)i] : NULL;
		k.head_dim = in->head_dim[i];
		if (one_type(&k, list, in->first + (int)i, err) != 0)
			return -1;
	}
	if (cfg && cfg->nlayers && layers(cfg, -1, root, "nope_layers", NULL) != 0)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (cfg)
		query_scale(&k, root, in->positions, in->positions_given);
	if (cfg && cfg->mscale_softmax && in->n) {
		k.r = &in->rope[0];
		softmax_scale(&k, root);
	}
	base = in->config ? strrchr(in->config, '/') : NULL;
	base = base ? base + 1 : in->config;
	snprintf(x->title, sizeof x->title, "rope: wavelength per frequency pair%s%s",
		 base ? ", " : "", base ? base : "");
	x->xlabel = "frequency pair j";
	x->ylabel = "wavelength (positions)";
	return 0;
}
