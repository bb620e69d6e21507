#include <stdlib.h>
#include <string.h>

#include "cli/generate.h"
#include "core/sinusoidal.h"

const char *const pe_gen_sinusoidal_options[] = {
	"offset", "preset", "layout", "base", "min-timescale", "max-timescale", "padding-idx",
	"precision", "torch-cpu", "torch-vml", "torch-threads", NULL
};

const char *const pe_gen_sinusoidal_layouts[] = { "interleaved", "half", NULL };

static void free_sin(void *p)
{
	pe_sinusoidal_free(p);
	free(p);
}

int pe_gen_sinusoidal(struct pe_gen *g, struct pe_error *err)
{
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal *s;
	int preset = PE_SIN_VASWANI, layout = -1, precision = 0;
	const char *base = pe_gen_val(g, "base"), *maxts = pe_gen_val(g, "max-timescale");
	const char *mints = pe_gen_val(g, "min-timescale");

	if (pe_opt_choice("preset", pe_gen_val(g, "preset"), pe_sin_preset_names, &preset, err) != 0 ||
	    pe_opt_choice("layout", pe_gen_val(g, "layout"), pe_gen_sinusoidal_layouts, &layout, err) != 0 ||
	    pe_opt_choice("precision", pe_gen_val(g, "precision"), pe_gen_precisions, &precision, err) != 0)
		return -1;
	pe_sinusoidal_defaults(&p, (enum pe_sin_preset)preset);
	p.positions = g->positions;
	p.dim = g->dim;
	p.float32 = precision == 1;
	if (pe_gen_torch(g, p.float32, &p.torch, err) != 0)
		return -1;
	if (layout >= 0)
		p.layout = layout == 0 ? PE_LAYOUT_INTERLEAVED : PE_LAYOUT_HALF;
	if (preset == PE_SIN_T2T) {
		if (base && maxts)
			return pe_fail(err, PE_ERR_USAGE,
				       "--base is an alias of --max-timescale for t2t: give one of them");
		if (pe_opt_double(base ? "base" : "max-timescale", base ? base : maxts, 1,
				  &p.max_timescale, err) != 0 ||
		    pe_opt_double("min-timescale", mints, 1, &p.min_timescale, err) != 0)
			return -1;
	} else {
		if (mints || maxts)
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s applies to --preset t2t only (use --base)",
				       mints ? "min-timescale" : "max-timescale");
		if (pe_opt_double("base", base, 1, &p.base, err) != 0)
			return -1;
	}
	if (pe_opt_i64("offset", pe_gen_val(g, "offset"), -((int64_t)1 << 53), (int64_t)1 << 53,
		       &p.offset, err) != 0)
		return -1;
	if (pe_gen_val(g, "padding-idx")) {
		if (preset != PE_SIN_FAIRSEQ)
			return pe_fail(err, PE_ERR_USAGE, "--padding-idx applies to --preset fairseq only");
		if (pe_gen_val(g, "offset"))
			return pe_fail(err, PE_ERR_USAGE,
				       "--padding-idx cannot be combined with --offset (fairseq positions start at padding-idx + 1)");
		if (pe_opt_i64("padding-idx", pe_gen_val(g, "padding-idx"), 0, (int64_t)1 << 40,
			       &p.padding_idx, err) != 0)
			return -1;
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

	pe_meta_str(&g->meta, "kind", "sinusoidal");
	pe_meta_str(&g->meta, "preset", pe_sin_preset_name(p.preset));
	pe_meta_str(&g->meta, "layout", s->layout == PE_LAYOUT_INTERLEAVED ? "interleaved" : "half");
	pe_meta_int(&g->meta, "positions", (int64_t)p.positions);
	pe_meta_int(&g->meta, "dim", (int64_t)p.dim);
	pe_meta_int(&g->meta, "offset", p.offset);
	if (preset == PE_SIN_T2T) {
		pe_meta_num(&g->meta, "min_timescale", p.min_timescale);
		pe_meta_num(&g->meta, "max_timescale", p.max_timescale);
	} else {
		pe_meta_num(&g->meta, "base", p.base);
	}
	if (p.padding_idx >= 0)
		pe_meta_int(&g->meta, "padding_idx", p.padding_idx);
	if (p.float32) {
		pe_meta_str(&g->meta, "precision", p.preset == PE_SIN_FAIRSEQ
							   ? "float32 (fairseq's get_embedding)"
							   : "float32 (PyTorch tutorial)");
		pe_gen_torch_meta(&g->meta, &p.torch);
	}
	return 0;
}
