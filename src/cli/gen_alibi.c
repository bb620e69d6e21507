/* generate alibi: options to core/alibi.h parameters. */
#include <stddef.h>
#include <stdlib.h>

#include "cli/explain.h"
#include "cli/gen.h"
#include "core/alibi.h"

struct alibi_opts {
	int table, form;
	uint64_t heads;
	int64_t head;
	double bias_max;
};

#define O(f) offsetof(struct alibi_opts, f)

/* in enum order */
static const char *const tables[] = { "slopes", "bias", NULL };
static const char *const forms[] = { "causal", "symmetric", "bloom", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Alibi:") },
	{ PE_CHOICE("table", 0, "T", O(table), tables, "bias (default) or slopes") },
	{ PE_U64("heads", 0, "H", O(heads), 1, (uint64_t)1 << 24, "number of heads, default 8") },
	{ PE_I64("head", 0, "K", O(head), 0, ((int64_t)1 << 24) - 1,
		 "only head K's N x N bias (0-based)") },
	{ PE_CHOICE("form", 0, "F", O(form), forms,
		    "causal (default: -m(i-j), 0 above), symmetric (-m|i-j|), bloom (+m j)") },
	{ PE_REAL("alibi-bias-max", 0, "B", O(bias_max), PE_REAL_POSITIVE,
		  "slopes 2^(-B k/H), default 8 (MPT's alibi_bias_max)") },
	{ 0 }
};

static void free_alibi(void *p)
{
	pe_alibi_free(p);
	free(p);
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct alibi_opts *o = opts;
	struct pe_alibi_params p;
	struct pe_alibi *a;
	enum pe_alibi_table table = pe_gen_given(g, &o->table) ? (enum pe_alibi_table)o->table
							       : PE_ALIBI_BIAS;

	if (pe_gen_given(g, &g->dim))
		return pe_fail(err, PE_ERR_USAGE,
			       "--dim does not apply to alibi (the bias is N x N per head: use -n and --heads)");
	pe_alibi_defaults(&p);
	p.positions = g->positions;
	p.table = table;
	p.form = (enum pe_alibi_form)o->form;
	if (pe_gen_given(g, &o->heads))
		p.heads = o->heads;
	if (pe_gen_given(g, &o->head))
		p.head = o->head;
	if (pe_gen_given(g, &o->bias_max))
		p.bias_max = o->bias_max;
	if (p.table == PE_ALIBI_SLOPES) {
		const char *w = pe_gen_given(g, &o->head) ? "head"
			      : pe_gen_given(g, &o->form) ? "form"
			      : pe_gen_given(g, &g->positions) ? "positions" : NULL;

		if (w)
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s applies to --table bias only (slopes are one value per head)", w);
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
	pe_meta_str(&g->meta, "table", tables[table]);
	pe_meta_int(&g->meta, "heads", (int64_t)p.heads);
	pe_meta_num(&g->meta, "alibi_bias_max", p.bias_max);
	if (p.table == PE_ALIBI_BIAS) {
		pe_meta_str(&g->meta, "form", forms[p.form]);
		pe_meta_int(&g->meta, "positions", (int64_t)p.positions);
		if (p.head >= 0)
			pe_meta_int(&g->meta, "head", p.head);
		else
			pe_meta_str(&g->meta, "rows", "head-major: row h*N+i is head h, query i");
	}
	return 0;
}

static int explain(struct pe_gen *g, struct pe_explain *x, struct pe_error *err)
{
	return pe_explain_alibi(x, g->state, err);
}

const struct pe_gen_kind pe_kind_alibi = {
	"alibi", "ALiBi slopes and attention biases",
	rows, sizeof(struct alibi_opts), build, NULL, explain
};
