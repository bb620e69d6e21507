#include "io/sink.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct format_info {
	const char *name;
	const char *exts[4];
	int binary, multi;
	struct pe_sink *(*make)(FILE *, const struct pe_sink_opts *, struct pe_error *);
};

static const struct format_info formats[PE_FMT_COUNT] = {
	[PE_FMT_CSV] = { "csv", { ".csv" }, 0, 0, pe_sink_csv_new },
	[PE_FMT_JSON] = { "json", { ".json" }, 0, 1, pe_sink_json_new },
	[PE_FMT_RAW] = { "raw", { ".f32", ".raw", ".bin" }, 1, 0, pe_sink_raw_new },
	[PE_FMT_NPY] = { "npy", { ".npy" }, 1, 0, pe_sink_npy_new },
	[PE_FMT_SAFETENSORS] = { "safetensors", { ".safetensors" }, 1, 1,
				 pe_sink_safetensors_new },
	[PE_FMT_PNG] = { "png", { ".png" }, 1, 0, pe_sink_png_new },
	[PE_FMT_SVG] = { "svg", { ".svg" }, 0, 0, pe_sink_svg_new },
	[PE_FMT_PDF] = { "pdf", { ".pdf" }, 1, 0, pe_sink_pdf_new },
};

int pe_format_by_name(const char *name)
{
	int i;

	for (i = 0; i < PE_FMT_COUNT; i++)
		if (strcmp(formats[i].name, name) == 0)
			return i;
	return -1;
}

const char *pe_path_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base && dot[1] ? dot : NULL;
}

int pe_format_by_path(const char *path)
{
	const char *ext = pe_path_extension(path);
	int i, k;

	for (i = 0; ext && i < PE_FMT_COUNT; i++)
		for (k = 0; k < 4 && formats[i].exts[k]; k++)
			if (strcasecmp(ext, formats[i].exts[k]) == 0)
				return i;
	return -1;
}

const char *pe_format_name(enum pe_format f)
{
	return formats[f].name;
}

const char *pe_format_list(void)
{
	static char list[128];
	size_t n = 0;
	int i;

	if (!list[0])
		for (i = 0; i < PE_FMT_COUNT; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? "|" : "",
					      formats[i].name);
	return list;
}

int pe_format_is_binary(enum pe_format f)
{
	return formats[f].binary;
}

int pe_format_is_figure(enum pe_format f)
{
	return f == PE_FMT_PNG || f == PE_FMT_SVG || f == PE_FMT_PDF;
}

int pe_format_multi(enum pe_format f)
{
	return formats[f].multi;
}

struct pe_sink *pe_sink_new(enum pe_format f, FILE *fp, const struct pe_sink_opts *opts,
			    struct pe_error *err)
{
	static const struct pe_sink_opts none;

	return formats[f].make(fp, opts ? opts : &none, err);
}

void pe_sink_destroy(struct pe_sink *s)
{
	if (s)
		s->ops->destroy(s);
}

int pe_sink_nop_tensor(struct pe_sink *s, size_t index, struct pe_error *err)
{
	(void)s;
	(void)index;
	(void)err;
	return 0;
}

int pe_sink_nop_end(struct pe_sink *s, struct pe_error *err)
{
	(void)s;
	(void)err;
	return 0;
}
