#include "cli/emit.h"

#include <stdio.h>
#include <string.h>

#include "cli/msg.h"
#include "core/parse.h"
#include "core/pipeline.h"
#include "io/output.h"
#include "io/sink.h"

static const char *value_of(const struct pe_optdef *defs, size_t ndefs, const char **values,
			    const char *name)
{
	int i = pe_opt_index(defs, ndefs, name);

	return i < 0 ? NULL : values[i];
}

void pe_outopts_get(struct pe_outopts *o, const struct pe_optdef *defs, size_t ndefs,
		    const char **values)
{
	memset(o, 0, sizeof *o);
	o->path = value_of(defs, ndefs, values, "output");
	o->format = value_of(defs, ndefs, values, "format");
	o->rows = value_of(defs, ndefs, values, "rows");
	o->force = value_of(defs, ndefs, values, "force") != NULL;
	o->header = value_of(defs, ndefs, values, "header") != NULL;
}

static int resolve_format(const struct pe_outopts *o, enum pe_format *f, struct pe_error *err)
{
	int k;

	if (o->format) {
		k = pe_format_by_name(o->format);
		if (k < 0)
			return pe_fail(err, PE_ERR_USAGE, "unknown format '%s' (one of: %s)",
				       o->format, pe_format_list());
	} else if (o->path && strcmp(o->path, "-") != 0) {
		k = pe_format_by_path(o->path);
		if (k < 0)
			k = PE_FMT_CSV;
	} else {
		k = PE_FMT_CSV;
	}
	*f = (enum pe_format)k;
	return 0;
}

int pe_emit(const char *cmd, const struct pe_outopts *o, const struct pe_tensor *t, size_t nt,
	    struct pe_meta *meta)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_rowsel sel = { 0, 0, 0 };
	struct pe_sink_opts so;
	struct pe_output out;
	struct pe_sink *sink = NULL;
	enum pe_format f = PE_FMT_CSV;
	int opened = 0;

	if (resolve_format(o, &f, &err) != 0)
		goto fail;
	if (nt > 1 && !pe_format_multi(f)) {
		pe_fail(&err, PE_ERR_USAGE,
			"%s holds one tensor and this result has %zu: use -f safetensors or -f json",
			pe_format_name(f), nt);
		goto fail;
	}
	if (o->header && f != PE_FMT_CSV) {
		pe_fail(&err, PE_ERR_USAGE, "--header applies to csv output only");
		goto fail;
	}
	if (o->rows) {
		if (nt != 1) {
			pe_fail(&err, PE_ERR_USAGE, "--rows selects rows of a single tensor");
			goto fail;
		}
		if (pe_parse_range(o->rows, t[0].rows, &sel.begin, &sel.end) != 0) {
			pe_fail(&err, PE_ERR_USAGE,
				"--rows must be A:B with 0 <= A < B <= %llu (the result's rows), got '%s'",
				(unsigned long long)t[0].rows, o->rows);
			goto fail;
		}
		sel.active = 1;
		pe_meta_str(meta, "rows", o->rows);
	}
	if (meta->oom) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (pe_output_open(&out, o->path, pe_format_is_binary(f), o->force, &err) != 0)
		goto fail;
	opened = 1;
	memset(&so, 0, sizeof so);
	so.header = o->header;
	so.col_prefix = o->col_prefix;
	sink = pe_sink_new(f, out.fp, &so, &err);
	if (!sink)
		goto fail;
	if (pe_pump(t, nt, &sel, meta, sink, &err) != 0)
		goto fail;
	pe_sink_destroy(sink);
	sink = NULL;
	opened = 0;
	if (pe_output_commit(&out, &err) != 0)
		goto fail;
	return PE_EXIT_OK;
fail:
	pe_sink_destroy(sink);
	if (opened)
		pe_output_abort(&out);
	return pe_msg_report(cmd, &err);
}
