/*
 * posenc bucket: relative positions mapped to the ids T5, DeBERTa and
 * Swin look their position bias up with, and optionally that bias.
 * Recipe: parse; pick the scheme and refuse the other schemes' options;
 * read the bias table if given (cli/tablein.h); build the tensor in
 * core/bucket.h; emit.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "cli/tablein.h"
#include "core/bucket.h"
#include "core/parse.h"
#include "core/pipeline.h"
#include "io/figure.h"

#define DEFAULT_POSITIONS 512

struct bucket_opts {
	int scheme, bidirectional, causal, cls_token;
	uint64_t positions;
	const char *distances, *window, *bias, *tensor, *shape;
	int64_t num_buckets, max_distance, bucket_size, max_position, head;
};

#define O(f) offsetof(struct bucket_opts, f)
#define T5 (1u << PE_BUCKET_T5)
#define DEBERTA (1u << PE_BUCKET_DEBERTA)
#define SWIN (1u << PE_BUCKET_SWIN)

static const struct pe_optdef rows[] = {
	{ PE_HEADING("What to write:") },
	{ PE_CHOICE("scheme", 0, "S", O(scheme), pe_bucket_scheme_names, "t5 (default), deberta or swin") },
	{ PE_U64("positions", 'n', "L", O(positions), 1, PE_MAX_COLS,
		 "the L x L ids of queries 0..L-1 (rows) and keys\n"
		 "0..L-1 (columns), default 512 (t5, deberta)") },
	{ PE_TEXT("distances", 0, "A:B", O(distances), "t5, deberta: rows \"distance,bucket\" for the signed\n"
						       "distances A..B-1 instead (B excluded)") },
	{ PE_HEADING("t5 (relative position = key - query, as T5 and transformers):") },
	{ PE_I64("num-buckets", 0, "N", O(num_buckets), 1, PE_BUCKET_MAX_BUCKETS,
		 "relative_attention_num_buckets, default 32"), .applies = T5 },
	{ PE_I64("max-distance", 0, "N", O(max_distance), 1, PE_BUCKET_MAX_DISTANCE,
		 "relative_attention_max_distance, default 128"), .applies = T5 },
	{ PE_FLAG("bidirectional", 0, O(bidirectional), "encoder: half the buckets for keys after the query\n"
							"(the default)"), .applies = T5 },
	{ PE_FLAG("causal", 0, O(causal), "decoder: keys after the query all get bucket 0"), .applies = T5 },
	{ PE_HEADING("deberta (relative position = query - key, as DeBERTa-v2/v3):") },
	{ PE_I64("bucket-size", 0, "N", O(bucket_size), 1, PE_BUCKET_MAX_BUCKETS,
		 "position_buckets, default 256"), .applies = DEBERTA },
	{ PE_I64("max-position", 0, "N", O(max_position), 1, PE_BUCKET_MAX_DISTANCE,
		 "max_relative_positions (else\n"
		 "max_position_embeddings), default 512"), .applies = DEBERTA },
	{ PE_HEADING("swin (per axis query - key, as Swin and timm):") },
	{ PE_TEXT("window", 0, "HxW", O(window), "the attention window, default 7x7; L = H*W tokens,\n"
						 "row-major"), .applies = SWIN },
	{ PE_FLAG("cls-token", 0, O(cls_token), "a class token first (BEiT, timm): L = H*W + 1"),
	  .applies = SWIN },
	{ PE_HEADING("Bias (one row per id, one column per head):") },
	{ PE_FILE("bias", 0, "FILE", O(bias), "gather this table by the ids: heads x L x L float32\n"
					      "(npy, safetensors, csv, or raw with --shape; - is\n"
					      "stdin)") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "--bias safetensors: the tensor to read (default: the\n"
						  "only one)") },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "--bias is raw little-endian float32, R rows of C") },
	{ PE_I64("head", 0, "K", O(head), 0, INT32_MAX, "only head K (0-based) of the bias: L x L") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc bucket [--scheme t5|deberta] [-n L | --distances A:B] [OPTIONS]\n"
	"       posenc bucket --scheme swin [--window HxW] [OPTIONS]\n"
	"The ids a model looks its relative position bias up with, as its reference\n"
	"code computes them (float32 steps included): an L x L int32 matrix, row =\n"
	"query, column = key.  With --bias FILE, that bias gathered per head.\n";

struct job {
	struct pe_args args;
	struct bucket_opts o;
	struct pe_bucket_params p;
	uint64_t n;
	int distances;
	int64_t a, b, head;
	struct pe_matrix table;
	struct pe_meta meta;
	struct pe_outopts out;
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

static int parse_scheme(struct job *j, struct pe_error *err)
{
	const struct bucket_opts *o = &j->o;
	const struct pe_optdef *d;
	uint64_t h, wd;
	unsigned k;

	pe_bucket_defaults(&j->p, (enum pe_bucket_scheme)o->scheme);
	if ((d = pe_args_misplaced(&j->args, rows, o, 1u << o->scheme))) {
		for (k = 0; !(d->applies & (1u << k)); k++)
			;
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --scheme %s, not %s", d->name,
			       pe_bucket_scheme_names[k], pe_bucket_scheme_names[o->scheme]);
	}
	if (o->bidirectional && o->causal)
		return pe_fail(err, PE_ERR_USAGE, "--bidirectional and --causal contradict each other: give one");
	j->p.bidirectional = !o->causal;
	if (GIVEN(j, num_buckets))
		j->p.num_buckets = o->num_buckets;
	if (GIVEN(j, max_distance))
		j->p.max_distance = o->max_distance;
	if (GIVEN(j, bucket_size))
		j->p.bucket_size = o->bucket_size;
	if (GIVEN(j, max_position))
		j->p.max_position = o->max_position;
	if (o->window) {
		if (pe_parse_dims2(o->window, PE_BUCKET_MAX_WINDOW, &h, &wd) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--window must be HxW with H and W in 1..%d, got '%s'",
				       PE_BUCKET_MAX_WINDOW, o->window);
		j->p.wh = (int64_t)h;
		j->p.ww = (int64_t)wd;
	}
	j->p.cls_token = o->cls_token;
	return pe_bucket_check(&j->p, err);
}

static int parse_shape(struct job *j, struct pe_error *err)
{
	const struct bucket_opts *o = &j->o;

	j->n = GIVEN(j, positions) ? o->positions : DEFAULT_POSITIONS;
	j->distances = o->distances != NULL;
	j->head = GIVEN(j, head) ? o->head : -1;
	if (j->p.scheme == PE_BUCKET_SWIN && (GIVEN(j, positions) || j->distances))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --scheme swin: its tokens are the --window's",
			       GIVEN(j, positions) ? "positions" : "distances");
	if (j->distances && GIVEN(j, positions))
		return pe_fail(err, PE_ERR_USAGE, "-n (an L x L grid) and --distances (a list) are two outputs: give one");
	if (j->distances &&
	    pe_parse_irange(o->distances, -(int64_t)INT32_MAX, INT32_MAX, &j->a, &j->b) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--distances must be A:B with A < B, both within +-%d, got '%s'",
			       INT32_MAX, o->distances);
	if (!o->bias && (o->tensor || o->shape || GIVEN(j, head)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --bias FILE only",
			       o->tensor ? "tensor" : o->shape ? "shape" : "head");
	return 0;
}

static void record(struct job *j)
{
	const struct pe_bucket_params *p = &j->p;
	char range[48];

	pe_meta_str(&j->meta, "command", "bucket");
	pe_meta_str(&j->meta, "scheme", pe_bucket_scheme_names[p->scheme]);
	switch (p->scheme) {
	case PE_BUCKET_T5:
		pe_meta_int(&j->meta, "num_buckets", p->num_buckets);
		pe_meta_int(&j->meta, "max_distance", p->max_distance);
		pe_meta_bool(&j->meta, "bidirectional", p->bidirectional);
		pe_meta_str(&j->meta, "relative_position", "key - query");
		break;
	case PE_BUCKET_DEBERTA:
		pe_meta_int(&j->meta, "bucket_size", p->bucket_size);
		pe_meta_int(&j->meta, "max_position", p->max_position);
		pe_meta_str(&j->meta, "relative_position", "query - key");
		break;
	case PE_BUCKET_SWIN:
		pe_meta_int(&j->meta, "window_h", p->wh);
		pe_meta_int(&j->meta, "window_w", p->ww);
		pe_meta_bool(&j->meta, "cls_token", p->cls_token);
		pe_meta_str(&j->meta, "relative_position", "query - key per axis");
		break;
	}
	if (j->distances) {
		snprintf(range, sizeof range, "%lld:%lld", (long long)j->a, (long long)j->b);
		pe_meta_str(&j->meta, "distances", range);
	} else {
		pe_meta_int(&j->meta, "positions",
			    (int64_t)(p->scheme == PE_BUCKET_SWIN ? pe_swin_tokens(p) : j->n));
	}
	if (j->head >= 0)
		pe_meta_int(&j->meta, "head", j->head);
}

static int build(struct job *j, struct pe_bucket *bk, struct pe_tensor *t, struct pe_error *err)
{
	struct pe_tablein in = {
		.path = j->o.bias,
		.tensor = j->o.tensor,
		.shape = j->o.shape,
		.shape_opt = "shape",
	};

	if (!in.path)
		return j->distances ? pe_bucket_distances(bk, &j->p, j->a, j->b, t, err)
				    : pe_bucket_ids(bk, &j->p, j->n, t, err);
	if (pe_tablein_read(&in, &j->meta, PE_TABLEIN_BIAS, &j->table, err) != 0)
		return -1;
	if (pe_bucket_bias(bk, &j->p, j->n, j->distances, j->a, j->b, j->table.v, j->table.rows,
			   j->table.cols, j->head, t, err) != 0) {
		if (err->code == PE_ERR_DATA)
			pe_tablein_prefix(err, in.path);
		return -1;
	}
	pe_matrix_free(&j->table);
	return 0;
}

/* PNG axes and csv header names for what was built. */
static void labels(const struct job *j, const struct pe_tensor *t, struct pe_emit *e)
{
	if (j->distances) {
		e->so.row_origin = j->a;
		e->so.ylabel = "distance";
		if (t->dtype == PE_I32)
			e->so.col_names = "distance,bucket";
		else
			e->so.xlabel = "head";
		return;
	}
	e->so.ylabel = "query";
	e->so.xlabel = "key";
}

/*
 * --distances to an image: a step plot of the bucket (or each head's bias)
 * against the distance, one step per integer distance.
 */
static int distances_chart(struct job *j, const struct pe_tensor *t, struct pe_error *err)
{
	uint64_t n = t->rows, cols = t->cols, i, c, ns = t->dtype == PE_I32 ? 1 : cols;
	size_t cells = (size_t)(n * cols);
	struct pe_pump_opts po = { 1, NULL, NULL };
	void *raw = malloc(cells * 4);
	double *x = malloc((size_t)(n * (ns + 1)) * sizeof *x);
	struct pe_series *s = calloc((size_t)ns, sizeof *s);
	char (*names)[32] = calloc((size_t)ns, sizeof *names);
	struct pe_chart ch;
	char title[160];
	int rc = -1;

	if (!raw || !x || !s || !names) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (pe_tensor_materialize(t, raw, &po, err) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		x[i] = (double)(j->a + (int64_t)i);
		for (c = 0; c < ns; c++)
			x[n * (c + 1) + i] = t->dtype == PE_I32
						     ? (double)((const int32_t *)raw)[i * cols + 1]
						     : (double)((const float *)raw)[i * cols + c];
	}
	for (c = 0; c < ns; c++) {
		s[c].x = x;
		s[c].y = x + n * (c + 1);
		s[c].n = (size_t)n;
		s[c].step = 1;
		if (ns > 1) {
			snprintf(names[c], sizeof names[c], "head %llu",
				 (unsigned long long)(j->head >= 0 ? (uint64_t)j->head : c));
			s[c].name = names[c];
		}
	}
	memset(&ch, 0, sizeof ch);
	ch.series = s;
	ch.nseries = (size_t)ns;
	ch.xlabel = j->p.scheme == PE_BUCKET_T5 ? "distance (key - query)" : "distance (query - key)";
	ch.ylabel = t->dtype == PE_I32 ? "bucket" : "bias";
	snprintf(title, sizeof title, "%s %s by relative distance, %lld to %lld",
		 pe_bucket_scheme_names[j->p.scheme], t->dtype == PE_I32 ? "buckets" : "bias",
		 (long long)j->a, (long long)(j->b - 1));
	rc = pe_emit_chart(&j->out, &ch, title, &j->meta, err);
out:
	free(raw);
	free(x);
	free(s);
	free(names);
	return rc;
}

static int bucket(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_bucket bk;
	struct pe_tensor t;
	struct pe_emit e;
	int rc;

	memset(&j, 0, sizeof j);
	memset(&bk, 0, sizeof bk);
	pe_meta_init(&j.meta);
	if (pe_command_parse(cmd, &j.args, argc, argv, &err) != 0 ||
	    pe_args_bind(&j.args, rows, &j.o, &err) != 0 ||
	    pe_outopts_bind(&j.out, &j.args, &err) != 0)
		goto fail;
	if (j.args.noperands > 0) {
		pe_fail(&err, PE_ERR_USAGE, "unexpected operand '%s' (the scheme is --scheme NAME)",
			j.args.operands[0]);
		goto fail;
	}
	if (parse_scheme(&j, &err) != 0 || parse_shape(&j, &err) != 0)
		goto fail;
	record(&j);
	if (build(&j, &bk, &t, &err) != 0)
		goto fail;
	if (j.distances && pe_emit_is_figure(&j.out)) {
		if (distances_chart(&j, &t, &err) != 0)
			goto fail;
		rc = PE_EXIT_OK;
		goto done;
	}
	memset(&e, 0, sizeof e);
	e.scan = 1;	/* json: a bias table's nan is refused before the first byte */
	labels(&j, &t, &e);
	j.out.col_prefix = j.distances ? "head" : "k";
	if (pe_emit_prepare(&e, &j.out, &t, 1, &j.meta, &err) != 0 ||
	    pe_emit_run(&e, &j.out, &t, 1, &j.meta, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &j.args, NULL);
	rc = pe_msg_report("bucket", &err);
done:
	pe_bucket_free(&bk);
	pe_matrix_free(&j.table);
	pe_meta_free(&j.meta);
	pe_args_free(&j.args);
	return rc;
}

const struct pe_command pe_cmd_bucket = {
	"bucket", "relative positions as T5, DeBERTa or Swin bucket ids, or their gathered bias",
	usage, rows, PE_CMD_OUTPUT, bucket
};
