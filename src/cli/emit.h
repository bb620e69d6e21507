/*
 * emit.h - the output options every command shares and the last step of
 * every command: open the output, make the sink, pump, commit.
 */
#ifndef PE_EMIT_H
#define PE_EMIT_H

#include "cli/opt.h"
#include "core/meta.h"
#include "core/tensor.h"

/* Table rows for the output options; commands put this in their table. */
#define PE_OUTPUT_OPTDEFS                                                                  \
	{ NULL, 0, NULL, "Output:" },                                                      \
	{ "output", 'o', "PATH", "write to PATH (default - : stdout); files appear whole or not at all" }, \
	{ "format", 'f', "FMT", "csv|json|raw|npy|safetensors|png (default: from the\nextension of -o, else csv)" }, \
	{ "force", 0, NULL, "write binary formats to a terminal anyway" },                 \
	{ "rows", 0, "A:B", "only rows A..B-1 of the result (A included, B excluded)" },   \
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
	{ "no-colorbar", 0, NULL, "leave the colour bar out" }

struct pe_outopts {
	const char *path, *format, *rows;
	int force, header;
	const char *col_prefix;	/* csv header column prefix */
	/* png options as given (NULL / 0: absent), parsed by pe_emit */
	const char *cmap, *vmin, *vmax, *size, *title;
	int colorbar, no_colorbar;
};

/* Is name (without "--") one of the options of PE_OUTPUT_OPTDEFS?  They
 * apply to every kind of every command. */
int pe_outopt_is(const char *name);

/* Read the output options from a parsed value table. */
void pe_outopts_get(struct pe_outopts *o, const struct pe_optdef *defs, size_t ndefs,
		    const char **values);

/*
 * Write nt tensors with meta as the options say and return the exit
 * status, having printed any error for command cmd.  Adds the row
 * selection to meta.
 */
int pe_emit(const char *cmd, const struct pe_outopts *o, const struct pe_tensor *t, size_t nt,
	    struct pe_meta *meta);

#endif
