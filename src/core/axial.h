/*
 * axial.h - axial rotary tables for images and video: the head dimension
 * split across the axes of a patch grid, each axis block a RoPE of its own
 * grid coordinate (Su et al. 2021; Heo et al. 2024, RoPE-ViT).
 *
 * The general form.  Tokens are those of a grid (core/grid.h: T x H x W
 * cells in raster or merge order, prefix and suffix tokens).  The D = 2P
 * columns of a row hold P rotation pairs, cut into n <= 3 axis blocks in
 * order: block a has P_a = axis_dim[a] / 2 pairs, and coordinate axis[a]
 * (t, y or x) of the token drives it.  Pair k of block a turns by
 *
 *     angle = (origin[a] + coordinate) * scale[a] * w_{a,k}
 *
 *   own        w_{a,k} = theta_a^(-2k / axis_dim[a]),  k < P_a
 *              (each block a RoPE of its own width: FLUX, Wan,
 *              HunyuanVideo; Qwen2-VL, Llama 4 and RoPE-ViT whose blocks
 *              share one width and so one set)
 *   alternate  one set W_j = theta^(-2j / D), j < P, dealt to the blocks in
 *              turn: w_{a,k} = W_{n k + a} (Pixtral: rows the even j,
 *              columns the odd); equal blocks, one theta
 *
 * Prefix and suffix tokens turn by 0 (cos 1, sin 0): FLUX's text tokens
 * (ids all zero), Llama 4's class token (its angles masked to 0).
 *
 * Layout of the D columns (core/layout.h): half puts pair j in columns j
 * and j + P (transformers' cat(freqs, freqs) with rotate_half: Pixtral,
 * Qwen2-VL vision); interleaved in 2j and 2j + 1 (complex pairs,
 * view_as_complex or repeat_interleave: FLUX, Wan, HunyuanVideo, Llama 4,
 * RoPE-ViT).  Pairs are numbered block by block: block 0's P_0 first.
 *
 * Tables (rows = the grid's tokens):
 *   cos, sin   N x D in the layout
 *   angles     N x D, the angle of each column's pair
 *   inv-freq   P values, w of each pair (without scale)
 *   ids        N x n int32: each block's coordinate, origin included
 *              (the position ids a model is given; 0 for prefix/suffix)
 *   cis        N x D: [cos, sin] of pair j in columns 2j, 2j + 1 whatever
 *              the layout: torch.view_as_real(freqs_cis) reshaped (N, D)
 *   rot        N x 2D: [cos, -sin, sin, cos] of pair j in columns 4j ..
 *              4j + 3: BFL FLUX's EmbedND pe (B, 1, N, P, 2, 2) reshaped
 *
 * Precision.  PE_AXIAL_EXACT: every value the correctly rounded float32 of
 * the real number above (w in 256-bit arithmetic, core/mp.h; cos and sin as
 * core/angle.h), which a float64 pipeline rounded once to float32 matches
 * except where it lands within its error of a rounding boundary: diffusers'
 * FluxPosEmbed and WanRotaryPosEmbed (freqs_dtype float64), Wan 2.1's
 * rope_params.  PE_AXIAL_FLOAT32 emulates PyTorch's float32 CPU pipeline
 * operation by operation (core/torch32.h), as transformers' Pixtral,
 * Qwen2-VL and Llama 4 vision modules, BFL's FLUX rope(), HunyuanVideo in
 * diffusers and RoPE-ViT compute it:
 *   inv   1 / theta ** (arange(0, d, 2, float32) / d), one torch.pow call
 *         over the d/2 exponents of a block's own width d (alternate: of the
 *         whole head, D/2), the base cast to float32
 *   pos   float(origin + coordinate), times float(scale) when not 1
 *   angle fl(pos * inv), 0 for prefix and suffix tokens
 *   cos, sin  polar: glibc's cosf/sinf of each angle (torch.polar);
 *         else Tensor.cos()/.sin() of the float32 tensor the module builds,
 *         whose shape decides SLEEF's vectors (torch_tensor):
 *     joint     N x P, every pair's angle (Qwen2-VL: pos[N, 2, 1] * inv;
 *               Llama 4's freqs)
 *     per-axis  one N x P_a tensor per block (diffusers'
 *               get_1d_rotary_pos_embed, BFL's rope())
 *     cross     N x n x P: every block's coordinate times every frequency
 *               of the set (Pixtral: pos[N, 2, 1] @ inv_freq[1, P], of
 *               which each block keeps its own)
 *         prefix and suffix tokens are rows of zeros in it.
 *
 * Memory: the cos, sin and angle of every (block, coordinate, pair) are
 * computed once at init when the value does not depend on the tensor's
 * shape (exact, polar, MKL, or SLEEF with every angle of the tensor below
 * 125, where its vectors all take one path) and fit in
 * PE_AXIAL_CACHE_BYTES; rows are then copies, so a 64 x 64 x 64 video table
 * streams at memory speed in O(block) memory.  Otherwise each value is
 * computed where it is written.
 */
#ifndef PE_AXIAL_H
#define PE_AXIAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/angle.h"
#include "core/err.h"
#include "core/grid.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "core/torch32.h"

#define PE_AXIAL_MAX_AXES 3
#define PE_AXIAL_CACHE_BYTES ((size_t)64 << 20)
/* |origin| at most this: coordinates stay int32 (the ids table) */
#define PE_AXIAL_ORIGIN_MAX ((int64_t)1 << 30)

enum pe_axial_coord { PE_AXIAL_T, PE_AXIAL_Y, PE_AXIAL_X };
enum pe_axial_freqs { PE_AXIAL_OWN, PE_AXIAL_ALTERNATE };
enum pe_axial_tensor { PE_AXIAL_JOINT, PE_AXIAL_PER_AXIS, PE_AXIAL_CROSS };
enum pe_axial_precision { PE_AXIAL_EXACT, PE_AXIAL_FLOAT32 };
enum pe_axial_table {
	PE_AXIAL_COS, PE_AXIAL_SIN, PE_AXIAL_ANGLES, PE_AXIAL_INV_FREQ, PE_AXIAL_IDS,
	PE_AXIAL_CIS, PE_AXIAL_ROT, PE_AXIAL_NTABLES
};

/* The models, and their names in enum order (NULL-terminated). */
enum pe_axial_preset {
	PE_AXIAL_NONE = -1, PE_AXIAL_PIXTRAL, PE_AXIAL_QWEN2_VL, PE_AXIAL_LLAMA4, PE_AXIAL_FLUX,
	PE_AXIAL_WAN, PE_AXIAL_HUNYUAN, PE_AXIAL_ROPE_VIT
};
extern const char *const pe_axial_preset_names[];
/* "t", "h", "w" (enum pe_axial_coord order) */
extern const char *const pe_axial_coord_names[];
extern const char *const pe_axial_freqs_names[];	/* "own", "alternate" */
extern const char *const pe_axial_tensor_names[];	/* "joint", "per-axis", "cross" */
extern const char *const pe_axial_table_names[];	/* tensor names: "axial_cos", ... */

struct pe_axial_params {
	struct pe_grid grid;
	uint64_t dim;			/* D: the sum of axis_dim */
	size_t naxes;			/* 1 .. 3 */
	enum pe_axial_coord axis[PE_AXIAL_MAX_AXES];
	uint64_t axis_dim[PE_AXIAL_MAX_AXES];	/* columns of each block, even, >= 2 */
	double theta[PE_AXIAL_MAX_AXES];	/* > 0 */
	int64_t origin[PE_AXIAL_MAX_AXES];	/* added to the coordinate */
	double scale[PE_AXIAL_MAX_AXES];	/* > 0, positions times it */
	enum pe_layout layout;		/* half or interleaved (DEFAULT: half) */
	enum pe_axial_freqs freqs;
	enum pe_axial_precision precision;
	struct pe_torch torch;		/* float32: which PyTorch kernels */
	int polar;			/* float32: torch.polar's cos/sin */
	enum pe_axial_tensor tensor;	/* float32, not polar: the cos/sin tensor */
};

struct pe_axial;

struct pe_axial_view {
	const struct pe_axial *ax;
	enum pe_axial_table table;
};

/* One block's frequencies and, when cached, its values per coordinate. */
struct pe_axial_axis {
	size_t pairs;			/* P_a */
	size_t first;			/* its first pair's index */
	uint64_t len;			/* coordinates: the grid's extent along it */
	float *inv32;			/* P_a: the float32 frequencies (the table's
					 * inv-freq: exact ones rounded, or torch's) */
	struct pe_freq *freq;		/* exact: w scale, prepared (core/angle.h) */
	float scale32;			/* float32: (float)scale */
	/* cached, len x pairs each, coordinate-major; NULL when not */
	float *cos, *sin, *ang;
};

struct pe_axial {
	struct pe_axial_params p;
	uint64_t rows;			/* the grid's tokens */
	size_t npairs;			/* P = D / 2 */
	struct pe_axial_axis axis[PE_AXIAL_MAX_AXES];
	float *cross32;			/* cross: every block's inv32, in block order */
	size_t ncross;
	int cached;			/* every block's values are cached */
	float max_angle32;		/* float32: the largest |element| of the tensor
					 * cos/sin are taken of */
	struct pe_axial_view view[PE_AXIAL_NTABLES];
};

/* Defaults: a 1 x 14 x 14 raster grid, two blocks (y, x) of D/2 = 32
 * columns, theta 10000, origin 0, scale 1, half, own, exact, joint. */
void pe_axial_defaults(struct pe_axial_params *p);

/*
 * The model's parameters for head dim D (0: the model's own, set in
 * p->dim) over what p holds (its grid is kept but for the preset's merge
 * and prefix/suffix tokens):
 *   pixtral          D 64, (y, x) D/2 each, alternate, theta 1e4, half, cross
 *   qwen2-vl-vision  D 80, (y, x) D/2 each, own, 1e4, half, joint, merge 2
 *   llama4-vision    D 88, (x, y) D/2 each, own, 1e4, interleaved, joint,
 *                    origin 1, one suffix token
 *   flux             D 128, (t, y, x) 16, 56, 56, own, 1e4, interleaved, per-axis
 *   wan              D 128, (t, y, x) D - 4 (D/6), 2 (D/6), 2 (D/6), own,
 *                    1e4, interleaved (its references are float64)
 *   hunyuan-video    D 128, (t, y, x) 16, 56, 56, own, theta 256, interleaved,
 *                    per-axis
 *   rope-vit         D 64, (x, y) D/2 each, own, theta 100, interleaved, polar
 * Blocks of D/2 need D divisible by 4; FLUX's and HunyuanVideo's split is
 * fixed (D 128).  PE_ERR_PARAM naming {dim} otherwise.  Returns 0 or -1.
 */
int pe_axial_preset(struct pe_axial_params *p, enum pe_axial_preset preset, uint64_t dim,
		    struct pe_error *err);

/* Validate and compute (PE_ERR_PARAM naming {grid}, {axes}, {axes_dim},
 * {dim}, {theta}, {origin}, {scale}, {axis_freqs}; PE_ERR_IO when MKL
 * cannot be loaded).  Free with pe_axial_free in every case. */
int pe_axial_init(struct pe_axial *ax, const struct pe_axial_params *p, struct pe_error *err);
void pe_axial_free(struct pe_axial *ax);

/* A tensor of one table (names pe_axial_table_names); parallel. */
int pe_axial_tensor(struct pe_axial *ax, enum pe_axial_table table, struct pe_tensor *t,
		    struct pe_error *err);

#endif
