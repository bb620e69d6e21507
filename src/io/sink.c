#include "io/sink.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/fmt.h"

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

double pe_sink_value(enum pe_dtype d, const void *data, size_t i)
{
	const unsigned char *p = data;
	uint16_t h;
	int32_t k;
	double x;
	float f;

	switch (d) {
	case PE_I32:
		memcpy(&k, p + 4 * i, 4);
		return k;
	case PE_F16:
		memcpy(&h, p + 2 * i, 2);
		return (double)pe_from_f16(h);
	case PE_BF16:
		memcpy(&h, p + 2 * i, 2);
		return (double)pe_from_bf16(h);
	case PE_F64:
		memcpy(&x, p + 8 * i, 8);
		return x;
	default:
		memcpy(&f, p + 4 * i, 4);
		return (double)f;
	}
}

size_t pe_sink_fmt(enum pe_dtype d, const void *data, size_t i, char *buf, double *v)
{
	const unsigned char *p = data;
	uint16_t h;
	double x;
	float f;

	*v = pe_sink_value(d, data, i);
	switch (d) {
	case PE_I32:
		return pe_fmt_i64((int64_t)*v, buf);
	case PE_F16:
	case PE_BF16:
		memcpy(&h, p + 2 * i, 2);
		return d == PE_F16 ? pe_fmt_f16(h, buf) : pe_fmt_bf16(h, buf);
	case PE_F64:
		memcpy(&x, p + 8 * i, 8);
		return pe_fmt_f64(x, buf);
	default:
		memcpy(&f, p + 4 * i, 4);
		return pe_fmt_f32(f, buf);
	}
}

size_t pe_sink_fmt_max(enum pe_dtype d)
{
	return d == PE_F64 ? PE_FMT_F64_MAX : PE_FMT_F32_MAX;
}

const char *pe_dtype_name(enum pe_dtype d)
{
	static const char *const names[] = { [PE_F32] = "float32", [PE_I32] = "int32",
					     [PE_F16] = "float16", [PE_BF16] = "bfloat16",
					     [PE_F64] = "float64" };

	return names[d];
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
