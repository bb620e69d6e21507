/*
 * posenc bucket: relative positions mapped to the ids T5, DeBERTa and
 * Swin look their position bias up with, and optionally that bias.
 * Recipe: parse; pick the scheme and refuse the other schemes' options;
 * read the bias table if given (cli/tablein.h); build the tensor in
 * core/bucket.h; emit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/msg.h"
#include "cli/tablein.h"
#include "core/bucket.h"
#include "core/parse.h"

#define DEFAULT_POSITIONS 512

const struct pe_optdef pe_bucket_opts[] = {
	{ NULL, 0, NULL, "What to write:" },
	{ "scheme", 0, "S", "t5 (default), deberta or swin" },
	{ "positions", 'n', "L", "the L x L ids of queries 0..L-1 (rows) and keys\n"
				 "0..L-1 (columns), default 512 (t5, deberta)" },
	{ "distances", 0, "A:B", "t5, deberta: rows \"distance,bucket\" for the signed\n"
				 "distances A..B-1 instead (B excluded)" },
	{ NULL, 0, NULL, "t5 (relative position = key - query, as T5 and transformers):" },
	{ "num-buckets", 0, "N", "relative_attention_num_buckets, default 32" },
	{ "max-distance", 0, "N", "relative_attention_max_distance, default 128" },
	{ "bidirectional", 0, NULL, "encoder: half the buckets for keys after the query\n"
				    "(the default)" },
	{ "causal", 0, NULL, "decoder: keys after the query all get bucket 0" },
	{ NULL, 0, NULL, "deberta (relative position = query - key, as DeBERTa-v2/v3):" },
	{ "bucket-size", 0, "N", "position_buckets, default 256" },
	{ "max-position", 0, "N", "max_relative_positions (else\n"
				  "max_position_embeddings), default 512" },
	{ NULL, 0, NULL, "swin (per axis query - key, as Swin and timm):" },
	{ "window", 0, "HxW", "the attention window, default 7x7; L = H*W tokens,\n"
			      "row-major" },
	{ "cls-token", 0, NULL, "a class token first (BEiT, timm): L = H*W + 1" },
	{ NULL, 0, NULL, "Bias (one row per id, one column per head):" },
	{ "bias", 0, "FILE", "gather this table by the ids: heads x L x L float32\n"
			     "(npy, safetensors, csv, or raw with --shape; - is\n"
			     "stdin)" },
	{ "tensor", 0, "NAME", "--bias safetensors: the tensor to read (default: the\n"
			       "only one)" },
	{ "shape", 0, "RxC", "--bias is raw little-endian float32, R rows of C" },
	{ "head", 0, "K", "only head K (0-based) of the bias: L x L" },
	PE_OUTPUT_OPTDEFS,
	{ NULL, 0, NULL, NULL }
};
const size_t pe_bucket_nopts = sizeof pe_bucket_opts / sizeof pe_bucket_opts[0] - 1;

const char pe_bucket_usage[] =
	"Usage: posenc bucket [--scheme t5|deberta] [-n L | --distances A:B] [OPTIONS]\n"
	"       posenc bucket --scheme swin [--window HxW] [OPTIONS]\n"
	"The ids a model looks its relative position bias up with, as its reference\n"
	"code computes them (float32 steps included): an L x L int32 matrix, row =\n"
	"query, column = key.  With --bias FILE, that bias gathered per head.\n";

/* Each scheme's own options: given with another scheme, an error. */
static const char *const t5_only[] = { "num-buckets", "max-distance", "bidirectional", "causal",
				       NULL };
static const char *const deberta_only[] = { "bucket-size", "max-position", NULL };
static const char *const swin_only[] = { "window", "cls-token", NULL };
static const char *const *const scheme_only[] = { t5_only, deberta_only, swin_only };

struct job {
	const char **values;
	struct pe_bucket_params p;
	uint64_t n;
	int distances;
	int64_t a, b, head;
	struct pe_matrix table;
	struct pe_meta meta;
	struct pe_outopts out;
};

static const char *val(const struct job *j, const char *name)
{
	return pe_opt_value(pe_bucket_opts, pe_bucket_nopts, j->values, name);
}

static const char *given(const struct job *j, const char *const *names)
{
	return pe_opt_given(pe_bucket_opts, pe_bucket_nopts, j->values, names);
}

static int parse_scheme(struct job *j, struct pe_error *err)
{
	int scheme = PE_BUCKET_T5, k;
	const char *w;
	uint64_t h, wd;

	if (pe_opt_choice("scheme", val(j, "scheme"), pe_bucket_scheme_names, &scheme, err) != 0)
		return -1;
	pe_bucket_defaults(&j->p, (enum pe_bucket_scheme)scheme);
	for (k = 0; k < 3; k++)
		if (k != scheme && (w = given(j, scheme_only[k])))
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to --scheme %s, not %s", w,
				       pe_bucket_scheme_names[k], pe_bucket_scheme_names[scheme]);
	if (val(j, "bidirectional") && val(j, "causal"))
		return pe_fail(err, PE_ERR_USAGE, "--bidirectional and --causal contradict each other: give one");
	j->p.bidirectional = val(j, "causal") == NULL;
	if (pe_opt_i64("num-buckets", val(j, "num-buckets"), 1, PE_BUCKET_MAX_BUCKETS,
		       &j->p.num_buckets, err) != 0 ||
	    pe_opt_i64("max-distance", val(j, "max-distance"), 1, PE_BUCKET_MAX_DISTANCE,
		       &j->p.max_distance, err) != 0 ||
	    pe_opt_i64("bucket-size", val(j, "bucket-size"), 1, PE_BUCKET_MAX_BUCKETS,
		       &j->p.bucket_size, err) != 0 ||
	    pe_opt_i64("max-position", val(j, "max-position"), 1, PE_BUCKET_MAX_DISTANCE,
		       &j->p.max_position, err) != 0)
		return -1;
	if ((w = val(j, "window"))) {
		if (pe_parse_dims2(w, PE_BUCKET_MAX_WINDOW, &h, &wd) != 0)
			return pe_fail(err, PE_ERR_USAGE, "--window must be HxW with H and W in 1..%d, got '%s'",
				       PE_BUCKET_MAX_WINDOW, w);
		j->p.wh = (int64_t)h;
		j->p.ww = (int64_t)wd;
	}
	j->p.cls_token = val(j, "cls-token") != NULL;
	return pe_bucket_check(&j->p, err);
}

static int parse_shape(struct job *j, struct pe_error *err)
{
	const char *w;
	static const char *const bias_only[] = { "tensor", "shape", "head", NULL };

	j->n = DEFAULT_POSITIONS;
	j->distances = val(j, "distances") != NULL;
	j->head = -1;
	if (j->p.scheme == PE_BUCKET_SWIN && (w = given(j, (const char *const[]){ "positions", "distances", NULL })))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to --scheme swin: its tokens are the --window's",
			       w);
	if (j->distances && val(j, "positions"))
		return pe_fail(err, PE_ERR_USAGE, "-n (an L x L grid) and --distances (a list) are two outputs: give one");
	if (pe_opt_u64("positions", val(j, "positions"), 1, PE_MAX_COLS, &j->n, err) != 0)
		return -1;
	if (j->distances &&
	    pe_parse_irange(val(j, "distances"), -(int64_t)INT32_MAX, INT32_MAX, &j->a, &j->b) != 0)
		return pe_fail(err, PE_ERR_USAGE, "--distances must be A:B with A < B, both within +-%d, got '%s'",
			       INT32_MAX, val(j, "distances"));
	if (!val(j, "bias") && (w = given(j, bias_only)))
		return pe_fail(err, PE_ERR_USAGE, "--%s applies to --bias FILE only", w);
	return pe_opt_i64("head", val(j, "head"), 0, INT32_MAX, &j->head, err);
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
	struct pe_tablein in = { val(j, "bias"), val(j, "tensor"), val(j, "shape"), "shape" };

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

int pe_cmd_bucket(int argc, char **argv)
{
	char **ops = NULL;
	int nops = 0, rc;
	struct pe_error err = { PE_OK, "" };
	struct job j;
	struct pe_bucket bk;
	struct pe_tensor t;
	struct pe_emit e;

	memset(&j, 0, sizeof j);
	memset(&bk, 0, sizeof bk);
	pe_meta_init(&j.meta);
	j.values = calloc(pe_bucket_nopts, sizeof *j.values);
	if (!j.values) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (pe_opt_parse(argc, argv, pe_bucket_opts, pe_bucket_nopts, j.values, &ops, &nops,
			 &err) != 0)
		goto fail;
	if (nops > 0) {
		pe_fail(&err, PE_ERR_USAGE, "unexpected operand '%s' (the scheme is --scheme NAME)",
			ops[0]);
		goto fail;
	}
	if (parse_scheme(&j, &err) != 0 || parse_shape(&j, &err) != 0)
		goto fail;
	pe_outopts_get(&j.out, pe_bucket_opts, pe_bucket_nopts, j.values);
	record(&j);
	if (build(&j, &bk, &t, &err) != 0)
		goto fail;
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
	rc = pe_msg_report("bucket", &err);
done:
	pe_bucket_free(&bk);
	pe_matrix_free(&j.table);
	pe_meta_free(&j.meta);
	free(ops);
	free(j.values);
	return rc;
}
