/*
 * posenc explain KIND: what a position encoding really does.  Recipe:
 * parse; bind the kind's options as generate does (cli/gen.h), with
 * g.explain set (rope: every layer type of a config); build; the kind's
 * explain hook fills a report (cli/explain.h); write it as text (the
 * default), json, the csv table, or a chart of its curves.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/explain.h"
#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "io/output.h"
#include "io/sink.h"

struct explain_opts {
	int precision;
};

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Explain:") },
	{ PE_CHOICE("precision", 0, "P", offsetof(struct explain_opts, precision), pe_gen_precisions,
		    "exact (default) or float32: rope's inv_freq_f32 and dynamic\n"
		    "base as transformers' float32 pipeline computes them") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc explain KIND [OPTIONS]\n"
	"Say what a position encoding really does: its effective parameters (rope:\n"
	"of every layer type of a config, each marked option, config, default or\n"
	"derived, with its key), then per frequency the inverse frequency,\n"
	"wavelength, rotations within the context, region and scale.  KIND is\n"
	"rope, sinusoidal or alibi; the options are generate's.  A text report on\n"
	"stdout; -f json for scripts, -f csv for the per-frequency table, an image\n"
	"(-o FILE.png, .svg, .pdf) for a chart of the wavelengths.\n";

enum xformat { X_TEXT, X_JSON, X_CSV, X_FIGURE };

static const char *explainable(void)
{
	static char list[128];
	const struct pe_gen_kind *k;
	size_t i, n = 0;

	if (!list[0])
		for (i = 0; (k = pe_gen_kind_at(i)); i++)
			if (k->explain)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "",
						      k->name);
	return list;
}

static int choose_kind(const struct pe_args *a, const struct pe_gen_kind **kind,
		       struct pe_error *err)
{
	if (pe_gen_operand(a, explainable(), kind, err) != 0)
		return -1;
	if (!(*kind)->explain)
		return pe_fail(err, PE_ERR_USAGE, "no report for kind '%s' (explain takes %s)",
			       (*kind)->name, explainable());
	return 0;
}

/* -f, else -o's extension (.txt: text), else text */
static int resolve(const struct pe_outopts *o, enum xformat *f, struct pe_error *err)
{
	const char *ext = o->path && strcmp(o->path, "-") != 0 ? pe_path_extension(o->path) : NULL;
	const char *name = o->format;
	const struct pe_optdef *w;
	int k = -1;

	if (name && strcmp(name, "text") == 0) {
		*f = X_TEXT;
	} else if (name) {
		k = pe_format_by_name(name);
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE, "unknown format '%s' (explain writes text, json, csv, png, svg or pdf)",
				       name);
	} else if (ext && strcasecmp(ext, ".txt") == 0) {
		*f = X_TEXT;
	} else if (ext) {
		k = pe_format_by_path(o->path);
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "cannot tell the format of '%s': explain writes .txt, .json, .csv, .png, .svg or .pdf (or give -f)",
				       o->path);
	} else {
		*f = X_TEXT;
	}
	if (k >= 0) {
		if (k == PE_FMT_JSON)
			*f = X_JSON;
		else if (k == PE_FMT_CSV)
			*f = X_CSV;
		else if (pe_format_is_figure((enum pe_format)k))
			*f = X_FIGURE;
		else
			return pe_fail(err, PE_ERR_USAGE,
				       "explain writes a report: text, json, csv, or a figure (png, svg, pdf), not %s",
				       pe_format_name((enum pe_format)k));
	}
	if (o->rows)
		return pe_fail(err, PE_ERR_USAGE, "--rows does not apply to explain");
	if (*f != X_FIGURE &&
	    (w = pe_args_misplaced(o->args, pe_output_rows, o, *f == X_CSV ? 1u << PE_FMT_CSV : 0)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to %s only", w->name,
			       w->applies == (1u << PE_FMT_CSV) ? "csv output"
							     : "figures (-f png, svg or pdf, or -o FILE.png)");
	return 0;
}

static int write_report(const struct pe_outopts *o, enum xformat f, const struct pe_explain *x,
			struct pe_error *err)
{
	struct pe_output out;
	int rc;

	if (pe_output_open(&out, o->path, 0, o->force, err) != 0)
		return -1;
	rc = f == X_JSON ? pe_report_json(out.fp, x->rep, err)
	   : f == X_CSV ? pe_report_csv(out.fp, x->csv, x->table, err)
			: pe_report_text(out.fp, x->rep, err);
	if (rc != 0) {
		pe_output_abort(&out);
		return -1;
	}
	return pe_output_commit(&out, err);
}

static int write_chart(const struct pe_outopts *o, struct pe_explain *x, const struct pe_meta *meta,
		       struct pe_error *err)
{
	const struct pe_chart *c[PE_EXPLAIN_PANELS];
	const char *titles[PE_EXPLAIN_PANELS];
	size_t i;

	for (i = 0; i < x->npanels; i++) {
		x->panel[i].chart.xlabel = x->xlabel;
		x->panel[i].chart.ylabel = x->ylabel;
		c[i] = &x->panel[i].chart;
		titles[i] = x->panel[i].title;
	}
	return pe_emit_charts(o, c, titles, x->npanels, x->title, meta, err);
}

static int explain(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_args a;
	struct explain_opts eo = { 0 };
	struct pe_gen g;
	struct pe_outopts out;
	struct pe_explain x;
	const struct pe_gen_kind *kind = NULL;
	enum xformat f = X_TEXT;
	const char *w;
	int rc;

	memset(&g, 0, sizeof g);
	memset(&x, 0, sizeof x);
	pe_meta_init(&g.meta);
	if (pe_command_parse(cmd, &a, argc, argv, &err) != 0 ||
	    choose_kind(&a, &kind, &err) != 0 || pe_args_bind(&a, rows, &eo, &err) != 0 ||
	    pe_outopts_bind(&out, &a, &err) != 0 || pe_gen_bind(&g, kind, &a, &err) != 0)
		goto fail;
	if ((w = pe_args_unbound(&a)) ||
	    (pe_args_given(&a, &eo.precision) && !kind->float32 && (w = "precision"))) {
		pe_fail(&err, PE_ERR_USAGE, "--%s does not apply to %s", w, kind->name);
		goto fail;
	}
	if (resolve(&out, &f, &err) != 0)
		goto fail;
	/* a report row per frequency: refused before the frequencies are computed */
	if (pe_args_given(&a, &g.dim) && (g.dim + 1) / 2 > PE_EXPLAIN_MAX_ROWS) {
		pe_fail(&err, PE_ERR_USAGE, "explain reports at most %zu frequencies: --dim at most %zu, got %llu",
			PE_EXPLAIN_MAX_ROWS, 2 * PE_EXPLAIN_MAX_ROWS, (unsigned long long)g.dim);
		goto fail;
	}
	g.float32 = eo.precision == 1;
	g.explain = 1;
	if (pe_gen_build(&g, &err) != 0 || pe_explain_init(&x, &err) != 0 ||
	    kind->explain(&g, &x, &err) != 0)
		goto fail;
	if (f == X_FIGURE ? write_chart(&out, &x, &g.meta, &err) : write_report(&out, f, &x, &err))
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &a, NULL);
	rc = pe_msg_report("explain", &err);
done:
	pe_explain_free(&x);
	pe_gen_free(&g);
	pe_args_free(&a);
	return rc;
}

const struct pe_command pe_cmd_explain = {
	"explain", "what a position encoding really does: parameters, frequencies, regions",
	usage, rows, PE_CMD_KINDS | PE_CMD_OUTPUT, explain
};
