/*
 * posenc skew: relative logits to absolute positions and back (core/skew.h).
 * Recipe: parse; decide the form (-i FILE, --grid with --rel-h and --rel-w,
 * or --index-map -n L) and refuse options of the others; read the tables
 * (cli/tablein.h); prepare core/skew, which checks the shapes; record the
 * parameters; stream the result to the output.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/skew.h"
#include "io/fmt.h"
#include "io/sink.h"

enum form { FORM_1D, FORM_2D, FORM_INDEX };

struct skew_opts {
	const char *input, *tensor, *shape, *grid, *rel_h, *rel_w, *fill;
	int index_map, mode, inverse, raw, broadcast;
	uint64_t positions;
};

#define O(f) offsetof(struct skew_opts, f)
#define F(x) (1u << (x))

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Input (one of three forms):") },
	{ PE_FILE("input", 'i', "FILE", O(input), "1-D: the relative logits (with --inverse the L x L\n"
						 "matrix): npy, safetensors, csv, or raw float32\n"
						 "with --shape; - reads stdin") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "-i: the safetensors tensor to read (default: the\n"
						  "only one)"), .applies = F(FORM_1D) },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "-i: the input is raw little-endian float32, R rows\n"
					       "of C"), .applies = F(FORM_1D) },
	{ PE_TEXT("grid", 0, "HxW", O(grid), "2-D: an H x W grid of tokens, row-major\n"
					     "(token n = x W + y)") },
	{ PE_FILE("rel-h", 0, "FILE", O(rel_h), "--grid: R_h, HW x (2H-1), a column per row\n"
						"distance (*.f32, *.raw, *.bin: raw float32)"),
	  .applies = F(FORM_2D) },
	{ PE_FILE("rel-w", 0, "FILE", O(rel_w), "--grid: R_w, HW x (2W-1), a column per column\n"
						"distance"), .applies = F(FORM_2D) },
	{ PE_FLAG("index-map", 0, O(index_map), "write the int32 map of the input column each\n"
						"cell reads, for -n L (no input)") },
	{ PE_U64("positions", 'n', "L", O(positions), 1, PE_MAX_COLS / 2,
		 "--index-map: queries (and keys), 1..8388608"), .applies = F(FORM_INDEX) },
	{ PE_HEADING("Skew (column c of a relative table is distance c - (L-1) = key - query):") },
	{ PE_CHOICE("mode", 0, "M", O(mode), pe_skew_mode_names,
		    "bidir (default): L x (2L-1) -> L x L,\n"
		    "A[i][j] = R[i][j-i+L-1]; causal: L x L -> L x L,\n"
		    "the keys j <= i") },
	{ PE_FLAG("inverse", 0, O(inverse), "absolute -> relative: R[i][c] = A[i][c+i-L+1]") },
	{ PE_TEXT("fill", 0, "V", O(fill), "the cells no input reaches (causal, --inverse):\n"
					   "a number, nan, inf or -inf (default 0);\n"
					   "--index-map: an integer (default -1)") },
	{ PE_FLAG("raw", 0, O(raw), "instead of --fill, what the pad/reshape/slice trick\n"
				    "leaves there (the same as the formula for bidir)") },
	{ PE_FLAG("broadcast", 0, O(broadcast), "the input (or each of --rel-h, --rel-w) is one row,\n"
						"used for every query: a Toeplitz matrix") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc skew -i FILE|- [--mode bidir|causal] [--inverse] [--fill V] [--raw]\n"
	"                   [--broadcast] [--tensor NAME] [--shape RxC] [OPTIONS]\n"
	"       posenc skew --grid HxW --rel-h FILE --rel-w FILE [--broadcast] [OPTIONS]\n"
	"       posenc skew --index-map -n L [--mode bidir|causal] [--inverse] [--fill K]\n"
	"Skew relative logits R (query i, distance j - i) into the absolute L x L\n"
	"matrix A (query i, key j), as Music Transformer's pad/reshape/slice trick\n"
	"does, computed by its index formula; --inverse maps back.\n";

/* How the messages name the forms, in enum order. */
static const char *const form_names[] = { "-i FILE", "--grid", "--index-map", NULL };

struct job {
	struct pe_args args;
	struct skew_opts o;
	enum form form;
	struct pe_outopts out;
	struct pe_skew_params p;
	uint64_t h, w, L;
	struct pe_matrix in, rh, rw;
	struct pe_meta meta;
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

static int choose_form(struct job *j, struct pe_error *err)
{
	const struct skew_opts *o = &j->o;
	int given[3] = { o->input != NULL, o->grid != NULL, o->index_map };
	const struct pe_optdef *d;
	char where[64];
	int k, a = -1, b = -1;

	if (j->args.noperands > 0)
		return pe_fail(err, PE_ERR_USAGE, "unexpected operand '%s' (the input is -i FILE)",
			       j->args.operands[0]);
	for (k = 0; k < 3; k++) {
		if (!given[k])
			continue;
		if (a >= 0)
			b = k;
		else
			a = k;
	}
	if (a < 0)
		return pe_fail(err, PE_ERR_USAGE, "give -i FILE, --grid HxW with --rel-h and --rel-w, or --index-map -n L");
	if (b >= 0)
		return pe_fail(err, PE_ERR_USAGE, "%s and %s are two forms of skew: give one",
			       form_names[a], form_names[b]);
	j->form = (enum form)a;
	if ((d = pe_args_misplaced(&j->args, rows, o, F(j->form))))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to %s only", d->name,
			       pe_opt_mask_names(d->applies, form_names, where, sizeof where));
	if (j->form == FORM_2D) {
		if (o->inverse)
			return pe_fail(err, PE_ERR_USAGE, "--inverse is not defined for --grid: R_w and R_h cannot be told apart in their sum");
		if (o->raw || o->fill)
			return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --grid: the 2-D skew is bidirectional and fills every cell",
				       o->raw ? "raw" : "fill");
		if (GIVEN(j, mode) && o->mode != PE_SKEW_BIDIR)	/* bidir: the default, said aloud */
			return pe_fail(err, PE_ERR_USAGE, "--mode %s does not apply to --grid: the 2-D skew is bidirectional and fills every cell",
				       pe_skew_mode_names[o->mode]);
		if (!o->rel_h || !o->rel_w)
			return pe_fail(err, PE_ERR_USAGE, "--grid needs --rel-h FILE and --rel-w FILE");
	}
	if (j->form == FORM_INDEX) {
		if (o->raw || o->broadcast)
			return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --index-map: it maps the index formula, with no input",
				       o->raw ? "raw" : "broadcast");
		if (!GIVEN(j, positions))
			return pe_fail(err, PE_ERR_USAGE, "--index-map needs -n L (the number of queries)");
	}
	return 0;
}

/* A --fill value: a float32 (any finite number within its range, nan,
 * inf, -inf) or, for an index map, an int32. */
static int parse_fill(struct job *j, struct pe_error *err)
{
	const char *s = j->o.fill;
	double v;
	int64_t k;

	j->p.fill = 0.0f;
	j->p.index_fill = -1;
	if (!s)
		return 0;
	if (j->form == FORM_INDEX) {
		if (pe_parse_i64(s, INT32_MIN, INT32_MAX, &k) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--fill must be an integer from %d to %d, got '%s'",
				       INT32_MIN, INT32_MAX, s);
		j->p.index_fill = (int32_t)k;
		return 0;
	}
	if (strcmp(s, "nan") == 0) {
		j->p.fill = NAN;
	} else if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0) {
		j->p.fill = INFINITY;
	} else if (strcmp(s, "-inf") == 0) {
		j->p.fill = -INFINITY;
	} else {
		if (pe_parse_double(s, &v) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--fill must be a number, nan, inf or -inf, got '%s'", s);
		j->p.fill = (float)v;
		if (isinf(j->p.fill))
			return pe_fail(err, PE_ERR_USAGE, "--fill %s is beyond float32's range (about 3.4e38): give inf or -inf",
				       s);
	}
	return 0;
}

static int parse_skew(struct job *j, struct pe_error *err)
{
	const struct skew_opts *o = &j->o;

	j->p.mode = (enum pe_skew_mode)o->mode;
	j->p.inverse = o->inverse;
	j->p.raw = o->raw;
	j->p.broadcast = o->broadcast;
	if (o->raw && o->fill)
		return pe_fail(err, PE_ERR_USAGE, "--raw and --fill contradict each other: --raw keeps what the trick leaves, --fill replaces it");
	if (o->broadcast && o->inverse)
		return pe_fail(err, PE_ERR_USAGE, "--broadcast does not apply to --inverse: the inverse of a Toeplitz matrix's rows differ");
	if (o->fill && j->form != FORM_2D && j->p.mode == PE_SKEW_BIDIR && !j->p.inverse)
		return pe_fail(err, PE_ERR_USAGE, "--fill applies to --mode causal and to --inverse: a bidir skew reaches every cell");
	if (parse_fill(j, err) != 0)
		return -1;
	j->L = o->positions;
	if (j->form == FORM_2D &&
	    (pe_parse_dims2(o->grid, PE_MAX_COLS, &j->h, &j->w) != 0 || j->h > PE_MAX_COLS / j->w))
		return pe_fail(err, PE_ERR_USAGE, "--grid must be HxW with positive H and W and H * W at most %llu, got '%s'",
			       (unsigned long long)PE_MAX_COLS, o->grid);
	return 0;
}

/* ---- the tables ---- */

static int read_rel(struct job *j, enum pe_skew_axis axis, struct pe_matrix *m,
		    struct pe_error *err)
{
	const char *opt = axis == PE_SKEW_ROWS ? "rel-h" : "rel-w";
	uint64_t side = axis == PE_SKEW_ROWS ? j->h : j->w;
	char shape[64];
	struct pe_tablein t = {
		.path = axis == PE_SKEW_ROWS ? j->o.rel_h : j->o.rel_w,
		.shape_opt = opt,
	};

	/* a raw file (named as -o would name one) has the shape the grid implies */
	if (pe_format_by_path(t.path) == PE_FMT_RAW) {
		snprintf(shape, sizeof shape, "%llux%llu",
			 (unsigned long long)(j->p.broadcast ? 1 : j->h * j->w),
			 (unsigned long long)(2 * side - 1));
		t.shape = shape;
	}
	if (pe_tablein_read(&t, &j->meta, axis == PE_SKEW_ROWS ? PE_TABLEIN_REL_H : PE_TABLEIN_REL_W,
			    m, err) != 0)
		return -1;
	if (pe_skew_check_rel(&j->p, j->h, j->w, axis, m, err) != 0) {
		pe_tablein_prefix(err, t.path);
		return -1;
	}
	return 0;
}

static int prepare(struct job *j, struct pe_skew *s, struct pe_error *err)
{
	struct pe_tablein t = {
		.path = j->o.input,
		.tensor = j->o.tensor,
		.shape = j->o.shape,
		.shape_opt = "shape",
	};

	switch (j->form) {
	case FORM_INDEX:
		return pe_skew_init_index(s, &j->p, j->L, err);
	case FORM_2D:
		if (strcmp(j->o.rel_h, "-") == 0 && strcmp(j->o.rel_w, "-") == 0)
			return pe_fail(err, PE_ERR_USAGE, "--rel-h and --rel-w cannot both read stdin");
		if (read_rel(j, PE_SKEW_ROWS, &j->rh, err) != 0 ||
		    read_rel(j, PE_SKEW_COLS, &j->rw, err) != 0)
			return -1;
		return pe_skew_init_2d(s, &j->p, j->h, j->w, &j->rh, &j->rw, err);
	default:
		if (pe_tablein_read(&t, &j->meta, PE_TABLEIN_INPUT, &j->in, err) != 0)
			return -1;
		if (pe_skew_init(s, &j->p, &j->in, err) != 0) {
			if (err->code == PE_ERR_DATA)
				pe_tablein_prefix(err, t.path);
			return -1;
		}
		return 0;
	}
}

/* ---- output ---- */

static void record(struct job *j, const struct pe_skew *s)
{
	struct pe_meta *m = &j->meta;
	char grid[48], num[PE_FMT_BUF];
	int fills = j->form != FORM_2D && (j->p.inverse || j->p.mode == PE_SKEW_CAUSAL);

	pe_meta_str(m, "command", "skew");
	pe_meta_str(m, "mode", pe_skew_mode_names[j->p.mode]);
	pe_meta_bool(m, "inverse", j->p.inverse);
	pe_meta_bool(m, "raw", j->p.raw);
	pe_meta_bool(m, "broadcast", j->p.broadcast);
	pe_meta_bool(m, "index_map", j->form == FORM_INDEX);
	if (fills && j->form == FORM_INDEX) {
		pe_meta_int(m, "fill", j->p.index_fill);
	} else if (fills && !j->p.raw) {
		if (isfinite(j->p.fill)) {
			pe_meta_num(m, "fill", (double)j->p.fill);
		} else {
			pe_fmt_f32(j->p.fill, num);
			pe_meta_str(m, "fill", num);	/* json has no number for it */
		}
	}
	if (j->form == FORM_2D) {
		snprintf(grid, sizeof grid, "%llux%llu", (unsigned long long)j->h,
			 (unsigned long long)j->w);
		pe_meta_str(m, "grid", grid);
	} else {
		pe_meta_int(m, "L", (int64_t)s->L);
	}
	pe_meta_str(m, "distance", "key - query");
}

static int write_result(struct job *j, const struct pe_skew *s, struct pe_error *err)
{
	struct pe_tensor t;
	struct pe_emit e;
	uint64_t f0, f1;
	const char *name = j->form == FORM_INDEX ? (j->p.inverse ? "skew_inverse_index" : "skew_index")
						 : j->p.inverse ? "skew_inverse" : "skew";

	memset(&e, 0, sizeof e);
	e.so.ylabel = "query";
	if (j->p.inverse) {	/* the result's columns are distances */
		e.so.xlabel = "distance";
		e.so.col_origin = -(int64_t)(s->L - 1);
		j->out.col_prefix = "d";
	} else {
		e.so.xlabel = "key";
		j->out.col_prefix = "k";
	}
	record(j, s);
	if (pe_skew_tensor(s, name, &t, err) != 0 ||
	    pe_emit_prepare(&e, &j->out, &t, 1, &j->meta, err) != 0)
		return -1;
	/* json: a fill it cannot hold is the option's fault, an input's nan
	 * the file's (found by the scan, before the first byte) */
	pe_skew_fill_rows(s, &f0, &f1);
	if (e.format == PE_FMT_JSON && !isfinite(j->p.fill) && f0 < f1 &&
	    (!e.sel.active || (e.sel.begin < f1 && f0 < e.sel.end)))
		return pe_fail(err, PE_ERR_USAGE, "--fill %s lands in the result and json cannot hold it; give a finite --fill or use csv, raw, npy or safetensors",
			       j->o.fill);
	e.scan = 1;
	return pe_emit_run(&e, &j->out, &t, 1, &j->meta, err);
}

static int skew(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_skew s;
	int rc;

	memset(&j, 0, sizeof j);
	memset(&s, 0, sizeof s);
	pe_meta_init(&j.meta);
	if (pe_command_parse(cmd, &j.args, argc, argv, &err) != 0 ||
	    pe_args_bind(&j.args, rows, &j.o, &err) != 0 ||
	    pe_outopts_bind(&j.out, &j.args, &err) != 0)
		goto fail;
	if (choose_form(&j, &err) != 0 || parse_skew(&j, &err) != 0 || prepare(&j, &s, &err) != 0 ||
	    write_result(&j, &s, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &j.args, NULL);
	rc = pe_msg_report("skew", &err);
done:
	pe_matrix_free(&j.in);
	pe_matrix_free(&j.rh);
	pe_matrix_free(&j.rw);
	pe_meta_free(&j.meta);
	pe_args_free(&j.args);
	return rc;
}

const struct pe_command pe_cmd_skew = {
	"skew", "relative logits to absolute positions and back (Music Transformer's skew)",
	usage, rows, PE_CMD_OUTPUT, skew
};
