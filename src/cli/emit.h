/*
 * emit.h - the output options every command shares and the last step of
 * every command: resolve the options (pe_emit_prepare), then open the
 * output, make the sink, pump and commit (pe_emit_run).  A command that
 * needs no special defaults calls pe_emit, which does both and reports.
 */
#ifndef PE_EMIT_H
#define PE_EMIT_H

#include "cli/opt.h"
#include "core/meta.h"
#include "core/pipeline.h"
#include "core/tensor.h"
#include "io/sink.h"

/* Table rows for the output options; commands put this in their table. */
#define PE_OUTPUT_OPTDEFS                                                                  \
	{ NULL, 0, NULL, "Output:" },                                                      \
	{ "output", 'o', "PATH", "write to PATH (default - : stdout); files appear whole or not at all" }, \
	{ "format", 'f', "FMT", "csv|json|raw|npy|safetensors|png (default: from the\nextension of -o, else csv)" }, \
	{ "force", 0, NULL, "write binary formats to a terminal anyway" },                 \
	{ "rows", 0, "A:B", "only rows A..B-1 of the result (A included, B excluded)" },   \
	{ "threads", 0, "N", "worker threads, 1..16 (default: POSENC_THREADS, else the\n" \
			     "CPUs); the output bytes do not depend on it" },            \
	{ "header", 0, NULL, "csv: start with a header line of column names" },            \
	{ "help", 'h', NULL, "show this help and exit" },                                  \
	{ NULL, 0, NULL, "PNG heatmap (-f png):" },                                        \
	{ "cmap", 0, "NAME", "viridis (default), magma, inferno, plasma, cividis,\n"      \
			     "coolwarm, rdbu, gray; NAME_r reversed" },                   \
	{ "vmin", 0, "V", "value drawn in the first colour (default: data minimum)" },   \
	{ "vmax", 0, "V", "value drawn in the last colour (default: data maximum)" },    \
	{ "size", 0, "PX", "longest side of the heatmap, 1..16384 (default: small\n"    \
			   "matrices scaled up to about 512, large ones at most 2048)" }, \
	{ "title", 0, "TEXT", "a title above the heatmap" },                              \
	{ "colorbar", 0, NULL, "draw the colour bar (the default)" },                    \
	{ "no-colorbar", 0, NULL, "leave the colour bar out" },                          \
	{ "aspect", 0, "A", "auto (default: the matrix's shape, but at most 1:4) or\n"   \
			    "equal (one square cell per value, however long)" },          \
	{ "xlabel", 0, "TEXT", "title of the column axis (default: the result's, e.g.\n" \
			       "dimension or position)" },                                \
	{ "ylabel", 0, "TEXT", "title of the row axis" },                                \
	{ "no-axes", 0, NULL, "the heatmap's pixels alone, as plt.imsave writes them:\n" \
			      "no ticks, titles or colour bar (--size: the image's side)" }

struct pe_outopts {
	const char *path, *format, *rows, *threads;
	int force, header;
	const char *col_prefix;	/* csv header column prefix */
	/* png options as given (NULL / 0: absent), parsed by pe_emit */
	const char *cmap, *vmin, *vmax, *size, *title, *aspect, *xlabel, *ylabel;
	int colorbar, no_colorbar, no_axes;
};

/* --aspect's names, in order (auto, equal). */
extern const char *const pe_emit_aspects[];

/* Is name (without "--") one of the options of PE_OUTPUT_OPTDEFS?  They
 * apply to every kind of every command. */
int pe_outopt_is(const char *name);

/* Read the output options from a parsed value table. */
void pe_outopts_get(struct pe_outopts *o, const struct pe_optdef *defs, size_t ndefs,
		    const char **values);

struct pe_emit {
	enum pe_format format;
	struct pe_sink_opts so;		/* the command's defaults, then the options */
	struct pe_rowsel sel;
	struct pe_pump_opts pump;
};

/*
 * Resolve the output options for a result of nt tensors whose first is
 * t0: the format, the png options over the command's defaults already in
 * e->so (e is otherwise zeroed by the caller), --rows (checked against
 * t0's rows, added to meta; png row labels follow it), --threads.
 * Returns 0 or -1.
 */
int pe_emit_prepare(struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t0,
		    size_t nt, struct pe_meta *meta, struct pe_error *err);

/* Open the output, pump the tensors into the format's sink and commit;
 * on failure nothing is left behind.  Returns 0 or -1. */
int pe_emit_run(const struct pe_emit *e, const struct pe_outopts *o, const struct pe_tensor *t,
		size_t nt, const struct pe_meta *meta, struct pe_error *err);

/*
 * Both of the above with no command defaults; returns the exit status,
 * having printed any error for command cmd.
 */
int pe_emit(const char *cmd, const struct pe_outopts *o, const struct pe_tensor *t, size_t nt,
	    struct pe_meta *meta);

/* The thread count: --threads (opt, may be NULL), else POSENC_THREADS
 * when set and not empty, else the CPUs.  A bad value of either is a
 * usage error. */
int pe_threads_resolve(const char *opt, int *threads, struct pe_error *err);

#endif
