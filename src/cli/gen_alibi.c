#include <stdlib.h>

#include "cli/generate.h"
#include "core/alibi.h"

const char *const pe_gen_alibi_options[] = { "heads", "head", "table", "form", "alibi-bias-max",
					    NULL };

const char *const pe_gen_alibi_tables[] = { "slopes", "bias", NULL };
const char *const pe_gen_alibi_forms[] = { "causal", "symmetric", "bloom", NULL };

static void free_alibi(void *p)
{
	pe_alibi_free(p);
	free(p);
}

int pe_gen_alibi(struct pe_gen *g, struct pe_error *err)
{
	struct pe_alibi_params p;
	struct pe_alibi *a;
	int table = PE_ALIBI_BIAS, form = PE_ALIBI_CAUSAL;

	if (pe_gen_val(g, "dim"))
		return pe_fail(err, PE_ERR_USAGE,
			       "--dim does not apply to alibi (the bias is N x N per head: use -n and --heads)");
	pe_alibi_defaults(&p);
	p.positions = g->positions;
	if (pe_opt_choice("table", pe_gen_val(g, "table"), pe_gen_alibi_tables, &table, err) != 0 ||
	    pe_opt_choice("form", pe_gen_val(g, "form"), pe_gen_alibi_forms, &form, err) != 0 ||
	    pe_opt_u64("heads", pe_gen_val(g, "heads"), 1, (uint64_t)1 << 24, &p.heads, err) != 0 ||
	    pe_opt_i64("head", pe_gen_val(g, "head"), 0, ((int64_t)1 << 24) - 1, &p.head, err) != 0 ||
	    pe_opt_double("alibi-bias-max", pe_gen_val(g, "alibi-bias-max"), 1, &p.bias_max,
			  err) != 0)
		return -1;
	p.table = (enum pe_alibi_table)table;
	p.form = (enum pe_alibi_form)form;
	if (p.table == PE_ALIBI_SLOPES) {
		if (pe_gen_val(g, "head") || pe_gen_val(g, "form") || pe_gen_val(g, "positions"))
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s applies to --table bias only (slopes are one value per head)",
				       pe_gen_val(g, "head") ? "head"
				       : pe_gen_val(g, "form") ? "form" : "positions");
	}
	a = calloc(1, sizeof *a);
	if (!a)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = a;
	g->free_state = free_alibi;
	if (pe_alibi_init(a, &p, err) != 0 || pe_alibi_tensor(a, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;
	g->col_prefix = p.table == PE_ALIBI_SLOPES ? "h" : "k";
	g->xlabel = p.table == PE_ALIBI_SLOPES ? "head" : "key";
	g->ylabel = "query";

	pe_meta_str(&g->meta, "kind", "alibi");
	pe_meta_str(&g->meta, "table", pe_gen_alibi_tables[table]);
	pe_meta_int(&g->meta, "heads", (int64_t)p.heads);
	pe_meta_num(&g->meta, "alibi_bias_max", p.bias_max);
	if (p.table == PE_ALIBI_BIAS) {
		pe_meta_str(&g->meta, "form", pe_gen_alibi_forms[form]);
		pe_meta_int(&g->meta, "positions", (int64_t)p.positions);
		if (p.head >= 0)
			pe_meta_int(&g->meta, "head", p.head);
		else
			pe_meta_str(&g->meta, "rows", "head-major: row h*N+i is head h, query i");
	}
	return 0;
}
