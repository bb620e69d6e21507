/*
 * emit.h - the output options every command shares and the last step of
 * every command.
 *
 * Calling sequence:
 *   pe_outopts_bind(&out, &args, err)        the output rows, typed
 *   pe_emit_prepare(&e, &out, t0, nt, meta)  format, png options over the
 *       command's defaults in e.so, --rows, --threads
 *   pe_emit_run(&e, &out, t, nt, meta)       open, sink, pump, commit
 * or, for a result that is text of its own (similarity --stats):
 *   pe_emit_text(&out, format, what, write, ctx, err)
 * On failure nothing is left behind.
 */
#ifndef PE_EMIT_H
#define PE_EMIT_H

#include <stdio.h>

#include "cli/opt.h"
#include "core/meta.h"
#include "core/pipeline.h"
#include "core/tensor.h"
#include "io/sink.h"

/* The output options, as the rows of pe_output_rows fill them. */
struct pe_outopts {
	const struct pe_args *args;	/* what was given */
	const char *path, *format, *rows, *cmap, *title, *xlabel, *ylabel;
	uint64_t threads, size;
	double vmin, vmax;
	int force, header, help, colorbar, no_colorbar, no_axes, aspect, scale;
	const char *col_prefix;		/* csv header column prefix (the command's) */
};

/* The output rows, composed into every command's table. */
extern const struct pe_optdef pe_output_rows[];

/* Bind the output rows of args into o (zeroed first). */
int pe_outopts_bind(struct pe_outopts *o, struct pe_args *a, struct pe_error *err);

/*
 * json has no nan or infinity, and once its first bytes are out on a
 * stream (stdout, a pipe) a failure leaves half a document.  So what a
 * command knows before the first byte is refused before the output is
 * opened, with the json sink's own message (PE_ERR_DATA):
 *   known  the command's test, for a result too costly to compute twice:
 *          a cell of the rows [r0, r1) (those written) of t[0] known to be
 *          nan or an infinity: 1 with *row (in the result), *col and *v
 *          set, else 0.  May be NULL.
 *   scan   the result is a gather from tables in memory (skew, a bucket
 *          bias), cheap beside json's text: pe_emit_run computes it once
 *          before opening the output and refuses the first such value.
 * A value that only the full computation reveals (a similarity that
 * overflows) still fails where it is met.
 */
struct pe_emit {
	enum pe_format format;
	struct pe_sink_opts so;		/* the command's defaults, then the options */
	char title[192];		/* a figure's default title, when the command set none */
	struct pe_rowsel sel;
	struct pe_pump_opts pump;
	int (*known)(const void *ctx, uint64_t r0, uint64_t r1, uint64_t *row, uint64_t *col,
		     float *v);
	const void *known_ctx;
	int scan;
};

/*
 * Resolve the output options for a result of nt tensors whose first is
 * t0: the format, the png options over the command's defaults already in
 * e->so (e is otherwise zeroed by the caller), --rows (checked against
 * t0's rows, added to meta; png row labels follow it), --threads (unless
 * the caller has set e->pump.threads).  A figure without --title gets the
 * command's e->so.title, else one that says what was drawn: t0's name and
 * shape ("alibi bias, 12 x 64 x 64"); --title '' leaves it out.
 * Returns 0 or -1.
 */
int pe_emit_prepare(struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t0,
		    size_t nt, struct pe_meta *meta, struct pe_error *err);

/* Open the output, pump the tensors into the format's sink and commit;
 * on failure nothing is left behind (json: what is known to fail fails
 * before the output is opened, see above).  Returns 0 or -1. */
int pe_emit_run(const struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t,
		size_t nt, const struct pe_meta *meta, struct pe_error *err);

/*
 * A result written by the command itself in one format (what: the option
 * that asked for it, e.g. "stats"): -f and -o's extension must agree with
 * format, and the figure and csv-header options do not apply.  Opens -o,
 * calls write(fp, ctx, err), commits.  Returns 0 or -1.
 */
int pe_emit_text(const struct pe_outopts *o, enum pe_format format, const char *what,
		 int (*write)(FILE *fp, void *ctx, struct pe_error *err), void *ctx,
		 struct pe_error *err);

/* Does -f or -o's extension ask for a figure (png, svg, pdf)? */
int pe_emit_is_figure(const struct pe_outopts *o);

/*
 * A curve result drawn as a line chart (io/figure.h) to -o: title is the
 * default title (--title overrides it, --title '' leaves it out), the
 * chart's axis titles give way to --xlabel / --ylabel, --size is the plot
 * area's width (its height 5/8 of it); the heatmap options are usage
 * errors.  Opens, draws, commits.  Returns 0 or -1.
 */
struct pe_chart;
int pe_emit_chart(const struct pe_outopts *o, const struct pe_chart *c, const char *title,
		  const struct pe_meta *meta, struct pe_error *err);

/* The same for n charts side by side (two a row), chart i titled
 * titles[i] (titles or an entry NULL or empty: untitled); the axis titles
 * are c[0]'s. */
int pe_emit_charts(const struct pe_outopts *o, const struct pe_chart *const *c,
		   const char *const *titles, size_t n, const char *title,
		   const struct pe_meta *meta, struct pe_error *err);

/*
 * The figure options of a command that draws a figure of its own (posenc
 * plot) over so: -f / -o must name a figure format; with chart, the
 * heatmap options are usage errors; --rows and --header always are.
 */
int pe_emit_figure_opts(const struct pe_outopts *o, struct pe_sink_opts *so, int chart,
			struct pe_error *err);

/* Plan f, open -o, write f in its format (with meta, and the geometry of
 * heatmap panels), commit.  Returns 0 or -1. */
struct pe_fig;
int pe_emit_figure(const struct pe_outopts *o, const struct pe_fig *f, const struct pe_meta *meta,
		   struct pe_error *err);

/* pe_emit_text's checks of the options alone, for a command to make
 * before its work. */
int pe_emit_text_check(const struct pe_outopts *o, enum pe_format format, const char *what,
		       struct pe_error *err);

/* The thread count: --threads, else POSENC_THREADS when set and not
 * empty, else the CPUs.  A bad value of the variable is a usage error. */
int pe_threads_resolve(const struct pe_outopts *o, int *threads, struct pe_error *err);

#endif
