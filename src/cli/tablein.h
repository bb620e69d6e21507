/*
 * tablein.h - how every command reads a table named on its command line:
 * a file (or - for stdin) through io/read.h, with the --tensor and --shape
 * options, and its provenance recorded in the result's meta.  similarity
 * (-i), skew (-i, --rel-h, --rel-w) and bucket (--bias) share it.
 */
#ifndef PE_TABLEIN_H
#define PE_TABLEIN_H

#include <stdio.h>

#include "core/err.h"
#include "core/matrix.h"
#include "core/meta.h"

/* The largest input any command reads (1 TiB: bounded, never a guess). */
#define PE_TABLE_MAX_BYTES ((size_t)1 << 40)

struct pe_tablein {
	const char *path;	/* "-" for stdin */
	const char *tensor;	/* --tensor or NULL */
	const char *shape;	/* --shape RxC (raw float32) or NULL */
	const char *shape_opt;	/* the option's name for messages ("shape") */
	int header_names;	/* a csv header is expected (it names the columns,
				 * as a curve's does): no warning that one was skipped */
};

/* Which input of a command a table is: its provenance keys in the meta
 * are input, input_format, input_dtype, tensor, input_shape, prefixed by
 * nothing, "bias_", "rel_h_" or "rel_w_". */
enum pe_tablein_role { PE_TABLEIN_INPUT, PE_TABLEIN_BIAS, PE_TABLEIN_REL_H, PE_TABLEIN_REL_W };

/*
 * Read the table as t says into out and, with meta non-NULL, record where
 * it came from under role's keys.  A bad --shape, or --shape with
 * --tensor, is PE_ERR_USAGE; the file's problems PE_ERR_DATA (messages
 * start with the file's name).  Returns 0 or -1.
 */
int pe_tablein_read(const struct pe_tablein *t, struct pe_meta *meta, enum pe_tablein_role role,
		    struct pe_matrix *out, struct pe_error *err);

/* Print the tensors of the npy or safetensors file at path to fp, one
 * line each: name, dtype, [shape], tab-separated.  Returns 0 or -1. */
int pe_tablein_list(const char *path, FILE *fp, struct pe_error *err);

/* Put "NAME: " (NAME as pe_tablein_name(path)) in front of err's message:
 * for a problem with a table's values found after it was read. */
void pe_tablein_prefix(struct pe_error *err, const char *path);

#endif
