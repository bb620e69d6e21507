#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/generate.h"
#include "core/learned.h"

const char *const pe_gen_learned_options[] = { "preset", "init", "std", "seed", "padding-idx",
					      NULL };


int pe_gen_learned(struct pe_gen *g, struct pe_error *err)
{
	struct pe_learned *l;
	int preset = PE_LEARNED_NONE, init = PE_INIT_NORMAL;
	int64_t pad = -1;
	char seed[24];

	if (pe_opt_choice("preset", pe_gen_val(g, "preset"), pe_learned_preset_names, &preset, err) != 0 ||
	    pe_opt_choice("init", pe_gen_val(g, "init"), pe_learned_init_names, &init, err) != 0 ||
	    pe_opt_i64("padding-idx", pe_gen_val(g, "padding-idx"), 0, (int64_t)1 << 40, &pad,
		       err) != 0)
		return -1;
	l = calloc(1, sizeof *l);
	if (!l)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = l;
	g->free_state = free;
	l->positions = g->positions;
	l->dim = g->dim;
	l->init = PE_INIT_NORMAL;
	l->std = 0.02;
	l->padding_idx = pad;
	pe_learned_apply_preset(l, (enum pe_learned_preset)preset);
	/* explicit options override the preset */
	if (pe_gen_val(g, "init"))
		l->init = (enum pe_init)init;
	if (pe_opt_double("std", pe_gen_val(g, "std"), 1, &l->std, err) != 0 ||
	    pe_opt_u64("seed", pe_gen_val(g, "seed"), 0, UINT64_MAX, &l->seed, err) != 0)
		return -1;
	if (pe_learned_init(l, err) != 0 || pe_learned_tensor(l, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;

	pe_meta_str(&g->meta, "kind", "learned");
	pe_meta_str(&g->meta, "preset", pe_learned_preset_name((enum pe_learned_preset)preset));
	pe_meta_str(&g->meta, "init", pe_init_name(l->init));
	pe_meta_num(&g->meta, "std", l->std);
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)l->seed);
	pe_meta_str(&g->meta, "seed", seed);
	pe_meta_str(&g->meta, "rng", "philox4x32-10 + marsaglia-polar");
	pe_meta_int(&g->meta, "positions", (int64_t)l->positions);
	pe_meta_int(&g->meta, "dim", (int64_t)l->dim);
	if (pad >= 0)
		pe_meta_int(&g->meta, "padding_idx", pad);
	return 0;
}
