/*
 * posenc plot: draw files you already have -- any table as a heatmap, any
 * curve (a csv whose first line names its columns) as a line chart;
 * several files become panels side by side, titled by file.
 * Recipe: parse; the figure options (cli/emit.h); read every file
 * (cli/tablein.h) and its column names (io/curves.h); heatmaps into cell
 * models (io/heatmap.h) on one colour scale or each its own, curves into
 * series; one figure (io/figure.h); emit.
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
#include "io/colormap.h"
#include "io/curves.h"
#include "io/figure.h"
#include "io/heatmap.h"
#include "io/metajson.h"

#define PLOT_FILES_MAX 64
#define PANEL_AUTO 512		/* a panel's longer side when several share a figure */

enum { KIND_AUTO = -1, KIND_HEATMAP = 0, KIND_LINE = 1 };

struct plot_opts {
	const char *tensor, *shape, *titles;
	int kind, logx, logy;
};

#define O(f) offsetof(struct plot_opts, f)

static const char *const kinds[] = { "heatmap", "line", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("What to draw (FILE: npy, safetensors, csv, or raw with --shape; - is stdin):") },
	{ PE_CHOICE("kind", 0, "K", O(kind), kinds,
		    "heatmap or line (default: line for a csv whose first line\n"
		    "names its columns, else heatmap)") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "safetensors: the tensor to read (default: the only one, or\n"
						  "the position table)") },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "the files are raw little-endian float32, R rows of C") },
	{ PE_TEXT("titles", 0, "A,B,...", O(titles), "panel titles, one per FILE (default: the file names)") },
	{ PE_FLAG("logx", 0, O(logx), "line: a logarithmic x axis") },
	{ PE_FLAG("logy", 0, O(logy), "line: a logarithmic y axis") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc plot FILE... [--kind heatmap|line] [--scale shared|each] [OPTIONS] -o OUT\n"
	"Draw tables and curves you already have: a table as a heatmap, a csv whose\n"
	"first line names its columns as a line chart (the first column is x, each\n"
	"other one a series; a single column is drawn against its row index).\n"
	"Several files become panels side by side, titled by file (or --titles).\n"
	"OUT is a .png, .svg or .pdf (or -f png|svg|pdf).\n";

struct file {
	const char *path, *title;
	struct pe_matrix m;
	struct pe_names names;
	struct pe_heatmap hm;
	struct pe_colorscale cs;
	struct pe_series *series;
	struct pe_chart chart;
	double *xs;
};

struct job {
	struct pe_args args;
	struct plot_opts o;
	struct pe_outopts out;
	struct pe_sink_opts so;
	struct file *f;
	size_t n;
	int kind;
	char *titles;		/* --titles, split in place */
	char *title, *xlabel, *ylabel;
	struct pe_colorscale shared;
	struct pe_fig_panel *panels;
	struct pe_meta meta;
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return strcmp(path, "-") == 0 ? "stdin" : s ? s + 1 : path;
}

/* --titles: one per file, split at commas into j->f[k].title. */
static int split_titles(struct job *j, struct pe_error *err)
{
	size_t k = 0, len;
	char *p, *c;

	if (!j->o.titles)
		return 0;
	len = strlen(j->o.titles) + 1;
	if (!(j->titles = malloc(len)))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	memcpy(j->titles, j->o.titles, len);
	for (p = j->titles; p; p = c ? c + 1 : NULL, k++) {
		c = strchr(p, ',');
		if (c)
			*c = 0;
		if (k < j->n)
			j->f[k].title = p;
	}
	if (k != j->n)
		return pe_fail(err, PE_ERR_USAGE, "--titles names %zu panels and there %s %zu file%s, got '%s'",
			       k, j->n == 1 ? "is" : "are", j->n, j->n == 1 ? "" : "s", j->o.titles);
	return 0;
}

static int read_files(struct job *j, struct pe_error *err)
{
	struct pe_tablein in = {
		.tensor = j->o.tensor,
		.shape = j->o.shape,
		.shape_opt = "shape",
		.header_names = 1,
	};
	size_t k, stdin_uses = 0;
	int kind;

	for (k = 0; k < j->n; k++) {
		struct file *f = &j->f[k];

		f->path = j->args.operands[k];
		stdin_uses += strcmp(f->path, "-") == 0;
		if (!f->title)
			f->title = base_name(f->path);
	}
	if (stdin_uses > 1)
		return pe_fail(err, PE_ERR_USAGE, "stdin (-) can be read once, and is named %zu times",
			       stdin_uses);
	for (k = 0; k < j->n; k++) {
		struct file *f = &j->f[k];

		in.path = f->path;
		if (pe_tablein_read(&in, NULL, PE_TABLEIN_INPUT, &f->m, err) != 0)
			return -1;
		if (!j->o.shape && pe_names_read(f->path, &f->names, err) != 0)
			return -1;
		if (f->names.n && f->names.n != f->m.cols)
			pe_names_free(&f->names);	/* not this table's header */
		kind = GIVEN(j, kind) ? j->o.kind : f->names.n ? KIND_LINE : KIND_HEATMAP;
		if (k > 0 && kind != j->kind)
			return pe_fail(err, PE_ERR_USAGE, "'%s' is %s and '%s' %s: give --kind heatmap or --kind line",
				       j->f[0].path, j->kind == KIND_LINE ? "a curve" : "a table", f->path,
				       kind == KIND_LINE ? "a curve" : "a table");
		j->kind = kind;
	}
	return 0;
}

/* matrix rows into the cell model, as a sink would get them */
static int begin_heatmap(struct job *j, struct file *f, uint32_t nc, struct pe_error *err)
{
	struct pe_tensor t;
	uint64_t shape[2] = { f->m.rows, f->m.cols };
	struct pe_heatmap_geom g = { 0, j->so.aspect_equal, j->so.no_axes };

	g.size = j->so.size ? j->so.size / nc : nc == 1 ? 0 : PANEL_AUTO;
	if (j->so.size && g.size == 0)
		return pe_fail(err, PE_ERR_USAGE, "%u panels side by side need --size %u or more", nc,
			       nc);
	if (pe_tensor_init(&t, "plot", PE_F32, NULL, NULL, 0, 2, shape, err) != 0 ||
	    pe_heatmap_shape(&f->hm, &t, err) != 0 || pe_heatmap_begin(&f->hm, &g, err) != 0)
		return -1;
	pe_heatmap_rows(&f->hm, f->m.v, (size_t)f->m.rows);
	pe_matrix_free(&f->m);
	return 0;
}

/*
 * A range for one panel or all: --vmin / --vmax, else the data's; signed
 * data without --cmap gets coolwarm centred on 0 (-m .. m, m the largest
 * magnitude), so 0 is the neutral colour and the sign is read at a glance.
 */
static int colorscale(struct job *j, double lo, double hi, int finite, struct pe_colorscale *cs,
		      int has_nan, int has_ninf, int has_pinf, struct pe_error *err)
{
	int cmap = j->so.cmap, diverging = 0;
	double m;

	if (!finite) {
		lo = 0;
		hi = 1;
	}
	if (!j->out.cmap && finite && lo < 0 && hi > 0 && !j->so.has_vmin && !j->so.has_vmax) {
		cmap = pe_colormap_by_name("coolwarm");
		m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
		lo = -m;
		hi = m;
		diverging = 1;
	}
	if (j->so.has_vmin)
		lo = j->so.vmin;
	if (j->so.has_vmax)
		hi = j->so.vmax;
	if (!(lo < hi) && (j->so.has_vmin || j->so.has_vmax))
		return pe_fail(err, PE_ERR_USAGE, "--%s leaves an empty colour range (the data's %s is %g)",
			       j->so.has_vmin ? "vmin" : "vmax", j->so.has_vmin ? "maximum" : "minimum",
			       j->so.has_vmin ? hi : lo);
	(void)diverging;
	pe_colorscale_range(cs, cmap, lo, hi);
	cs->inf_colours = !j->so.no_axes;
	cs->has_nan = has_nan;
	cs->has_ninf = has_ninf;
	cs->has_pinf = has_pinf;
	return 0;
}

static int heatmaps(struct job *j, struct pe_fig *fig, struct pe_error *err)
{
	double lo = 0, hi = 0;
	int finite = 0, nan = 0, ninf = 0, pinf = 0;
	size_t k;

	for (k = 0; k < j->n; k++)
		if (begin_heatmap(j, &j->f[k], fig->nc, err) != 0)
			return -1;
	for (k = 0; k < j->n; k++) {
		struct pe_heatmap *h = &j->f[k].hm;
		struct pe_fig_panel *p = &j->panels[k];

		if (h->finite) {
			lo = !finite || h->min < lo ? h->min : lo;
			hi = !finite || h->max > hi ? h->max : hi;
			finite = 1;
		}
		nan |= h->has_nan;
		ninf |= h->has_ninf;
		pinf |= h->has_pinf;
		p->hm = h;
		p->row_step = p->col_step = 1;
		if (j->n > 1)
			p->title = j->f[k].title;
		if (j->so.scale_each) {
			if (colorscale(j, h->min, h->max, h->finite, &j->f[k].cs, h->has_nan,
				       h->has_ninf, h->has_pinf, err) != 0)
				return -1;
			p->cs = &j->f[k].cs;
			p->colorbar = !j->so.no_colorbar && !j->so.no_axes;
		} else {
			p->cs = &j->shared;
		}
	}
	if (!j->so.scale_each) {
		if (colorscale(j, lo, hi, finite, &j->shared, nan, ninf, pinf, err) != 0)
			return -1;
		if (!j->so.no_colorbar && !j->so.no_axes)
			fig->colorbar = &j->shared;
	}
	return 0;
}

/* A curve file: the first column is x, each other one a series named by
 * the header; a single column is y against its row index. */
static int charts(struct job *j, struct pe_fig *fig, struct pe_error *err)
{
	size_t k, s, i;

	(void)fig;
	for (k = 0; k < j->n; k++) {
		struct file *f = &j->f[k];
		struct pe_fig_panel *p = &j->panels[k];
		size_t R = (size_t)f->m.rows, C = (size_t)f->m.cols, ns = C > 1 ? C - 1 : 1;

		f->xs = malloc(R * (ns + 1) * sizeof *f->xs);
		f->series = calloc(ns, sizeof *f->series);
		if (!f->xs || !f->series)
			return pe_fail(err, PE_ERR_NOMEM, "out of memory");
		for (i = 0; i < R; i++) {
			f->xs[i] = C > 1 ? (double)f->m.v[i * C] : (double)i;
			for (s = 0; s < ns; s++)
				f->xs[R * (s + 1) + i] = (double)f->m.v[i * C + (C > 1 ? s + 1 : 0)];
		}
		for (s = 0; s < ns; s++) {
			f->series[s].x = f->xs;
			f->series[s].y = f->xs + R * (s + 1);
			f->series[s].n = R;
			if (f->names.n && (ns > 1 || C == 1))
				f->series[s].name = f->names.name[C > 1 ? s + 1 : 0];
		}
		f->chart.series = f->series;
		f->chart.nseries = ns;
		f->chart.logx = j->o.logx;
		f->chart.logy = j->o.logy;
		p->chart = &f->chart;
		if (j->n > 1)
			p->title = f->title;
	}
	return 0;
}

static int clean(const char *s, char **out, struct pe_error *err)
{
	*out = NULL;
	if (s && !(*out = pe_utf8_clean(s)))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

static int draw(struct job *j, struct pe_error *err)
{
	struct pe_fig fig;
	const struct file *f0 = &j->f[0];
	const char *title, *xl, *yl;
	char *inputs;
	size_t k, len;

	memset(&fig, 0, sizeof fig);
	j->panels = calloc(j->n, sizeof *j->panels);
	if (!j->panels)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	fig.panels = j->panels;
	fig.n = j->n;
	fig.nc = (uint32_t)(j->n <= 4 ? j->n : (size_t)ceil(sqrt((double)j->n)));
	fig.nr = (uint32_t)((j->n + fig.nc - 1) / fig.nc);
	fig.no_axes = j->so.no_axes && j->kind == KIND_HEATMAP;
	if ((j->kind == KIND_HEATMAP ? heatmaps(j, &fig, err) : charts(j, &fig, err)) != 0)
		return -1;
	/* the title: --title ('' for none), else one file's name */
	title = j->out.title ? (*j->out.title ? j->out.title : NULL)
			     : j->n == 1 ? f0->title : NULL;
	xl = j->out.xlabel ? j->out.xlabel
	   : j->kind == KIND_LINE && f0->names.n && f0->m.cols > 1 ? f0->names.name[0] : NULL;
	yl = j->out.ylabel ? j->out.ylabel
	   : j->kind == KIND_LINE && f0->names.n && f0->m.cols == 2 ? f0->names.name[1] : NULL;
	if (fig.no_axes)
		title = xl = yl = NULL;
	if (clean(title, &j->title, err) != 0 || clean(xl, &j->xlabel, err) != 0 ||
	    clean(yl, &j->ylabel, err) != 0)
		return -1;
	fig.title = j->title;
	fig.xlabel = j->xlabel;
	fig.ylabel = j->ylabel;
	if (j->kind == KIND_LINE && j->so.size) {
		fig.chart_w = j->so.size / fig.nc ? j->so.size / fig.nc : 1;
		fig.chart_h = fig.chart_w * 5 / 8 ? fig.chart_w * 5 / 8 : 1;
	}
	pe_meta_str(&j->meta, "command", "plot");
	pe_meta_str(&j->meta, "kind", kinds[j->kind]);
	for (k = 0, len = 1; k < j->n; k++)
		len += strlen(base_name(j->f[k].path)) + 2;
	if (!(inputs = malloc(len)))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	for (k = 0, len = 0; k < j->n; k++)
		len += (size_t)sprintf(inputs + len, "%s%s", k ? ", " : "", base_name(j->f[k].path));
	pe_meta_str(&j->meta, "inputs", inputs);
	free(inputs);
	return pe_emit_figure(&j->out, &fig, &j->meta, err);
}

static int plot(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job j;
	size_t k;
	int rc;

	memset(&j, 0, sizeof j);
	pe_meta_init(&j.meta);
	if (pe_command_parse(cmd, &j.args, argc, argv, &err) != 0 ||
	    pe_args_bind(&j.args, rows, &j.o, &err) != 0 ||
	    pe_outopts_bind(&j.out, &j.args, &err) != 0)
		goto fail;
	if (j.args.noperands == 0) {
		pe_fail(&err, PE_ERR_USAGE, "give the FILE(s) to draw");
		goto fail;
	}
	if (j.args.noperands > PLOT_FILES_MAX) {
		pe_fail(&err, PE_ERR_USAGE, "at most %d files make one figure, got %d", PLOT_FILES_MAX,
			j.args.noperands);
		goto fail;
	}
	if (!GIVEN(&j, kind))
		j.o.kind = KIND_AUTO;
	j.n = (size_t)j.args.noperands;
	j.f = calloc(j.n, sizeof *j.f);
	if (!j.f) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (split_titles(&j, &err) != 0)
		goto fail;
	/* the options first: a wrong -o fails before any file is read */
	if (pe_emit_figure_opts(&j.out, &j.so, j.o.kind == KIND_LINE, &err) != 0)
		goto fail;
	if (read_files(&j, &err) != 0)
		goto fail;
	if (j.kind == KIND_LINE && pe_emit_figure_opts(&j.out, &j.so, 1, &err) != 0)
		goto fail;
	if (j.kind == KIND_HEATMAP && (j.o.logx || j.o.logy)) {
		pe_fail(&err, PE_ERR_USAGE, "--%s applies to line charts", j.o.logx ? "logx" : "logy");
		goto fail;
	}
	if (draw(&j, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &j.args, NULL);
	rc = pe_msg_report("plot", &err);
done:
	for (k = 0; j.f && k < j.n; k++) {
		pe_matrix_free(&j.f[k].m);
		pe_names_free(&j.f[k].names);
		pe_heatmap_free(&j.f[k].hm);
		pe_colorscale_free(&j.f[k].cs);
		free(j.f[k].series);
		free(j.f[k].xs);
	}
	free(j.f);
	free(j.panels);
	free(j.titles);
	free(j.title);
	free(j.xlabel);
	free(j.ylabel);
	pe_meta_free(&j.meta);
	pe_args_free(&j.args);
	return rc;
}

const struct pe_command pe_cmd_plot = {
	"plot", "draw table and curve files as heatmaps or line charts, side by side", usage, rows,
	PE_CMD_OUTPUT | PE_CMD_FILES, plot
};
