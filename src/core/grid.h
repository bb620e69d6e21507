/*
 * grid.h - the tokens of a patch grid, in the order a model lays them out.
 *
 * A grid is T frames of H x W cells (T = 1 for an image); a cell is
 * (t, y, x): frame, row, column.  Its tokens are K prefix tokens (a class
 * token, FLUX's text tokens), the T H W cells, then L suffix tokens (Llama
 * 4's class token, appended last); prefix and suffix tokens are no cell.
 * The cells come frame by frame, each frame in one of two orders:
 *
 *   raster  row by row, the column fastest (ViT, Pixtral, FLUX, Wan,
 *           HunyuanVideo, RoPE-ViT, Llama 4)
 *   merge   M x M blocks of cells, each block's cells consecutive (row by
 *           row inside it), the blocks in raster order: the Qwen2-VL vision
 *           tower's order (transformers' get_vision_position_ids: meshgrid,
 *           reshape (H/M, M, W/M, M), swap the middle axes, flatten), so its
 *           patch merger finds each block together; H and W divisible by M
 *
 * So row r of a table over the grid is token r; pe_grid_cell() says which
 * cell it is, pe_grid_row() the inverse.  Pure arithmetic, no allocation.
 */
#ifndef PE_GRID_H
#define PE_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/tensor.h"

/* The longest side a grid may have (as sincos2d's --grid). */
#define PE_GRID_SIDE_MAX ((uint64_t)1 << 26)

struct pe_grid {
	uint64_t t, h, w;	/* frames, rows, columns: each >= 1 */
	uint64_t merge;		/* 1 (or 0): raster; M > 1: merge order */
	uint64_t prefix, suffix;	/* tokens before and after the cells */
};

/*
 * Check g: sides in 1 .. PE_GRID_SIDE_MAX, H and W divisible by the merge
 * size, the token count within 2^60.  PE_ERR_PARAM naming {grid}, {merge},
 * {prefix_tokens} or {suffix_tokens}.  Returns 0 or -1.
 */
int pe_grid_check(const struct pe_grid *g, struct pe_error *err);

/* T H W, and all the tokens: prefix + T H W + suffix. */
uint64_t pe_grid_cells(const struct pe_grid *g);
uint64_t pe_grid_tokens(const struct pe_grid *g);

/* The cell of token `row` (< pe_grid_tokens): 1 with c = {t, y, x}, or 0
 * for a prefix or suffix token (c untouched). */
int pe_grid_cell(const struct pe_grid *g, uint64_t row, uint64_t c[3]);

/* The cell of token `row` as text, "(y,x)" or with dims 3 "(t,y,x)", into
 * buf (n bytes; 48 hold any): 1, or 0 for a prefix or suffix token or a
 * row beyond the tokens (buf untouched). */
int pe_grid_cell_name(const struct pe_grid *g, int dims, uint64_t row, char *buf, size_t n);

/* The token (row) of cell (t, y, x) of the grid. */
uint64_t pe_grid_row(const struct pe_grid *g, uint64_t t, uint64_t y, uint64_t x);

/*
 * Per-token values (v[row], one per token of the grid) laid out as the
 * grid's image: frames t0 .. t0 + nt - 1 (nt >= 1, within the grid) of H x
 * W, value (t, y, x) = v[pe_grid_row(t, y, x)].  The tensor is H x W for
 * one frame, nt x H x W (3-D: frames are panels) for several; float32,
 * parallel.  im (and grid and v) must outlive it.
 */
struct pe_grid_image {
	const struct pe_grid *grid;
	const float *v;
	uint64_t t0, nt;
};

int pe_grid_image_tensor(const struct pe_grid_image *im, const char *name, struct pe_tensor *t,
			 struct pe_error *err);

/*
 * Parse "HxW" (T = 1, *ndims 2) or "TxHxW" (*ndims 3), each side a plain
 * positive integer at most PE_GRID_SIDE_MAX, into g's t, h, w (the other
 * fields untouched).  Returns 0 or -1.
 */
int pe_grid_parse(const char *s, struct pe_grid *g, int *ndims);

#endif
