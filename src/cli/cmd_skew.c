/*
 * posenc skew: relative logits to absolute positions and back (core/skew.h).
 * Recipe: parse; decide the form (-i FILE, --grid with --rel-h and --rel-w,
 * or --index-map -n L) and refuse options of the others; read the tables
 * (cli/tablein.h); prepare core/skew, which checks the shapes; record the
 * parameters; stream the result to the output.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/msg.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/skew.h"
#include "io/fmt.h"
#include "io/sink.h"

const struct pe_optdef pe_skew_opts[] = {
	{ NULL, 0, NULL, "Input (one of three forms):" },
	{ "input", 'i', "FILE", "1-D: the relative logits (with --inverse the L x L\n"
				"matrix): npy, safetensors, csv, or raw float32\n"
				"with --shape; - reads stdin" },
	{ "tensor", 0, "NAME", "-i: the safetensors tensor to read (default: the\n"
			       "only one)" },
	{ "shape", 0, "RxC", "-i: the input is raw little-endian float32, R rows\n"
			     "of C" },
	{ "grid", 0, "HxW", "2-D: an H x W grid of tokens, row-major\n"
			    "(token n = x W + y)" },
	{ "rel-h", 0, "FILE", "--grid: R_h, HW x (2H-1), a column per row\n"
			      "distance (*.f32, *.raw, *.bin: raw float32)" },
	{ "rel-w", 0, "FILE", "--grid: R_w, HW x (2W-1), a column per column\n"
			      "distance" },
	{ "index-map", 0, NULL, "write the int32 map of the input column each\n"
				"cell reads, for -n L (no input)" },
	{ "positions", 'n', "L", "--index-map: queries (and keys), 1..8388608" },
	{ NULL, 0, NULL, "Skew (column c of a relative table is distance c - (L-1) = key - query):" },
	{ "mode", 0, "M", "bidir (default): L x (2L-1) -> L x L,\n"
			  "A[i][j] = R[i][j-i+L-1]; causal: L x L -> L x L,\n"
			  "the keys j <= i" },
	{ "inverse", 0, NULL, "absolute -> relative: R[i][c] = A[i][c+i-L+1]" },
	{ "fill", 0, "V", "the cells no input reaches (causal, --inverse):\n"
			  "a number, nan, inf or -inf (default 0);\n"
			  "--index-map: an integer (default -1)" },
	{ "raw", 0, NULL, "instead of --fill, what the pad/reshape/slice trick\n"
			  "leaves there (the same as the formula for bidir)" },
	{ "broadcast", 0, NULL, "the input (or each of --rel-h, --rel-w) is one row,\n"
				"used for every query: a Toeplitz matrix" },
	PE_OUTPUT_OPTDEFS,
	{ NULL, 0, NULL, NULL }
};
const size_t pe_skew_nopts = sizeof pe_skew_opts / sizeof pe_skew_opts[0] - 1;

const char pe_skew_usage[] =
	"Usage: posenc skew -i FILE|- [--mode bidir|causal] [--inverse] [--fill V] [--raw]\n"
	"                   [--broadcast] [--tensor NAME] [--shape RxC] [OPTIONS]\n"
	"       posenc skew --grid HxW --rel-h FILE --rel-w FILE [--broadcast] [OPTIONS]\n"
	"       posenc skew --index-map -n L [--mode bidir|causal] [--inverse] [--fill K]\n"
	"Skew relative logits R (query i, distance j - i) into the absolute L x L\n"
	"matrix A (query i, key j), as Music Transformer's pad/reshape/slice trick\n"
	"does, computed by its index formula; --inverse maps back.\n";

enum form { FORM_1D, FORM_2D, FORM_INDEX };

struct job {
	const char **values;
	enum form form;
	struct pe_outopts out;
	struct pe_skew_params p;
	uint64_t h, w, L;
	const char *fill_text;
	struct pe_matrix in, rh, rw;
	struct pe_meta meta;
};

static const char *val(const struct job *j, const char *name)
{
	return pe_opt_value(pe_skew_opts, pe_skew_nopts, j->values, name);
}

static const char *given(const struct job *j, const char *const *names)
{
	return pe_opt_given(pe_skew_opts, pe_skew_nopts, j->values, names);
}

/* How the messages name a form's option. */
static const char *shown(const char *name)
{
	return strcmp(name, "input") == 0 ? "-i FILE" : strcmp(name, "grid") == 0 ? "--grid" : "--index-map";
}

static int choose_form(struct job *j, int nops, char **ops, struct pe_error *err)
{
	static const char *const forms[] = { "input", "grid", "index-map", NULL };
	static const char *const not_2d[] = { "inverse", "raw", "fill", "mode", NULL };
	static const struct {
		const char *opt, *needs;
		enum form form;
	} only[] = {
		{ "tensor", "input", FORM_1D }, { "shape", "input", FORM_1D },
		{ "rel-h", "grid", FORM_2D }, { "rel-w", "grid", FORM_2D },
		{ "positions", "index-map", FORM_INDEX },
	};
	const char *a = NULL, *b = NULL, *w;
	size_t i;

	if (nops > 0)
		return pe_fail(err, PE_ERR_USAGE, "unexpected operand '%s' (the input is -i FILE)", ops[0]);
	for (i = 0; forms[i]; i++) {
		if (!val(j, forms[i]))
			continue;
		if (a)
			b = forms[i];
		else
			a = forms[i];
	}
	if (!a)
		return pe_fail(err, PE_ERR_USAGE, "give -i FILE, --grid HxW with --rel-h and --rel-w, or --index-map -n L");
	if (b)
		return pe_fail(err, PE_ERR_USAGE, "%s and %s are two forms of skew: give one", shown(a),
			       shown(b));
	j->form = strcmp(a, "input") == 0 ? FORM_1D : strcmp(a, "grid") == 0 ? FORM_2D : FORM_INDEX;
	for (i = 0; i < sizeof only / sizeof only[0]; i++)
		if (val(j, only[i].opt) && j->form != only[i].form)
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to %s only", only[i].opt,
				       shown(only[i].needs));
	if (j->form == FORM_2D) {
		if ((w = given(j, not_2d))) {
			if (strcmp(w, "inverse") == 0)
				return pe_fail(err, PE_ERR_USAGE, "--inverse is not defined for --grid: R_w and R_h cannot be told apart in their sum");
			if (strcmp(w, "mode") == 0 && strcmp(val(j, "mode"), "bidir") == 0)
				;	/* the default, said aloud */
			else
				return pe_fail(err, PE_ERR_USAGE, "--%s%s%s does not apply to --grid: the 2-D skew is bidirectional and fills every cell",
					       w, strcmp(w, "mode") == 0 ? " " : "",
					       strcmp(w, "mode") == 0 ? val(j, "mode") : "");
		}
		if (!val(j, "rel-h") || !val(j, "rel-w"))
			return pe_fail(err, PE_ERR_USAGE, "--grid needs --rel-h FILE and --rel-w FILE");
	}
	if (j->form == FORM_INDEX) {
		if ((w = val(j, "raw") ? "raw" : val(j, "broadcast") ? "broadcast" : NULL))
			return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --index-map: it maps the index formula, with no input",
				       w);
		if (!val(j, "positions"))
			return pe_fail(err, PE_ERR_USAGE, "--index-map needs -n L (the number of queries)");
	}
	return 0;
}

/* A --fill value: a float32 (any finite number within its range, nan,
 * inf, -inf) or, for an index map, an int32. */
static int parse_fill(struct job *j, struct pe_error *err)
{
	const char *s = val(j, "fill");
	double v;
	int64_t k;

	j->fill_text = s;
	j->p.fill = 0.0f;
	j->p.index_fill = -1;
	if (!s)
		return 0;
	if (j->form == FORM_INDEX) {
		if (pe_opt_i64("fill", s, INT32_MIN, INT32_MAX, &k, err) != 0)
			return -1;
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
	int mode = PE_SKEW_BIDIR;
	const char *d;

	if (pe_opt_choice("mode", val(j, "mode"), pe_skew_mode_names, &mode, err) != 0)
		return -1;
	j->p.mode = (enum pe_skew_mode)mode;
	j->p.inverse = val(j, "inverse") != NULL;
	j->p.raw = val(j, "raw") != NULL;
	j->p.broadcast = val(j, "broadcast") != NULL;
	if (j->p.raw && val(j, "fill"))
		return pe_fail(err, PE_ERR_USAGE, "--raw and --fill contradict each other: --raw keeps what the trick leaves, --fill replaces it");
	if (j->p.broadcast && j->p.inverse)
		return pe_fail(err, PE_ERR_USAGE, "--broadcast does not apply to --inverse: the inverse of a Toeplitz matrix's rows differ");
	if (val(j, "fill") && j->form != FORM_2D && j->p.mode == PE_SKEW_BIDIR && !j->p.inverse)
		return pe_fail(err, PE_ERR_USAGE, "--fill applies to --mode causal and to --inverse: a bidir skew reaches every cell");
	if (parse_fill(j, err) != 0)
		return -1;
	if (j->form == FORM_INDEX &&
	    pe_opt_u64("positions", val(j, "positions"), 1, PE_MAX_COLS / 2, &j->L, err) != 0)
		return -1;
	if (j->form == FORM_2D) {
		d = val(j, "grid");
		if (pe_parse_dims2(d, PE_MAX_COLS, &j->h, &j->w) != 0 || j->h > PE_MAX_COLS / j->w)
			return pe_fail(err, PE_ERR_USAGE, "--grid must be HxW with positive H and W and H * W at most %llu, got '%s'",
				       (unsigned long long)PE_MAX_COLS, d);
	}
	return 0;
}

/* ---- the tables ---- */

static int read_rel(struct job *j, enum pe_skew_axis axis, struct pe_matrix *m,
		    struct pe_error *err)
{
	const char *opt = axis == PE_SKEW_ROWS ? "rel-h" : "rel-w";
	uint64_t side = axis == PE_SKEW_ROWS ? j->h : j->w;
	char shape[64];
	struct pe_tablein t = { val(j, opt), NULL, NULL, opt };

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
	struct pe_tablein t = { val(j, "input"), val(j, "tensor"), val(j, "shape"), "shape" };

	switch (j->form) {
	case FORM_INDEX:
		return pe_skew_init_index(s, &j->p, j->L, err);
	case FORM_2D:
		if (strcmp(val(j, "rel-h"), "-") == 0 && strcmp(val(j, "rel-w"), "-") == 0)
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
			       j->fill_text);
	e.scan = 1;
	return pe_emit_run(&e, &j->out, &t, 1, &j->meta, err);
}

int pe_cmd_skew(int argc, char **argv)
{
	char **ops = NULL;
	int nops = 0, rc;
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_skew s;

	memset(&j, 0, sizeof j);
	memset(&s, 0, sizeof s);
	pe_meta_init(&j.meta);
	j.values = calloc(pe_skew_nopts, sizeof *j.values);
	if (!j.values) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (pe_opt_parse(argc, argv, pe_skew_opts, pe_skew_nopts, j.values, &ops, &nops, &err) != 0 ||
	    choose_form(&j, nops, ops, &err) != 0 || parse_skew(&j, &err) != 0)
		goto fail;
	pe_outopts_get(&j.out, pe_skew_opts, pe_skew_nopts, j.values);
	if (prepare(&j, &s, &err) != 0 || write_result(&j, &s, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	rc = pe_msg_report("skew", &err);
done:
	pe_matrix_free(&j.in);
	pe_matrix_free(&j.rh);
	pe_matrix_free(&j.rw);
	pe_meta_free(&j.meta);
	free(ops);
	free(j.values);
	return rc;
}
