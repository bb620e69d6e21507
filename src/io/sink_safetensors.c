/*
 * safetensors (huggingface/safetensors README, "Format"):
 *   8 bytes   N, the header length, uint64 little-endian
 *   N bytes   JSON: {"__metadata__":{str:str}, NAME:{"dtype","shape","data_offsets"}}
 *             padded with spaces so the data starts 8-byte aligned
 *   data      the tensors back to back (F32, I32, or F16, BF16, F64 with
 *             --dtype), little-endian, row-major; offsets
 *             are relative to the end of the header, [begin, end)
 * Shapes and offsets are written as integer text (cJSON raw items), not as
 * doubles, so sizes past 2^53 bytes would still be exact.  The tensors'
 * shapes are all known before any data, so the file is written as a stream.
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/le.h"
#include "io/metajson.h"
#include "io/output.h"
#include "io/sink.h"

struct st_sink {
	struct pe_sink base;
	FILE *fp;
	const struct pe_tensor *t;
	size_t cur;
};

static cJSON *int_array(const uint64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	char num[32];
	size_t i;

	if (!a)
		return NULL;
	for (i = 0; i < n; i++) {
		cJSON *item;

		snprintf(num, sizeof num, "%llu", (unsigned long long)v[i]);
		item = cJSON_CreateRaw(num);
		if (!item || !cJSON_AddItemToArray(a, item)) {
			cJSON_Delete(item);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

/* the dtype names of the format */
static const char *const st_dtype[] = { [PE_F32] = "F32", [PE_I32] = "I32", [PE_F16] = "F16",
					[PE_BF16] = "BF16", [PE_F64] = "F64" };

static cJSON *header_json(const struct pe_tensor *t, size_t nt, const struct pe_meta *meta,
			  struct pe_error *err)
{
	cJSON *root = cJSON_CreateObject(), *md, *obj, *arr;
	uint64_t off[2] = { 0, 0 }, bytes;
	size_t i;
	char *text;

	if (!root)
		goto oom;
	if (meta && meta->n) {
		md = cJSON_AddObjectToObject(root, "__metadata__");
		if (!md)
			goto oom;
		for (i = 0; i < meta->n; i++) {
			text = pe_meta_value_text(&meta->item[i]);
			if (!text || !cJSON_AddStringToObject(md, meta->item[i].key, text)) {
				free(text);
				goto oom;
			}
			free(text);
		}
	}
	for (i = 0; i < nt; i++) {
		if (cJSON_GetObjectItemCaseSensitive(root, t[i].name)) {
			cJSON_Delete(root);
			pe_fail(err, PE_ERR_USAGE, "two tensors are named '%s'", t[i].name);
			return NULL;
		}
		bytes = pe_tensor_elems(&t[i]) * pe_dtype_size(t[i].dtype);
		off[0] = off[1];
		if (off[0] > UINT64_MAX - bytes) {
			cJSON_Delete(root);
			pe_fail(err, PE_ERR_USAGE, "result too large for safetensors");
			return NULL;
		}
		off[1] = off[0] + bytes;
		obj = cJSON_AddObjectToObject(root, t[i].name);
		if (!obj || !cJSON_AddStringToObject(obj, "dtype", st_dtype[t[i].dtype]))
			goto oom;
		arr = int_array(t[i].shape, (size_t)t[i].ndim);
		if (!arr || !cJSON_AddItemToObject(obj, "shape", arr)) {
			cJSON_Delete(arr);
			goto oom;
		}
		arr = int_array(off, 2);
		if (!arr || !cJSON_AddItemToObject(obj, "data_offsets", arr)) {
			cJSON_Delete(arr);
			goto oom;
		}
	}
	return root;
oom:
	cJSON_Delete(root);
	pe_fail(err, PE_ERR_NOMEM, "out of memory building the safetensors header");
	return NULL;
}

static int st_begin(struct pe_sink *s, const struct pe_tensor *t, size_t nt,
		    const struct pe_meta *meta, struct pe_error *err)
{
	struct st_sink *st = (struct st_sink *)s;
	cJSON *root;
	char *text;
	size_t len, padded, i;
	unsigned char *buf;
	uint64_t data = 0;
	int rc;

	st->t = t;
	for (i = 0; i < nt; i++)
		/* bounded: the header holds the offsets */
		data += pe_tensor_elems(&t[i]) * pe_dtype_size(t[i].dtype);
	pe_write_expect(st->fp, data);
	root = header_json(t, nt, meta, err);
	if (!root)
		return -1;
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory building the safetensors header");
	len = strlen(text);
	padded = (len + 7) / 8 * 8;
	buf = malloc(8 + padded);
	if (!buf) {
		free(text);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory building the safetensors header");
	}
	pe_put_u64le(buf, (uint64_t)padded);
	memcpy(buf + 8, text, len);
	memset(buf + 8 + len, ' ', padded - len);
	free(text);
	rc = pe_write(st->fp, buf, 8 + padded, err);
	free(buf);
	return rc;
}

static int st_tensor(struct pe_sink *s, size_t index, struct pe_error *err)
{
	(void)err;
	((struct st_sink *)s)->cur = index;
	return 0;
}

static int st_rows(struct pe_sink *s, const void *data, size_t nrows, struct pe_error *err)
{
	struct st_sink *st = (struct st_sink *)s;
	const struct pe_tensor *t = &st->t[st->cur];

	return pe_write_le(st->fp, data, nrows * (size_t)t->cols, pe_dtype_size(t->dtype), err);
}

static void st_destroy(struct pe_sink *s)
{
	free(s);
}

static const struct pe_sink_ops st_ops = {
	.begin = st_begin,
	.tensor = st_tensor,
	.rows = st_rows,
	.end = pe_sink_nop_end,
	.destroy = st_destroy,
};

struct pe_sink *pe_sink_safetensors_new(FILE *fp, const struct pe_sink_opts *opts,
					struct pe_error *err)
{
	struct st_sink *st = calloc(1, sizeof *st);

	(void)opts;
	if (!st) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	st->base.ops = &st_ops;
	st->fp = fp;
	return &st->base;
}
