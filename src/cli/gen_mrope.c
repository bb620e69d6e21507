/*
 * generate mrope: options (and an optional Qwen-VL config.json) to
 * core/mrope.h parameters.  Precedence: the config's values, as transformers
 * 5.18 reads them (io/hfconfig.h: the family's code decides the layout, the
 * frame splitting and the timing), then every explicit option.  The
 * positions come from --sequence, from --position-ids FILE, or are N text
 * tokens.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "cli/tablein.h"
#include "core/mrope.h"
#include "io/hfconfig.h"
#include "io/read.h"

struct mrope_opts {
	int table, rule, layout, video_frames;
	const char *sequence, *position_ids, *from_config;
	uint64_t merge, rotary_dim;
	double tokens_per_second, theta;
	struct pe_reals mrope_section;
};

#define O(f) offsetof(struct mrope_opts, f)

/* --table's names: core's tables, then all of them */
#define TABLE_ALL PE_MROPE_NTABLES
static const char *const tables[] = { "ids", "cos", "sin", "lanes", "inv-freq", "all", NULL };
static const char *const rules[] = { "hf", "reference", NULL };
static const char *const layouts[] = { "chunked", "interleaved", NULL };
static const char *const frames[] = { "whole", "split", NULL };

/* the model types whose get_rope_index posenc is checked against */
static const char *const checked[] = { "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe",
					"qwen3_5", "qwen3_5_moe", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Multimodal RoPE (Qwen2/2.5/3-VL; -d is the head dim, default 128):") },
	{ PE_CHOICE("table", 0, "T", O(table), tables,
		    "cos (default), sin, ids (3 x N int32: T, H, W), lanes (the\n"
		    "stream 0/1/2 of each of the R columns), inv-freq, all") },
	{ PE_TEXT("sequence", 0, "ITEMS", O(sequence),
		  "the tokens: text:N, image:TxHxW, video:TxHxW[@S], comma-separated\n"
		  "(grids in patches before merging, S seconds per temporal grid);\n"
		  "default text:N") },
	{ PE_FILE("position-ids", 0, "FILE", O(position_ids),
		  "the ids instead: 3 x N integers (rows T, H, W; npy, safetensors, csv)") },
	{ PE_CHOICE("rule", 0, "R", O(rule), rules,
		    "hf (default: transformers 5.18's get_rope_index) or reference\n"
		    "(Qwen's code: each item starts after the largest id so far)") },
	{ PE_U64("merge", 0, "M", O(merge), 1, PE_MROPE_MAX_GRID,
		 "spatial merge (vision_config.spatial_merge_size), default 2") },
	{ PE_REAL("tokens-per-second", 0, "K", O(tokens_per_second), PE_REAL_POSITIVE,
		  "Qwen2.5-VL's timing: a video's temporal ids step by K x S") },
	{ PE_CHOICE("video-frames", 0, "F", O(video_frames), frames,
		    "whole (Qwen2/2.5-VL) or split (Qwen3-VL: every frame a block);\n"
		    "default split with --mrope-layout interleaved, else whole") },
	{ PE_REALS("mrope-section", 0, "A,B,C", O(mrope_section), 3,
		   "frequencies per stream T, H, W, summing to R/2 (default 16,24,24)") },
	{ PE_CHOICE("mrope-layout", 0, "L", O(layout), layouts,
		    "chunked (default: Qwen2/2.5-VL) or interleaved (Qwen3-VL)") },
	{ PE_REAL("theta", 0, "B", O(theta), PE_REAL_POSITIVE, "rotary base, default 1000000") },
	{ PE_U64("rotary-dim", 0, "R", O(rotary_dim), 2, PE_MAX_COLS,
		 "rotary width R (even, <= head dim), default the head dim") },
	{ PE_FILE("from-config", 0, "FILE", O(from_config),
		  "read a Qwen2-VL, Qwen2.5-VL, Qwen3-VL or Qwen3.5 config.json\n"
		  "as transformers 5.18 does; options override it") },
	{ 0 }
};

struct mrope_state {
	struct pe_hfconfig cfg;
	int have_cfg;
	struct pe_mrope_seq seq;
	int32_t *ids;
	struct pe_mrope m;
};

static void free_state(void *p)
{
	struct mrope_state *st = p;

	pe_mrope_free(&st->m);
	pe_mrope_seq_free(&st->seq);
	free(st->ids);
	if (st->have_cfg)
		pe_hfconfig_free(&st->cfg);
	free(st);
}

/* core's parameters as the config's keys (cli/param.h) */
static const char *config_key(const void *ctx, const char *param)
{
	const struct pe_hfconfig *c = ctx;

	if (strcmp(param, "mrope_section") == 0)
		return c->rope[0].mrope_section_key;
	if (strcmp(param, "merge") == 0)
		return "vision_config.spatial_merge_size";
	if (strcmp(param, "tokens_per_second") == 0)
		return "vision_config.tokens_per_second";
	return pe_hfconfig_key(&c->rope[0], param);
}

static int is_checked(const char *model_type)
{
	size_t i, n;

	for (i = 0; checked[i]; i++) {
		n = strlen(checked[i]);
		if (strncmp(model_type, checked[i], n) == 0 &&
		    (model_type[n] == '\0' || strcmp(model_type + n, "_text") == 0))
			return 1;
	}
	return 0;
}

/* What the config sets: theta, head dim and width, sections, layout,
 * frames, timing, merge. */
static int apply_config(struct pe_gen *g, const struct mrope_opts *o, struct mrope_state *st,
			struct pe_mrope_params *p, uint64_t *head_dim, double *partial,
			struct pe_error *err)
{
	const struct pe_hfconfig *c = &st->cfg;
	const struct pe_hfrope *r = &c->rope[0];
	const char *path = o->from_config;
	int k;

	if (c->duplicates)
		pe_msg_warn("%s: '%s'%s is written more than once; using the last value, as Python's json (and so transformers) does",
			    path, c->duplicate, c->duplicates > 1 ? " (and other keys)" : "");
	for (k = 0; k < (int)c->nwarn; k++)
		pe_msg_warn("%s", c->warn[k]);
	if (c->ntypes != 1)
		return pe_fail(err, PE_ERR_DATA, "%s: %zu RoPE layer types; multimodal RoPE has one",
			       path, c->ntypes);
	if (r->scaling != PE_ROPE_NONE)
		return pe_fail(err, PE_ERR_DATA,
			       "%s: %s is %s; posenc's mrope reads the Qwen-VL rotary module's default (unscaled) RoPE only",
			       path, r->src[PE_HF_SCALING].key, pe_rope_scaling_name(r->scaling));
	if (c->mrope == PE_HF_MROPE_NONE)
		pe_msg_warn("%s: model_type '%s' is not a multimodal RoPE family of transformers 5.18: read as %s",
			    path, c->model_type, r->mrope_interleaved == 1
			    ? "interleaved (its mrope_interleaved)" : "Qwen2-VL's chunked layout");
	else if (!is_checked(c->model_type))
		pe_msg_warn("%s: model_type '%s': its get_rope_index may differ from Qwen2/2.5/3-VL's and Qwen3.5's, the rules posenc follows",
			    path, c->model_type);
	if (c->mrope != PE_HF_MROPE_NONE && r->mrope_interleaved >= 0 &&
	    r->mrope_interleaved != (c->mrope == PE_HF_MROPE_INTERLEAVE))
		pe_msg_warn("%s: mrope_interleaved is %s, but transformers ignores it: model_type %s interleaves %s",
			    path, r->mrope_interleaved ? "true" : "false", c->model_type,
			    c->mrope == PE_HF_MROPE_INTERLEAVE ? "always" : "never");
	p->rope.theta = r->theta;
	if (!pe_gen_given(g, &g->dim)) {
		if (r->head_dim == 0)
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no head_dim, nor hidden_size and num_attention_heads (give -d)",
				       path);
		*head_dim = r->head_dim;
	}
	/* transformers: dim = int(head_dim * partial_rotary_factor) where the
	 * family's default RoPE reads the factor (Qwen3.5) */
	*partial = r->partial_ignored ? 1.0 : r->partial_rotary_factor;
	if (r->nsection == PE_HF_MROPE_BAD || (r->nsection && r->nsection != 3))
		return pe_fail(err, PE_ERR_DATA, "%s: %s must be 3 non-negative integers, got '%s'",
			       path, r->mrope_section_key, r->mrope_section_text);
	if (r->nsection == 3)
		memcpy(p->section, r->mrope_section, sizeof p->section);
	else if (!pe_gen_given(g, &o->mrope_section))
		return pe_fail(err, PE_ERR_DATA, "%s: no %s (give --mrope-section)", path,
			       r->mrope_section_key);
	p->layout = c->mrope == PE_HF_MROPE_INTERLEAVE ||
				    (c->mrope == PE_HF_MROPE_NONE && r->mrope_interleaved == 1)
			    ? PE_MROPE_INTERLEAVED : PE_MROPE_CHUNKED;
	p->split = c->mrope_split;
	if (c->spatial_merge)
		p->merge = c->spatial_merge;
	if (c->mrope_timed) {
		if (!(c->tokens_per_second > 0) && !pe_gen_given(g, &o->tokens_per_second))
			return pe_fail(err, PE_ERR_DATA,
				       "%s: no vision_config.tokens_per_second, which model_type %s spaces video frames by (give --tokens-per-second)",
				       path, c->model_type);
		p->tokens_per_second = c->tokens_per_second;
	}
	return 0;
}

static int apply_options(struct pe_gen *g, const struct mrope_opts *o, struct pe_mrope_params *p,
			 uint64_t *head_dim, double partial, struct pe_error *err)
{
	size_t k;

	if (pe_gen_given(g, &g->dim))
		*head_dim = g->dim;
	p->rope.rotary_dim = (uint64_t)((double)*head_dim * partial);
	if (pe_gen_given(g, &o->rotary_dim))
		p->rope.rotary_dim = o->rotary_dim;
	if (p->rope.rotary_dim > *head_dim)
		return pe_fail(err, PE_ERR_USAGE, "the rotary width %llu exceeds the head dim %llu",
			       (unsigned long long)p->rope.rotary_dim, (unsigned long long)*head_dim);
	if (pe_gen_given(g, &o->theta))
		p->rope.theta = o->theta;
	if (pe_gen_given(g, &o->rule))
		p->rule = (enum pe_mrope_rule)o->rule;
	if (pe_gen_given(g, &o->merge))
		p->merge = o->merge;
	if (pe_gen_given(g, &o->tokens_per_second))
		p->tokens_per_second = o->tokens_per_second;
	if (pe_gen_given(g, &o->layout))
		p->layout = (enum pe_mrope_layout)o->layout;
	if (pe_gen_given(g, &o->video_frames))
		p->split = o->video_frames == 1;
	else if (!o->from_config)
		p->split = p->layout == PE_MROPE_INTERLEAVED;
	if (pe_gen_given(g, &o->mrope_section)) {
		if (o->mrope_section.n != 3)
			return pe_fail(err, PE_ERR_USAGE,
				       "--mrope-section needs 3 counts (T, H, W), got %zu",
				       o->mrope_section.n);
		for (k = 0; k < 3; k++) {
			double v = o->mrope_section.v[k];

			if (!(v >= 0) || v != floor(v) || v > (double)PE_MAX_COLS)
				return pe_fail(err, PE_ERR_USAGE,
					       "--mrope-section must be 3 non-negative integers, got '%s'",
					       pe_gen_given(g, &o->mrope_section));
			p->section[k] = (uint64_t)v;
		}
	}
	p->rope.precision = g->float32 ? PE_ROPE_FLOAT32 : PE_ROPE_EXACT;
	p->rope.torch = g->torch;
	return 0;
}

/* --position-ids: 3 x N integers below 2^24 in magnitude */
static int read_ids(const char *path, struct mrope_state *st, uint64_t *n, struct pe_error *err)
{
	struct pe_read_opts ro;
	struct pe_matrix mx;
	uint64_t i;
	float v;

	memset(&ro, 0, sizeof ro);
	ro.integers = 1;
	if (pe_read_table(path, PE_TABLE_MAX_BYTES, &ro, &mx, NULL, err) != 0)
		return -1;
	if (mx.rows != 3) {
		pe_fail(err, PE_ERR_DATA, "%s: position ids are 3 x N (rows T, H, W), got %llu x %llu%s",
			path, (unsigned long long)mx.rows, (unsigned long long)mx.cols,
			mx.cols == 3 ? " (transposed?)" : "");
		pe_matrix_free(&mx);
		return -1;
	}
	st->ids = malloc(3 * mx.cols * sizeof *st->ids);
	if (!st->ids) {
		pe_matrix_free(&mx);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < 3 * mx.cols; i++) {
		v = mx.v[i];
		if (!(fabsf(v) < (float)PE_MROPE_MAX_FILE_ID) || v != floorf(v)) {
			pe_fail(err, PE_ERR_DATA,
				"%s: position id %.9g (row %llu, column %llu) is not an integer below 2^24 in magnitude (float32 positions are exact up to there)",
				path, (double)v, (unsigned long long)(i / mx.cols),
				(unsigned long long)(i % mx.cols));
			pe_matrix_free(&mx);
			return -1;
		}
		st->ids[i] = (int32_t)v;
	}
	*n = mx.cols;
	pe_matrix_free(&mx);
	return 0;
}

static void record_meta(struct pe_gen *g, const struct mrope_opts *o, const struct pe_mrope *m,
			uint64_t head_dim)
{
	const struct pe_mrope_params *p = &m->p;
	struct pe_meta *meta = &g->meta;
	double sec[3];
	int k;

	for (k = 0; k < 3; k++)
		sec[k] = (double)p->section[k];
	pe_meta_str(meta, "kind", "mrope");
	pe_meta_str(meta, "table", tables[o->table]);
	pe_meta_int(meta, "positions", (int64_t)m->n);
	if (p->seq)
		pe_meta_str(meta, "sequence", p->seq->text);
	if (o->position_ids)
		pe_meta_str(meta, "position_ids", o->position_ids);
	else
		pe_meta_str(meta, "rule", rules[p->rule]);
	pe_meta_int(meta, "rope_delta", m->delta);
	pe_meta_int(meta, "head_dim", (int64_t)head_dim);
	pe_meta_int(meta, "rotary_dim", (int64_t)p->rope.rotary_dim);
	pe_meta_num(meta, "theta", p->rope.theta);
	pe_meta_str(meta, "mrope_layout", layouts[p->layout]);
	pe_meta_list(meta, "mrope_section", sec, 3);
	if (!o->position_ids) {
		pe_meta_int(meta, "merge", (int64_t)p->merge);
		pe_meta_str(meta, "video_frames", frames[p->split]);
		if (p->tokens_per_second > 0)
			pe_meta_num(meta, "tokens_per_second", p->tokens_per_second);
	}
	pe_meta_str(meta, "precision", p->rope.precision == PE_ROPE_EXACT ? "exact" : "float32");
	if (p->rope.precision == PE_ROPE_FLOAT32)
		pe_gen_torch_meta(meta, &p->rope.torch);
	if (o->from_config)
		pe_meta_str(meta, "config", o->from_config);
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	static const enum pe_mrope_table all[] = { PE_MROPE_COS, PE_MROPE_SIN, PE_MROPE_IDS,
						   PE_MROPE_LANES };
	struct mrope_opts *o = opts;
	struct mrope_state *st;
	struct pe_mrope_params p;
	struct pe_param_file file = { NULL, config_key, NULL };
	uint64_t head_dim = 128, n = g->positions;
	double partial = 1.0;
	char text[32];
	size_t k;

	if (!pe_gen_given(g, &o->table))
		o->table = PE_MROPE_COS;
	st = calloc(1, sizeof *st);
	if (!st)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = st;
	g->free_state = free_state;
	pe_mrope_defaults(&p);
	if (o->sequence && o->position_ids)
		return pe_fail(err, PE_ERR_USAGE, "give --sequence or --position-ids, not both");
	if ((o->sequence || o->position_ids) && pe_gen_given(g, &g->positions))
		return pe_fail(err, PE_ERR_USAGE, "-n does not apply with --%s: it sets the tokens",
			       o->sequence ? "sequence" : "position-ids");
	if (o->position_ids) {
		static const char *const seq_only[] = { "rule", "merge", "tokens-per-second",
							"video-frames" };
		const void *fields[] = { &o->rule, &o->merge, &o->tokens_per_second,
					 &o->video_frames };

		for (k = 0; k < 4; k++)
			if (pe_gen_given(g, fields[k]))
				return pe_fail(err, PE_ERR_USAGE,
					       "--%s applies to --sequence (the ids are given)",
					       seq_only[k]);
	}
	if (o->from_config) {
		if (pe_hfconfig_read(o->from_config, &st->cfg, err) != 0)
			return -1;
		st->have_cfg = 1;
		file.path = o->from_config;
		file.ctx = &st->cfg;
		if (apply_config(g, o, st, &p, &head_dim, &partial, err) != 0)
			return -1;
		if (!pe_gen_given(g, &g->positions) && st->cfg.max_positions)
			n = st->cfg.max_positions;
	}
	if (apply_options(g, o, &p, &head_dim, partial, err) != 0)
		return -1;
	if (o->position_ids) {
		if (read_ids(o->position_ids, st, &p.n, err) != 0)
			return -1;
		p.ids = st->ids;
	} else {
		const char *seq = o->sequence;

		if (!seq) {
			snprintf(text, sizeof text, "text:%llu", (unsigned long long)n);
			seq = text;
		}
		if (pe_mrope_seq_parse(seq, strlen(seq), &st->seq, err) != 0) {
			pe_param_explain(err, g->args, &file);
			return -1;
		}
		p.seq = &st->seq;
	}
	if (pe_mrope_init(&st->m, &p, err) != 0) {
		pe_param_explain(err, g->args, &file);
		return -1;
	}
	for (k = 0; k < (o->table == TABLE_ALL ? 4u : 1u); k++) {
		enum pe_mrope_table t = o->table == TABLE_ALL ? all[k] : (enum pe_mrope_table)o->table;

		if (pe_mrope_tensor(&st->m, t, &g->tensor[g->nt], err) != 0) {
			pe_param_explain(err, g->args, &file);
			return -1;
		}
		g->nt++;
	}
	g->ylabel = "token";
	if (o->table == PE_MROPE_IDS) {
		g->col_prefix = "t";
		g->xlabel = "token";
		g->ylabel = "stream (T, H, W)";
	} else if (o->table == PE_MROPE_LANES) {
		g->xlabel = "stream";
		g->ylabel = "column";
	} else if (o->table == PE_MROPE_INV_FREQ) {
		g->xlabel = "frequency";
	}
	record_meta(g, o, &st->m, head_dim);
	return 0;
}

static int float32(const void *opts)
{
	(void)opts;
	return 1;	/* the Qwen-VL rotary modules' float32 forward */
}

const struct pe_gen_kind pe_kind_mrope = {
	"mrope", "multimodal RoPE of Qwen2/2.5/3-VL: position ids, cos/sin, lanes",
	rows, sizeof(struct mrope_opts), build, float32, NULL
};
