/*
 * sink.h - the writers, one per format, behind struct pe_sink
 * (core/pipeline.h).  A sink writes to a FILE it does not own; the caller
 * opens and commits it (io/output.h) and destroys the sink.
 *
 *   csv          one row per line, shortest round-trip text, optional header
 *   json         {"shape","dtype","meta","data"}; several tensors under "tensors"
 *   raw          little-endian float32 / int32, row-major, no header
 *   npy          NumPy v1.0, '<f4' / '<i4', header padded to 64 bytes
 *   safetensors  one or more tensors + "__metadata__", header padded to 8 bytes
 *   png          a heatmap of one tensor, 8-bit RGB, parameters in text chunks
 *   svg, pdf     the same figure as vector graphics (sink_png.c, io/figure.h)
 */
#ifndef PE_SINK_H
#define PE_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/grid.h"
#include "core/pipeline.h"

enum pe_format {
	PE_FMT_CSV,
	PE_FMT_JSON,
	PE_FMT_RAW,
	PE_FMT_NPY,
	PE_FMT_SAFETENSORS,
	PE_FMT_PNG,
	PE_FMT_SVG,
	PE_FMT_PDF,
	PE_FMT_COUNT
};

struct pe_sink_opts {
	int header;		/* csv: write a header line */
	const char *col_prefix;	/* csv header: column k is named prefix + label ("c"),
				 * the label col_origin + k * col_step as for png */
	const char *col_names;	/* csv header: these comma-separated names instead
				 * (one per column; must outlive the sink) */
	/* png; all zero means: viridis, the data's range, automatic size,
	 * no title, a colour bar */
	int cmap;		/* io/colormap.h index */
	int has_vmin, has_vmax;	/* else the data's finite minimum / maximum */
	double vmin, vmax;	/* finite; vmin < vmax when both are given */
	unsigned size;		/* longest side of the heatmap in pixels, 0: automatic */
	const char *title;	/* NULL: none; must outlive the sink */
	int no_colorbar;
	/* png axes: the tick label of the tensor's row i is row_origin +
	 * i * row_step, of column j col_origin + j * col_step (steps 0 mean 1),
	 * so ticks can show real positions (a 1-D tensor's rows are drawn
	 * across, labelled the same way); xlabel / ylabel title the column /
	 * row axis (NULL: no title; must outlive the sink) */
	int64_t row_origin, col_origin;
	uint64_t row_step, col_step;
	const char *xlabel, *ylabel;
	/* png shape: the heatmap keeps the matrix's aspect ratio up to 1:4 and
	 * is squeezed to 1:4 beyond (long axis averaged, or short one
	 * repeated), unless aspect_equal; a 3-D result (H x N x M) is a grid of
	 * H panels titled "head K" with one colour scale.  no_axes: the
	 * heatmap's pixels alone, as matplotlib's imsave writes them (no ticks,
	 * labels, titles or colour bar; size is the image's longer side). */
	int aspect_equal;
	int no_axes;
	/* panels (heads): each its own colour scale and bar, rather than one */
	int scale_each;
	/* panels: titled "LABEL K" (NULL: "head"), K counted from
	 * panel_origin; panel_cols > 0: at most that many a row */
	const char *panel_label;
	int64_t panel_origin;
	uint32_t panel_cols;
	/* the rows (labels, as above), and with grid_cols the columns too, are
	 * the tokens of this patch grid (core/grid.h): ticks at the first token
	 * of rows of its cells, labelled with the cell, (y,x) or with grid_dims
	 * 3 (t,y,x); NULL: plain indices.  Must outlive the sink. */
	const struct pe_grid *grid;
	int grid_dims, grid_cols;
};

/* Format by name ("csv", "npy", ...); -1 if unknown. */
int pe_format_by_name(const char *name);
/* The extension of a path's last component (".npz"), or NULL when it has
 * none (a leading dot, as in ".hidden", is not one). */
const char *pe_path_extension(const char *path);
/* Format from a path's extension (.csv .json .f32 .raw .bin .npy
 * .safetensors .png .svg .pdf, in any case); -1 if none matches. */
int pe_format_by_path(const char *path);
const char *pe_format_name(enum pe_format f);
/* "csv|json|raw|npy|safetensors|png|svg|pdf" for messages and help. */
const char *pe_format_list(void);
int pe_format_is_binary(enum pe_format f);
/* Is the format a figure (png, svg, pdf)? */
int pe_format_is_figure(enum pe_format f);
/* Can the format hold several tensors in one file? */
int pe_format_multi(enum pe_format f);

struct pe_sink *pe_sink_new(enum pe_format f, FILE *fp, const struct pe_sink_opts *opts,
			    struct pe_error *err);
void pe_sink_destroy(struct pe_sink *s);

/* The error for a value json cannot hold (nan, an infinity) at row, col of
 * tensor name, rows counted from the first one written: PE_ERR_DATA,
 * returns -1.  The json sink and the checks made before it (cli/emit.h)
 * say the same. */
int pe_json_nonfinite(const char *name, uint64_t row, uint64_t col, double v,
		      struct pe_error *err);

/* Value i of a row block of dtype d as text (io/fmt.h: the shortest that
 * reads back to the same value of d), into buf (PE_FMT_BUF bytes); its
 * length.  *v: the value as a double (NaN and infinities kept). */
size_t pe_sink_fmt(enum pe_dtype d, const void *data, size_t i, char *buf, double *v);

/* Value i of a row block of dtype d as a double. */
double pe_sink_value(enum pe_dtype d, const void *data, size_t i);

/* The longest text pe_sink_fmt writes for d. */
size_t pe_sink_fmt_max(enum pe_dtype d);

/* d's name in text formats: "float32", "int32", "float16", ... */
const char *pe_dtype_name(enum pe_dtype d);

/* No-op tensor() and end() callbacks for formats that need none. */
int pe_sink_nop_tensor(struct pe_sink *s, size_t index, struct pe_error *err);
int pe_sink_nop_end(struct pe_sink *s, struct pe_error *err);

/* Per-format constructors (sink_<format>.c). */
struct pe_sink *pe_sink_csv_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_json_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_raw_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_npy_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_safetensors_new(FILE *fp, const struct pe_sink_opts *opts,
					struct pe_error *err);
struct pe_sink *pe_sink_png_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_svg_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);
struct pe_sink *pe_sink_pdf_new(FILE *fp, const struct pe_sink_opts *opts, struct pe_error *err);

/*
 * The raw sink with a header in front of the values (sink_npy.c): name
 * for messages, header(t, buf, cap) writes it into buf and returns its
 * length (0: it does not fit in cap bytes).
 */
struct pe_sink *pe_sink_raw_headed(FILE *fp, const char *name,
				   size_t (*header)(const struct pe_tensor *t, unsigned char *buf,
						    size_t cap),
				   struct pe_error *err);

#endif
