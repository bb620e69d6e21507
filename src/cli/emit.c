#include "cli/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/msg.h"
#include "core/parse.h"
#include "io/colormap.h"
#include "io/output.h"

#define PNG_SIZE_MAX 16384
#define PNG_TITLE_MAX 200

static const char *value_of(const struct pe_optdef *defs, size_t ndefs, const char **values,
			    const char *name)
{
	int i = pe_opt_index(defs, ndefs, name);

	return i < 0 ? NULL : values[i];
}

const char *const pe_emit_aspects[] = { "auto", "equal", NULL };

int pe_outopt_is(const char *name)
{
	static const struct pe_optdef defs[] = { PE_OUTPUT_OPTDEFS };
	size_t i;

	for (i = 0; i < sizeof defs / sizeof defs[0]; i++)
		if (defs[i].name && strcmp(defs[i].name, name) == 0)
			return 1;
	return 0;
}

void pe_outopts_get(struct pe_outopts *o, const struct pe_optdef *defs, size_t ndefs,
		    const char **values)
{
	memset(o, 0, sizeof *o);
	o->path = value_of(defs, ndefs, values, "output");
	o->format = value_of(defs, ndefs, values, "format");
	o->rows = value_of(defs, ndefs, values, "rows");
	o->threads = value_of(defs, ndefs, values, "threads");
	o->force = value_of(defs, ndefs, values, "force") != NULL;
	o->header = value_of(defs, ndefs, values, "header") != NULL;
	o->cmap = value_of(defs, ndefs, values, "cmap");
	o->vmin = value_of(defs, ndefs, values, "vmin");
	o->vmax = value_of(defs, ndefs, values, "vmax");
	o->size = value_of(defs, ndefs, values, "size");
	o->title = value_of(defs, ndefs, values, "title");
	o->colorbar = value_of(defs, ndefs, values, "colorbar") != NULL;
	o->no_colorbar = value_of(defs, ndefs, values, "no-colorbar") != NULL;
	o->aspect = value_of(defs, ndefs, values, "aspect");
	o->xlabel = value_of(defs, ndefs, values, "xlabel");
	o->ylabel = value_of(defs, ndefs, values, "ylabel");
	o->no_axes = value_of(defs, ndefs, values, "no-axes") != NULL;
}

/* The png options given, over the command's defaults in so; any of them
 * with another format is refused rather than ignored. */
static int png_opts(const struct pe_outopts *o, enum pe_format f, struct pe_sink_opts *so,
		    struct pe_error *err)
{
	const char *given = o->cmap ? "cmap" : o->vmin ? "vmin" : o->vmax ? "vmax"
			  : o->size ? "size" : o->title ? "title" : o->colorbar ? "colorbar"
			  : o->no_colorbar ? "no-colorbar" : o->aspect ? "aspect"
			  : o->xlabel ? "xlabel" : o->ylabel ? "ylabel" : o->no_axes ? "no-axes" : NULL;
	int aspect = 0;
	uint64_t size = 0;

	if (!given)
		return 0;
	if (f != PE_FMT_PNG)
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to png output only (-f png or -o FILE.png)",
			       given);
	if (o->cmap) {
		so->cmap = pe_colormap_by_name(o->cmap);
		if (so->cmap < 0)
			return pe_fail(err, PE_ERR_USAGE, "unknown --cmap '%s' (one of: %s)", o->cmap,
				       pe_colormap_list());
	}
	if (pe_opt_double("vmin", o->vmin, 0, &so->vmin, err) != 0 ||
	    pe_opt_double("vmax", o->vmax, 0, &so->vmax, err) != 0 ||
	    pe_opt_u64("size", o->size, 1, PNG_SIZE_MAX, &size, err) != 0)
		return -1;
	so->has_vmin |= o->vmin != NULL;
	so->has_vmax |= o->vmax != NULL;
	if (so->has_vmin && so->has_vmax && !(so->vmin < so->vmax))
		return o->vmin && o->vmax
			       ? pe_fail(err, PE_ERR_USAGE, "--vmin must be below --vmax, got '%s' and '%s'",
					 o->vmin, o->vmax)
			       : pe_fail(err, PE_ERR_USAGE, "--%s '%s' leaves an empty colour range (the default %s is %g)",
					 o->vmin ? "vmin" : "vmax", o->vmin ? o->vmin : o->vmax,
					 o->vmin ? "vmax" : "vmin", o->vmin ? so->vmax : so->vmin);
	if (o->size)
		so->size = (unsigned)size;
	if (o->title && strlen(o->title) > PNG_TITLE_MAX)
		return pe_fail(err, PE_ERR_USAGE, "--title must be at most %d bytes, got %zu",
			       PNG_TITLE_MAX, strlen(o->title));
	if (o->title)
		so->title = o->title;
	if (o->colorbar && o->no_colorbar)
		return pe_fail(err, PE_ERR_USAGE, "--colorbar and --no-colorbar contradict each other");
	if (o->colorbar || o->no_colorbar)
		so->no_colorbar = o->no_colorbar;
	if (pe_opt_choice("aspect", o->aspect, pe_emit_aspects, &aspect, err) != 0)
		return -1;
	so->aspect_equal = aspect == 1;
	if ((o->xlabel && strlen(o->xlabel) > PNG_TITLE_MAX) ||
	    (o->ylabel && strlen(o->ylabel) > PNG_TITLE_MAX))
		return pe_fail(err, PE_ERR_USAGE, "--%s must be at most %d bytes",
			       o->xlabel && strlen(o->xlabel) > PNG_TITLE_MAX ? "xlabel" : "ylabel",
			       PNG_TITLE_MAX);
	if (o->xlabel)
		so->xlabel = o->xlabel;
	if (o->ylabel)
		so->ylabel = o->ylabel;
	if (o->no_axes) {
		const char *w = o->title ? "title" : o->xlabel ? "xlabel" : o->ylabel ? "ylabel"
			      : o->colorbar ? "colorbar" : NULL;

		if (w)
			return pe_fail(err, PE_ERR_USAGE, "--%s contradicts --no-axes (the heatmap's pixels alone)",
				       w);
		so->no_axes = 1;
	}
	return 0;
}

static int resolve_format(const struct pe_outopts *o, enum pe_format *f, struct pe_error *err)
{
	int k;

	if (o->format) {
		k = pe_format_by_name(o->format);
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE, "unknown format '%s' (one of: %s)",
				       o->format, pe_format_list());
	} else if (o->path && strcmp(o->path, "-") != 0 && pe_path_extension(o->path)) {
		k = pe_format_by_path(o->path);
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "cannot tell the format of '%s': posenc does not write %s files (give -f %s)",
				       o->path, pe_path_extension(o->path), pe_format_list());
	} else {
		k = PE_FMT_CSV;
	}
	*f = (enum pe_format)k;
	return 0;
}

int pe_threads_resolve(const char *opt, int *threads, struct pe_error *err)
{
	const char *env = getenv("POSENC_THREADS");
	uint64_t v;

	if (opt)
		return pe_opt_u64("threads", opt, 1, PE_MAX_THREADS, &v, err) != 0
			       ? -1 : (*threads = (int)v, 0);
	if (env && *env) {	/* set but empty: unset, as for most variables */
		if (pe_parse_u64(env, 1, PE_MAX_THREADS, &v) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "POSENC_THREADS must be an integer from 1 to %d, got '%s'",
				       PE_MAX_THREADS, env);
		*threads = (int)v;
		return 0;
	}
	*threads = pe_cpu_count();
	return 0;
}

int pe_emit_prepare(struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t0,
		    size_t nt, struct pe_meta *meta, struct pe_error *err)
{
	uint64_t rows = t0->rows;

	if (resolve_format(o, &e->format, err) != 0)
		return -1;
	if (nt > 1 && !pe_format_multi(e->format))
		return pe_fail(err, PE_ERR_USAGE,
			       "%s holds one tensor and this result has %zu: use -f safetensors or -f json",
			       pe_format_name(e->format), nt);
	if (o->header && e->format != PE_FMT_CSV)
		return pe_fail(err, PE_ERR_USAGE, "--header applies to csv output only");
	if (png_opts(o, e->format, &e->so, err) != 0)
		return -1;
	memset(&e->sel, 0, sizeof e->sel);
	if (o->rows) {
		if (nt != 1)
			return pe_fail(err, PE_ERR_USAGE, "--rows selects rows of a single tensor");
		if (pe_parse_range(o->rows, rows, &e->sel.begin, &e->sel.end) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--rows must be A:B with 0 <= A < B <= %llu (the result's rows), got '%s'",
				       (unsigned long long)rows, o->rows);
		e->sel.active = 1;
		/* the selected rows keep their labels */
		e->so.row_origin += (int64_t)(e->sel.begin * (e->so.row_step ? e->so.row_step : 1));
		pe_meta_str(meta, "rows", o->rows);
	}
	if (pe_threads_resolve(o->threads, &e->pump.threads, err) != 0)
		return -1;
	e->so.header = o->header;
	if (o->col_prefix)
		e->so.col_prefix = o->col_prefix;
	if (meta->oom)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

int pe_emit_run(const struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t,
		size_t nt, const struct pe_meta *meta, struct pe_error *err)
{
	struct pe_output out;
	struct pe_sink *sink;

	if (pe_output_open(&out, o->path, pe_format_is_binary(e->format), o->force, err) != 0)
		return -1;
	sink = pe_sink_new(e->format, out.fp, &e->so, err);
	if (!sink || pe_pump(t, nt, &e->sel, meta, sink, &e->pump, err) != 0) {
		pe_sink_destroy(sink);
		pe_output_abort(&out);
		return -1;
	}
	pe_sink_destroy(sink);
	return pe_output_commit(&out, err);
}

int pe_emit(const char *cmd, const struct pe_outopts *o, const struct pe_tensor *t, size_t nt,
	    struct pe_meta *meta)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_emit e;

	memset(&e, 0, sizeof e);
	if (pe_emit_prepare(&e, o, &t[0], nt, meta, &err) != 0 ||
	    pe_emit_run(&e, o, t, nt, meta, &err) != 0)
		return pe_msg_report(cmd, &err);
	return PE_EXIT_OK;
}
