/* generate sincos2d: options to core/grid2d.h parameters. */
#include <stddef.h>
#include <stdlib.h>

#include "cli/gen.h"
#include "core/grid2d.h"
#include "core/parse.h"

struct grid_opts {
	const char *grid;
	int preset, cls_token;
	double base;
};

#define O(f) offsetof(struct grid_opts, f)
#define SIDE_MAX ((uint64_t)1 << 26)

/* in enum order */
static const char *const presets[] = { "mae", "timm", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Sincos2d (-d is the width D, divisible by 4):") },
	{ PE_TEXT("grid", 0, "HxW", O(grid),
		  "patch grid: H rows, W columns (rows of the table: H*W)") },
	{ PE_CHOICE("preset", 0, "NAME", O(preset), presets, "mae (default) or timm") },
	{ PE_FLAG("cls-token", 0, O(cls_token), "prepend an all-zero row (MAE)") },
	{ PE_REAL("base", 0, "B", O(base), PE_REAL_POSITIVE, "frequency base, default 10000") },
	{ 0 }
};

static void free_grid(void *p)
{
	pe_grid2d_free(p);
	free(p);
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct grid_opts *o = opts;
	struct pe_grid2d_params p;
	struct pe_grid2d *gr;

	if (pe_gen_given(g, &g->positions))
		return pe_fail(err, PE_ERR_USAGE,
			       "--positions does not apply to sincos2d (rows = H x W of --grid)");
	if (!o->grid)
		return pe_fail(err, PE_ERR_USAGE, "sincos2d needs --grid HxW (e.g. --grid 14x14)");
	pe_grid2d_defaults(&p);
	if (pe_parse_dims2(o->grid, SIDE_MAX, &p.height, &p.width) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--grid must be HxW with positive sides up to 2^26, got '%s'", o->grid);
	if (pe_gen_given(g, &o->base))
		p.base = o->base;
	p.preset = (enum pe_grid2d_preset)o->preset;
	p.dim = g->dim;
	p.cls_token = o->cls_token;
	gr = calloc(1, sizeof *gr);
	if (!gr)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = gr;
	g->free_state = free_grid;
	if (pe_grid2d_init(gr, &p, err) != 0 || pe_grid2d_tensor(gr, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;
	g->ylabel = "patch";

	pe_meta_str(&g->meta, "kind", "sincos2d");
	pe_meta_str(&g->meta, "preset", presets[p.preset]);
	pe_meta_int(&g->meta, "grid_h", (int64_t)p.height);
	pe_meta_int(&g->meta, "grid_w", (int64_t)p.width);
	pe_meta_int(&g->meta, "dim", (int64_t)p.dim);
	pe_meta_num(&g->meta, "base", p.base);
	pe_meta_bool(&g->meta, "cls_token", p.cls_token);
	return 0;
}

const struct pe_gen_kind pe_kind_sincos2d = {
	"sincos2d", "2-D sin/cos table of an image patch grid (MAE, timm)",
	rows, sizeof(struct grid_opts), build, NULL, NULL
};
