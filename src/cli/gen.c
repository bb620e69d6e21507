/*
 * The table kinds: one list of them, looked up by generate and similarity
 * alike, and the steps they share (the table size, binding the kind's
 * rows, the kind's builder).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gen.h"

/* Every kind, in --help order: each is the struct pe_gen_kind
 * pe_kind_<name> of its gen_<name>.c. */
#define PE_KIND_LIST(X) X(sinusoidal) X(learned) X(rope) X(alibi) X(sincos2d) X(axial) X(timestep) X(mrope)

#define DECLARE(k) extern const struct pe_gen_kind pe_kind_##k;
PE_KIND_LIST(DECLARE)
#undef DECLARE

#define ENTRY(k) &pe_kind_##k,
static const struct pe_gen_kind *const kinds[] = { PE_KIND_LIST(ENTRY) };
#undef ENTRY

#define NKINDS (sizeof kinds / sizeof kinds[0])
#define DEFAULT_POSITIONS 512
#define DEFAULT_DIM 768
#define MAX_POSITIONS ((uint64_t)1 << 40)

const char *const pe_gen_precisions[] = { "exact", "float32", NULL };

const struct pe_optdef pe_gen_size_rows[] = {
	{ PE_HEADING("Table size:") },
	{ PE_U64("positions", 'n', "N", offsetof(struct pe_gen, positions), 1, MAX_POSITIONS,
		 "number of positions (rows), default 512") },
	{ PE_U64("dim", 'd', "D", offsetof(struct pe_gen, dim), 1, PE_MAX_COLS,
		 "embedding width (columns), default 768") },
	{ 0 }
};

/* --torch-cpu's names: auto (0), then core's in enum order */
static const char *const torch_cpus[] = { "auto", "avx2", "avx512", NULL };

const struct pe_optdef pe_gen_float32_rows[] = {
	{ PE_HEADING("PyTorch's float32 kernels (--precision float32 of rope, sinusoidal, timestep):") },
	{ PE_CHOICE("torch-cpu", 0, "V", offsetof(struct pe_gen, torch_cpu), torch_cpus,
		    "auto (default: what PyTorch picks on this CPU), avx2, avx512:\n"
		    "ATen's vector kernels (pow, and SLEEF's cos/sin/exp)") },
	{ PE_CHOICE("torch-vml", 0, "V", offsetof(struct pe_gen, torch_vml), pe_torch_vml_names,
		    "sleef (default: builds without MKL, same bytes on every CPU)\n"
		    "or mkl (pip's x86-64 wheels: loads libmkl_rt.so.2) for cos/sin/exp") },
	{ PE_U64("torch-threads", 0, "T", offsetof(struct pe_gen, torch_threads), 1, 4096,
		 "torch.get_num_threads() (sleef: cos/sin chunks), default 1") },
	{ 0 }
};

/* The torch options: refused without a float32 recipe; auto detects the
 * capability PyTorch would pick here. */
static int resolve_torch(struct pe_gen *g, struct pe_error *err)
{
	const char *w = pe_gen_given(g, &g->torch_cpu) ? "torch-cpu"
		      : pe_gen_given(g, &g->torch_vml) ? "torch-vml"
		      : pe_gen_given(g, &g->torch_threads) ? "torch-threads" : NULL;
	int cpu = g->torch_cpu;

	pe_torch_defaults(&g->torch);
	if (!g->float32)
		return w ? pe_fail(err, PE_ERR_USAGE,
				   "--%s applies to --precision float32 (PyTorch's kernels)", w)
			 : 0;
	if (cpu == 0) {
		cpu = pe_torch_cpu_detect() + 1;
		if (cpu == 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--torch-cpu auto: this CPU has no AVX2 with FMA, where PyTorch runs its scalar default kernels, which posenc does not reproduce; give --torch-cpu avx2 or avx512");
	}
	g->torch.cpu = (enum pe_torch_cpu)(cpu - 1);
	g->torch.vml = (enum pe_torch_vml)g->torch_vml;
	g->torch.threads = (unsigned)g->torch_threads;
	return 0;
}

void pe_gen_torch_meta(struct pe_meta *m, const struct pe_torch *t)
{
	pe_meta_str(m, "torch_cpu", pe_torch_cpu_names[t->cpu]);
	pe_meta_str(m, "torch_vml", pe_torch_vml_names[t->vml]);
	if (t->vml == PE_TORCH_SLEEF)
		pe_meta_int(m, "torch_threads", (int64_t)t->threads);
}

const struct pe_gen_kind *pe_gen_kind_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strcmp(kinds[i]->name, name) == 0)
			return kinds[i];
	return NULL;
}

const struct pe_gen_kind *pe_gen_kind_at(size_t i)
{
	return i < NKINDS ? kinds[i] : NULL;
}

void pe_gen_kinds_help(FILE *fp)
{
	size_t i;

	fputs("\nKinds:\n", fp);
	for (i = 0; i < NKINDS; i++)
		fprintf(fp, "  %-12s %s\n", kinds[i]->name, kinds[i]->summary);
}

const char *pe_gen_kind_list(void)
{
	static char list[256];
	size_t i, n = 0;

	if (!list[0])
		for (i = 0; i < NKINDS; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
					      kinds[i]->name);
	return list;
}

int pe_gen_operand(const struct pe_args *a, const char *names, const struct pe_gen_kind **kind,
		   struct pe_error *err)
{
	if (a->noperands == 0)
		return pe_fail(err, PE_ERR_USAGE, "missing KIND (one of: %s)", names);
	if (a->noperands > 1)
		return pe_fail(err, PE_ERR_USAGE, "expected one KIND, got %d operands", a->noperands);
	*kind = pe_gen_kind_by_name(a->operands[0]);
	if (!*kind)
		return pe_fail(err, PE_ERR_USAGE, "unknown kind '%s' (one of: %s)", a->operands[0], names);
	return 0;
}

int pe_gen_bind(struct pe_gen *g, const struct pe_gen_kind *kind, struct pe_args *a,
		struct pe_error *err)
{
	memset(g, 0, sizeof *g);
	pe_meta_init(&g->meta);
	g->kind = kind;
	g->args = a;
	g->positions = DEFAULT_POSITIONS;
	g->dim = DEFAULT_DIM;
	g->torch_vml = PE_TORCH_SLEEF;
	g->torch_threads = 1;
	g->col_prefix = "d";
	g->xlabel = "dimension";
	g->ylabel = "position";
	g->opts = calloc(1, kind->opts_size ? kind->opts_size : 1);
	if (!g->opts)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (pe_args_bind(a, pe_gen_size_rows, g, err) != 0 ||
	    pe_args_bind(a, pe_gen_float32_rows, g, err) != 0)
		return -1;
	return pe_args_bind(a, kind->rows, g->opts, err);
}

int pe_gen_build(struct pe_gen *g, struct pe_error *err)
{
	if (g->positions > PE_MAX_ELEMS / g->dim)
		return pe_fail(err, PE_ERR_USAGE, "a table of %llu x %llu values is too large to address",
			       (unsigned long long)g->positions, (unsigned long long)g->dim);
	if (resolve_torch(g, err) != 0)
		return -1;
	return g->kind->build(g, g->opts, err);
}

void pe_gen_free(struct pe_gen *g)
{
	if (g->free_state)
		g->free_state(g->state);
	g->free_state = NULL;
	g->state = NULL;
	free(g->opts);
	g->opts = NULL;
	pe_meta_free(&g->meta);
}
