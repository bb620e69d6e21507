/*
 * posenc diff A B | A KIND: are two tables the same, how far apart are
 * they, and why.  Recipe: parse; open A (a file, read a block of rows at
 * a time) and B (a file, or the KIND generated); compare the shapes; one
 * pass over every value (core/diff.h); the diagnosis on a sample of rows
 * (core/diagnose.h); the report, the error curve or the error matrix.
 *
 * The exit status is cmp's, the one exception to posenc's: 0 equal within
 * the tolerance, 1 different, 2 trouble (a usage error, an input that
 * cannot be read, an output that cannot be written).
 */
#include <errno.h>
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
#include "cli/tablein.h"
#include "core/diagnose.h"
#include "core/diff.h"
#include "core/pipeline.h"
#include "core/rope.h"
#include "io/diff_out.h"
#include "io/figure.h"
#include "io/read.h"

enum { DIFF_SAME = 0, DIFF_DIFFERENT = 1, DIFF_TROUBLE = 2 };

/* where an option applies: B a file, or B generated */
#define B_FILE 1u
#define B_KIND 2u

struct diff_opts {
	const char *tensor, *tensor_a, *tensor_b, *shape, *shape_a, *shape_b;
	double atol, rtol;
	uint64_t ulps;
	int per, error, precision, quiet, no_diagnosis;
};

#define O(f) offsetof(struct diff_opts, f)

static const char *const pers[] = { "row", "column", NULL };
static const char *const errors[] = { "abs", "rel", "ulp", NULL };

static const struct pe_optdef diff_rows[] = {
	{ PE_HEADING("Inputs (A a file; B a file, or a KIND and its table options):") },
	{ PE_TEXT("tensor", 0, "NAME", O(tensor), "safetensors: the tensor of A and of B (default: the only\n"
						  "one, or *wpe.weight, *position_embeddings.weight, ...)") },
	{ PE_TEXT("tensor-a", 0, "NAME", O(tensor_a), "safetensors: A's tensor (over --tensor)") },
	{ PE_TEXT("tensor-b", 0, "NAME", O(tensor_b), "safetensors: B's tensor (over --tensor)"),
	  .applies = B_FILE },
	{ PE_TEXT("shape", 0, "RxC", O(shape), "A and B are raw little-endian float32, R rows of C") },
	{ PE_TEXT("shape-a", 0, "RxC", O(shape_a), "A is raw float32 of this shape (over --shape)") },
	{ PE_TEXT("shape-b", 0, "RxC", O(shape_b), "B is raw float32 of this shape (over --shape)"),
	  .applies = B_FILE },
	{ PE_CHOICE("precision", 0, "P", O(precision), pe_gen_precisions,
		    "a generated B: exact (default) or float32 (PyTorch's\n"
		    "float32 pipeline, as generate --precision float32)"), .applies = B_KIND },
	{ PE_HEADING("Equality (default: identical float32 values):") },
	{ PE_REAL("atol", 0, "X", O(atol), PE_REAL_NONNEG, "equal when |a - b| <= atol + rtol |b|") },
	{ PE_REAL("rtol", 0, "X", O(rtol), PE_REAL_NONNEG, "(B is the reference, as numpy.isclose(a, b))") },
	{ PE_U64("ulps", 0, "N", O(ulps), 0, (uint64_t)1 << 32, "equal when at most N float32 steps apart") },
	{ PE_HEADING("Report (stdout; with -o FILE the error matrix goes to FILE):") },
	{ PE_FLAG("quiet", 'q', O(quiet), "print nothing: the exit status says (as cmp -s)") },
	{ PE_FLAG("no-diagnosis", 0, O(no_diagnosis), "leave out the diagnosis (why they differ)") },
	{ PE_CHOICE("per", 0, "WHAT", O(per), pers,
		    "row or column: write the errors per row or per column as\n"
		    "CSV (a line chart to -o .png/.svg/.pdf) instead of the report") },
	{ PE_CHOICE("error", 0, "E", O(error), errors,
		    "abs (default), rel or ulp: the error matrix -o writes,\n"
		    "in any format (a heatmap to .png)") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc diff A B [OPTIONS]\n"
	"       posenc diff A KIND [TABLE OPTIONS] [OPTIONS]\n"
	"Compare two tables value by value: A a file, B a file or a table posenc\n"
	"generates (KIND, as generate KIND).  Reports how many values differ, the\n"
	"largest abs, rel and ulp errors and where, and a diagnosis: which known\n"
	"cause (permuted columns, an attention factor, theta, precision, ...)\n"
	"explains the difference.  Exit status as cmp: 0 equal, 1 different,\n"
	"2 trouble.  A second operand that names a kind is the kind; write\n"
	"./rope for a file of that name.\n";

enum mode { MODE_REPORT, MODE_PER, MODE_ERROR };

#define CHART_POINTS 4096	/* a line chart's points at most */

struct side {
	const char *path;		/* NULL: generated */
	struct pe_table_stream st;
	int open;
	struct pe_tensor t;		/* its rows */
	char what[160];
	const char *label;
};

struct job {
	struct pe_args args;
	struct diff_opts o;
	struct pe_outopts out;
	struct side a, b;
	struct pe_gen gen;
	const struct pe_gen_kind *kind;
	enum mode mode;
	int json, threads;
	struct pe_diff_tol tol;
	struct pe_diff_stats st;
	int have_st;
	struct pe_diag diag;
	int have_diag;
	struct pe_diff_report rep;
	struct pe_meta meta;
	struct pe_tensor view_a, view_b;	/* the compared rows, when shapes differ */
	uint64_t rows, cols;			/* the compared region */
};

#define GIVEN(j, f) pe_args_given(&(j)->args, &(j)->o.f)

/* ---- the options ---- */

static int choose_operands(struct job *j, struct pe_error *err)
{
	const struct pe_args *a = &j->args;

	if (a->noperands < 2)
		return pe_fail(err, PE_ERR_USAGE, "expected two operands, A and B (a file or a KIND), got %d",
			       a->noperands);
	if (a->noperands > 2)
		return pe_fail(err, PE_ERR_USAGE, "expected two operands, A and B (a file or a KIND), got %d: '%s' is one too many",
			       a->noperands, a->operands[2]);
	j->a.path = a->operands[0];
	if (pe_gen_kind_by_name(j->a.path))
		return pe_fail(err, PE_ERR_USAGE, "A is a file, the generated table comes second: posenc diff FILE %s (or ./%s for a file of that name)",
			       j->a.path, j->a.path);
	j->kind = pe_gen_kind_by_name(a->operands[1]);
	if (!j->kind)
		j->b.path = a->operands[1];
	if (j->b.path && strcmp(j->a.path, "-") == 0 && strcmp(j->b.path, "-") == 0)
		return pe_fail(err, PE_ERR_USAGE, "A and B are both standard input ('-')");
	return 0;
}

static int parse_diff(struct job *j, struct pe_error *err)
{
	const struct diff_opts *o = &j->o;
	const struct pe_optdef *d;
	int per = GIVEN(j, per) != NULL, error = GIVEN(j, error) != NULL;
	const char *w;

	if ((d = pe_args_misplaced(&j->args, diff_rows, o, j->kind ? B_KIND : B_FILE)))
		return pe_fail(err, PE_ERR_USAGE, d->applies == B_KIND ? "--%s applies to a generated B (posenc diff A KIND)"
								       : "--%s applies to a file B, not to a generated one",
			       d->name);
	j->tol.atol = o->atol;
	j->tol.rtol = o->rtol;
	j->tol.ulps = o->ulps;
	if (per && error)
		return pe_fail(err, PE_ERR_USAGE, "--per and --error are two outputs: give one");
	j->mode = per ? MODE_PER : error ? MODE_ERROR : MODE_REPORT;
	/* -o FILE names where the error matrix goes (the report stays on stdout) */
	if (j->mode == MODE_REPORT && j->out.path && strcmp(j->out.path, "-") != 0)
		j->mode = MODE_ERROR;
	if (j->mode == MODE_REPORT) {
		if (j->out.format && strcmp(j->out.format, "json") != 0)
			return pe_fail(err, PE_ERR_USAGE, "the report is text, or json with -f json, not '%s' (the error matrix: --error abs|rel|ulp)",
				       j->out.format);
		j->json = j->out.format != NULL;
		if ((d = pe_args_misplaced(&j->args, pe_output_rows, &j->out, 0)))
			return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to the report (%s)",
				       d->name, j->json ? "json" : "text");
	}
	if (j->mode == MODE_PER && !pe_emit_is_figure(&j->out) &&
	    pe_emit_text_check(&j->out, PE_FMT_CSV, "per", err) != 0)
		return -1;
	w = j->out.rows && j->mode != MODE_ERROR ? "rows" : NULL;
	if (w)
		return pe_fail(err, PE_ERR_USAGE, "--rows applies to the error matrix (--error or -o FILE)");
	return 0;
}

/* ---- the tables ---- */

static int file_fill(const void *ctx, uint64_t r0, size_t n, void *out, struct pe_error *err)
{
	return pe_table_stream_rows(ctx, r0, n, out, err);
}

static int open_file(struct job *j, struct side *s, const char *tensor, const char *shape,
		     const char *shape_opt, struct pe_error *err)
{
	struct pe_tablein t = { s->path, tensor, shape, shape_opt, 0 };
	uint64_t shp[2];

	s->open = 1;
	if (pe_tablein_open(&t, &s->st, err) != 0)
		return -1;
	shp[0] = s->st.rows;
	shp[1] = s->st.cols;
	if (pe_tensor_init(&s->t, "table", PE_F32, file_fill, &s->st, 1, 2, shp, err) != 0)
		return -1;
	s->label = s->st.name;
	if (s->st.info.tensor[0])
		snprintf(s->what, sizeof s->what, "%s %s, tensor %.100s", pe_in_format_name(s->st.info.format),
			 s->st.info.dtype, s->st.info.tensor);
	else
		snprintf(s->what, sizeof s->what, "%s %s", pe_in_format_name(s->st.info.format),
			 s->st.info.dtype);
	(void)j;
	return 0;
}

static int open_kind(struct job *j, struct pe_error *err)
{
	const struct pe_gen_kind *k = j->kind;
	const struct pe_tensor *t;
	const char *w;

	if ((w = pe_args_unbound(&j->args)))
		return pe_fail(err, PE_ERR_USAGE, "--%s does not apply to %s", w, k->name);
	if (GIVEN(j, precision) && j->o.precision == 1 && !(k->float32 && k->float32(j->gen.opts)))
		return pe_fail(err, PE_ERR_USAGE, "--precision float32: %s has no float32 pipeline here",
			       k->name);
	j->gen.float32 = j->o.precision == 1;
	if (pe_gen_build(&j->gen, err) != 0)
		return -1;
	t = &j->gen.tensor[0];
	if (j->gen.nt != 1 || t->dtype != PE_F32)
		return pe_fail(err, PE_ERR_USAGE, "diff compares one float32 table; %s gives %s",
			       k->name, j->gen.nt != 1 ? "several (choose one --table)" : "integers");
	j->b.t = *t;
	j->b.label = k->name;
	snprintf(j->b.what, sizeof j->b.what, "generated %s, %s", t->name,
		 j->gen.float32 ? "float32 pipeline" : "exact");
	return 0;
}

/* ---- the pass over every value ---- */

/* rows [r0, r0 + n) of t into out, with the pump's workers */
static int fill_rows(const struct pe_tensor *t, uint64_t r0, size_t n, float *out, int threads,
		     struct pe_error *err)
{
	struct pe_pump_opts po = { threads, NULL, NULL };

	return pe_tensor_fill_rows(t, r0, n, out, &po, err);
}

static int compare(struct job *j, const struct pe_tensor *a, const struct pe_tensor *b,
		   struct pe_error *err)
{
	size_t cols = (size_t)j->cols, block = PE_BLOCK_BYTES / (cols * sizeof(float));
	float *ba = NULL, *bb = NULL;
	uint64_t r0;
	int rc = -1;

	if (block == 0)
		block = 1;
	if (block > j->rows)
		block = (size_t)j->rows;
	if (pe_diff_init(&j->st, j->rows, j->cols, j->mode == MODE_PER && j->o.per == 0, err) != 0)
		return -1;
	j->have_st = 1;
	ba = malloc(block * cols * sizeof *ba);
	bb = malloc(block * cols * sizeof *bb);
	if (!ba || !bb) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory for %zu rows of %zu values", block, cols);
		goto out;
	}
	for (r0 = 0; r0 < j->rows; r0 += block) {
		size_t n = j->rows - r0 < block ? (size_t)(j->rows - r0) : block;

		/* a file's rows are copies out of the page cache: workers add
		 * their memory, not speed; a generated table's are computed */
		if (fill_rows(a, r0, n, ba, j->a.open ? 1 : j->threads, err) != 0 ||
		    fill_rows(b, r0, n, bb, j->b.open ? 1 : j->threads, err) != 0)
			goto out;
		pe_diff_add(&j->st, &j->tol, r0, n, ba, bb);
	}
	rc = 0;
out:
	free(ba);
	free(bb);
	return rc;
}

/* ---- differing shapes ---- */

/* RMS of x - y relative to RMS of y over n pairs (0 when y is all 0 and
 * x too) */
static double rel_rms(const float *x, const float *y, size_t n)
{
	double d = 0, s = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		double t = (double)x[k] - (double)y[k];

		d += t * t;
		s += (double)y[k] * (double)y[k];
	}
	return s > 0 ? sqrt(d / s) : d > 0 ? (double)INFINITY : 0;
}

#define SHAPE_SAMPLE 64

/* is A B's transpose, on a sample of A's rows and columns? */
static int check_transposed(struct job *j, double *res, struct pe_error *err)
{
	const struct pe_tensor *a = &j->a.t, *b = &j->b.t;
	size_t ni = a->rows < SHAPE_SAMPLE ? (size_t)a->rows : SHAPE_SAMPLE;
	size_t nj = a->cols < SHAPE_SAMPLE ? (size_t)a->cols : SHAPE_SAMPLE, i, k;
	float *ra = malloc((size_t)a->cols * sizeof *ra), *rb = malloc((size_t)b->cols * sizeof *rb);
	float *x = malloc(ni * nj * sizeof *x), *y = malloc(ni * nj * sizeof *y);
	int rc = -1;

	if (!ra || !rb || !x || !y) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ni; i++) {
		uint64_t r = i * a->rows / ni;

		if (a->fill(a->ctx, r, 1, ra, err) != 0)
			goto out;
		for (k = 0; k < nj; k++)
			x[i * nj + k] = ra[k * a->cols / nj];
	}
	for (k = 0; k < nj; k++) {
		if (b->fill(b->ctx, k * a->cols / nj, 1, rb, err) != 0)
			goto out;
		for (i = 0; i < ni; i++)
			y[i * nj + k] = rb[i * a->rows / ni];
	}
	*res = rel_rms(x, y, ni * nj);
	rc = 0;
out:
	free(ra);
	free(rb);
	free(x);
	free(y);
	return rc;
}

/* is the narrow table (cn columns) the wide one's first half, or its even
 * columns? 1, 2, or 0; *res the best fit */
static int check_half(const struct pe_tensor *narrow, const struct pe_tensor *wide, double *res,
		      struct pe_error *err)
{
	size_t cn = (size_t)narrow->cols, cw = (size_t)wide->cols, ni, i, k;
	float *rn = malloc(cn * sizeof *rn), *rw = malloc(cw * sizeof *rw);
	float *x = NULL, *h = NULL, *e = NULL;
	double rh, re;
	int rc = -1;

	ni = narrow->rows < SHAPE_SAMPLE ? (size_t)narrow->rows : SHAPE_SAMPLE;
	if (rn && rw) {
		x = malloc(ni * cn * sizeof *x);
		h = malloc(ni * cn * sizeof *h);
		e = malloc(ni * cn * sizeof *e);
	}
	if (!rn || !rw || !x || !h || !e) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ni; i++) {
		uint64_t r = i * narrow->rows / ni;

		if (narrow->fill(narrow->ctx, r, 1, rn, err) != 0 ||
		    wide->fill(wide->ctx, r, 1, rw, err) != 0)
			goto out;
		for (k = 0; k < cn; k++) {
			x[i * cn + k] = rn[k];
			h[i * cn + k] = rw[k];
			e[i * cn + k] = rw[2 * k];
		}
	}
	rh = rel_rms(x, h, ni * cn);
	re = rel_rms(x, e, ni * cn);
	*res = rh < re ? rh : re;
	rc = *res <= PE_DIAG_FIT ? (rh <= re ? 1 : 2) : 0;
out:
	free(rn);
	free(rw);
	free(x);
	free(h);
	free(e);
	return rc;
}

/* What differing shapes mean; the region both have in common (rows,
 * when the columns agree) is compared. */
static int shapes(struct job *j, struct pe_error *err)
{
	const struct pe_tensor *a = &j->a.t, *b = &j->b.t;
	char *note = j->rep.shape_note;
	size_t n = sizeof j->rep.shape_note;
	double res = 0;
	int h;

	if (a->rows == b->rows && a->cols == b->cols) {
		j->rows = a->rows;
		j->cols = a->cols;
		return 0;
	}
	if (a->cols == b->cols) {
		j->rows = a->rows < b->rows ? a->rows : b->rows;
		j->cols = a->cols;
		snprintf(note, n, "A has %llu rows, B %llu: their first %llu rows are compared",
			 (unsigned long long)a->rows, (unsigned long long)b->rows,
			 (unsigned long long)j->rows);
		return 0;
	}
	if (a->rows == b->cols && a->cols == b->rows) {
		if (check_transposed(j, &res, err) != 0)
			return -1;
		if (res <= PE_DIAG_FIT) {
			snprintf(note, n, "A (%llu x %llu) is B transposed (relative RMS difference %.3g on a %d x %d sample)",
				 (unsigned long long)a->rows, (unsigned long long)a->cols, res,
				 SHAPE_SAMPLE, SHAPE_SAMPLE);
			j->diag.f[0].cause = PE_CAUSE_TRANSPOSED;
			j->diag.f[0].residual = res;
			snprintf(j->diag.f[0].text, sizeof j->diag.f[0].text,
				 "A's row i is B's column i: the table was written with its axes swapped (rows are positions)");
			pe_meta_init(&j->diag.f[0].ev);
			j->diag.n = 1;
			snprintf(j->diag.sample, sizeof j->diag.sample, "%d rows of A against %d rows of B",
				 SHAPE_SAMPLE, SHAPE_SAMPLE);
			j->have_diag = 1;
			return 0;
		}
	}
	if (a->rows == b->rows && (a->cols * 2 == b->cols || b->cols * 2 == a->cols)) {
		int a_narrow = a->cols < b->cols;

		h = check_half(a_narrow ? a : b, a_narrow ? b : a, &res, err);
		if (h < 0)
			return -1;
		if (h) {
			snprintf(note, n, "%s (%llu columns) is %s's %s (relative RMS difference %.3g): a half-width cos/sin (one column per frequency, as gpt-oss and ONNX Runtime keep them) against a full one (%s)",
				 a_narrow ? "A" : "B", (unsigned long long)(a_narrow ? a->cols : b->cols),
				 a_narrow ? "B" : "A", h == 1 ? "first half of columns" : "even columns",
				 res, h == 1 ? "cat(freqs, freqs), half layout" : "pairs, interleaved layout");
			return 0;
		}
	}
	snprintf(note, n, "A is %llu x %llu, B %llu x %llu: no relation found (not transposed, not half the columns, not a prefix of rows)",
		 (unsigned long long)a->rows, (unsigned long long)a->cols,
		 (unsigned long long)b->rows, (unsigned long long)b->cols);
	return 0;
}

/* a view of t's first rows rows */
static void first_rows(struct pe_tensor *v, const struct pe_tensor *t, uint64_t rows)
{
	*v = *t;
	v->ndim = 2;
	v->shape[0] = v->rows = rows;
	v->shape[1] = v->cols = t->cols;
}

/* ---- output ---- */

static void record(struct job *j)
{
	pe_meta_str(&j->meta, "command", "diff");
	pe_meta_str(&j->meta, "a", j->a.label);
	pe_meta_str(&j->meta, "b", j->b.label);
	if (j->kind)
		pe_meta_str(&j->meta, "b_table", j->b.what);
	pe_meta_num(&j->meta, "atol", j->tol.atol);
	pe_meta_num(&j->meta, "rtol", j->tol.rtol);
	pe_meta_int(&j->meta, "ulps", (int64_t)j->tol.ulps);
}

static int report_text(FILE *fp, void *ctx, struct pe_error *err)
{
	const struct job *j = ctx;

	return j->json ? pe_diff_write_json(fp, &j->rep, &j->meta, err)
		       : pe_diff_write_text(fp, &j->rep, err);
}

static int report(struct job *j, struct pe_error *err)
{
	if (j->o.quiet)
		return 0;
	if (j->mode == MODE_REPORT)
		return pe_emit_text(&j->out, j->json ? PE_FMT_JSON : PE_FMT_CSV, "report", report_text,
				    j, err);
	/* beside a file: the text report on stdout */
	if (j->out.path && strcmp(j->out.path, "-") != 0)
		return pe_diff_write_text(stdout, &j->rep, err);
	return 0;
}

struct lines_ctx {
	const struct job *j;
};

static int lines_text(FILE *fp, void *ctx, struct pe_error *err)
{
	const struct job *j = ctx;
	int rows = j->o.per == 0;

	return pe_diff_write_lines(fp, rows ? "row" : "column", rows ? j->st.row : j->st.col,
				   rows ? j->rows : j->cols, rows ? j->cols : j->rows,
				   rows && j->kind ? j->gen.row_origin : 0, err);
}

static int write_per_chart(struct job *j, struct pe_error *err)
{
	int rows = j->o.per == 0;
	uint64_t all = rows ? j->rows : j->cols, len = rows ? j->cols : j->rows;
	uint64_t n = all < CHART_POINTS ? all : CHART_POINTS;
	const struct pe_diff_line *l = rows ? j->st.row : j->st.col;
	double *x = malloc((size_t)n * 3 * sizeof *x), *mx, *mean;
	struct pe_series s[2];
	struct pe_chart c;
	char title[256];
	int rc;

	if (!x)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	mx = x + n;
	mean = mx + n;
	/* at most CHART_POINTS points: each the largest (and the mean) of its run */
	pe_diff_curve(&l[0].max_abs, &l[0].sum_abs, sizeof l[0], all, len, n,
		      (double)(rows && j->kind ? j->gen.row_origin : 0), x, mx, mean);
	memset(s, 0, sizeof s);
	s[0].name = "max |a - b|";
	s[0].x = x;
	s[0].y = mx;
	s[0].n = (size_t)n;
	s[1].name = "mean |a - b|";
	s[1].x = x;
	s[1].y = mean;
	s[1].n = (size_t)n;
	memset(&c, 0, sizeof c);
	c.series = s;
	c.nseries = 2;
	c.logy = 1;
	c.xlabel = rows ? "row" : "column";
	c.ylabel = "abs error";
	snprintf(title, sizeof title, "diff %s vs %s: error per %s", j->a.label, j->b.label,
		 rows ? "row" : "column");
	rc = pe_emit_chart(&j->out, &c, title, &j->meta, err);
	free(x);
	return rc;
}

struct errmat {
	const struct pe_tensor *a, *b;
	enum pe_diff_metric m;
};

static int errmat_fill(const void *ctx, uint64_t r0, size_t n, void *out, struct pe_error *err)
{
	const struct errmat *e = ctx;
	size_t len = n * (size_t)e->a->cols;
	float *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y);
	int rc = -1;

	if (!x || !y) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (e->a->fill(e->a->ctx, r0, n, x, err) != 0 || e->b->fill(e->b->ctx, r0, n, y, err) != 0)
		goto out;
	pe_diff_metric(e->m, x, y, len, out);
	rc = 0;
out:
	free(x);
	free(y);
	return rc;
}

static int write_errors(struct job *j, const struct pe_tensor *a, const struct pe_tensor *b,
			struct pe_error *err)
{
	static const char *const names[] = { "diff_abs", "diff_rel", "diff_ulp" };
	struct errmat em = { a, b, (enum pe_diff_metric)j->o.error };
	uint64_t shp[2] = { a->rows, a->cols };
	struct pe_tensor t;
	struct pe_emit e;

	if (pe_tensor_init(&t, names[j->o.error], PE_F32, errmat_fill, &em, a->parallel && b->parallel,
			   2, shp, err) != 0)
		return -1;
	memset(&e, 0, sizeof e);
	e.pump.threads = j->threads;
	e.so.row_origin = j->kind ? j->gen.row_origin : 0;
	e.so.xlabel = j->kind ? j->gen.xlabel : "column";
	e.so.ylabel = j->kind ? j->gen.ylabel : "row";
	snprintf(e.title, sizeof e.title, "%s error, %s vs %s", errors[j->o.error], j->a.label,
		 j->b.label);
	e.so.title = e.title;
	e.scan = 1;	/* json refuses inf before the first byte */
	pe_meta_str(&j->meta, "error", errors[j->o.error]);
	j->out.col_prefix = j->kind ? j->gen.col_prefix : "c";
	if (pe_emit_prepare(&e, &j->out, &t, 1, &j->meta, err) != 0)
		return -1;
	return pe_emit_run(&e, &j->out, &t, 1, &j->meta, err);
}

/* ---- the recipe ---- */

static int run(struct job *j, const struct pe_command *cmd, int argc, char **argv,
	       struct pe_error *err)
{
	const struct pe_tensor *a, *b;
	const char *tensor_b, *shape_b;

	if (pe_command_parse(cmd, &j->args, argc, argv, err) != 0 ||
	    pe_args_bind(&j->args, diff_rows, &j->o, err) != 0 ||
	    pe_outopts_bind(&j->out, &j->args, err) != 0 || choose_operands(j, err) != 0 ||
	    parse_diff(j, err) != 0 || pe_threads_resolve(&j->out, &j->threads, err) != 0)
		return -1;
	if (j->kind) {
		if (pe_gen_bind(&j->gen, j->kind, &j->args, err) != 0)
			return -1;
	} else {
		const char *w = pe_args_unbound(&j->args);

		if (w)
			return pe_fail(err, PE_ERR_USAGE, "--%s applies to a generated B (posenc diff A KIND), not to a file",
				       w);
	}
	if (open_file(j, &j->a, j->o.tensor_a ? j->o.tensor_a : j->o.tensor,
		      j->o.shape_a ? j->o.shape_a : j->o.shape, j->o.shape_a ? "shape-a" : "shape",
		      err) != 0)
		return -1;
	tensor_b = j->o.tensor_b ? j->o.tensor_b : j->o.tensor;
	shape_b = j->o.shape_b ? j->o.shape_b : j->o.shape;
	if (j->kind ? open_kind(j, err) : open_file(j, &j->b, tensor_b, shape_b,
						      j->o.shape_b ? "shape-b" : "shape", err))
		return -1;
	j->rep.a.label = j->a.label;
	j->rep.a.what = j->a.what;
	j->rep.a.rows = j->a.t.rows;
	j->rep.a.cols = j->a.t.cols;
	j->rep.b.label = j->b.label;
	j->rep.b.what = j->b.what;
	j->rep.b.rows = j->b.t.rows;
	j->rep.b.cols = j->b.t.cols;
	j->rep.tol = j->tol;
	record(j);
	if (shapes(j, err) != 0)
		return -1;
	if (j->rows == 0) {
		/* nothing in common to compare */
		if (j->mode != MODE_REPORT)
			return pe_fail(err, PE_ERR_DATA, "A is %llu x %llu and B %llu x %llu: no errors to write",
				       (unsigned long long)j->a.t.rows, (unsigned long long)j->a.t.cols,
				       (unsigned long long)j->b.t.rows, (unsigned long long)j->b.t.cols);
		j->rep.diag = j->have_diag ? &j->diag : NULL;
		return report(j, err) != 0 ? -1 : DIFF_DIFFERENT;
	}
	first_rows(&j->view_a, &j->a.t, j->rows);
	first_rows(&j->view_b, &j->b.t, j->rows);
	a = &j->view_a;
	b = &j->view_b;
	if (compare(j, a, b, err) != 0)
		return -1;
	j->rep.rows = j->rows;
	j->rep.cols = j->cols;
	j->rep.st = &j->st;
	j->rep.equal = j->st.differ == 0 && !j->rep.shape_note[0];
	if (!j->rep.equal && j->st.differ && !j->o.no_diagnosis && !j->o.quiet &&
	    j->mode != MODE_PER) {
		struct pe_diag_model model;
		struct pe_diag_in in;

		memset(&model, 0, sizeof model);
		memset(&in, 0, sizeof in);
		in.a = a;
		in.b = b;
		in.st = &j->st;
		in.threads = j->threads;
		if (j->kind && (model.rope = pe_gen_rope(&j->gen, &model.max_positions))) {
			model.table = (enum pe_rope_table)-1;
			if (strcmp(j->b.t.name, "rope_cos") == 0)
				model.table = PE_ROPE_COS;
			else if (strcmp(j->b.t.name, "rope_sin") == 0)
				model.table = PE_ROPE_SIN;
			else if (strcmp(j->b.t.name, "rope_inv_freq") == 0)
				model.table = PE_ROPE_INV_FREQ;
			else if (strcmp(j->b.t.name, "rope_angles") == 0)
				model.table = PE_ROPE_ANGLES;
			if ((int)model.table >= 0 && j->rows == j->b.t.rows)
				in.model = &model;
		}
		if (pe_diagnose(&in, &j->diag, err) != 0)
			return -1;
		j->have_diag = 1;
	}
	j->rep.diag = j->have_diag ? &j->diag : NULL;
	if (j->mode == MODE_PER) {
		if (pe_emit_is_figure(&j->out) ? write_per_chart(j, err)
					       : pe_emit_text(&j->out, PE_FMT_CSV, "per", lines_text, j, err))
			return -1;
	} else if (j->mode == MODE_ERROR) {
		if (write_errors(j, a, b, err) != 0)
			return -1;
	}
	if (report(j, err) != 0)
		return -1;
	return j->rep.equal ? DIFF_SAME : DIFF_DIFFERENT;
}

static int diff(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct job *j = calloc(1, sizeof *j);
	int rc;

	if (!j) {
		fputs("posenc: diff: out of memory\n", stderr);
		return DIFF_TROUBLE;
	}
	pe_meta_init(&j->meta);
	pe_meta_init(&j->gen.meta);
	rc = run(j, cmd, argc, argv, &err);
	/* stdout's last bytes are checked here: a write error is trouble (2),
	 * which main's final check would report as 1, "different" */
	errno = 0;
	if (rc >= 0 && fflush(stdout) != 0 && errno != EPIPE && !pe_msg_pipe_closed()) {
		pe_fail(&err, PE_ERR_IO, "write error: %s", errno ? strerror(errno) : "unknown error");
		rc = -1;
	}
	if (rc < 0) {
		pe_param_explain(&err, &j->args, NULL);
		if (pe_msg_report("diff", &err) != PE_EXIT_OK || err.code != PE_ERR_PIPE)
			rc = DIFF_TROUBLE;
		else
			rc = j->have_st ? (j->st.differ ? DIFF_DIFFERENT : DIFF_SAME) : DIFF_TROUBLE;
	}
	if (j->have_diag)
		pe_diag_free(&j->diag);
	pe_diff_free(&j->st);
	if (j->a.open)
		pe_table_stream_close(&j->a.st);
	if (j->b.open)
		pe_table_stream_close(&j->b.st);
	pe_gen_free(&j->gen);
	pe_meta_free(&j->meta);
	pe_args_free(&j->args);
	free(j);
	return rc;
}

const struct pe_command pe_cmd_diff = {
	"diff", "compare two tables (or a table and a generated KIND), and say why they differ",
	usage, diff_rows, PE_CMD_KINDS | PE_CMD_OUTPUT | PE_CMD_FILES, diff
};
