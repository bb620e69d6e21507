/*
 * generate axial: options to core/axial.h parameters.  A preset fills the
 * model's parameters first; every option given then replaces the value it
 * names.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gen.h"
#include "core/axial.h"
#include "core/parse.h"

struct axial_opts {
	int preset, table, layout, axis_freqs, torch_trig, torch_tensor;
	const char *grid, *axes, *axes_dim, *origin;
	struct pe_reals theta, scale;
	uint64_t merge, prefix_tokens, suffix_tokens;
};

#define O(f) offsetof(struct axial_opts, f)

/* --table's names: core's tables, then all of them */
#define TABLE_ALL PE_AXIAL_NTABLES
static const char *const tables[] = {
	"cos", "sin", "angles", "inv-freq", "ids", "cis", "rot", "all", NULL
};
static const char *const layouts[] = { "half", "interleaved", NULL };
static const char *const trigs[] = { "tensor", "polar", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Axial (-d is the head dim; rows are the grid's tokens):") },
	{ PE_CHOICE("preset", 0, "NAME", O(preset), pe_axial_preset_names,
		    "a model's axial RoPE: pixtral, qwen2-vl-vision, llama4-vision,\n"
		    "flux, wan, hunyuan-video, rope-vit") },
	{ PE_TEXT("grid", 0, "[T]xHxW", O(grid),
		  "the patch grid: H rows, W columns (and T frames); required but\n"
		  "for llama4-vision (24x24) and rope-vit (14x14)") },
	{ PE_CHOICE("table", 0, "T", O(table), tables,
		    "cos (default), sin, angles, inv-freq, ids (int32 coordinates),\n"
		    "cis ([cos, sin] pairs), rot (FLUX's [cos, -sin, sin, cos]), all") },
	{ PE_TEXT("axes", 0, "LIST", O(axes),
		  "which coordinate turns each block of columns, in order: t, h, w\n"
		  "(default h,w or t,h,w)") },
	{ PE_TEXT("axes-dim", 0, "LIST", O(axes_dim),
		  "each block's width in columns (even; they sum to the head dim),\n"
		  "default equal blocks") },
	{ PE_REALS("theta", 0, "B", O(theta), PE_AXIAL_MAX_AXES,
		   "rotary base, one for all blocks or one per block, default 10000") },
	{ PE_CHOICE("layout", 0, "L", O(layout), layouts,
		    "half ([f|f], rotate_half) or interleaved (complex pairs)") },
	{ PE_CHOICE("axis-freqs", 0, "F", O(axis_freqs), pe_axial_freqs_names,
		    "own (each block theta^(-2k/width)) or alternate (one set over\n"
		    "the head dealt to the blocks in turn, as Pixtral)") },
	{ PE_TEXT("origin", 0, "LIST", O(origin),
		  "added to each block's coordinate (one, or one per block), default 0") },
	{ PE_REALS("position-scale", 0, "S", O(scale), PE_AXIAL_MAX_AXES,
		   "positions times S (one, or one per block), default 1"), .param = "scale" },
	{ PE_U64("merge", 0, "M", O(merge), 1, PE_GRID_SIDE_MAX,
		 "tokens in M x M blocks (Qwen2-VL's merge order), default 1: raster") },
	{ PE_U64("prefix-tokens", 0, "K", O(prefix_tokens), 0, (uint64_t)1 << 40,
		 "K tokens before the grid that do not turn (cls, FLUX's text)") },
	{ PE_U64("suffix-tokens", 0, "K", O(suffix_tokens), 0, (uint64_t)1 << 40,
		 "K tokens after the grid that do not turn (Llama 4's cls)") },
	{ PE_CHOICE("torch-trig", 0, "T", O(torch_trig), trigs,
		    "float32 cos/sin: tensor (Tensor.cos()/.sin()) or polar (torch.polar:\n"
		    "glibc's cosf/sinf; RoPE-ViT's)") },
	{ PE_CHOICE("torch-tensor", 0, "S", O(torch_tensor), pe_axial_tensor_names,
		    "float32: the tensor .cos() is taken of: joint (N x D/2), per-axis\n"
		    "(one per block) or cross (every block by every frequency)") },
	{ 0 }
};

/* 1 .. 3 comma-separated axis names */
static int parse_axes(const char *s, struct pe_axial_params *p)
{
	char buf[32];
	char *tok, *save = NULL;
	size_t n = 0;
	int k;

	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		k = pe_name_index(pe_axial_coord_names, tok);
		if (k < 0 || n == PE_AXIAL_MAX_AXES)
			return -1;
		p->axis[n++] = (enum pe_axial_coord)k;
	}
	if (n == 0 || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
		return -1;
	p->naxes = n;
	return 0;
}

/* up to 3 comma-separated integers in [lo, hi] */
static int parse_ints(const char *s, int64_t lo, int64_t hi, int64_t *v, size_t *n)
{
	const char *p = s, *c;
	char buf[32];
	size_t len;

	*n = 0;
	for (;;) {
		c = strchr(p, ',');
		len = c ? (size_t)(c - p) : strlen(p);
		if (*n == PE_AXIAL_MAX_AXES || len == 0 || len >= sizeof buf)
			return -1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (pe_parse_i64(buf, lo, hi, &v[*n]) != 0)
			return -1;
		(*n)++;
		if (!c)
			return 0;
		p = c + 1;
	}
}

static void free_axial(void *p)
{
	pe_axial_free(p);
	free(p);
}

/* default blocks: (h, w) for an image, (t, h, w) for a video, or by count */
static void default_axes(struct pe_axial_params *p, size_t n)
{
	static const enum pe_axial_coord hw[] = { PE_AXIAL_Y, PE_AXIAL_X };
	static const enum pe_axial_coord thw[] = { PE_AXIAL_T, PE_AXIAL_Y, PE_AXIAL_X };

	p->naxes = n;
	memcpy(p->axis, n == 3 ? thw : hw, n * sizeof *p->axis);
}

/* the blocks: --axes, --axes-dim, -d, over the preset's */
static int blocks(struct pe_gen *g, const struct axial_opts *o, struct pe_axial_params *p,
		  int preset, int grid_dims, struct pe_error *err)
{
	int64_t v[PE_AXIAL_MAX_AXES];
	size_t n, a;
	uint64_t sum = 0;

	if (o->axes && parse_axes(o->axes, p) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--axes must be 1 to 3 of t, h, w separated by commas, got '%s'", o->axes);
	if (o->axes_dim) {
		if (parse_ints(o->axes_dim, 2, (int64_t)PE_MAX_COLS, v, &n) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--axes-dim must be 1 to 3 widths (integers from 2) separated by commas, got '%s'",
				       o->axes_dim);
		if (!o->axes && (preset < 0 || n != p->naxes)) {
			if (n == 1)
				return pe_fail(err, PE_ERR_USAGE,
					       "--axes-dim with one block needs --axes (which coordinate turns it)");
			default_axes(p, n);
		}
		if (n != p->naxes)
			return pe_fail(err, PE_ERR_USAGE, "--axes-dim gives %zu widths for %zu axes (--axes %s)",
				       n, p->naxes, o->axes ? o->axes : "of the preset");
		for (a = 0; a < n; a++) {
			p->axis_dim[a] = (uint64_t)v[a];
			sum += (uint64_t)v[a];
		}
		if (!pe_gen_given(g, &g->dim))
			p->dim = sum;
		return 0;
	}
	if (preset >= 0 && !o->axes)
		return 0;	/* the preset's own, for its head dim */
	if (!o->axes)
		default_axes(p, grid_dims == 3 ? 3 : 2);
	if (preset < 0 && !pe_gen_given(g, &g->dim))
		return pe_fail(err, PE_ERR_USAGE,
			       "axial needs the head dim: -d D, --axes-dim LIST or a --preset");
	/* equal blocks of the head dim */
	if (p->dim % (2 * p->naxes) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "-d %llu does not split into %zu equal blocks of whole pairs: give --axes-dim",
			       (unsigned long long)p->dim, p->naxes);
	for (a = 0; a < p->naxes; a++)
		p->axis_dim[a] = p->dim / p->naxes;
	return 0;
}

/* one value for every block, or one each */
static int per_block(const char *name, size_t n, size_t naxes, size_t *one)
{
	(void)name;
	if (n != 1 && n != naxes)
		return -1;
	*one = n == 1;
	return 0;
}

static int lists(struct pe_gen *g, const struct axial_opts *o, struct pe_axial_params *p,
		 struct pe_error *err)
{
	int64_t v[PE_AXIAL_MAX_AXES];
	size_t n, a, one;

	if (pe_gen_given(g, &o->theta)) {
		if (per_block("theta", o->theta.n, p->naxes, &one) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--theta gives %zu values for %zu blocks (give 1 or %zu)",
				       o->theta.n, p->naxes, p->naxes);
		for (a = 0; a < p->naxes; a++)
			p->theta[a] = o->theta.v[one ? 0 : a];
	}
	if (pe_gen_given(g, &o->scale)) {
		if (per_block("scale", o->scale.n, p->naxes, &one) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--position-scale gives %zu values for %zu blocks (give 1 or %zu)",
				       o->scale.n, p->naxes, p->naxes);
		for (a = 0; a < p->naxes; a++)
			p->scale[a] = o->scale.v[one ? 0 : a];
	}
	if (o->origin) {
		if (parse_ints(o->origin, -PE_AXIAL_ORIGIN_MAX, PE_AXIAL_ORIGIN_MAX, v, &n) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--origin must be 1 to 3 integers within +-2^30 separated by commas, got '%s'",
				       o->origin);
		if (per_block("origin", n, p->naxes, &one) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--origin gives %zu values for %zu blocks (give 1 or %zu)",
				       n, p->naxes, p->naxes);
		for (a = 0; a < p->naxes; a++)
			p->origin[a] = v[one ? 0 : a];
	}
	return 0;
}

static void record_meta(struct pe_gen *g, const struct pe_axial *ax, int preset, int table,
			int grid_dims)
{
	const struct pe_axial_params *p = &ax->p;
	struct pe_meta *m = &g->meta;
	char buf[96];
	double d[PE_AXIAL_MAX_AXES];
	size_t a, n = 0;

	pe_meta_str(m, "kind", "axial");
	if (preset >= 0)
		pe_meta_str(m, "preset", pe_axial_preset_names[preset]);
	pe_meta_str(m, "table", tables[table]);
	if (grid_dims == 3)
		snprintf(buf, sizeof buf, "%llux%llux%llu", (unsigned long long)p->grid.t,
			 (unsigned long long)p->grid.h, (unsigned long long)p->grid.w);
	else
		snprintf(buf, sizeof buf, "%llux%llu", (unsigned long long)p->grid.h,
			 (unsigned long long)p->grid.w);
	pe_meta_str(m, "grid", buf);
	pe_meta_int(m, "tokens", (int64_t)ax->rows);
	pe_meta_int(m, "head_dim", (int64_t)p->dim);
	for (a = 0; a < p->naxes; a++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", a ? "," : "",
				      pe_axial_coord_names[p->axis[a]]);
	pe_meta_str(m, "axes", buf);
	for (a = 0; a < p->naxes; a++)
		d[a] = (double)p->axis_dim[a];
	pe_meta_list(m, "axes_dim", d, p->naxes);
	pe_meta_list(m, "theta", p->theta, p->naxes);
	for (a = 0; a < p->naxes; a++)
		d[a] = (double)p->origin[a];
	pe_meta_list(m, "origin", d, p->naxes);
	pe_meta_list(m, "scale", p->scale, p->naxes);
	pe_meta_str(m, "layout", p->layout == PE_LAYOUT_INTERLEAVED ? "interleaved" : "half");
	pe_meta_str(m, "axis_freqs", pe_axial_freqs_names[p->freqs]);
	pe_meta_str(m, "order", p->grid.merge > 1 ? "merge" : "raster");
	if (p->grid.merge > 1)
		pe_meta_int(m, "merge", (int64_t)p->grid.merge);
	pe_meta_int(m, "prefix_tokens", (int64_t)p->grid.prefix);
	pe_meta_int(m, "suffix_tokens", (int64_t)p->grid.suffix);
	pe_meta_str(m, "precision", p->precision == PE_AXIAL_EXACT ? "exact" : "float32");
	if (p->precision == PE_AXIAL_FLOAT32) {
		pe_gen_torch_meta(m, &p->torch);
		pe_meta_str(m, "torch_trig", trigs[p->polar]);
		if (!p->polar)
			pe_meta_str(m, "torch_tensor", pe_axial_tensor_names[p->tensor]);
	}
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct axial_opts *o = opts;
	struct pe_axial_params p;
	struct pe_axial *ax;
	int preset = pe_gen_given(g, &o->preset) ? o->preset : -1, grid_dims = 2, table = o->table;
	size_t k;

	if (pe_gen_given(g, &g->positions))
		return pe_fail(err, PE_ERR_USAGE,
			       "--positions does not apply to axial (rows = the tokens of --grid)");
	pe_axial_defaults(&p);
	/* the preset's blocks for -d, unless other blocks are given */
	if (preset >= 0 &&
	    pe_axial_preset(&p, (enum pe_axial_preset)preset,
			    pe_gen_given(g, &g->dim) && !o->axes_dim && !o->axes ? g->dim : 0, err) != 0)
		return -1;
	if (pe_gen_given(g, &g->dim))
		p.dim = g->dim;
	if (o->grid) {
		if (pe_grid_parse(o->grid, &p.grid, &grid_dims) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--grid must be HxW or TxHxW with positive sides up to 2^26, got '%s'",
				       o->grid);
	} else if (preset == PE_AXIAL_LLAMA4 || preset == PE_AXIAL_ROPE_VIT) {
		/* the models' own: Llama 4's 336 / 14, RoPE-ViT's 224 / 16 */
		p.grid.t = 1;
		p.grid.h = p.grid.w = preset == PE_AXIAL_LLAMA4 ? 24 : 14;
	} else {
		return pe_fail(err, PE_ERR_USAGE, "axial%s%s needs --grid HxW or TxHxW (e.g. --grid 16x16)",
			       preset >= 0 ? " --preset " : "", preset >= 0 ? pe_axial_preset_names[preset] : "");
	}
	if (blocks(g, o, &p, preset, grid_dims, err) != 0 || lists(g, o, &p, err) != 0)
		return -1;
	if (pe_gen_given(g, &o->layout))
		p.layout = o->layout == 0 ? PE_LAYOUT_HALF : PE_LAYOUT_INTERLEAVED;
	if (pe_gen_given(g, &o->axis_freqs))
		p.freqs = (enum pe_axial_freqs)o->axis_freqs;
	if (pe_gen_given(g, &o->merge))
		p.grid.merge = o->merge;
	if (pe_gen_given(g, &o->prefix_tokens))
		p.grid.prefix = o->prefix_tokens;
	if (pe_gen_given(g, &o->suffix_tokens))
		p.grid.suffix = o->suffix_tokens;
	if (!g->float32 && (pe_gen_given(g, &o->torch_trig) || pe_gen_given(g, &o->torch_tensor)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --precision float32 (PyTorch's kernels)",
			       pe_gen_given(g, &o->torch_trig) ? "torch-trig" : "torch-tensor");
	if (g->float32) {
		if (preset == PE_AXIAL_WAN)
			return pe_fail(err, PE_ERR_USAGE,
				       "--precision float32: wan's references (Wan 2.1's rope_params, diffusers' WanRotaryPosEmbed) compute in float64, which the default (exact) matches");
		p.precision = PE_AXIAL_FLOAT32;
		p.torch = g->torch;
		if (pe_gen_given(g, &o->torch_trig))
			p.polar = o->torch_trig == 1;
		if (pe_gen_given(g, &o->torch_tensor))
			p.tensor = (enum pe_axial_tensor)o->torch_tensor;
		if (p.polar && pe_gen_given(g, &o->torch_tensor))
			return pe_fail(err, PE_ERR_USAGE,
				       "--torch-tensor applies to --torch-trig tensor (torch.polar takes each angle alone)");
	}
	ax = calloc(1, sizeof *ax);
	if (!ax)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = ax;
	g->free_state = free_axial;
	if (pe_axial_init(ax, &p, err) != 0)
		return -1;
	for (k = 0; k < (table == TABLE_ALL ? 4u : 1u); k++) {
		static const enum pe_axial_table all[] = {
			PE_AXIAL_COS, PE_AXIAL_SIN, PE_AXIAL_INV_FREQ, PE_AXIAL_IDS
		};

		if (pe_axial_tensor(ax, table == TABLE_ALL ? all[k] : (enum pe_axial_table)table,
				    &g->tensor[g->nt], err) != 0)
			return -1;
		g->nt++;
	}
	g->grid = p.grid;
	g->grid_dims = grid_dims;
	g->ylabel = grid_dims == 3 ? "token (t,y,x)" : "token (y,x)";
	if (table == PE_AXIAL_INV_FREQ) {
		g->xlabel = "pair";
		g->grid_dims = 0;
	} else if (table == PE_AXIAL_IDS) {
		g->xlabel = "axis";
		g->col_prefix = "a";
	}
	record_meta(g, ax, preset, table, grid_dims);
	return 0;
}

static int float32(const void *opts)
{
	(void)opts;
	return 1;	/* PyTorch's float32 pipeline of each model */
}

const struct pe_gen_kind pe_kind_axial = {
	.name = "axial",
	.summary = "axial RoPE of image and video grids (Pixtral, Qwen2-VL, FLUX, Wan, ...)",
	.rows = rows, .opts_size = sizeof(struct axial_opts), .build = build, .float32 = float32,
	.explain = NULL,	/* explain knows rope, sinusoidal and alibi */
};
