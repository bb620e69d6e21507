/* generate learned: options to core/learned.h parameters. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/gen.h"
#include "core/learned.h"

struct learned_opts {
	int preset, init;
	double std;
	uint64_t seed;
	int64_t padding_idx;
};

#define O(f) offsetof(struct learned_opts, f)

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Learned:") },
	{ PE_CHOICE("preset", 0, "NAME", O(preset), pe_learned_preset_names,
		    "gpt2, bert, fairseq, scaled") },
	{ PE_CHOICE("init", 0, "DIST", O(init), pe_learned_init_names,
		    "normal (default), trunc-normal (redraw beyond 2 std), uniform") },
	{ PE_REAL("std", 0, "S", O(std), PE_REAL_POSITIVE,
		  "standard deviation, default 0.02 (preset may change it)") },
	{ PE_U64("seed", 0, "N", O(seed), 0, UINT64_MAX,
		 "random seed, 0..2^64-1, default 0: same seed, same bytes") },
	{ PE_I64("padding-idx", 0, "P", O(padding_idx), 0, (int64_t)1 << 40,
		 "fairseq: a zero row P, as nn.Embedding's padding_idx") },
	{ 0 }
};

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct learned_opts *o = opts;
	struct pe_learned *l;
	enum pe_learned_preset preset =
		pe_gen_given(g, &o->preset) ? (enum pe_learned_preset)o->preset : PE_LEARNED_NONE;
	char seed[24];

	l = calloc(1, sizeof *l);
	if (!l)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = l;
	g->free_state = free;
	l->positions = g->positions;
	l->dim = g->dim;
	l->init = PE_INIT_NORMAL;
	l->std = 0.02;
	l->padding_idx = pe_gen_given(g, &o->padding_idx) ? o->padding_idx : -1;
	pe_learned_apply_preset(l, preset);
	/* explicit options override the preset */
	if (pe_gen_given(g, &o->init))
		l->init = (enum pe_init)o->init;
	if (pe_gen_given(g, &o->std))
		l->std = o->std;
	l->seed = o->seed;
	if (pe_learned_init(l, err) != 0 || pe_learned_tensor(l, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;

	pe_meta_str(&g->meta, "kind", "learned");
	pe_meta_str(&g->meta, "preset", pe_learned_preset_name(preset));
	pe_meta_str(&g->meta, "init", pe_init_name(l->init));
	pe_meta_num(&g->meta, "std", l->std);
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)l->seed);
	pe_meta_str(&g->meta, "seed", seed);
	pe_meta_str(&g->meta, "rng", "philox4x32-10 + marsaglia-polar");
	pe_meta_int(&g->meta, "positions", (int64_t)l->positions);
	pe_meta_int(&g->meta, "dim", (int64_t)l->dim);
	if (l->padding_idx >= 0)
		pe_meta_int(&g->meta, "padding_idx", l->padding_idx);
	return 0;
}

const struct pe_gen_kind pe_kind_learned = {
	"learned", "seeded random initialisation of a learned table",
	rows, sizeof(struct learned_opts), build, NULL, NULL
};
