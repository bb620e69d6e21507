/* Reading a table named on the command line (see tablein.h). */
#include <stdio.h>
#include <string.h>

#include "cli/msg.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "io/input.h"
#include "io/read.h"

/* Keys are not copied by the meta: one static set per role. */
static const char *const keys[][5] = {
	{ "input", "input_format", "input_dtype", "tensor", "input_shape" },
	{ "bias_input", "bias_input_format", "bias_input_dtype", "bias_tensor", "bias_input_shape" },
	{ "rel_h_input", "rel_h_input_format", "rel_h_input_dtype", "rel_h_tensor",
	  "rel_h_input_shape" },
	{ "rel_w_input", "rel_w_input_format", "rel_w_input_dtype", "rel_w_tensor",
	  "rel_w_input_shape" },
};

static const char *pe_tablein_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdin" : path;
}

void pe_tablein_prefix(struct pe_error *err, const char *path)
{
	pe_fail(err, err->code, "%s: %s", pe_tablein_name(path), err->msg);
}

int pe_tablein_read(const struct pe_tablein *t, struct pe_meta *meta, enum pe_tablein_role role,
		    struct pe_matrix *out, struct pe_error *err)
{
	const char *const *k = keys[role];
	const char *opt = t->shape_opt ? t->shape_opt : "shape";
	struct pe_read_opts o;
	struct pe_table_info info;
	double dims[PE_READ_MAX_NDIM];
	int i;

	memset(&o, 0, sizeof o);
	o.tensor = t->tensor;
	if (t->shape) {
		if (o.tensor)
			return pe_fail(err, PE_ERR_USAGE, "--%s (raw input) and --tensor (safetensors) contradict each other",
				       opt);
		if (pe_parse_dims2(t->shape, (uint64_t)1 << 40, &o.rows, &o.cols) != 0 ||
		    o.cols > PE_MAX_COLS)
			return pe_fail(err, PE_ERR_USAGE, "--%s must be RxC with positive R and C (C at most %llu), got '%s'",
				       opt, (unsigned long long)PE_MAX_COLS, t->shape);
		o.format = PE_IN_RAW;
	}
	if (pe_read_table(t->path, PE_TABLE_MAX_BYTES, &o, out, &info, err) != 0)
		return -1;
	if (info.header_line && !t->header_names)
		pe_msg_warn("%s: line %llu ('%s') is taken as a header, not data: none of it is a number",
			    pe_tablein_name(t->path), (unsigned long long)info.header_line,
			    info.header);
	if (!meta)
		return 0;
	pe_meta_str(meta, k[0], pe_tablein_name(t->path));
	pe_meta_str(meta, k[1], pe_in_format_name(info.format));
	pe_meta_str(meta, k[2], info.dtype);
	if (info.tensor[0])
		pe_meta_str(meta, k[3], info.tensor);
	for (i = 0; i < info.ndim && i < PE_READ_MAX_NDIM; i++)
		dims[i] = (double)info.shape[i];
	pe_meta_list(meta, k[4], dims, (size_t)info.ndim);
	return 0;
}

int pe_tablein_list(const char *path, FILE *fp, struct pe_error *err)
{
	struct pe_input in;
	struct pe_tensor_entry *list = NULL;
	size_t n = 0, i;
	int rc, k;

	if (pe_table_input_open(&in, path, PE_TABLE_MAX_BYTES, NULL, err) != 0) {
		pe_input_close(&in);
		return -1;
	}
	rc = pe_table_list(in.data, in.len, in.name, &list, &n, err);
	if (pe_input_intact(&in, err) != 0)
		rc = -1;
	for (i = 0; rc == 0 && i < n; i++) {
		/* names from the file, escaped as messages escape them: one line
		 * each, tab-separated, whatever bytes they hold */
		pe_msg_put_text(fp, list[i].name[0] ? list[i].name : "(array)");
		fputc('\t', fp);
		pe_msg_put_text(fp, list[i].dtype);
		fputs("\t[", fp);
		for (k = 0; k < list[i].ndim; k++)
			fprintf(fp, "%s%llu", k ? "," : "", (unsigned long long)list[i].shape[k]);
		fputs("]\n", fp);
	}
	pe_tensor_entries_free(list, n);
	pe_input_close(&in);
	return rc;
}
