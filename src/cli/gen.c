/*
 * The table kinds: one table of them, looked up by generate and similarity
 * alike, and the build step they share (option check, -n and -d, the
 * kind's builder).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/emit.h"
#include "cli/generate.h"
#include "core/torch32.h"

#define DEFAULT_POSITIONS 512
#define DEFAULT_DIM 768
#define MAX_POSITIONS ((uint64_t)1 << 40)

static const struct pe_gen_kind kinds[] = {
	{ "sinusoidal", "fixed sin/cos table (Vaswani, tensor2tensor, fairseq, Marian)",
	  pe_gen_sinusoidal_options, pe_gen_sinusoidal },
	{ "learned", "seeded random initialisation of a learned table",
	  pe_gen_learned_options, pe_gen_learned },
	{ "rope", "rotary cos/sin tables, inv_freq, every Hugging Face scaling",
	  pe_gen_rope_options, pe_gen_rope },
	{ "alibi", "ALiBi slopes and attention biases",
	  pe_gen_alibi_options, pe_gen_alibi },
	{ "sincos2d", "2-D sin/cos table of an image patch grid (MAE, timm)",
	  pe_gen_sincos2d_options, pe_gen_sincos2d },
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

const char *const pe_gen_precisions[] = { "exact", "float32", NULL };
const char *const pe_gen_torch_cpus[] = { "auto", "avx2", "avx512", NULL };

int pe_gen_torch(const struct pe_gen *g, int float32, struct pe_torch *t, struct pe_error *err)
{
	static const char *const names[] = { "torch-cpu", "torch-vml", "torch-threads" };
	int cpu = 0, vml = PE_TORCH_SLEEF;
	uint64_t threads = 1;
	size_t i;

	pe_torch_defaults(t);
	for (i = 0; i < 3; i++)
		if (!float32 && pe_gen_val(g, names[i]))
			return pe_fail(err, PE_ERR_USAGE,
				       "--%s applies to --precision float32 (PyTorch's kernels)", names[i]);
	if (!float32)
		return 0;
	if (pe_opt_choice("torch-cpu", pe_gen_val(g, "torch-cpu"), pe_gen_torch_cpus, &cpu, err) != 0 ||
	    pe_opt_choice("torch-vml", pe_gen_val(g, "torch-vml"), pe_torch_vml_names, &vml, err) != 0 ||
	    pe_opt_u64("torch-threads", pe_gen_val(g, "torch-threads"), 1, 4096, &threads, err) != 0)
		return -1;
	if (cpu == 0) {
		cpu = pe_torch_cpu_detect() + 1;
		if (cpu == 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--torch-cpu auto: this CPU has no AVX2 with FMA, where PyTorch runs its scalar default kernels, which posenc does not reproduce; give --torch-cpu avx2 or avx512");
	}
	t->cpu = (enum pe_torch_cpu)(cpu - 1);
	t->vml = (enum pe_torch_vml)vml;
	t->threads = (unsigned)threads;
	return 0;
}

/* torch_cpu, torch_vml, torch_threads in the meta */
void pe_gen_torch_meta(struct pe_meta *m, const struct pe_torch *t)
{
	pe_meta_str(m, "torch_cpu", pe_torch_cpu_names[t->cpu]);
	pe_meta_str(m, "torch_vml", pe_torch_vml_names[t->vml]);
	if (t->vml == PE_TORCH_SLEEF)
		pe_meta_int(m, "torch_threads", (int64_t)t->threads);
}

/* Options every kind takes. */
static const char *const common_options[] = { "positions", "dim", "help", NULL };

const struct pe_gen_kind *pe_gen_kind_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

const char *pe_gen_kind_name(size_t i)
{
	return i < NKINDS ? kinds[i].name : NULL;
}

void pe_gen_kinds_help(FILE *fp)
{
	size_t i;

	fputs("\nKinds:\n", fp);
	for (i = 0; i < NKINDS; i++)
		fprintf(fp, "  %-12s %s\n", kinds[i].name, kinds[i].summary);
}

const char *pe_gen_kind_list(void)
{
	static char list[128];
	size_t i, n = 0;

	if (!list[0])
		for (i = 0; i < NKINDS; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
					      kinds[i].name);
	return list;
}

const char *pe_gen_val(const struct pe_gen *g, const char *name)
{
	int i = pe_opt_index(g->defs, g->ndefs, name);

	return i < 0 ? NULL : g->values[i];
}

static int listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

int pe_gen_build(struct pe_gen *g, const struct pe_gen_kind *kind, const struct pe_optdef *defs,
		 size_t ndefs, const char **values, const char *const *own,
		 struct pe_error *err)
{
	size_t i;

	memset(g, 0, sizeof *g);
	pe_meta_init(&g->meta);
	for (i = 0; i < ndefs; i++) {
		const char *name = defs[i].name;

		if (values[i] && name && !listed(common_options, name) && !pe_outopt_is(name) &&
		    !listed(own, name) && !listed(kind->options, name))
			return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to %s", name,
				       kind->name);
	}
	g->defs = defs;
	g->ndefs = ndefs;
	g->values = values;
	g->positions = DEFAULT_POSITIONS;
	g->dim = DEFAULT_DIM;
	g->col_prefix = "d";
	g->xlabel = "dimension";
	g->ylabel = "position";
	if (pe_opt_u64("positions", pe_gen_val(g, "positions"), 1, MAX_POSITIONS, &g->positions,
		       err) != 0 ||
	    pe_opt_u64("dim", pe_gen_val(g, "dim"), 1, PE_MAX_COLS, &g->dim, err) != 0)
		return -1;
	if (g->positions > PE_MAX_ELEMS / g->dim)
		return pe_fail(err, PE_ERR_USAGE, "a table of %llu x %llu values is too large to address",
			       (unsigned long long)g->positions, (unsigned long long)g->dim);
	return kind->build(g, err);
}

void pe_gen_free(struct pe_gen *g)
{
	if (g->free_state)
		g->free_state(g->state);
	g->free_state = NULL;
	g->state = NULL;
	pe_meta_free(&g->meta);
}
