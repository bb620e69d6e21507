/*
 * posenc similarity: the position-wise similarity of a table's rows.
 * Recipe: parse; get the table (a file through io/read.h, or a generated
 * KIND through cli/gen.c, filled whole); select rows; prepare core/
 * similarity; then either stream the n x n matrix to the output, or pump
 * it through the statistics sink (core/stats.h) and write those.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/generate.h"
#include "cli/msg.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/pipeline.h"
#include "core/similarity.h"
#include "core/stats.h"
#include "io/colormap.h"
#include "io/input.h"
#include "io/output.h"
#include "io/read.h"
#include "io/stats_out.h"

#define PROGRESS_MIN_ROWS 8192
#define WANG_CHEN "wang-chen"

/* similarity's own presets (the kinds' come from their builders). */
const char *const pe_similarity_presets[] = { WANG_CHEN, NULL };

const struct pe_optdef pe_similarity_opts[] = {
	{ NULL, 0, NULL, "Input (a file, or KIND and the table options below):" },
	{ "input", 'i', "FILE", "read the table from FILE: npy, safetensors, csv, or raw\n"
				"float32 with --shape; - reads stdin (npy and safetensors\n"
				"are recognised by their first bytes, else csv)" },
	{ "tensor", 0, "NAME", "safetensors: the tensor to read (default: the only one, or\n"
			       "the one named *wpe.weight, *position_embeddings.weight,\n"
			       "*embed_positions.weight or *pos_embed)" },
	{ "shape", 0, "RxC", "the input is raw little-endian float32, R rows of C" },
	{ "list", 0, NULL, "list the tensors of an npy or safetensors FILE (name, dtype,\n"
			   "shape) and exit" },
	{ NULL, 0, NULL, "Similarity:" },
	{ "metric", 0, "M", "cosine (default), dot, euclidean" },
	{ "center", 0, NULL, "subtract the mean row (column means) first" },
	{ "positions-range", 0, "A:B", "compare rows A..B-1 of the table only (0-based)" },
	{ "stride", 0, "K", "compare every K-th of those rows, default 1" },
	{ "precision", 0, "P", "exact (default): every value the correctly rounded float32;\n"
			       "float32: NumPy's float32 pipeline, and for a generated\n"
			       "vaswani sinusoid or rope table their float32 recipes" },
	{ "preset", 0, "NAME", "wang-chen: cosine, magma, the matrix's own colour range, colour\n"
			       "bar, and for a generated sinusoid the study's (vaswani 512 x 768);\n"
			       "with KIND also the kind's presets:\n" PE_GEN_PRESET_HELP },
	{ "stats", 0, NULL, "write statistics of the matrix as JSON instead of it" },
	{ "profile", 0, NULL, "write the mean and std of each diagonal as CSV instead\n"
			      "(header offset,mean,std,count)" },
	{ "window", 0, "W", "--stats: rows' monotonicity window, default 32" },
	{ "tau", 0, "T", "--stats: softmax temperature of locality, default 1" },
	PE_GEN_KIND_OPTDEFS,
	PE_OUTPUT_OPTDEFS,
	{ NULL, 0, NULL, NULL }
};
const size_t pe_similarity_nopts = sizeof pe_similarity_opts / sizeof pe_similarity_opts[0] - 1;

const char pe_similarity_usage[] =
	"Usage: posenc similarity KIND [TABLE OPTIONS] [OPTIONS]\n"
	"       posenc similarity -i FILE|- [--tensor NAME] [--shape RxC] [OPTIONS]\n"
	"The position-wise similarity of a table's rows (Wang & Chen 2020):\n"
	"S[i][j] = sim(row i, row j), an N x N float32 matrix written row by row,\n"
	"or its statistics.  KIND is a table posenc generates (as generate KIND).\n";

/* Options of the similarity itself: never "of another kind". */
static const char *const own_options[] = { "input", "tensor", "shape", "list", "metric",
					   "center", "positions-range", "stride", "precision",
					   "preset", "stats", "profile", "window", "tau", NULL };

struct job {
	const char **values;
	const char *input, *kind_name;
	struct pe_outopts out;
	struct pe_similarity_params sp;
	struct pe_stats_params stp;
	int wang_chen, stats, profile;
	uint64_t range_a, range_b, stride;
	int64_t origin;		/* position of the table's row 0 */
	struct pe_gen gen;
	struct pe_matrix table;
	struct pe_meta meta;	/* for a file; a generated table's is gen.meta */
};

static const char *val(const struct job *j, const char *name)
{
	return pe_opt_value(pe_similarity_opts, pe_similarity_nopts, j->values, name);
}

static const char *given(const struct job *j, const char *const *names)
{
	return pe_opt_given(pe_similarity_opts, pe_similarity_nopts, j->values, names);
}

static int parse_similarity(struct job *j, struct pe_error *err)
{
	static const char *const stats_only[] = { "window", "tau", NULL };
	static const char *const whole_matrix[] = { "rows", NULL };
	static const char *const not_text[] = { "header", "cmap", "vmin", "vmax", "size", "title",
						"colorbar", "no-colorbar", NULL };
	const char *preset = val(j, "preset"), *w;
	int metric = PE_METRIC_COSINE, prec = 0;

	j->wang_chen = preset && strcmp(preset, WANG_CHEN) == 0;
	if (pe_opt_choice("metric", val(j, "metric"), pe_metric_names, &metric, err) != 0 ||
	    pe_opt_choice("precision", val(j, "precision"), pe_gen_precisions, &prec, err) != 0)
		return -1;
	j->sp.metric = (enum pe_metric)metric;
	j->sp.center = val(j, "center") != NULL;
	j->sp.precision = prec ? PE_SIM_FLOAT32 : PE_SIM_EXACT;
	j->stats = val(j, "stats") != NULL;
	j->profile = val(j, "profile") != NULL;
	if (j->stats && j->profile)
		return pe_fail(err, PE_ERR_USAGE, "--stats and --profile are two outputs: give one");
	if (!j->stats && (w = given(j, stats_only)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --stats only", w);
	if ((j->stats || j->profile) && (w = given(j, whole_matrix)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --%s: it describes the whole matrix",
			       w, j->stats ? "stats" : "profile");
	if ((j->stats || j->profile) && (w = given(j, not_text)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --%s, which writes %s of its own",
			       w, j->stats ? "stats" : "profile", j->stats ? "json" : "csv");
	j->stp.window = PE_STATS_WINDOW_DEFAULT;
	j->stp.tau = PE_STATS_TAU_DEFAULT;
	if (pe_opt_u64("window", val(j, "window"), 1, (uint64_t)1 << 30, &j->stp.window, err) != 0 ||
	    pe_opt_double("tau", val(j, "tau"), 1, &j->stp.tau, err) != 0)
		return -1;
	j->stride = 1;
	return pe_opt_u64("stride", val(j, "stride"), 1, (uint64_t)1 << 40, &j->stride, err);
}

/* ---- the table ---- */

static int list_tensors(const struct job *j, struct pe_error *err)
{
	struct pe_input in;
	struct pe_tensor_entry *list = NULL;
	size_t n = 0, i;
	int rc, k;

	if (pe_table_input_open(&in, j->input, PE_TABLE_MAX_BYTES, NULL, err) != 0) {
		pe_input_close(&in);
		return -1;
	}
	rc = pe_table_list(in.data, in.len, in.name, &list, &n, err);
	if (pe_input_intact(&in, err) != 0)
		rc = -1;
	for (i = 0; rc == 0 && i < n; i++) {
		/* names from the file, escaped as messages escape them: one line
		 * each, tab-separated, whatever bytes they hold */
		pe_msg_put_text(stdout, list[i].name[0] ? list[i].name : "(array)");
		putchar('\t');
		pe_msg_put_text(stdout, list[i].dtype);
		printf("\t[");
		for (k = 0; k < list[i].ndim; k++)
			printf("%s%llu", k ? "," : "", (unsigned long long)list[i].shape[k]);
		printf("]\n");
	}
	pe_tensor_entries_free(list, n);
	pe_input_close(&in);
	return rc;
}

static int read_file(struct job *j, struct pe_error *err)
{
	struct pe_tablein t = { j->input, val(j, "tensor"), val(j, "shape"), "shape" };

	return pe_tablein_read(&t, &j->meta, PE_TABLEIN_INPUT, &j->table, err);
}

/* A generated KIND, filled whole into j->table. */
static int generate(struct job *j, const struct pe_gen_kind *kind, struct pe_error *err)
{
	const char **v = calloc(pe_similarity_nopts, sizeof *v);
	int ip = pe_opt_index(pe_similarity_opts, pe_similarity_nopts, "preset");
	int ic = pe_opt_index(pe_similarity_opts, pe_similarity_nopts, "precision");
	const struct pe_tensor *t;
	struct pe_pump_opts po = { 1, NULL, NULL };
	int rc = -1;

	if (!v)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	memcpy(v, j->values, pe_similarity_nopts * sizeof *v);
	if (j->wang_chen)
		v[ip] = NULL;	/* the study's table: vaswani, the defaults */
	if (v[ip] && pe_name_index(kind->options, "preset") < 0) {
		pe_fail(err, PE_ERR_USAGE, "--preset %s: %s has no presets (similarity's own is wang-chen)",
			v[ip], kind->name);
		goto out;
	}
	/* float32 is a recipe only the vaswani sinusoid and rope have */
	if (!(strcmp(kind->name, "rope") == 0 ||
	      (strcmp(kind->name, "sinusoidal") == 0 && (!v[ip] || strcmp(v[ip], "vaswani") == 0))))
		v[ic] = NULL;
	if (pe_gen_build(&j->gen, kind, pe_similarity_opts, pe_similarity_nopts, v, own_options,
			 err) != 0)
		goto out;
	t = &j->gen.tensor[0];
	if (j->gen.nt != 1 || t->ndim > 2 || t->dtype != PE_F32) {
		pe_fail(err, PE_ERR_USAGE, "similarity compares the rows of one 2-D table; %s gives %s",
			kind->name, j->gen.nt != 1 ? "several tensors (choose one --table)"
						   : "a 3-D one (choose one --head)");
		goto out;
	}
	if (pe_threads_resolve(j->out.threads, &po.threads, err) != 0 ||
	    pe_matrix_alloc(&j->table, t->rows, t->cols, err) != 0 ||
	    pe_tensor_materialize(t, j->table.v, &po, err) != 0)
		goto out;
	j->origin = j->gen.row_origin;
	rc = 0;
out:
	free(v);
	return rc;
}

static int select_rows(struct job *j, struct pe_matrix_view *w, struct pe_error *err)
{
	const char *r = val(j, "positions-range");

	j->range_a = 0;
	j->range_b = j->table.rows;
	if (r && pe_parse_range(r, j->table.rows, &j->range_a, &j->range_b) != 0)
		return pe_fail(err, PE_ERR_USAGE,
			       "--positions-range must be A:B with 0 <= A < B <= %llu (the table's rows), got '%s'",
			       (unsigned long long)j->table.rows, r);
	return pe_matrix_select(&j->table, j->range_a, j->range_b, j->stride, w, err);
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
	pe_meta_int(m, "stride", (int64_t)j->stride);
	if (j->wang_chen)
		pe_meta_str(m, "similarity_preset", WANG_CHEN);
}

/* ---- output ---- */

static void progress(void *arg, uint64_t done, uint64_t total)
{
	pe_msg_progress("similarity", done, total, arg);
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
	e.so.row_step = e.so.col_step = j->stride;
	e.so.xlabel = e.so.ylabel = "position";
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

static int write_stats(struct job *j, struct pe_similarity *s, struct pe_meta *meta,
		       struct pe_error *err)
{
	struct pe_tensor t;
	struct pe_sink *sink = NULL;
	struct pe_stats st;
	struct pe_pump_opts po = { 1, NULL, NULL };
	struct pe_output out;
	const char *want = j->stats ? "json" : "csv";
	int rc = -1, last = -1, opened = 0, named;

	memset(&st, 0, sizeof st);
	if (j->out.format && strcmp(j->out.format, want) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s writes %s, not '%s'",
			       j->stats ? "stats" : "profile", want, j->out.format);
	named = j->out.path ? pe_format_by_path(j->out.path) : -1;
	if (!j->out.format && named >= 0 && strcmp(pe_format_name((enum pe_format)named), want) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s writes %s; '%s' names %s output",
			       j->stats ? "stats" : "profile", want, j->out.path,
			       pe_format_name((enum pe_format)named));
	if (pe_threads_resolve(j->out.threads, &po.threads, err) != 0 ||
	    pe_similarity_tensor(s, &t, err) != 0 ||
	    !(sink = pe_stats_sink_new(&j->stp, err)))
		goto out;
	if (s->n >= PROGRESS_MIN_ROWS && isatty(STDERR_FILENO)) {
		po.progress = progress;
		po.progress_arg = &last;
	}
	if (pe_pump(&t, 1, NULL, meta, sink, &po, err) != 0 || pe_stats_result(sink, &st, err) != 0 ||
	    pe_output_open(&out, j->out.path, 0, j->out.force, err) != 0)
		goto out;
	opened = 1;
	if ((j->stats ? pe_stats_write_json(out.fp, &st, &j->stp, meta, j->stride, err)
		      : pe_stats_write_profile(out.fp, &st, j->stride, err)) != 0)
		goto out;
	opened = 0;
	rc = pe_output_commit(&out, err);
out:
	if (opened)
		pe_output_abort(&out);
	pe_sink_destroy(sink);
	pe_stats_free(&st);
	return rc;
}

/* ---- the recipe ---- */

static int choose_source(struct job *j, char **ops, int nops, const struct pe_gen_kind **kind,
			 struct pe_error *err)
{
	static const char *const file_only[] = { "tensor", "shape", "list", NULL };
	const char *w;

	j->input = val(j, "input");
	*kind = NULL;
	if (nops > 1)
		return pe_fail(err, PE_ERR_USAGE, "expected at most one KIND, got %d operands", nops);
	if (nops == 1 && j->input)
		return pe_fail(err, PE_ERR_USAGE, "give a KIND or -i FILE, not both");
	if (nops == 0 && !j->input)
		return pe_fail(err, PE_ERR_USAGE, "give -i FILE or a KIND (one of: %s)", pe_gen_kind_list());
	if (nops == 1) {
		if ((w = given(j, file_only)))
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to -i FILE only", w);
		*kind = pe_gen_kind_by_name(ops[0]);
		if (!*kind)
			return pe_fail(err, PE_ERR_USAGE, "unknown kind '%s' (one of: %s)", ops[0],
				       pe_gen_kind_list());
		return 0;
	}
	if (val(j, "preset") && !j->wang_chen)
		return pe_fail(err, PE_ERR_USAGE, "--preset %s applies to a generated table (KIND); a file takes --preset wang-chen",
			       val(j, "preset"));
	return 0;
}

/* With -i FILE, a table option is an error, not silently ignored. */
static int no_table_options(const struct job *j, struct pe_error *err)
{
	size_t i;

	for (i = 0; i < pe_similarity_nopts; i++) {
		const char *name = pe_similarity_opts[i].name;

		if (j->values[i] && name && !pe_outopt_is(name) && pe_name_index(own_options, name) < 0 &&
		    strcmp(name, "help") != 0)
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to a generated table (KIND), not to -i FILE",
				       name);
	}
	return 0;
}

int pe_cmd_similarity(int argc, char **argv)
{
	char **ops = NULL;
	int nops = 0, rc;
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_matrix_view w;
	struct pe_similarity s;
	struct pe_meta *meta;
	const struct pe_gen_kind *kind = NULL;

	memset(&j, 0, sizeof j);
	memset(&s, 0, sizeof s);
	pe_meta_init(&j.meta);
	pe_meta_init(&j.gen.meta);
	j.values = calloc(pe_similarity_nopts, sizeof *j.values);
	if (!j.values) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (pe_opt_parse(argc, argv, pe_similarity_opts, pe_similarity_nopts, j.values, &ops, &nops,
			 &err) != 0 ||
	    parse_similarity(&j, &err) != 0 || choose_source(&j, ops, nops, &kind, &err) != 0)
		goto fail;
	pe_outopts_get(&j.out, pe_similarity_opts, pe_similarity_nopts, j.values);
	if (val(&j, "list")) {
		static const char *const not_list[] = { "output", "format", "stats", "profile",
							"rows", "metric", "center", "positions-range",
							"stride", "precision", "preset", NULL };
		const char *what = given(&j, not_list);

		if (what) {
			pe_fail(&err, PE_ERR_USAGE, "--%s does not apply to --list (it prints the tensors to stdout)",
				what);
			goto fail;
		}
		if (list_tensors(&j, &err) != 0)
			goto fail;
		rc = PE_EXIT_OK;
		goto done;
	}
	if (kind ? generate(&j, kind, &err) != 0
		 : no_table_options(&j, &err) != 0 || read_file(&j, &err) != 0)
		goto fail;
	meta = kind ? &j.gen.meta : &j.meta;
	if (pe_threads_resolve(j.out.threads, &j.sp.threads, &err) != 0 ||
	    select_rows(&j, &w, &err) != 0)
		goto fail;
	if (pe_similarity_init(&s, &w, &j.sp, &err) != 0) {
		if (err.code == PE_ERR_DATA && j.input)
			pe_tablein_prefix(&err, j.input);
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
	if ((j.stats || j.profile ? write_stats(&j, &s, meta, &err)
				  : write_matrix(&j, &s, meta, &err)) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	rc = pe_msg_report("similarity", &err);
done:
	pe_similarity_free(&s);
	pe_matrix_free(&j.table);
	pe_gen_free(&j.gen);
	pe_meta_free(&j.meta);
	free(ops);
	free(j.values);
	return rc;
}
