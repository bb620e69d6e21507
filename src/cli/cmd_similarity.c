/*
 * posenc similarity: the position-wise similarity of a table's rows.
 * Recipe: parse; get the table (a file through io/read.h, or a generated
 * KIND through cli/gen.c, filled whole); select rows; prepare core/
 * similarity; then either stream the n x n matrix to the output, or pump
 * it through the statistics sink (core/stats.h) and write those.
 */
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/pipeline.h"
#include "core/similarity.h"
#include "core/stats.h"
#include "io/colormap.h"
#include "io/figure.h"
#include "io/stats_out.h"

#define PROGRESS_MIN_ROWS 8192
#define WANG_CHEN "wang-chen"

/* where an option applies: the table from a file or a generated KIND */
#define FROM_FILE 1u

struct similarity_opts {
	const char *input, *tensor, *shape, *range, *preset;
	int list, metric, center, precision, stats, profile;
	uint64_t stride, window;
	double tau;
};

#define O(f) offsetof(struct similarity_opts, f)

static const char *const presets[] = { WANG_CHEN, NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Input (a file, or KIND and the table options below):") },
	{ PE_FILE("input", 'i', "FILE", O(input), "read the table from FILE: npy, safetensors, csv, or raw\n"
						  "float32 with --shape; - reads stdin (npy and safetensors\n"
						  "are recognised by their first bytes, else csv)") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "safetensors: the tensor to read (default: the only one, or\n"
						  "the one named *wpe.weight, *position_embeddings.weight,\n"
						  "*embed_positions.weight or *pos_embed)"), .applies = FROM_FILE },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "the input is raw little-endian float32, R rows of C"),
	  .applies = FROM_FILE },
	{ PE_FLAG("list", 0, O(list), "list the tensors of an npy or safetensors FILE (name, dtype,\n"
				      "shape) and exit"), .applies = FROM_FILE },
	{ PE_HEADING("Similarity:") },
	{ PE_CHOICE("metric", 0, "M", O(metric), pe_metric_names, "cosine (default), dot, euclidean") },
	{ PE_FLAG("center", 0, O(center), "subtract the mean row (column means) first") },
	{ PE_TEXT("positions-range", 0, "A:B", O(range), "compare rows A..B-1 of the table only (0-based)") },
	{ PE_U64("stride", 0, "K", O(stride), 1, (uint64_t)1 << 40,
		 "compare every K-th of those rows, default 1") },
	{ PE_CHOICE("precision", 0, "P", O(precision), pe_gen_precisions,
		    "exact (default): every value the correctly rounded float32;\n"
		    "float32: NumPy's float32 pipeline, and for a generated\n"
		    "rope, vaswani or fairseq sinusoid their float32 recipes") },
	{ PE_TEXT("preset", 0, "NAME", O(preset), "wang-chen: cosine, magma, the matrix's own colour range, colour\n"
						  "bar, and for a generated sinusoid the study's (vaswani 512 x 768);\n"
						  "with KIND also the kind's presets (see below)"),
	  .choices = presets },
	{ PE_FLAG("stats", 0, O(stats), "write statistics of the matrix as JSON instead of it") },
	{ PE_FLAG("profile", 0, O(profile), "write the mean and std of each diagonal as CSV instead\n"
					    "(header offset,mean,std,count)") },
	{ PE_U64("window", 0, "W", O(window), 1, (uint64_t)1 << 30,
		 "--stats: rows' monotonicity window, default 32") },
	{ PE_REAL("tau", 0, "T", O(tau), PE_REAL_POSITIVE, "--stats: softmax temperature of locality, default 1") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc similarity KIND [TABLE OPTIONS] [OPTIONS]\n"
	"       posenc similarity -i FILE|- [--tensor NAME] [--shape RxC] [OPTIONS]\n"
	"The position-wise similarity of a table's rows (Wang & Chen 2020):\n"
	"S[i][j] = sim(row i, row j), an N x N float32 matrix written row by row,\n"
	"or its statistics.  KIND is a table posenc generates (as generate KIND).\n";

struct job {
	struct pe_args args;
	struct similarity_opts o;
	struct pe_outopts out;
	struct pe_similarity_params sp;
	struct pe_stats_params stp;
	int wang_chen, threads, profile_chart;
	uint64_t range_a, range_b;
	int64_t origin;		/* position of the table's row 0 */
	struct pe_gen gen;
	struct pe_matrix table;
	struct pe_meta meta;	/* for a file; a generated table's is gen.meta */
	const struct pe_similarity *sim;	/* for write_stats_text */
	struct pe_stats st;
	const struct pe_meta *result_meta;
	const char *source;	/* the kind, or the file's name: for titles */
	char title[192];
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

static int parse_similarity(struct job *j, struct pe_error *err)
{
	const struct similarity_opts *o = &j->o;
	const char *what = o->stats ? "stats" : "profile";

	j->wang_chen = o->preset && strcmp(o->preset, WANG_CHEN) == 0;
	j->sp.metric = (enum pe_metric)o->metric;
	j->sp.center = o->center;
	j->sp.precision = o->precision ? PE_SIM_FLOAT32 : PE_SIM_EXACT;
	if (o->stats && o->profile)
		return pe_fail(err, PE_ERR_USAGE, "--stats and --profile are two outputs: give one");
	if (!o->stats && (GIVEN(j, window) || GIVEN(j, tau)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --stats only",
			       GIVEN(j, window) ? "window" : "tau");
	if ((o->stats || o->profile) && j->out.rows)
		return pe_fail(err, PE_ERR_USAGE, "--rows does not apply to --%s: it describes the whole matrix",
			       what);
	/* --profile to an image is a line chart */
	j->profile_chart = o->profile && pe_emit_is_figure(&j->out);
	if ((o->stats || o->profile) && !j->profile_chart &&
	    pe_emit_text_check(&j->out, o->stats ? PE_FMT_JSON : PE_FMT_CSV, what, err) != 0)
		return -1;
	j->stp.window = GIVEN(j, window) ? o->window : PE_STATS_WINDOW_DEFAULT;
	j->stp.tau = GIVEN(j, tau) ? o->tau : PE_STATS_TAU_DEFAULT;
	return 0;
}

static int choose_source(struct job *j, const struct pe_gen_kind **kind, struct pe_error *err)
{
	const struct pe_optdef *d;
	int nops = j->args.noperands;

	*kind = NULL;
	if (nops > 1)
		return pe_fail(err, PE_ERR_USAGE, "expected at most one KIND, got %d operands", nops);
	if (nops == 1 && j->o.input)
		return pe_fail(err, PE_ERR_USAGE, "give a KIND or -i FILE, not both");
	if (nops == 0 && !j->o.input)
		return pe_fail(err, PE_ERR_USAGE, "give -i FILE or a KIND (one of: %s)", pe_gen_kind_list());
	if (nops == 1) {
		if ((d = pe_args_misplaced(&j->args, rows, &j->o, ~FROM_FILE)))
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to -i FILE only", d->name);
		*kind = pe_gen_kind_by_name(j->args.operands[0]);
		if (!*kind)
			return pe_fail(err, PE_ERR_USAGE, "unknown kind '%s' (one of: %s)",
				       j->args.operands[0], pe_gen_kind_list());
		return 0;
	}
	if (j->o.preset && !j->wang_chen)
		return pe_fail(err, PE_ERR_USAGE, "--preset %s applies to a generated table (KIND); a file takes --preset wang-chen",
			       j->o.preset);
	return 0;
}

/* --list: the tensors of the file, nothing else */
static int list(struct job *j, struct pe_error *err)
{
	const struct similarity_opts *o = &j->o;
	const char *what = j->out.path ? "output" : j->out.format ? "format" : o->stats ? "stats"
			 : o->profile ? "profile" : j->out.rows ? "rows" : GIVEN(j, metric) ? "metric"
			 : o->center ? "center" : o->range ? "positions-range"
			 : GIVEN(j, stride) ? "stride" : GIVEN(j, precision) ? "precision"
			 : o->preset ? "preset" : NULL;

	if (what)
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --list (it prints the tensors to stdout)",
			       what);
	return pe_tablein_list(o->input, stdout, err);
}

/* ---- the table ---- */

static int read_file(struct job *j, struct pe_error *err)
{
	struct pe_tablein t = {
		.path = j->o.input,
		.tensor = j->o.tensor,
		.shape = j->o.shape,
		.shape_opt = "shape",
	};
	const char *w = pe_args_unbound(&j->args);

	/* with -i FILE, a table option is an error, not silently ignored */
	if (w)
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to a generated table (KIND), not to -i FILE",
			       w);
	return pe_tablein_read(&t, &j->meta, PE_TABLEIN_INPUT, &j->table, err);
}

/* A generated KIND, filled whole into j->table. */
static int generate(struct job *j, const struct pe_gen_kind *kind, struct pe_error *err)
{
	const struct pe_tensor *t;
	struct pe_pump_opts po = { 1, NULL, NULL };
	const char *w;

	if (j->wang_chen)
		pe_args_drop(&j->args, &j->o.preset);	/* the study's table: vaswani, the defaults */
	if (pe_gen_bind(&j->gen, kind, &j->args, err) != 0)
		return -1;
	if (j->o.preset && !j->wang_chen && pe_args_binds(&j->args, &j->o.preset) < 2)
		return pe_fail(err, PE_ERR_USAGE, "--preset %s: %s has no presets (similarity's own is wang-chen)",
			       j->o.preset, kind->name);
	if ((w = pe_args_unbound(&j->args)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to %s", w, kind->name);
	/* float32 is a recipe only some kinds (and presets) have */
	j->gen.float32 = j->sp.precision == PE_SIM_FLOAT32 && kind->float32 &&
			 kind->float32(j->gen.opts);
	if (pe_gen_build(&j->gen, err) != 0)
		return -1;
	t = &j->gen.tensor[0];
	if (j->gen.nt != 1 || t->ndim > 2 || t->dtype != PE_F32)
		return pe_fail(err, PE_ERR_USAGE, "similarity compares the rows of one 2-D table; %s gives %s",
			       kind->name, j->gen.nt != 1 ? "several tensors (choose one --table)"
							  : "a 3-D one (choose one --head)");
	po.threads = j->threads;
	if (pe_matrix_alloc(&j->table, t->rows, t->cols, err) != 0 ||
	    pe_tensor_materialize(t, j->table.v, &po, err) != 0)
		return -1;
	j->origin = j->gen.row_origin;
	return 0;
}

static int select_rows(struct job *j, struct pe_matrix_view *w, struct pe_error *err)
{
	const char *r = j->o.range;
	uint64_t stride = GIVEN(j, stride) ? j->o.stride : 1;

	j->range_a = 0;
	j->range_b = j->table.rows;
	if (r && pe_parse_range(r, j->table.rows, &j->range_a, &j->range_b) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--positions-range must be A:B with 0 <= A < B <= %llu (the table's rows), got '%s'",
			       (unsigned long long)j->table.rows, r);
	j->o.stride = stride;
	return pe_matrix_select(&j->table, j->range_a, j->range_b, stride, w, err);
}

static void record(struct job *j, struct pe_meta *m)
{
	char range[48];

	pe_meta_str(m, "command", "similarity");
	pe_meta_str(m, "metric", pe_metric_name(j->sp.metric));
	pe_meta_bool(m, "center", j->sp.center);
	pe_meta_str(m, "similarity_precision", j->sp.precision == PE_SIM_EXACT ? "exact" : "float32");
	snprintf(range, sizeof range, "%llu:%llu", (unsigned long long)j->range_a,
		 (unsigned long long)j->range_b);
	pe_meta_str(m, "positions_range", range);
	pe_meta_int(m, "stride", (int64_t)j->o.stride);
	if (j->wang_chen)
		pe_meta_str(m, "similarity_preset", WANG_CHEN);
}

/* ---- output ---- */

static void progress(void *arg, uint64_t done, uint64_t total)
{
	pe_msg_progress("similarity", done, total, arg);
}

static int known_nonfinite(const void *s, uint64_t r0, uint64_t r1, uint64_t *row,
			   uint64_t *col, float *v)
{
	return pe_similarity_known_nonfinite(s, r0, r1, row, col, v);
}

static int write_matrix(struct job *j, struct pe_similarity *s, struct pe_meta *meta,
			struct pe_error *err)
{
	struct pe_tensor t;
	struct pe_emit e;
	int last = -1;

	memset(&e, 0, sizeof e);
	if (j->wang_chen) {
		e.so.cmap = pe_colormap_by_name("magma");
	} else if (j->sp.metric == PE_METRIC_COSINE) {
		e.so.cmap = pe_colormap_by_name("coolwarm");
		e.so.has_vmin = e.so.has_vmax = 1;
		e.so.vmin = -1;
		e.so.vmax = 1;
	}
	e.so.row_origin = e.so.col_origin = j->origin + (int64_t)j->range_a;
	e.so.row_step = e.so.col_step = j->o.stride;
	e.so.xlabel = e.so.ylabel = "position";
	snprintf(j->title, sizeof j->title, "%s similarity of %s, %llu positions",
		 pe_metric_name(j->sp.metric), j->source, (unsigned long long)s->n);
	e.so.title = j->title;
	e.pump.threads = j->threads;
	e.known = known_nonfinite;	/* json: zero rows' nan refused up front */
	e.known_ctx = s;
	j->out.col_prefix = "p";	/* with --header: p0,p1,... or the positions compared */
	if (pe_similarity_tensor(s, &t, err) != 0 ||
	    pe_emit_prepare(&e, &j->out, &t, 1, meta, err) != 0)
		return -1;
	if (s->n >= PROGRESS_MIN_ROWS && isatty(STDERR_FILENO)) {
		e.pump.progress = progress;
		e.pump.progress_arg = &last;
	}
	return pe_emit_run(&e, &j->out, &t, 1, meta, err);
}

static int stats_text(FILE *fp, void *ctx, struct pe_error *err)
{
	struct job *j = ctx;

	return j->o.stats ? pe_stats_write_json(fp, &j->st, &j->stp, j->result_meta, j->o.stride, err)
			  : pe_stats_write_profile(fp, &j->st, j->o.stride, err);
}

/* The profile as a line chart: the mean of each diagonal against its
 * offset, mean +- std shaded. */
static int write_profile_chart(struct job *j, const struct pe_meta *meta, struct pe_error *err)
{
	const struct pe_stats *st = &j->st;
	double *x = malloc((size_t)st->n * 3 * sizeof *x), *lo, *hi;
	struct pe_series s = { "mean", x, st->mean, (size_t)st->n, NULL, NULL, NULL, 0 };
	struct pe_chart c;
	char title[192], ylabel[64];
	uint64_t k;
	int rc;

	if (!x)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	lo = x + st->n;
	hi = lo + st->n;
	for (k = 0; k < st->n; k++) {
		x[k] = (double)(k * j->o.stride);
		lo[k] = st->mean[k] - st->std[k];
		hi[k] = st->mean[k] + st->std[k];
	}
	s.lo = lo;
	s.hi = hi;
	s.band_name = "\xc2\xb1 std";
	memset(&c, 0, sizeof c);
	c.series = &s;
	c.nseries = 1;
	c.xlabel = "offset (positions)";
	snprintf(ylabel, sizeof ylabel, "%s similarity", pe_metric_name(j->sp.metric));
	c.ylabel = ylabel;
	snprintf(title, sizeof title, "%s similarity of %s by offset, %llu positions",
		 pe_metric_name(j->sp.metric), j->source, (unsigned long long)st->n);
	rc = pe_emit_chart(&j->out, &c, title, meta, err);
	free(x);
	return rc;
}

static int write_stats(struct job *j, struct pe_similarity *s, struct pe_meta *meta,
		       struct pe_error *err)
{
	struct pe_tensor t;
	struct pe_sink *sink = NULL;
	struct pe_pump_opts po = { 1, NULL, NULL };
	int rc = -1, last = -1;

	po.threads = j->threads;
	if (pe_similarity_tensor(s, &t, err) != 0 || !(sink = pe_stats_sink_new(&j->stp, err)))
		goto out;
	if (s->n >= PROGRESS_MIN_ROWS && isatty(STDERR_FILENO)) {
		po.progress = progress;
		po.progress_arg = &last;
	}
	j->result_meta = meta;
	if (pe_pump(&t, 1, NULL, meta, sink, &po, err) != 0 ||
	    pe_stats_result(sink, &j->st, err) != 0)
		goto out;
	if (j->profile_chart)
		rc = write_profile_chart(j, meta, err);
	else
		rc = pe_emit_text(&j->out, j->o.stats ? PE_FMT_JSON : PE_FMT_CSV,
				  j->o.stats ? "stats" : "profile", stats_text, j, err);
out:
	pe_sink_destroy(sink);
	return rc;
}

/* ---- the recipe ---- */

static int similarity(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_matrix_view w;
	struct pe_similarity s;
	struct pe_meta *meta;
	const struct pe_gen_kind *kind = NULL;
	int rc;

	memset(&j, 0, sizeof j);
	memset(&s, 0, sizeof s);
	pe_meta_init(&j.meta);
	pe_meta_init(&j.gen.meta);
	if (pe_command_parse(cmd, &j.args, argc, argv, &err) != 0 ||
	    pe_args_bind(&j.args, rows, &j.o, &err) != 0 ||
	    pe_outopts_bind(&j.out, &j.args, &err) != 0 || parse_similarity(&j, &err) != 0 ||
	    choose_source(&j, &kind, &err) != 0)
		goto fail;
	if (j.o.list) {
		if (list(&j, &err) != 0)
			goto fail;
		rc = PE_EXIT_OK;
		goto done;
	}
	if (pe_threads_resolve(&j.out, &j.threads, &err) != 0 ||
	    (kind ? generate(&j, kind, &err) : read_file(&j, &err)) != 0)
		goto fail;
	meta = kind ? &j.gen.meta : &j.meta;
	j.source = kind ? kind->name : strrchr(j.o.input, '/') ? strrchr(j.o.input, '/') + 1
				     : strcmp(j.o.input, "-") == 0 ? "stdin" : j.o.input;
	j.sp.threads = j.threads;
	if (select_rows(&j, &w, &err) != 0)
		goto fail;
	if (pe_similarity_init(&s, &w, &j.sp, &err) != 0) {
		if (err.code == PE_ERR_DATA && j.o.input)
			pe_tablein_prefix(&err, j.o.input);
		goto fail;
	}
	pe_matrix_free(&j.table);
	if (s.zero_rows && j.sp.metric == PE_METRIC_COSINE)
		pe_msg_warn("similarity: %llu of the %llu rows %s zero: their cosine similarities are NaN",
			    (unsigned long long)s.zero_rows, (unsigned long long)s.n,
			    s.zero_rows == 1 ? "is" : "are");
	/* |x.y| <= |x| |y| and |x - y| <= |x| + |y|: beyond these, inf */
	if ((j.sp.metric == PE_METRIC_DOT && s.max_norm * s.max_norm > (double)FLT_MAX) ||
	    (j.sp.metric == PE_METRIC_EUCLIDEAN && 2 * s.max_norm > (double)FLT_MAX))
		pe_msg_warn("similarity: rows as long as %g: %s beyond float32's range are written as inf",
			    s.max_norm, j.sp.metric == PE_METRIC_DOT ? "dot products" : "distances");
	record(&j, meta);
	if ((j.o.stats || j.o.profile ? write_stats(&j, &s, meta, &err)
				      : write_matrix(&j, &s, meta, &err)) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &j.args, NULL);
	rc = pe_msg_report("similarity", &err);
done:
	pe_similarity_free(&s);
	pe_stats_free(&j.st);
	pe_matrix_free(&j.table);
	pe_gen_free(&j.gen);
	pe_meta_free(&j.meta);
	pe_args_free(&j.args);
	return rc;
}

const struct pe_command pe_cmd_similarity = {
	"similarity", "position-wise similarity of a table's rows, or its statistics", usage, rows,
	PE_CMD_KINDS | PE_CMD_OUTPUT, similarity
};
