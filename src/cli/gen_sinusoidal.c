/* generate sinusoidal: options to core/sinusoidal.h parameters. */
#include <stddef.h>
#include <stdlib.h>

#include "cli/explain.h"
#include "cli/gen.h"
#include "core/sinusoidal.h"

struct sin_opts {
	int preset, layout;
	int64_t offset, padding_idx;
	double base, min_timescale, max_timescale;
};

#define O(f) offsetof(struct sin_opts, f)
#define POS_LIMIT ((int64_t)1 << 53)

/* in the order of --layout's names */
static const char *const layouts[] = { "interleaved", "half", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Sinusoidal:") },
	{ PE_CHOICE("preset", 0, "NAME", O(preset), pe_sin_preset_names,
		    "vaswani (default), t2t, fairseq, marian") },
	{ PE_I64("offset", 0, "P", O(offset), -POS_LIMIT, POS_LIMIT,
		 "first position, default 0; may be negative") },
	{ PE_CHOICE("layout", 0, "L", O(layout), layouts,
		    "interleaved (sin,cos,sin,...) or half ([sin|cos]);\n"
		    "overrides the preset's") },
	{ PE_REAL("base", 0, "B", O(base), PE_REAL_POSITIVE,
		  "frequency base, default 10000 (t2t: alias of --max-timescale)") },
	{ PE_REAL("min-timescale", 0, "T", O(min_timescale), PE_REAL_POSITIVE,
		  "t2t: smallest timescale, default 1") },
	{ PE_REAL("max-timescale", 0, "T", O(max_timescale), PE_REAL_POSITIVE,
		  "t2t: largest timescale, default 10000") },
	{ PE_I64("padding-idx", 0, "P", O(padding_idx), 0, (int64_t)1 << 40,
		 "fairseq: table of N+P+1 rows whose row P is zero") },
	{ 0 }
};

static void free_sin(void *p)
{
	pe_sinusoidal_free(p);
	free(p);
}

static void record(struct pe_gen *g, const struct pe_sinusoidal *s,
		   const struct pe_sinusoidal_params *p)
{
	struct pe_meta *m = &g->meta;

	pe_meta_str(m, "kind", "sinusoidal");
	pe_meta_str(m, "preset", pe_sin_preset_name(p->preset));
	pe_meta_str(m, "layout", s->layout == PE_LAYOUT_INTERLEAVED ? "interleaved" : "half");
	pe_meta_int(m, "positions", (int64_t)p->positions);
	pe_meta_int(m, "dim", (int64_t)p->dim);
	pe_meta_int(m, "offset", p->offset);
	if (p->preset == PE_SIN_T2T) {
		pe_meta_num(m, "min_timescale", p->min_timescale);
		pe_meta_num(m, "max_timescale", p->max_timescale);
	} else {
		pe_meta_num(m, "base", p->base);
	}
	if (p->padding_idx >= 0)
		pe_meta_int(m, "padding_idx", p->padding_idx);
	if (p->float32) {
		pe_meta_str(m, "precision", p->preset == PE_SIN_FAIRSEQ
						    ? "float32 (fairseq's get_embedding)"
						    : "float32 (PyTorch tutorial)");
		pe_gen_torch_meta(m, &p->torch);
	}
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct sin_opts *o = opts;
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal *s;
	int base = pe_gen_given(g, &o->base) != NULL, maxts = pe_gen_given(g, &o->max_timescale) != NULL;
	int mints = pe_gen_given(g, &o->min_timescale) != NULL;

	pe_sinusoidal_defaults(&p, (enum pe_sin_preset)o->preset);
	p.positions = g->positions;
	p.dim = g->dim;
	p.float32 = g->float32;
	p.torch = g->torch;
	p.offset = o->offset;
	if (pe_gen_given(g, &o->layout))
		p.layout = o->layout == 0 ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
	if (o->preset == PE_SIN_T2T) {
		if (base && maxts)
			return pe_fail(err, PE_ERR_USAGE,
				       "--base is an alias of --max-timescale for t2t: give one of them");
		if (base || maxts)
			p.max_timescale = base ? o->base : o->max_timescale;
		if (mints)
			p.min_timescale = o->min_timescale;
	} else {
		if (mints || maxts)
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s applies to --preset t2t only (use --base)",
				       mints ? "min-timescale" : "max-timescale");
		if (base)
			p.base = o->base;
	}
	if (pe_gen_given(g, &o->padding_idx)) {
		if (o->preset != PE_SIN_FAIRSEQ)
			return pe_fail(err, PE_ERR_USAGE, "--padding-idx applies to --preset fairseq only");
		if (pe_gen_given(g, &o->offset))
			return pe_fail(err, PE_ERR_USAGE,
				       "--padding-idx cannot be combined with --offset (fairseq positions start at padding-idx + 1)");
		p.padding_idx = o->padding_idx;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (pe_sinusoidal_init(s, &p, err) != 0) {
		free_sin(s);
		return -1;
	}
	g->state = s;
	g->free_state = free_sin;
	g->row_origin = p.padding_idx >= 0 ? 0 : p.offset;
	if (pe_sinusoidal_tensor(s, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;
	record(g, s, &p);
	return 0;
}

static int explain(struct pe_gen *g, struct pe_explain *x, struct pe_error *err)
{
	return pe_explain_sinusoidal(x, g->state, err);
}

/* The float32 recipes: the PyTorch tutorial's (vaswani), fairseq's
 * get_embedding (fairseq). */
static int float32(const void *opts)
{
	const struct sin_opts *o = opts;

	return o->preset == PE_SIN_VASWANI || o->preset == PE_SIN_FAIRSEQ;
}

const struct pe_gen_kind pe_kind_sinusoidal = {
	"sinusoidal", "fixed sin/cos table (Vaswani, tensor2tensor, fairseq, Marian)",
	rows, sizeof(struct sin_opts), build, float32, explain
};
