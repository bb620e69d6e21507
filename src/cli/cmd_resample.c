/*
 * posenc resample: a learned 2-D position table on a new grid, as timm's
 * resample_abs_pos_embed (core/resample.h).  Recipe: parse; read the table
 * (cli/tablein.h); the grid (given, or timm's square default); prepare the
 * taps, which checks the table's rows; record; stream the result.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/resample.h"

struct resample_opts {
	const char *input, *tensor, *shape, *grid, *to;
	uint64_t prefix;
	int interp, antialias, coords;
};

#define O(f) offsetof(struct resample_opts, f)

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Input:") },
	{ PE_FILE("input", 'i', "FILE", O(input), "the table: K prefix rows, then the H x W grid row by\n"
						 "row (timm's pos_embed [1, K+HW, D]); npy, safetensors,\n"
						 "csv, or raw float32 with --shape; - reads stdin") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "the safetensors tensor to read (default: the only one,\n"
						  "or the one named ...pos_embed)") },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "the input is raw little-endian float32, R rows of C") },
	{ PE_TEXT("grid", 0, "HxW", O(grid), "the input grid (default: square, as timm assumes)") },
	{ PE_U64("prefix-tokens", 0, "K", O(prefix), 0, (uint64_t)1 << 32,
		 "rows before the grid, copied as they are (cls and\n"
		 "register tokens); default 1, as timm") },
	{ PE_HEADING("Resampling (torch.nn.functional.interpolate, align_corners=False):") },
	{ PE_TEXT("to", 0, "HxW", O(to), "the new grid (required)") },
	{ PE_CHOICE("interp", 0, "M", O(interp), pe_interp_names,
		    "bicubic (default, A = -0.75), bilinear, nearest\n"
		    "(PyTorch's 'nearest': floor(i * in/out) in float32)") },
	{ PE_FLAG("antialias", 0, O(antialias), "Pillow's filters (bicubic a = -0.5), stretched when\n"
						"shrinking; timm's own default is antialias=True") },
	{ PE_CHOICE("coords", 0, "C", O(coords), pe_coords_names,
		    "pytorch (default): coordinates and weights as ATen\n"
		    "computes them in float32; exact: the true rationals") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc resample -i FILE|- --to H2xW2 [--grid HxW] [--prefix-tokens K]\n"
	"                       [--interp bicubic|bilinear|nearest] [--antialias] [OPTIONS]\n"
	"Resample a learned 2-D position table to a new grid, as timm's\n"
	"resample_abs_pos_embed does: the prefix rows kept, the grid resized as a\n"
	"D-channel image by PyTorch's interpolate; sums in double, rounded once.\n";

struct job {
	struct pe_args args;
	struct resample_opts o;
	struct pe_outopts out;
	struct pe_resample_params p;
	struct pe_matrix in;
	struct pe_meta meta;
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

static int parse(struct job *j, struct pe_error *err)
{
	const struct resample_opts *o = &j->o;

	if (j->args.noperands > 0)
		return pe_fail(err, PE_ERR_USAGE, "unexpected operand '%s' (the input is -i FILE)",
			       j->args.operands[0]);
	if (!o->input)
		return pe_fail(err, PE_ERR_USAGE, "give the table to resample with -i FILE");
	if (!o->to)
		return pe_fail(err, PE_ERR_USAGE, "give the new grid with --to HxW");
	if (pe_parse_dims2(o->to, PE_RESAMPLE_MAX_SIDE, &j->p.h2, &j->p.w2) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--to must be HxW with sides from 1 to 2^24, got '%s'",
			       o->to);
	if (o->grid && pe_parse_dims2(o->grid, PE_RESAMPLE_MAX_SIDE, &j->p.h, &j->p.w) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--grid must be HxW with sides from 1 to 2^24, got '%s'",
			       o->grid);
	if (o->antialias && o->interp == PE_INTERP_NEAREST)
		return pe_fail(err, PE_ERR_USAGE, "--antialias applies to bicubic and bilinear, not nearest (as torch.nn.functional.interpolate)");
	j->p.prefix = GIVEN(j, prefix) ? o->prefix : 1;
	j->p.interp = (enum pe_interp)o->interp;
	j->p.antialias = o->antialias;
	j->p.coords = (enum pe_coords)o->coords;
	return 0;
}

/* timm's default grid: the square of side floor(sqrt(N - K)) */
static int square_grid(struct job *j, struct pe_error *err)
{
	uint64_t cells, s;

	if (j->o.grid)
		return 0;
	if (j->in.rows <= j->p.prefix)
		return 0;	/* core says what is wrong */
	cells = j->in.rows - j->p.prefix;
	s = (uint64_t)sqrt((double)cells);
	while (s * s > cells)
		s--;
	while ((s + 1) * (s + 1) <= cells)
		s++;
	if (s * s != cells) {
		s = (uint64_t)sqrt((double)j->in.rows);
		if (s * s == j->in.rows && !GIVEN(j, prefix))
			return pe_fail(err, PE_ERR_DATA, "%llu rows after timm's 1 prefix row are no square grid, and all %llu are %llux%llu: give --prefix-tokens 0",
				       (unsigned long long)cells, (unsigned long long)j->in.rows,
				       (unsigned long long)s, (unsigned long long)s);
		return pe_fail(err, PE_ERR_DATA, "%llu rows after %llu prefix rows are no square grid: give --grid HxW",
			       (unsigned long long)cells, (unsigned long long)j->p.prefix);
	}
	j->p.h = j->p.w = s;
	return 0;
}

static void record(struct job *j)
{
	struct pe_meta *m = &j->meta;
	char grid[48], to[48];

	snprintf(grid, sizeof grid, "%llux%llu", (unsigned long long)j->p.h, (unsigned long long)j->p.w);
	snprintf(to, sizeof to, "%llux%llu", (unsigned long long)j->p.h2, (unsigned long long)j->p.w2);
	pe_meta_str(m, "command", "resample");
	pe_meta_str(m, "grid", grid);
	pe_meta_str(m, "to", to);
	pe_meta_int(m, "prefix_tokens", (int64_t)j->p.prefix);
	pe_meta_str(m, "interp", pe_interp_names[j->p.interp]);
	pe_meta_bool(m, "antialias", j->p.antialias);
	pe_meta_bool(m, "align_corners", 0);
	pe_meta_str(m, "coords", pe_coords_names[j->p.coords]);
}

static int run(struct job *j, struct pe_resample *r, struct pe_error *err)
{
	struct pe_tablein t = {
		.path = j->o.input,
		.tensor = j->o.tensor,
		.shape = j->o.shape,
		.shape_opt = "shape",
	};
	struct pe_tensor out;
	struct pe_emit e;

	if (pe_tablein_read(&t, &j->meta, PE_TABLEIN_INPUT, &j->in, err) != 0)
		return -1;
	if (square_grid(j, err) != 0 || pe_resample_init(r, &j->p, &j->in, err) != 0) {
		if (err->code == PE_ERR_DATA)
			pe_tablein_prefix(err, t.path);
		return -1;
	}
	record(j);
	memset(&e, 0, sizeof e);
	e.so.ylabel = "token";
	e.so.xlabel = "dimension";
	j->out.col_prefix = "d";
	if (pe_resample_tensor(r, "pos_embed", &out, err) != 0 ||
	    pe_emit_prepare(&e, &j->out, &out, 1, &j->meta, err) != 0)
		return -1;
	/* json: a nan or infinity of the table (which reaches every cell it
	 * weighs) is refused before the first byte; the sums are cheap beside
	 * json's text */
	e.scan = 1;
	return pe_emit_run(&e, &j->out, &out, 1, &j->meta, err);
}

static int resample(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_resample r;
	int rc;

	memset(&j, 0, sizeof j);
	memset(&r, 0, sizeof r);
	pe_meta_init(&j.meta);
	if (pe_command_parse(cmd, &j.args, argc, argv, &err) != 0 ||
	    pe_args_bind(&j.args, rows, &j.o, &err) != 0 ||
	    pe_outopts_bind(&j.out, &j.args, &err) != 0 || parse(&j, &err) != 0 ||
	    run(&j, &r, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &j.args, NULL);
	rc = pe_msg_report("resample", &err);
done:
	pe_resample_free(&r);
	pe_matrix_free(&j.in);
	pe_meta_free(&j.meta);
	pe_args_free(&j.args);
	return rc;
}

const struct pe_command pe_cmd_resample = {
	"resample", "a learned 2-D position table on a new grid (timm's resample_abs_pos_embed)",
	usage, rows, PE_CMD_OUTPUT, resample
};
