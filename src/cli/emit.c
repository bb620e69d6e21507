#include "cli/emit.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/msg.h"
#include "core/parse.h"
#include "io/colormap.h"
#include "io/figure.h"
#include "io/metajson.h"
#include "io/output.h"

#define PNG_SIZE_MAX 16384
#define PNG_TITLE_MAX 200

#define O(f) offsetof(struct pe_outopts, f)
#define PNG ((1u << PE_FMT_PNG) | (1u << PE_FMT_SVG) | (1u << PE_FMT_PDF))	/* figures */

/* --aspect: auto (0) or equal (1) */
static const char *const aspects[] = { "auto", "equal", NULL };
/* --scale: shared (0) or each (1) */
static const char *const scales[] = { "shared", "each", NULL };

const struct pe_optdef pe_output_rows[] = {
	{ PE_HEADING("Output:") },
	{ PE_FILE("output", 'o', "PATH", O(path),
		  "write to PATH (default - : stdout); files appear whole or not at all") },
	{ PE_TEXT("format", 'f', "FMT", O(format),
		  "csv|json|raw|npy|safetensors|png|svg|pdf (default:\nfrom the extension of -o, else csv)") },
	{ PE_FLAG("force", 0, O(force), "write binary formats to a terminal anyway") },
	{ PE_TEXT("rows", 0, "A:B", O(rows), "only rows A..B-1 of the result (A included, B excluded)") },
	{ PE_U64("threads", 0, "N", O(threads), 1, PE_MAX_THREADS,
		 "worker threads, 1..16 (default: POSENC_THREADS, else the\n"
		 "CPUs); the output bytes do not depend on it") },
	{ PE_FLAG("header", 0, O(header), "csv: start with a header line of column names"),
	  .applies = 1u << PE_FMT_CSV },
	{ PE_FLAG("help", 'h', O(help), "show this help and exit") },
	{ PE_HEADING("Figures (-f png, svg or pdf):") },
	{ PE_TEXT("cmap", 0, "NAME", O(cmap), "viridis (default), magma, inferno, plasma, cividis,\n"
					     "coolwarm, rdbu, gray; NAME_r reversed"), .applies = PNG },
	{ PE_REAL("vmin", 0, "V", O(vmin), PE_REAL_ANY,
		  "value drawn in the first colour (default: data minimum)"), .applies = PNG },
	{ PE_REAL("vmax", 0, "V", O(vmax), PE_REAL_ANY,
		  "value drawn in the last colour (default: data maximum)"), .applies = PNG },
	{ PE_U64("size", 0, "PX", O(size), 1, PNG_SIZE_MAX,
		 "longest side of the heatmap, 1..16384 (default: small\n"
		 "matrices scaled up to about 512, large ones at most 2048)"), .applies = PNG },
	{ PE_TEXT("title", 0, "TEXT", O(title), "a title above the heatmap"), .applies = PNG },
	{ PE_FLAG("colorbar", 0, O(colorbar), "draw the colour bar (the default)"), .applies = PNG },
	{ PE_FLAG("no-colorbar", 0, O(no_colorbar), "leave the colour bar out"), .applies = PNG },
	{ PE_CHOICE("aspect", 0, "A", O(aspect), aspects,
		    "auto (default: the matrix's shape, but at most 1:4) or\n"
		    "equal (one square cell per value, however long)"), .applies = PNG },
	{ PE_CHOICE("scale", 0, "S", O(scale), scales,
		    "panels (heads, files): shared (default: one colour scale\n"
		    "and bar) or each (a scale and bar per panel)"), .applies = PNG },
	{ PE_TEXT("xlabel", 0, "TEXT", O(xlabel),
		  "title of the column axis (default: the result's, e.g.\n"
		  "dimension or position)"), .applies = PNG },
	{ PE_TEXT("ylabel", 0, "TEXT", O(ylabel), "title of the row axis"), .applies = PNG },
	{ PE_FLAG("no-axes", 0, O(no_axes), "the heatmap's pixels alone, as plt.imsave writes them:\n"
					    "no ticks, titles or colour bar (--size: the image's side)"),
	  .applies = PNG },
	{ 0 }
};

#define GIVEN(o, f) pe_args_given((o)->args, &(o)->f)

int pe_outopts_bind(struct pe_outopts *o, struct pe_args *a, struct pe_error *err)
{
	memset(o, 0, sizeof *o);
	o->args = a;
	return pe_args_bind(a, pe_output_rows, o, err);
}

/* The png options given, over the command's defaults in so (the caller
 * has refused them for other formats). */
static int png_opts(const struct pe_outopts *o, struct pe_sink_opts *so, struct pe_error *err)
{
	const char *vmin = GIVEN(o, vmin), *vmax = GIVEN(o, vmax);

	if (o->cmap) {
		so->cmap = pe_colormap_by_name(o->cmap);
		if (so->cmap < 0)
			return pe_fail(err, PE_ERR_USAGE, "unknown --cmap '%s' (one of: %s)", o->cmap,
				       pe_colormap_list());
	}
	if (vmin)
		so->vmin = o->vmin;
	if (vmax)
		so->vmax = o->vmax;
	so->has_vmin |= vmin != NULL;
	so->has_vmax |= vmax != NULL;
	if (so->has_vmin && so->has_vmax && !(so->vmin < so->vmax))
		return vmin && vmax
			       ? pe_fail(err, PE_ERR_USAGE, "--vmin must be below --vmax, got '%s' and '%s'",
					 vmin, vmax)
			       : pe_fail(err, PE_ERR_USAGE, "--%s '%s' leaves an empty colour range (the default %s is %g)",
					 vmin ? "vmin" : "vmax", vmin ? vmin : vmax,
					 vmin ? "vmax" : "vmin", vmin ? so->vmax : so->vmin);
	if (GIVEN(o, size))
		so->size = (unsigned)o->size;
	if (o->title && strlen(o->title) > PNG_TITLE_MAX)
		return pe_fail(err, PE_ERR_USAGE, "--title must be at most %d bytes, got %zu",
			       PNG_TITLE_MAX, strlen(o->title));
	if (o->title)
		so->title = o->title;
	if (o->colorbar && o->no_colorbar)
		return pe_fail(err, PE_ERR_USAGE, "--colorbar and --no-colorbar contradict each other");
	if (o->colorbar || o->no_colorbar)
		so->no_colorbar = o->no_colorbar;
	so->aspect_equal = o->aspect == 1;
	so->scale_each = o->scale == 1;
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

int pe_threads_resolve(const struct pe_outopts *o, int *threads, struct pe_error *err)
{
	const char *env = getenv("POSENC_THREADS");
	uint64_t v;

	if (GIVEN(o, threads)) {
		*threads = (int)o->threads;
		return 0;
	}
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

/* "alibi bias, 12 \u00d7 64 \u00d7 64" (rows A..B-1 of it with --rows):
 * the tensor's name, its shape. */
static void default_title(const struct pe_tensor *t, const struct pe_rowsel *sel, char *buf,
			  size_t n)
{
	size_t k = 0;
	int i;

	for (i = 0; t->name[i] && k + 1 < n; i++)
		buf[k++] = t->name[i] == '_' ? ' ' : t->name[i];
	buf[k] = 0;
	if (sel->active)
		k += (size_t)snprintf(buf + k, n - k, ", rows %llu to %llu of",
				      (unsigned long long)sel->begin,
				      (unsigned long long)(sel->end - 1));
	for (i = 0; i < t->ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%llu",
				      i ? " \xc3\x97 " : sel->active ? " " : k ? ", " : "",
				      (unsigned long long)t->shape[i]);
}

int pe_emit_prepare(struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t0,
		    size_t nt, struct pe_meta *meta, struct pe_error *err)
{
	uint64_t rows = t0->rows;
	const struct pe_optdef *w;

	if (resolve_format(o, &e->format, err) != 0)
		return -1;
	if (nt > 1 && !pe_format_multi(e->format))
		return pe_fail(err, PE_ERR_USAGE,
			       "%s holds one tensor and this result has %zu: use -f safetensors or -f json",
			       pe_format_name(e->format), nt);
	if ((w = pe_args_misplaced(o->args, pe_output_rows, o, 1u << e->format)))
		return w->applies == PNG
			       ? pe_fail(err, PE_ERR_USAGE, "--%s applies to figures only (-f png, svg or pdf, or -o FILE.png)",
					 w->name)
			       : pe_fail(err, PE_ERR_USAGE, "--%s applies to csv output only", w->name);
	if (pe_format_is_figure(e->format) && png_opts(o, &e->so, err) != 0)
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
	if (pe_format_is_figure(e->format) && !o->title && !o->no_axes && !e->so.title) {
		default_title(t0, &e->sel, e->title, sizeof e->title);
		e->so.title = e->title;
	}
	if (!e->pump.threads && pe_threads_resolve(o, &e->pump.threads, err) != 0)
		return -1;
	e->so.header = o->header;
	if (o->col_prefix)
		e->so.col_prefix = o->col_prefix;
	if (meta->oom)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

/* The scan of struct pe_emit: a sink that writes nothing and stops at the
 * first value json cannot hold. */
struct scan_sink {
	struct pe_sink base;
	const struct pe_tensor *t, *cur;
	uint64_t row;		/* rows of cur seen */
};

static int scan_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		      const struct pe_meta *meta, struct pe_error *err)
{
	(void)nt;
	(void)meta;
	(void)err;
	((struct scan_sink *)s)->t = t;
	return 0;
}

static int scan_tensor(struct pe_sink *s, size_t index, struct pe_error *err)
{
	struct scan_sink *c = (struct scan_sink *)s;

	(void)err;
	c->cur = &c->t[index];
	c->row = 0;
	return 0;
}

static int scan_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct scan_sink *c = (struct scan_sink *)s;
	size_t cols = (size_t)c->cur->cols, r, k;
	const float *f = data;

	if (c->cur->dtype == PE_F32)
		for (r = 0; r < nrows; r++)
			for (k = 0; k < cols; k++)
				if (!isfinite(f[r * cols + k]))
					return pe_json_nonfinite(c->cur->name, c->row + r, k,
								 f[r * cols + k], err);
	c->row += nrows;
	return 0;
}

static void scan_destroy(struct pe_sink *s)
{
	(void)s;
}

static const struct pe_sink_ops scan_ops = {
	scan_begin, scan_tensor, scan_rows, pe_sink_nop_end, scan_destroy, NULL, NULL, NULL,
};

/* Refuse a value json cannot hold that is known before the first byte. */
static int json_known(const struct pe_emit *e, const struct pe_tensor *t, size_t nt,
		      const struct pe_meta *meta, struct pe_error *err)
{
	struct scan_sink scan;
	struct pe_pump_opts po = e->pump;
	uint64_t r0 = e->sel.active ? e->sel.begin : 0;
	uint64_t r1 = e->sel.active ? e->sel.end : t[0].rows, row, col;
	float v;

	if (e->known && e->known(e->known_ctx, r0, r1, &row, &col, &v))
		return pe_json_nonfinite(t[0].name, row - r0, col, v, err);
	if (!e->scan)
		return 0;
	memset(&scan, 0, sizeof scan);
	scan.base.ops = &scan_ops;
	po.progress = NULL;
	return pe_pump(t, nt, &e->sel, meta, &scan.base, &po, err);
}

int pe_emit_run(const struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t,
		size_t nt, const struct pe_meta *meta, struct pe_error *err)
{
	struct pe_output out;
	struct pe_sink *sink;

	if (e->format == PE_FMT_JSON && json_known(e, t, nt, meta, err) != 0)
		return -1;
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

int pe_emit_text_check(const struct pe_outopts *o, enum pe_format format, const char *what,
		       struct pe_error *err)
{
	const char *want = pe_format_name(format);
	const struct pe_optdef *w;
	int named = o->path ? pe_format_by_path(o->path) : -1;

	if (o->format && strcmp(o->format, want) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--%s writes %s, not '%s'", what, want, o->format);
	if (!o->format && named >= 0 && named != (int)format)
		return pe_fail(err, PE_ERR_USAGE, "--%s writes %s; '%s' names %s output", what, want,
			       o->path, pe_format_name((enum pe_format)named));
	if ((w = pe_args_misplaced(o->args, pe_output_rows, o, 0)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --%s, which writes %s of its own",
			       w->name, what, want);
	return 0;
}

int pe_emit_text(const struct pe_outopts *o, enum pe_format format, const char *what,
		 int (*write)(FILE *fp, void *ctx, struct pe_error *err), void *ctx,
		 struct pe_error *err)
{
	struct pe_output out;

	if (pe_emit_text_check(o, format, what, err) != 0)
		return -1;
	if (pe_output_open(&out, o->path, 0, o->force, err) != 0)
		return -1;
	if (write(out.fp, ctx, err) != 0) {
		pe_output_abort(&out);
		return -1;
	}
	return pe_output_commit(&out, err);
}

int pe_emit_is_figure(const struct pe_outopts *o)
{
	struct pe_error err;
	enum pe_format f;

	return resolve_format(o, &f, &err) == 0 && pe_format_is_figure(f);
}

/* The figure options that mean nothing for a line chart. */
static const char *chart_misfit(const struct pe_outopts *o)
{
	return o->cmap ? "cmap" : GIVEN(o, vmin) ? "vmin" : GIVEN(o, vmax) ? "vmax"
	     : o->colorbar ? "colorbar" : o->no_colorbar ? "no-colorbar"
	     : GIVEN(o, aspect) ? "aspect" : GIVEN(o, scale) ? "scale"
	     : o->no_axes ? "no-axes" : o->rows ? "rows"
	     : o->header ? "header" : NULL;
}

int pe_emit_figure_opts(const struct pe_outopts *o, struct pe_sink_opts *so, int chart,
			struct pe_error *err)
{
	const char *w;

	if (!pe_emit_is_figure(o)) {
		if (resolve_format(o, &(enum pe_format){ PE_FMT_CSV }, err) != 0)
			return -1;
		return pe_fail(err, PE_ERR_USAGE, "%s is a figure: give -o FILE.png, .svg or .pdf, or -f png, svg or pdf",
			       chart ? "a line chart" : "this");
	}
	if (chart && (w = chart_misfit(o)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to a line chart", w);
	if (o->rows || o->header)
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to a figure of whole files",
			       o->rows ? "rows" : "header");
	return png_opts(o, so, err);
}

int pe_emit_figure(const struct pe_outopts *o, const struct pe_fig *f, const struct pe_meta *meta,
		   struct pe_error *err)
{
	struct pe_fig_layout L;
	struct pe_fig_doc doc = { NULL, NULL, NULL };
	struct pe_output out;
	enum pe_format fmt;
	char *mj = NULL, *geo = NULL;
	int rc = -1;

	memset(&L, 0, sizeof L);
	if (resolve_format(o, &fmt, err) != 0)
		return -1;
	if (!(mj = pe_meta_json(meta))) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (pe_fig_plan(f, &L, err) != 0)
		goto out;
	geo = pe_fig_geometry(f, &L);
	doc.title = f->title;
	doc.meta = mj;
	doc.geometry = geo;
	if (pe_output_open(&out, o->path, pe_format_is_binary(fmt), o->force, err) != 0)
		goto out;
	if (pe_fig_write(f, &L, fmt == PE_FMT_PNG ? PE_FIG_PNG : fmt == PE_FMT_SVG ? PE_FIG_SVG
									 : PE_FIG_PDF,
			 out.fp, &doc, err) != 0) {
		pe_output_abort(&out);
		goto out;
	}
	rc = pe_output_commit(&out, err);
out:
	pe_fig_layout_free(&L);
	free(mj);
	free(geo);
	return rc;
}

int pe_emit_charts(const struct pe_outopts *o, const struct pe_chart *const *c,
		   const char *const *titles, size_t n, const char *title,
		   const struct pe_meta *meta, struct pe_error *err)
{
	struct pe_sink_opts so;
	struct pe_fig_panel *panel = NULL;
	struct pe_fig f;
	char *t = NULL, *xl = NULL, *yl = NULL;
	size_t i;
	int rc = -1;

	memset(&so, 0, sizeof so);
	if (pe_emit_figure_opts(o, &so, 1, err) != 0)
		return -1;
	if (n == 0)
		return pe_fail(err, PE_ERR_USAGE, "there is no curve to draw");
	if (o->title)
		title = *o->title ? o->title : NULL;	/* --title '': none */
	memset(&f, 0, sizeof f);
	panel = calloc(n, sizeof *panel);
	if (!panel || (title && !(t = pe_utf8_clean(title))) ||
	    ((o->xlabel || c[0]->xlabel) && !(xl = pe_utf8_clean(o->xlabel ? o->xlabel : c[0]->xlabel))) ||
	    ((o->ylabel || c[0]->ylabel) && !(yl = pe_utf8_clean(o->ylabel ? o->ylabel : c[0]->ylabel)))) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		panel[i].chart = c[i];
		panel[i].title = titles && titles[i] && *titles[i] ? titles[i] : NULL;
	}
	f.panels = panel;
	f.n = n;
	f.nc = n < 2 ? 1 : 2;
	f.nr = (uint32_t)((n + f.nc - 1) / f.nc);
	f.title = t;
	f.xlabel = xl;
	f.ylabel = yl;
	if (so.size) {
		f.chart_w = so.size;
		f.chart_h = so.size * 5 / 8 ? so.size * 5 / 8 : 1;
	}
	rc = pe_emit_figure(o, &f, meta, err);
out:
	free(panel);
	free(t);
	free(xl);
	free(yl);
	return rc;
}

int pe_emit_chart(const struct pe_outopts *o, const struct pe_chart *c, const char *title,
		  const struct pe_meta *meta, struct pe_error *err)
{
	return pe_emit_charts(o, &c, NULL, 1, title, meta, err);
}
