#include <stdlib.h>

#include "cli/generate.h"
#include "core/grid2d.h"
#include "core/parse.h"

const char *const pe_gen_sincos2d_options[] = { "grid", "preset", "cls-token", "base", NULL };

const char *const pe_gen_sincos2d_presets[] = { "mae", "timm", NULL };

static void free_grid(void *p)
{
	pe_grid2d_free(p);
	free(p);
}

int pe_gen_sincos2d(struct pe_gen *g, struct pe_error *err)
{
	struct pe_grid2d_params p;
	struct pe_grid2d *gr;
	const char *grid = pe_gen_val(g, "grid");
	int preset = PE_GRID2D_MAE;

	if (pe_gen_val(g, "positions"))
		return pe_fail(err, PE_ERR_USAGE,
			       "--positions does not apply to sincos2d (rows = H x W of --grid)");
	if (!grid)
		return pe_fail(err, PE_ERR_USAGE, "sincos2d needs --grid HxW (e.g. --grid 14x14)");
	pe_grid2d_defaults(&p);
	if (pe_parse_dims2(grid, (uint64_t)1 << 26, &p.height, &p.width) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--grid must be HxW with positive sides up to 2^26, got '%s'", grid);
	if (pe_opt_choice("preset", pe_gen_val(g, "preset"), pe_gen_sincos2d_presets, &preset, err) != 0 ||
	    pe_opt_double("base", pe_gen_val(g, "base"), 1, &p.base, err) != 0)
		return -1;
	p.preset = (enum pe_grid2d_preset)preset;
	p.dim = g->dim;
	p.cls_token = pe_gen_val(g, "cls-token") != NULL;
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
	pe_meta_str(&g->meta, "preset", pe_gen_sincos2d_presets[preset]);
	pe_meta_int(&g->meta, "grid_h", (int64_t)p.height);
	pe_meta_int(&g->meta, "grid_w", (int64_t)p.width);
	pe_meta_int(&g->meta, "dim", (int64_t)p.dim);
	pe_meta_num(&g->meta, "base", p.base);
	pe_meta_bool(&g->meta, "cls_token", p.cls_token);
	return 0;
}
