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
#define PE_KIND_LIST(X) X(sinusoidal) X(learned) X(rope) X(alibi) X(sincos2d)

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

int pe_gen_bind(struct pe_gen *g, const struct pe_gen_kind *kind, struct pe_args *a,
		struct pe_error *err)
{
	memset(g, 0, sizeof *g);
	pe_meta_init(&g->meta);
	g->kind = kind;
	g->args = a;
	g->positions = DEFAULT_POSITIONS;
	g->dim = DEFAULT_DIM;
	g->col_prefix = "d";
	g->xlabel = "dimension";
	g->ylabel = "position";
	g->opts = calloc(1, kind->opts_size ? kind->opts_size : 1);
	if (!g->opts)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (pe_args_bind(a, pe_gen_size_rows, g, err) != 0)
		return -1;
	return pe_args_bind(a, kind->rows, g->opts, err);
}

int pe_gen_build(struct pe_gen *g, struct pe_error *err)
{
	if (g->positions > PE_MAX_ELEMS / g->dim)
		return pe_fail(err, PE_ERR_USAGE, "a table of %llu x %llu values is too large to address",
			       (unsigned long long)g->positions, (unsigned long long)g->dim);
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
