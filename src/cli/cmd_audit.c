/*
 * posenc audit KIND --dtype D: how far the table a model computes in D is
 * from the exact one, position by position.  Recipe: parse; build the
 * kind (for rope its float32 pipeline, whose inv_freq the narrow types
 * start from); the exact table and the low-precision one, a block of rows
 * at a time, compared row by row (core/audit.h); then the per-position
 * CSV, the summary JSON, or a line chart.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"
#include "core/audit.h"
#include "core/diff.h"
#include "core/dtype.h"
#include "core/pipeline.h"
#include "core/rope.h"
#include "core/ulp.h"
#include "io/figure.h"
#include "io/fmt.h"
#include "io/metajson.h"
#include "io/output.h"

struct audit_opts {
	int dtype;
	double threshold;
	const char *steps;
};

#define O(f) offsetof(struct audit_opts, f)

/* --dtype's names: the narrow types first */
static const char *const dtypes[] = { "bfloat16", "float16", "float32", NULL };
static const enum pe_store dtype_store[] = { PE_STORE_BFLOAT16, PE_STORE_FLOAT16,
					     PE_STORE_FLOAT32 };

static const struct pe_optdef audit_rows[] = {
	{ PE_HEADING("Audit:") },
	{ PE_CHOICE("dtype", 0, "D", O(dtype), dtypes,
		    "bfloat16, float16 or float32: the precision the model\n"
		    "computes in (required); float32 is PyTorch's pipeline") },
	{ PE_TEXT("steps", 0, "LIST", O(steps),
		  "rope, bfloat16/float16: which steps run in D, of inv-freq,\n"
		  "positions, angles, table (default: all of them)") },
	{ PE_REAL("threshold", 0, "X", O(threshold), PE_REAL_POSITIVE,
		  "the error first_over_threshold looks for (default: one\n"
		  "ulp of 1 in D, more than storing the exact table can cost)") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc audit KIND [TABLE OPTIONS] --dtype bfloat16|float16|float32 [OPTIONS]\n"
	"How far the table a model computes in a narrow precision is from the\n"
	"exact one, per position: CSV position,max_abs,mean_abs,max_ulp_f32,\n"
	"max_rel,worst_column,stored_position; -f json a summary (the first\n"
	"position the type cannot hold, the first over --threshold, the worst);\n"
	"-o .png/.svg/.pdf the error per position as a line chart.\n";

struct job {
	struct pe_args args;
	struct audit_opts o;
	struct pe_outopts out;
	struct pe_gen gen, gen2;
	const struct pe_gen_kind *kind;
	enum pe_store d;
	unsigned steps;
	int threads, rope_pipe;		/* rope: the steps computed here */
	const struct pe_rope *r32;	/* the rope's float32 pipeline */
	struct pe_rope exact;		/* the rope's exact table */
	int have_exact;
	struct pe_tensor ex_t, lo_t;	/* exact and low tables (lo_t when a kind's) */
	uint64_t rows, cols;
	int64_t origin;			/* the position of row 0 */
	int positions;			/* rows are positions (not frequencies) */
	double threshold;
	struct pe_audit_row *row;	/* rows of them */
	/* the summary */
	double max_abs, sum_abs;
	uint64_t worst_row, worst_col, max_ulp, comparable;
	int64_t first_unrep, first_over;	/* positions, or INT64_MIN: none */
	struct pe_meta meta;
	char title[256];
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)
#define NONE INT64_MIN
#define CHART_POINTS 4096	/* a line chart's points at most */

/* ---- options ---- */

static int parse_steps(struct job *j, struct pe_error *err)
{
	const char *s = j->o.steps, *e;
	char word[32];
	int k;

	j->steps = PE_AUDIT_ALL;
	if (!s)
		return 0;
	j->steps = 0;
	for (; *s; s = *e ? e + 1 : e) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if ((size_t)(e - s) >= sizeof word || e == s)
			return pe_fail(err, PE_ERR_USAGE, "--steps takes a comma-separated list of inv-freq, positions, angles, table, got '%s'",
				       j->o.steps);
		memcpy(word, s, (size_t)(e - s));
		word[e - s] = '\0';
		for (k = 0; pe_audit_step_names[k]; k++)
			if (strcmp(word, pe_audit_step_names[k]) == 0)
				break;
		if (!pe_audit_step_names[k])
			return pe_fail(err, PE_ERR_USAGE, "--steps: unknown step '%s' (one of: inv-freq, positions, angles, table)",
				       word);
		j->steps |= 1u << k;
	}
	return 0;
}

static int choose_kind(struct job *j, struct pe_error *err)
{
	const struct pe_args *a = &j->args;

	if (a->noperands == 0)
		return pe_fail(err, PE_ERR_USAGE, "missing KIND (one of: %s)", pe_gen_kind_list());
	if (a->noperands > 1)
		return pe_fail(err, PE_ERR_USAGE, "expected one KIND, got %d operands: '%s' is one too many",
			       a->noperands, a->operands[1]);
	j->kind = pe_gen_kind_by_name(a->operands[0]);
	if (!j->kind)
		return pe_fail(err, PE_ERR_USAGE, "unknown kind '%s' (one of: %s)", a->operands[0],
			       pe_gen_kind_list());
	return 0;
}

static int parse_audit(struct job *j, struct pe_error *err)
{
	if (!GIVEN(j, dtype))
		return pe_fail(err, PE_ERR_USAGE, "--dtype is required: bfloat16, float16 or float32");
	j->d = dtype_store[j->o.dtype];
	if (parse_steps(j, err) != 0)
		return -1;
	if (j->o.steps && j->d == PE_STORE_FLOAT32)
		return pe_fail(err, PE_ERR_USAGE, "--steps applies to bfloat16 and float16: --dtype float32 is PyTorch's float32 pipeline, every step");
	j->threshold = GIVEN(j, threshold) ? j->o.threshold : pe_store_eps(j->d);
	return 0;
}

/* ---- the tables ---- */

static int build(struct job *j, struct pe_error *err)
{
	const struct pe_gen_kind *k = j->kind;
	const char *w;
	int has32;

	if (pe_gen_bind(&j->gen, k, &j->args, err) != 0)
		return -1;
	if ((w = pe_args_unbound(&j->args)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to %s", w, k->name);
	has32 = k->float32 && k->float32(j->gen.opts);
	if (j->d == PE_STORE_FLOAT32 && !has32)
		return pe_fail(err, PE_ERR_USAGE, "--dtype float32: %s has no float32 pipeline here (its table is computed in double and rounded once to float32: nothing to audit)",
			       k->name);
	/* rope: the float32 pipeline, the narrow types' steps from it */
	j->rope_pipe = strcmp(k->name, "rope") == 0;
	if (j->o.steps && !j->rope_pipe && j->steps != PE_AUDIT_TABLE)
		return pe_fail(err, PE_ERR_USAGE, "--steps %s: %s's table is only stored in the type (--steps table); the steps are rope's",
			       j->o.steps, k->name);
	j->gen.float32 = j->rope_pipe || j->d == PE_STORE_FLOAT32;
	if (pe_gen_build(&j->gen, err) != 0)
		return -1;
	if (j->gen.nt != 1 || j->gen.tensor[0].dtype != PE_F32)
		return pe_fail(err, PE_ERR_USAGE, "audit measures one float32 table; %s gives %s",
			       k->name, j->gen.nt != 1 ? "several (choose one --table)" : "integers");
	j->rows = j->gen.tensor[0].rows;
	j->cols = j->gen.tensor[0].cols;
	j->origin = j->gen.row_origin;
	j->positions = strcmp(j->gen.xlabel, "dimension") == 0;
	if (j->rope_pipe) {
		struct pe_rope_params p;
		enum pe_rope_table t;

		j->r32 = pe_gen_rope(&j->gen, NULL);
		if (!j->r32)
			return pe_fail(err, PE_ERR_USAGE, "audit measures one rope table (choose one --layer-type)");
		t = strcmp(j->gen.tensor[0].name, "rope_sin") == 0 ? PE_ROPE_SIN
		  : strcmp(j->gen.tensor[0].name, "rope_inv_freq") == 0 ? PE_ROPE_INV_FREQ
		  : strcmp(j->gen.tensor[0].name, "rope_angles") == 0 ? PE_ROPE_ANGLES : PE_ROPE_COS;
		if (strncmp(j->gen.tensor[0].name, "rope_", 5) != 0 || strchr(j->gen.tensor[0].name, '.'))
			return pe_fail(err, PE_ERR_USAGE, "audit measures one of rope's cos, sin, inv-freq and angles tables");
		p = j->r32->p;
		p.precision = PE_ROPE_EXACT;
		j->have_exact = 1;
		if (pe_rope_init(&j->exact, &p, err) != 0 || pe_rope_tensor(&j->exact, t, &j->ex_t, err) != 0)
			return -1;
		j->positions = t != PE_ROPE_INV_FREQ;
		if (j->d == PE_STORE_FLOAT32)
			j->lo_t = j->gen.tensor[0];
		return 0;
	}
	if (j->d == PE_STORE_FLOAT32) {
		/* the exact table too: a second build of the same options */
		j->lo_t = j->gen.tensor[0];
		if (pe_gen_bind(&j->gen2, k, &j->args, err) != 0)
			return -1;
		j->gen2.float32 = 0;
		if (pe_gen_build(&j->gen2, err) != 0)
			return -1;
		j->ex_t = j->gen2.tensor[0];
	} else {
		j->ex_t = j->gen.tensor[0];
	}
	return 0;
}

/* the rows' low-precision values into lo (ex: the exact ones) */
static void low_rows(const struct job *j, uint64_t r0, size_t n, const float *ex, float *lo)
{
	size_t k, nv = n * (size_t)j->cols;

	if (j->rope_pipe && j->d != PE_STORE_FLOAT32) {
		enum pe_rope_table t = j->ex_t.name[5] == 's' ? PE_ROPE_SIN
				     : j->ex_t.name[5] == 'i' ? PE_ROPE_INV_FREQ
				     : j->ex_t.name[5] == 'a' ? PE_ROPE_ANGLES : PE_ROPE_COS;

		pe_audit_rope_rows(j->r32, t, j->d, j->steps, r0, n, lo);
		return;
	}
	for (k = 0; k < nv; k++)
		lo[k] = (float)pe_store_round(j->d, (double)ex[k]);
}

static int measure(struct job *j, struct pe_error *err)
{
	size_t cols = (size_t)j->cols, block = PE_BLOCK_BYTES / (cols * sizeof(float)), i;
	struct pe_pump_opts po = { j->threads, NULL, NULL };
	float *ex = NULL, *lo = NULL;
	uint64_t r0;
	int rc = -1;

	if (block == 0)
		block = 1;
	if (j->rows > SIZE_MAX / sizeof *j->row)
		return pe_fail(err, PE_ERR_NOMEM, "%llu positions are too many to keep",
			       (unsigned long long)j->rows);
	j->row = malloc((size_t)j->rows * sizeof *j->row);
	ex = malloc(block * cols * sizeof *ex);
	lo = malloc(block * cols * sizeof *lo);
	if (!j->row || !ex || !lo) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	j->max_abs = -1;
	j->first_unrep = j->first_over = NONE;
	for (r0 = 0; r0 < j->rows; r0 += block) {
		size_t n = j->rows - r0 < block ? (size_t)(j->rows - r0) : block;

		if (pe_tensor_fill_rows(&j->ex_t, r0, n, ex, &po, err) != 0)
			goto out;
		if (j->lo_t.fill) {
			if (pe_tensor_fill_rows(&j->lo_t, r0, n, lo, &po, err) != 0)
				goto out;
		} else {
			low_rows(j, r0, n, ex, lo);
		}
		for (i = 0; i < n; i++) {
			struct pe_audit_row *a = &j->row[r0 + i];
			int64_t pos = j->origin + (int64_t)(r0 + i);

			pe_audit_compare_row(ex + i * cols, lo + i * cols, j->cols, a);
			if (a->max_abs > j->max_abs) {
				j->max_abs = a->max_abs;
				j->worst_row = r0 + i;
				j->worst_col = a->worst_col;
			}
			j->sum_abs += a->sum_abs;
			if (a->max_ulp > j->max_ulp)
				j->max_ulp = a->max_ulp;
			if (j->first_over == NONE && a->max_abs > j->threshold)
				j->first_over = pos;
			if (j->positions && j->first_unrep == NONE &&
			    pe_store_round(j->d, (double)pos) != (double)pos)
				j->first_unrep = pos;
		}
	}
	rc = 0;
out:
	free(ex);
	free(lo);
	return rc;
}

/* ---- output ---- */

static const char *steps_text(const struct job *j, char *buf, size_t n)
{
	size_t at = 0, k;

	buf[0] = '\0';
	if (!j->rope_pipe || j->d == PE_STORE_FLOAT32) {
		snprintf(buf, n, "%s", j->d == PE_STORE_FLOAT32 ? "pipeline" : "table");
		return buf;
	}
	for (k = 0; pe_audit_step_names[k] && at < n; k++)
		if (j->steps & (1u << k))
			at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "",
					       pe_audit_step_names[k]);
	return buf;
}

/* the position as the positions step holds it */
static double stored_position(const struct job *j, int64_t pos)
{
	if (j->rope_pipe && j->d != PE_STORE_FLOAT32 && (j->steps & PE_AUDIT_POSITIONS))
		return pe_store_round(j->d, (double)pos);
	return (double)pos;
}

static int write_csv(FILE *fp, void *ctx, struct pe_error *err)
{
	const struct job *j = ctx;
	char line[6 * PE_FMT_BUF + 64], a[PE_FMT_BUF], m[PE_FMT_BUF], r[PE_FMT_BUF], u[PE_FMT_BUF];
	char sp[PE_FMT_BUF];
	uint64_t k;
	int w;

	if (pe_write_str(fp, j->positions ? "position" : "frequency", err) != 0 ||
	    pe_write_str(fp, ",max_abs,mean_abs,max_ulp_f32,max_rel,worst_column,stored_position\n",
			 err) != 0)
		return -1;
	for (k = 0; k < j->rows; k++) {
		const struct pe_audit_row *x = &j->row[k];
		int64_t pos = j->origin + (int64_t)k;

		pe_fmt_f64(x->max_abs, a);
		pe_fmt_f64(x->sum_abs / (double)j->cols, m);
		if (isinf(x->max_rel))
			snprintf(r, sizeof r, "inf");
		else
			pe_fmt_f64(x->max_rel, r);
		if (x->max_ulp == PE_ULP_INF)
			snprintf(u, sizeof u, "inf");
		else
			snprintf(u, sizeof u, "%llu", (unsigned long long)x->max_ulp);
		pe_fmt_f64(stored_position(j, pos), sp);
		w = snprintf(line, sizeof line, "%lld,%s,%s,%s,%s,%llu,%s\n", (long long)pos, a, m, u, r,
			     (unsigned long long)x->worst_col, sp);
		if (pe_write(fp, line, (size_t)w, err) != 0)
			return -1;
	}
	return 0;
}

static void put_pos(char *buf, size_t n, int64_t v)
{
	if (v == NONE)
		snprintf(buf, n, "null");
	else
		snprintf(buf, n, "%lld", (long long)v);
}

static int write_json(FILE *fp, void *ctx, struct pe_error *err)
{
	const struct job *j = ctx;
	char *mj = pe_meta_json(&j->meta);
	char a[PE_FMT_BUF], m[PE_FMT_BUF], t[PE_FMT_BUF], fu[32], fo[32], st[64], u[32];
	char *line;
	size_t cap;
	int w, rc;

	if (!mj)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	pe_fmt_f64(j->max_abs, a);
	pe_fmt_f64(j->rows ? j->sum_abs / ((double)j->rows * (double)j->cols) : 0, m);
	pe_fmt_f64(j->threshold, t);
	put_pos(fu, sizeof fu, j->first_unrep);
	put_pos(fo, sizeof fo, j->first_over);
	if (j->max_ulp == PE_ULP_INF)
		snprintf(u, sizeof u, "\"inf\"");
	else
		snprintf(u, sizeof u, "%llu", (unsigned long long)j->max_ulp);
	cap = strlen(mj) + 1024;
	line = malloc(cap);
	if (!line) {
		free(mj);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	w = snprintf(line, cap,
		     "{\"kind\":\"%s\",\"table\":\"%s\",\"dtype\":\"%s\",\"steps\":\"%s\",\"shape\":[%llu,%llu],"
		     "\"first_unrepresentable_position\":%s,\"threshold\":%s,\"first_over_threshold\":%s,"
		     "\"worst\":[%llu,%llu,%s],\"worst_position\":%lld,\"max_abs\":%s,\"mean_abs\":%s,"
		     "\"max_ulp_f32\":%s,\"meta\":%s}\n",
		     j->kind->name, j->ex_t.name, pe_store_names[j->d], steps_text(j, st, sizeof st),
		     (unsigned long long)j->rows, (unsigned long long)j->cols, fu, t, fo,
		     (unsigned long long)j->worst_row, (unsigned long long)j->worst_col, a,
		     (long long)(j->origin + (int64_t)j->worst_row), a, m, u, mj);
	rc = w < 0 || (size_t)w >= cap ? pe_fail(err, PE_ERR_NOMEM, "summary too long")
				       : pe_write(fp, line, (size_t)w, err);
	free(line);
	free(mj);
	return rc;
}

static int write_chart(struct job *j, struct pe_error *err)
{
	uint64_t n = j->rows < CHART_POINTS ? j->rows : CHART_POINTS;
	double *x = malloc((size_t)n * 3 * sizeof *x), *mx, *mean, tx[2], ty[2];
	struct pe_series s[3];
	struct pe_chart c;
	char thr[64];
	int rc;

	if (!x)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	mx = x + n;
	mean = mx + n;
	/* at most CHART_POINTS points: each the largest (and the mean) of its
	 * run of positions */
	pe_diff_curve(&j->row[0].max_abs, &j->row[0].sum_abs, sizeof j->row[0], j->rows, j->cols,
		      n, (double)j->origin, x, mx, mean);
	tx[0] = x[0];
	tx[1] = (double)(j->origin + (int64_t)j->rows - 1);
	ty[0] = ty[1] = j->threshold;
	snprintf(thr, sizeof thr, "threshold %g", j->threshold);
	memset(s, 0, sizeof s);
	s[0].name = j->rows > n ? "max |error| (of each run of positions)" : "max |error|";
	s[0].x = x;
	s[0].y = mx;
	s[0].n = (size_t)n;
	s[1].name = "mean |error|";
	s[1].x = x;
	s[1].y = mean;
	s[1].n = (size_t)n;
	s[2].name = thr;
	s[2].x = tx;
	s[2].y = ty;
	s[2].n = n > 1 ? 2 : 1;
	memset(&c, 0, sizeof c);
	c.series = s;
	c.nseries = 3;
	c.logy = 1;
	c.xlabel = j->positions ? "position" : "frequency";
	c.ylabel = "abs error";
	rc = pe_emit_chart(&j->out, &c, j->title, &j->meta, err);
	free(x);
	return rc;
}

static void record(struct job *j)
{
	char st[64];

	pe_meta_str(&j->meta, "command", "audit");
	pe_meta_str(&j->meta, "kind", j->kind->name);
	pe_meta_str(&j->meta, "dtype", pe_store_names[j->d]);
	pe_meta_str(&j->meta, "steps", steps_text(j, st, sizeof st));
	pe_meta_num(&j->meta, "threshold", j->threshold);
	snprintf(j->title, sizeof j->title, "%s in %s (%s): error per %s", j->ex_t.name,
		 pe_store_names[j->d], steps_text(j, st, sizeof st),
		 j->positions ? "position" : "frequency");
}

static int run(struct job *j, const struct pe_command *cmd, int argc, char **argv,
	       struct pe_error *err)
{
	int figure;

	if (pe_command_parse(cmd, &j->args, argc, argv, err) != 0 ||
	    pe_args_bind(&j->args, audit_rows, &j->o, err) != 0)
		return -1;
	/* audit's --dtype is the computing type: never the output's stored
	 * type (an output --dtype row, where there is one, must not take it) */
	pe_args_drop(&j->args, &j->o.dtype);
	if (pe_outopts_bind(&j->out, &j->args, err) != 0 || choose_kind(j, err) != 0 ||
	    parse_audit(j, err) != 0 || pe_threads_resolve(&j->out, &j->threads, err) != 0)
		return -1;
	figure = pe_emit_is_figure(&j->out);
	if (!figure) {
		const char *f = j->out.format;
		int json = f ? strcmp(f, "json") == 0 : j->out.path && pe_format_by_path(j->out.path) == PE_FMT_JSON;

		if (pe_emit_text_check(&j->out, json ? PE_FMT_JSON : PE_FMT_CSV, "audit", err) != 0)
			return -1;
	}
	if (build(j, err) != 0 || measure(j, err) != 0)
		return -1;
	record(j);
	if (figure)
		return write_chart(j, err);
	{
		const char *f = j->out.format;
		int json = f ? strcmp(f, "json") == 0 : j->out.path && pe_format_by_path(j->out.path) == PE_FMT_JSON;

		return pe_emit_text(&j->out, json ? PE_FMT_JSON : PE_FMT_CSV, "audit",
				    json ? write_json : write_csv, j, err);
	}
}

static int audit(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job *j = calloc(1, sizeof *j);
	int rc;

	if (!j) {
		fputs("posenc: audit: out of memory\n", stderr);
		return PE_EXIT_FAIL;
	}
	pe_meta_init(&j->meta);
	pe_meta_init(&j->gen.meta);
	pe_meta_init(&j->gen2.meta);
	rc = run(j, cmd, argc, argv, &err) == 0 ? PE_EXIT_OK : -1;
	if (rc < 0) {
		pe_param_explain(&err, &j->args, NULL);
		rc = pe_msg_report("audit", &err);
	}
	if (j->have_exact)
		pe_rope_free(&j->exact);
	free(j->row);
	pe_gen_free(&j->gen2);
	pe_gen_free(&j->gen);
	pe_meta_free(&j->meta);
	pe_args_free(&j->args);
	free(j);
	return rc;
}

const struct pe_command pe_cmd_audit = {
	"audit", "how far a table computed in bfloat16, float16 or float32 is from the exact one",
	usage, audit_rows, PE_CMD_KINDS | PE_CMD_OUTPUT | PE_CMD_SUMMARY_KINDS, audit
};
