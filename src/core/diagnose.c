/*
 * The diagnosis of diagnose.h.  The order of the research notes (rope-2026
 * G): permutations and transposition first (the same values elsewhere),
 * then a constant ratio (an attention factor), then ratios of frequencies
 * (scaling, L0, truncate, long/short, theta, a doubled angle), then
 * precision and storage; here every test runs and the residuals rank them.
 * A cause appears once, with its best variant.
 */
#include "core/diagnose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/audit.h"
#include "core/ulp.h"

#define PE_PI 3.141592653589793

const char *const pe_cause_names[] = {
	"permuted-columns", "transposed", "swapped-sin-cos", "row-offset", "constant-scale",
	"column-scale", "theta", "precision", "storage-dtype", "double-rotation", NULL
};

/* values of one table the sample may hold (per side), and its row counts */
#define SAMPLE_VALUES ((uint64_t)1 << 22)
#define HEAD_ROWS 64
#define LADDER_M 9		/* rows 0, L, ..., 8L */
#define SPREAD_ROWS 512
#define MAX_LADDER 48
#define MATCH_ROWS 64		/* rows the column matching compares */
#define MATCH_MAX_COLS 4096	/* wider tables: the known permutations only */
#define SIN_TOL 0.05		/* a column is a sinusoid when the identity leaves <= 5 % */

struct ctx {
	const struct pe_diag_in *in;
	struct pe_diag *d;
	uint64_t R, C;
	size_t n;			/* sample rows */
	uint64_t *row;
	float *a, *b, *pred;		/* n x C */
	double d0;			/* sum of (a - b)^2 over the sample's finite pairs */
	double ssa, ssb;		/* sums of a^2 and b^2 over them */
	struct pe_diag_finding best[PE_NCAUSES];
	int have[PE_NCAUSES];
	/* frequencies per column (negative: unknown), their uncertainty */
	double *wa, *wb;
	int freq_ok;			/* both tables sinusoidal */
	struct pe_error *err;
};

/* ---- the sample ---- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static size_t pick_rows(const struct pe_diag_in *in, uint64_t R, uint64_t C, uint64_t *out,
			size_t cap, char *words, size_t nwords)
{
	const struct pe_diff_stats *st = in->st;
	uint64_t budget = SAMPLE_VALUES / C, L, m, k;
	size_t n = 0, i, u;

	if (budget < HEAD_ROWS)
		budget = HEAD_ROWS;
	if (R <= PE_DIAG_ALL_ROWS && R <= budget) {
		for (k = 0; k < R; k++)
			out[n++] = k;
		snprintf(words, nwords, "all %llu rows", (unsigned long long)R);
		return n;
	}
	for (k = 0; k < R && k < HEAD_ROWS; k++)
		out[n++] = k;
	for (L = 1; L < R && n + LADDER_M < cap; L *= 2)
		for (m = 0; m < LADDER_M && m * L < R; m++)
			out[n++] = m * L;
	for (k = 0; k < SPREAD_ROWS && n < cap - 8; k++)
		out[n++] = k * (R - 1) / (SPREAD_ROWS - 1);
	if (st->differ) {
		const uint64_t special[] = { st->abs.row, st->rel.row, st->first_row };

		for (k = 0; k < 3; k++) {
			out[n++] = special[k];
			if (special[k] + 1 < R)
				out[n++] = special[k] + 1;
		}
	}
	qsort(out, n, sizeof *out, cmp_u64);
	for (i = u = 0; i < n; i++)
		if (u == 0 || out[i] != out[u - 1])
			out[u++] = out[i];
	snprintf(words, nwords,
		 "%zu of %llu rows: the first %d, rows m 2^k (m < %d), %d evenly spaced, the largest errors",
		 u, (unsigned long long)R, HEAD_ROWS, LADDER_M, SPREAD_ROWS);
	return u;
}

/* rows of t at the sorted indices row[0..n) into out, a run at a time */
static int fill_sample(const struct pe_tensor *t, const uint64_t *row, size_t n, float *out,
		       struct pe_error *err)
{
	size_t i = 0, j;

	while (i < n) {
		for (j = i + 1; j < n && row[j] == row[j - 1] + 1; j++)
			;
		if (t->fill(t->ctx, row[i], j - i, out + i * (size_t)t->cols, err) != 0)
			return -1;
		i = j;
	}
	return 0;
}

/* index in the sample of row r, or -1 */
static long sample_index(const struct ctx *c, uint64_t r)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->row[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->row[lo] == r ? (long)lo : -1;
}

/* ---- residuals and findings ---- */

static int finite2(float x, float y)
{
	return isfinite(x) && isfinite(y);
}

/* RMS(pred - target) / RMS(b - a) over the sample (target a, or b when
 * on_b), or over RMS(target) when that is smaller: a prediction must
 * explain the table it predicts, not just be near it (0 is near a small
 * table); pairs where a or b is not finite are left out */
static double residual(const struct ctx *c, const float *pred, int on_b)
{
	const float *t = on_b ? c->b : c->a;
	size_t k, nv = c->n * (size_t)c->C;
	double s = 0, d = fmin(c->d0, on_b ? c->ssb : c->ssa);

	if (!(d > 0))
		return INFINITY;
	for (k = 0; k < nv; k++) {
		double e;

		if (!finite2(c->a[k], c->b[k]))
			continue;
		if (!isfinite(pred[k]))
			return INFINITY;
		e = (double)pred[k] - (double)t[k];
		s += e * e;
	}
	return sqrt(s / d);
}

/* residual() over the sample rows i with i % step == 0 alone */
static double residual_every(const struct ctx *c, const float *pred, size_t step)
{
	size_t i, j, C = (size_t)c->C;
	double s = 0, d0 = 0, sa = 0;

	for (i = 0; i < c->n; i += step)
		for (j = 0; j < C; j++) {
			size_t k = i * C + j;
			double e, e0;

			if (!finite2(c->a[k], c->b[k]))
				continue;
			if (!isfinite(pred[k]))
				return INFINITY;
			e = (double)pred[k] - (double)c->a[k];
			e0 = (double)c->b[k] - (double)c->a[k];
			s += e * e;
			d0 += e0 * e0;
			sa += (double)c->a[k] * (double)c->a[k];
		}
	d0 = fmin(d0, sa);
	return d0 > 0 ? sqrt(s / d0) : s > 0 ? (double)INFINITY : 0;
}

/* Keep a finding for cause if it is the best so far; fmt is its text. */
static struct pe_diag_finding *offer(struct ctx *c, enum pe_cause cause, double res,
				     const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static struct pe_diag_finding *offer(struct ctx *c, enum pe_cause cause, double res,
				     const char *fmt, ...)
{
	struct pe_diag_finding *f = &c->best[cause];
	va_list ap;

	if (!(res == res) || (c->have[cause] && !(res < f->residual)))
		return NULL;
	if (c->have[cause])
		pe_meta_free(&f->ev);
	c->have[cause] = 1;
	f->cause = cause;
	f->residual = res;
	pe_meta_init(&f->ev);
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof f->text, fmt, ap);
	va_end(ap);
	return f;
}

/* ---- constant-scale ---- */

struct named {
	double v;
	char what[128];
};

/* attention factors of the families (rope-2026 A.5), as (value, words) */
static size_t known_factors(struct named *out, size_t cap)
{
	static const double fs[] = { 2, 4, 8, 16, 32, 40, 64, 128 };
	static const double l0s[] = { 2048, 4096, 8192, 16384, 32768 };
	size_t n = 0, i, k;

	for (i = 0; i < sizeof fs / sizeof fs[0] && n + 2 < cap; i++) {
		double g = pe_rope_yarn_mscale(fs[i], 1);

		out[n].v = g;
		snprintf(out[n++].what, sizeof out[0].what,
			 "0.1 ln(%g) + 1, YaRN's attention factor for factor %g", fs[i], fs[i]);
		out[n].v = g * g;
		snprintf(out[n++].what, sizeof out[0].what,
			 "(0.1 ln(%g) + 1)^2, YaRN's factor %g applied twice (mscale^2)", fs[i], fs[i]);
		for (k = 0; k < sizeof l0s / sizeof l0s[0] && n < cap; k++) {
			out[n].v = sqrt(1 + log(fs[i]) / log(l0s[k]));
			snprintf(out[n++].what, sizeof out[0].what,
				 "sqrt(1 + ln %g / ln %g), LongRoPE's attention factor (factor %g, L0 %g)",
				 fs[i], l0s[k], fs[i], l0s[k]);
		}
	}
	return n;
}

static void test_scale(struct ctx *c)
{
	const struct pe_diff_stats *st = c->in->st;
	const struct pe_diag_model *m = c->in->model;
	struct named kf[128];
	size_t nk, k, nv = c->n * (size_t)c->C;
	double S, best = INFINITY, res;
	const char *match = NULL;
	char what[200];
	struct pe_diag_finding *f;

	if (isfinite(st->sum_ab) && isfinite(st->sum_bb) && st->sum_bb > 0) {
		S = st->sum_ab / st->sum_bb;
	} else {
		double ab = 0, bb = 0;

		for (k = 0; k < nv; k++)
			if (finite2(c->a[k], c->b[k])) {
				ab += (double)c->a[k] * (double)c->b[k];
				bb += (double)c->b[k] * (double)c->b[k];
			}
		if (!(bb > 0))
			return;
		S = ab / bb;
	}
	if (!isfinite(S) || S == 0 || fabs(S - 1) < 1e-9)
		return;
	for (k = 0; k < nv; k++)
		c->pred[k] = (float)(S * (double)c->b[k]);
	res = residual(c, c->pred, 0);
	what[0] = '\0';
	if (m && m->rope && (m->table == PE_ROPE_COS || m->table == PE_ROPE_SIN)) {
		double att = m->rope->attention;

		if (att != 1 && fabs(S * att - 1) < 1e-5)
			snprintf(what, sizeof what, "A lacks B's attention factor %.8g (A = B / %.8g)",
				 att, att);
		else if (att != 1 && fabs(S / att - 1) < 1e-5)
			snprintf(what, sizeof what, "B's attention factor %.8g applied once more in A",
				 att);
	}
	nk = known_factors(kf, sizeof kf / sizeof kf[0]);
	for (k = 0; k < nk; k++) {
		double e1 = fabs(S / kf[k].v - 1), e2 = fabs(S * kf[k].v - 1);

		if (e1 < 1e-5 && e1 < best) {
			best = e1;
			match = kf[k].what;
			if (!what[0])
				snprintf(what, sizeof what, "A has %s, B does not", kf[k].what);
		}
		if (e2 < 1e-5 && e2 < best) {
			best = e2;
			match = kf[k].what;
			if (!what[0])
				snprintf(what, sizeof what, "B has %s, A does not", kf[k].what);
		}
	}
	f = offer(c, PE_CAUSE_CONSTANT_SCALE, res, "A = %.8g x B over every value%s%s", S,
		  what[0] ? ": " : "", what);
	if (f) {
		pe_meta_num(&f->ev, "scale", S);
		if (match)
			pe_meta_str(&f->ev, "matches", match);
	}
}

/* ---- storage-dtype ---- */

static void test_storage(struct ctx *c)
{
	static const enum pe_store ds[] = { PE_STORE_BFLOAT16, PE_STORE_FLOAT16 };
	size_t k, i, nv = c->n * (size_t)c->C;
	int side;

	for (i = 0; i < 2; i++) {
		for (side = 0; side < 2; side++) {
			const float *src = side ? c->a : c->b;	/* side 0: A is B rounded */
			uint64_t held = 0, seen = 0;
			struct pe_diag_finding *f;
			double res;

			for (k = 0; k < nv; k++) {
				double r = pe_store_round(ds[i], (double)src[k]);
				const float *o = side ? c->b : c->a;

				c->pred[k] = (float)r;
				if (isfinite(o[k])) {
					seen++;
					held += pe_store_round(ds[i], (double)o[k]) == (double)o[k];
				}
			}
			res = residual(c, c->pred, side);
			f = offer(c, PE_CAUSE_STORAGE_DTYPE, res,
				  "%s is %s rounded to %s (nearest even): %llu of the %llu values of %s examined are %s numbers",
				  side ? "B" : "A", side ? "A" : "B", pe_store_names[ds[i]],
				  (unsigned long long)held, (unsigned long long)seen, side ? "B" : "A",
				  pe_store_names[ds[i]]);
			if (f) {
				pe_meta_str(&f->ev, "dtype", pe_store_names[ds[i]]);
				pe_meta_str(&f->ev, "rounded", side ? "B" : "A");
			}
		}
	}
}

/* ---- permuted-columns ---- */

enum { P_HALF_TO_INTER, P_INTER_TO_HALF, P_ROTATE_HALF, P_ROTATE_HALF_SIGNED, P_SWAP_PAIRS,
       P_REVERSED, NPERMS };

static const char *const perm_names[NPERMS] = {
	"half-to-interleaved", "interleaved-to-half", "rotate-half", "rotate-half-signed",
	"swap-pairs", "reversed"
};

static const char *const perm_words[NPERMS] = {
	"A is interleaved (GPT-J / Meta pairs 2j, 2j+1) where B is half ([f | f], HF rotate_half): A's column 2j is B's j, 2j+1 is B's j + C/2",
	"A is half ([f | f], HF rotate_half) where B is interleaved (pairs 2j, 2j+1): A's column j is B's 2j, j + C/2 is B's 2j+1",
	"A's halves are swapped: A's column j is B's column j + C/2 (mod C)",
	"A is B through rotate_half: [-x2 | x1]",
	"A's adjacent columns are swapped (2j <-> 2j+1: sin and cos of an interleaved table, or a pair's order)",
	"A's columns are in reverse order",
};

/* column j of A comes from column src(j) of B with sign sg(j) */
static int perm_src(int p, uint64_t C, uint64_t j, uint64_t *src, int *sg)
{
	uint64_t h = C / 2;

	*sg = 1;
	if (p != P_REVERSED && C % 2)
		return -1;
	switch (p) {
	case P_HALF_TO_INTER:
		*src = j % 2 ? j / 2 + h : j / 2;
		break;
	case P_INTER_TO_HALF:
		*src = j < h ? 2 * j : 2 * (j - h) + 1;
		break;
	case P_ROTATE_HALF:
		*src = (j + h) % C;
		break;
	case P_ROTATE_HALF_SIGNED:
		*src = (j + h) % C;
		*sg = j < h ? -1 : 1;
		break;
	case P_SWAP_PAIRS:
		*src = j ^ 1;
		break;
	default:
		*src = C - 1 - j;
		break;
	}
	return 0;
}

static void apply_perm(struct ctx *c, const uint64_t *src, const signed char *sg)
{
	size_t i;
	uint64_t j, C = c->C;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < C; j++)
			c->pred[i * C + j] = (float)sg[j] * c->b[i * C + src[j]];
}

static void test_permutation(struct ctx *c)
{
	uint64_t C = c->C, j, k;
	uint64_t *src = malloc((size_t)C * sizeof *src);
	signed char *sg = malloc((size_t)C);
	size_t i, rows[MATCH_ROWS], nr = 0;
	double best_known = INFINITY, res;
	int p, best_p = -1, moved = 0, sgn;
	struct pe_diag_finding *f;

	if (!src || !sg || C < 2)
		goto out;
	for (p = 0; p < NPERMS; p++) {
		for (j = 0; j < C; j++) {
			if (perm_src(p, C, j, &src[j], &sgn) != 0)
				break;
			sg[j] = (signed char)sgn;
		}
		if (j < C)
			continue;
		apply_perm(c, src, sg);
		res = residual(c, c->pred, 0);
		if (res < best_known) {
			best_known = res;
			best_p = p;
		}
	}
	if (best_p >= 0 && best_known <= PE_DIAG_FIT) {
		f = offer(c, PE_CAUSE_PERMUTED_COLUMNS, best_known, "%s", perm_words[best_p]);
		if (f)
			pe_meta_str(&f->ev, "permutation", perm_names[best_p]);
		goto out;
	}
	if (C > MATCH_MAX_COLS)
		goto out;
	/* each column of A against every column of B (and its negative) on
	 * rows spread over the sample */
	for (i = 0; i < MATCH_ROWS && i < c->n; i++)
		rows[nr++] = i * c->n / (c->n < MATCH_ROWS ? c->n : MATCH_ROWS);
	for (j = 0; j < C; j++) {
		double bd = 0;

		/* the column in place first: another must fit strictly better */
		for (i = 0; i < nr; i++) {
			double x = c->a[rows[i] * C + j] - c->b[rows[i] * C + j];

			bd += x * x;
		}
		src[j] = j;
		sg[j] = 1;
		for (k = 0; k < C; k++) {
			double dp = 0, dm = 0;

			for (i = 0; i < nr && (dp < bd || dm < bd); i++) {
				double x = c->a[rows[i] * C + j], y = c->b[rows[i] * C + k];

				dp += (x - y) * (x - y);
				dm += (x + y) * (x + y);
			}
			if (dp < bd) {
				bd = dp;
				src[j] = k;
				sg[j] = 1;
			}
			if (dm < bd) {
				bd = dm;
				src[j] = k;
				sg[j] = -1;
			}
		}
		moved += src[j] != j || sg[j] != 1;
	}
	if (!moved)
		goto out;
	apply_perm(c, src, sg);
	res = residual(c, c->pred, 0);
	{
		char list[200];
		size_t at = 0;
		int shown = 0;

		list[0] = '\0';
		for (j = 0; j < C && shown < 6 && at < sizeof list - 40; j++)
			if (src[j] != j || sg[j] != 1) {
				at += (size_t)snprintf(list + at, sizeof list - at, "%s%s%llu <- B %llu",
						       shown ? ", " : "", sg[j] < 0 ? "-" : "",
						       (unsigned long long)j, (unsigned long long)src[j]);
				shown++;
			}
		f = offer(c, PE_CAUSE_PERMUTED_COLUMNS, res,
			  "A's columns are B's in another order%s (%d of %llu columns moved: A %s%s)",
			  "", moved, (unsigned long long)C, list, moved > shown ? ", ..." : "");
		if (f)
			pe_meta_str(&f->ev, "permutation", "other");
	}
out:
	free(src);
	free(sg);
}

/* ---- transposed (square tables: every row is in the sample) ---- */

static void test_transposed(struct ctx *c)
{
	uint64_t i, j;

	if (c->R != c->C || c->n != c->R)
		return;
	for (i = 0; i < c->R; i++)
		for (j = 0; j < c->C; j++)
			c->pred[i * c->C + j] = c->b[j * c->C + i];
	offer(c, PE_CAUSE_TRANSPOSED, residual(c, c->pred, 0),
	      "A's row i is B's column i: the axes swapped (rows are positions)");
}

/* ---- row-offset ---- */

static int test_offset_k(struct ctx *c, int64_t K, double *res)
{
	const struct pe_tensor *b = c->in->b;
	float *row = malloc((size_t)c->C * sizeof *row);
	size_t i, used = 0;
	uint64_t j;
	double s = 0, s0 = 0, sa = 0;

	if (!row)
		return pe_fail(c->err, PE_ERR_NOMEM, "out of memory");
	for (i = 0; i < c->n; i++) {
		int64_t r = (int64_t)c->row[i] + K;

		if (r < 0 || (uint64_t)r >= c->R)
			continue;
		if (b->fill(b->ctx, (uint64_t)r, 1, row, c->err) != 0) {
			free(row);
			return -1;
		}
		for (j = 0; j < c->C; j++) {
			float x = c->a[i * c->C + j], y = c->b[i * c->C + j];
			double e, e0;

			if (!finite2(x, y) || !isfinite(row[j]))
				continue;
			e = (double)row[j] - (double)x;
			e0 = (double)y - (double)x;
			s += e * e;
			s0 += e0 * e0;
			sa += (double)x * (double)x;
		}
		used++;
	}
	free(row);
	s0 = fmin(s0, sa);
	*res = used >= 2 && s0 > 0 ? sqrt(s / s0) : (double)INFINITY;
	return 0;
}

static int test_row_offset(struct ctx *c)
{
	const struct pe_diff_stats *st = c->in->st;
	int64_t cand[2 * PE_DIFF_NEAR];
	size_t nc = 0, k;

	for (k = 0; k < PE_DIFF_NEAR; k++) {
		if (st->a0_in_b[k].row != UINT64_MAX)
			cand[nc++] = (int64_t)st->a0_in_b[k].row;
		if (st->b0_in_a[k].row != UINT64_MAX)
			cand[nc++] = -(int64_t)st->b0_in_a[k].row;
	}
	for (k = 0; k < nc; k++) {
		double res = INFINITY;
		struct pe_diag_finding *f;

		if (test_offset_k(c, cand[k], &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_ROW_OFFSET, res,
			  "A's row i is B's row i %s %llu: A starts %llu position%s %s B (position ids off by %lld)",
			  cand[k] > 0 ? "+" : "-", (unsigned long long)llabs(cand[k]),
			  (unsigned long long)llabs(cand[k]), llabs(cand[k]) == 1 ? "" : "s",
			  cand[k] > 0 ? "after" : "before", (long long)cand[k]);
		if (f)
			pe_meta_int(&f->ev, "k", cand[k]);
	}
	return 0;
}

/* ---- frequencies ---- */

double pe_diag_freq(const double *const *ladder, const size_t *nm, size_t nk, double tol)
{
	double w = -1, werr = INFINITY;
	size_t k, m;

	for (k = 0; k < nk; k++) {
		const double *x = ladder[k];
		size_t M = nm[k];
		double num = 0, den = 0, e = 0, en = 0, c, psi, L = ldexp(1.0, (int)k), dpsi;

		if (M < 3)
			break;
		for (m = 1; m + 1 < M; m++) {
			num += x[m] * (x[m - 1] + x[m + 1]);
			den += 2 * x[m] * x[m];
			en += x[m - 1] * x[m - 1] + x[m + 1] * x[m + 1];
		}
		if (!(en > 0))
			return k == 0 ? -2 : w;		/* zero: no frequency */
		if (!(den > 0)) {
			if (k == 0)
				return -1;
			continue;
		}
		c = num / den;
		for (m = 1; m + 1 < M; m++) {
			double r = x[m - 1] + x[m + 1] - 2 * c * x[m];

			e += r * r;
		}
		if (e > tol * tol * en) {
			if (k == 0)
				return -1;		/* not a sinusoid */
			break;
		}
		c = c > 1 ? 1 : c < -1 ? -1 : c;
		psi = acos(c);
		/* c's noise ~1e-7 of the amplitude: the angle's near c = +-1 */
		dpsi = 1e-7 / fmax(sin(psi), sqrt(2e-7));
		if (k == 0) {
			w = psi;
			werr = dpsi;
			continue;
		}
		{
			double t = L * w, n1 = nearbyint((t - psi) / (2 * PE_PI)),
			       n2 = nearbyint((t + psi) / (2 * PE_PI));
			double c1 = psi + 2 * PE_PI * n1, c2 = -psi + 2 * PE_PI * n2;
			double pick = fabs(c1 - t) < fabs(c2 - t) ? c1 : c2;

			if (L * werr > PE_PI / 4 || fabs(pick - t) > PE_PI / 4 + 3 * L * werr)
				break;		/* the branch is no longer certain */
			if (dpsi / L < werr) {
				w = fabs(pick) / L;
				werr = dpsi / L;
			}
		}
	}
	return w < 0 ? -1 : w;
}

/* both tables' frequencies per column from the ladder rows */
static int frequencies(struct ctx *c)
{
	uint64_t C = c->C, j, L;
	size_t nk = 0, k, m, good_a = 0, good_b = 0, cols = 0;
	double *lad = NULL;
	const double *lp[MAX_LADDER];
	size_t nm[MAX_LADDER];
	long idx[MAX_LADDER][LADDER_M];

	c->wa = malloc((size_t)C * sizeof *c->wa);
	c->wb = malloc((size_t)C * sizeof *c->wb);
	lad = malloc(MAX_LADDER * LADDER_M * sizeof *lad);
	if (!c->wa || !c->wb || !lad) {
		free(lad);
		return pe_fail(c->err, PE_ERR_NOMEM, "out of memory");
	}
	for (L = 1; L * 2 < c->R && nk < MAX_LADDER; L *= 2, nk++) {
		nm[nk] = 0;
		for (m = 0; m < LADDER_M && m * L < c->R; m++) {
			idx[nk][m] = sample_index(c, m * L);
			if (idx[nk][m] < 0)
				break;
			nm[nk]++;
		}
		lp[nk] = lad + nk * LADDER_M;
	}
	for (j = 0; j < C; j++) {
		int side;

		for (side = 0; side < 2; side++) {
			const float *t = side ? c->b : c->a;
			double w;

			for (k = 0; k < nk; k++)
				for (m = 0; m < nm[k]; m++)
					lad[k * LADDER_M + m] = t[(size_t)idx[k][m] * C + j];
			w = pe_diag_freq(lp, nm, nk, SIN_TOL);
			(side ? c->wb : c->wa)[j] = w;
			if (w >= 0 || w == -2)
				*(side ? &good_b : &good_a) += 1;
		}
		cols++;
	}
	free(lad);
	/* sinusoidal tables: (nearly) every column a sinusoid or zero */
	c->freq_ok = nk >= 2 && good_a * 10 >= cols * 9 && good_b * 10 >= cols * 9;
	return 0;
}

/* x(p) = u cos(w p) + v sin(w p) fitted to column j of t (least squares
 * over the sample's rows below 1024, positions counted from row 0) */
static void fit_uv(const struct ctx *c, const float *t, uint64_t j, double w, double *u, double *v)
{
	double cc = 0, ss = 0, cs = 0, xc = 0, xs = 0, det;
	size_t i;

	for (i = 0; i < c->n && c->row[i] < 1024; i++) {
		double p = (double)c->row[i], co = cos(w * p), si = sin(w * p), x = t[i * c->C + j];

		cc += co * co;
		ss += si * si;
		cs += co * si;
		xc += x * co;
		xs += x * si;
	}
	det = cc * ss - cs * cs;
	if (fabs(det) > 1e-12 * (cc * ss + 1e-300)) {
		*u = (xc * ss - xs * cs) / det;
		*v = (xs * cc - xc * cs) / det;
	} else {
		*u = cc > 0 ? xc / cc : 0;
		*v = 0;
	}
}

/* pred scaled by S, the least-squares amplitude fitted to A; returns S */
static double fit_amplitude(struct ctx *c)
{
	size_t i, nv = c->n * (size_t)c->C;
	double ab = 0, bb = 0, S;

	for (i = 0; i < nv; i++)
		if (finite2(c->a[i], c->pred[i])) {
			ab += (double)c->a[i] * (double)c->pred[i];
			bb += (double)c->pred[i] * (double)c->pred[i];
		}
	S = bb > 0 ? ab / bb : 1;
	for (i = 0; i < nv; i++)
		c->pred[i] = (float)(S * (double)c->pred[i]);
	return S;
}

/* pred = S (B's amplitudes and phases at frequencies w), S fitted to A;
 * returns the residual */
static double predict_freq(struct ctx *c, const double *w)
{
	uint64_t C = c->C, j;
	size_t i;

	for (j = 0; j < C; j++) {
		double u, v;

		if (c->wb[j] < 0 || w[j] < 0) {
			for (i = 0; i < c->n; i++)
				c->pred[i * C + j] = c->b[i * C + j];
			continue;
		}
		fit_uv(c, c->b, j, c->wb[j], &u, &v);
		for (i = 0; i < c->n; i++) {
			double p = (double)c->row[i];

			c->pred[i * C + j] = (float)(u * cos(w[j] * p) + v * sin(w[j] * p));
		}
	}
	fit_amplitude(c);
	return residual(c, c->pred, 0);
}

/* half (0), interleaved (1) or neither (-1), from a side's frequencies */
static int layout_of(const double *w, uint64_t C)
{
	uint64_t j;
	int half = C % 2 == 0, inter = C % 2 == 0;

	for (j = 0; j < C / 2 && (half || inter); j++) {
		double x = w[j], y = w[j + C / 2], p = w[2 * j], q = w[2 * j + 1];

		if (!(x >= 0 && y >= 0 && fabs(x - y) <= 1e-4 * fmax(x, 1e-9)))
			half = 0;
		if (!(p >= 0 && q >= 0 && fabs(p - q) <= 1e-4 * fmax(p, 1e-9)))
			inter = 0;
	}
	return half ? 0 : inter ? 1 : -1;
}

/* ln w_k = b0 + b1 k over the reliable frequencies of w (a layout's);
 * *theta = exp(-b1 K); the largest deviation from the line in *dev;
 * returns how many frequencies were used */
static size_t fit_theta(const struct ctx *c, const double *w, int inter, double *b0, double *b1,
			double *theta, double *dev)
{
	uint64_t K = c->C / 2, k;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t n = 0;

	*dev = INFINITY;
	for (k = 0; k < K; k++) {
		double wk = w[inter ? 2 * k : k];

		if (!(wk > 0) || wk * (double)c->R < 0.5)
			continue;	/* too little of a turn to measure well */
		sx += (double)k;
		sy += log(wk);
		sxx += (double)k * (double)k;
		sxy += (double)k * log(wk);
		n++;
	}
	if (n < 3)
		return 0;
	*b1 = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*b0 = (sy - *b1 * sx) / (double)n;
	*theta = exp(-*b1 * (double)K);
	*dev = 0;
	for (k = 0; k < K; k++) {
		double wk = w[inter ? 2 * k : k];

		if (wk > 0 && wk * (double)c->R >= 0.5)
			*dev = fmax(*dev, fabs(log(wk) - *b0 - *b1 * (double)k));
	}
	return n;
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* the same frequencies in other columns: a permutation, not a scaling */
static int same_multiset(const struct ctx *c)
{
	double *x = malloc(2 * (size_t)c->C * sizeof *x), *y;
	uint64_t j;
	int same = 1;

	if (!x)
		return 0;
	y = x + c->C;
	for (j = 0; j < c->C; j++) {
		x[j] = c->wa[j];
		y[j] = c->wb[j];
	}
	qsort(x, (size_t)c->C, sizeof *x, cmp_d);
	qsort(y, (size_t)c->C, sizeof *y, cmp_d);
	for (j = 0; j < c->C && same; j++)
		same = (x[j] < 0 && y[j] < 0) || fabs(x[j] - y[j]) <= 1e-4 * fmax(fabs(y[j]), 1e-6);
	free(x);
	return same;
}

static void test_frequencies(struct ctx *c)
{
	uint64_t C = c->C, j, lo = UINT64_MAX, hi = 0, nd = 0, nr = 0;
	double rmin = INFINITY, rmax = -INFINITY, res;
	int inter, all2 = 1, alleq = 1, uniform = 1;
	double r0 = NAN;
	struct pe_diag_finding *f;

	if (!c->freq_ok)
		return;
	for (j = 0; j < C; j++) {
		double r;

		if (!(c->wb[j] > 0) || !(c->wa[j] >= 0) || c->wb[j] * (double)c->R < 0.05)
			continue;
		r = c->wa[j] / c->wb[j];
		nr++;
		if (r0 != r0)
			r0 = r;
		rmin = fmin(rmin, r);
		rmax = fmax(rmax, r);
		if (fabs(r - 2) > 2e-4)
			all2 = 0;
		if (fabs(r - r0) > 2e-4 * fabs(r0))
			uniform = 0;
		if (fabs(r - 1) > 1e-5) {
			alleq = 0;
			nd++;
			if (j < lo)
				lo = j;
			if (j > hi)
				hi = j;
		}
	}
	if (nr == 0 || alleq || same_multiset(c))
		return;
	res = predict_freq(c, c->wa);
	if (all2) {
		f = offer(c, PE_CAUSE_DOUBLE_ROTATION, res,
			  "every frequency of A is twice B's: the rotation applied twice (angles doubled; amplitudes then the attention factor squared)");
		if (f)
			pe_meta_num(&f->ev, "ratio", r0);
		return;
	}
	inter = layout_of(c->wb, C);
	if (inter >= 0) {
		double a0, a1, ta, da, b0, b1, tb, db;

		if (fit_theta(c, c->wa, inter, &a0, &a1, &ta, &da) &&
		    fit_theta(c, c->wb, inter, &b0, &b1, &tb, &db) && da < 1e-3 && db < 1e-3 &&
		    fabs(log(ta / tb)) > 1e-4) {
			const char *inside = fabs(a0) < 1e-3 && b0 < -1e-3 &&
						     fabs(ta / tb * exp(b0) - 1) < 1e-3
					     ? "; A's base is B's times B's linear factor: the factor inside the power, 1/(f theta)^(2j/d) for 1/(f theta^(2j/d))"
					     : "";

			f = offer(c, inside[0] ? PE_CAUSE_COLUMN_SCALE : PE_CAUSE_THETA, res,
				  "A's frequencies are base %.6g's%s, B's base %.6g's%s (fitted: ln inv_freq linear in the pair index)%s",
				  ta, fabs(a0) > 1e-3 ? " scaled" : "", tb, fabs(b0) > 1e-3 ? " scaled" : "",
				  inside);
			if (f) {
				pe_meta_num(&f->ev, "theta_a", ta);
				pe_meta_num(&f->ev, "theta_b", tb);
			}
			return;
		}
	}
	if (uniform) {
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  "every frequency of A is %.6g x B's: positions scaled by %.6g (linear scaling / position interpolation with factor %.6g)",
			  r0, r0, 1 / r0);
		if (f)
			pe_meta_num(&f->ev, "ratio", r0);
		return;
	}
	if (inter >= 0) {
		/* in pairs: frequency k is columns k, k + C/2 (half) or 2k, 2k+1 */
		uint64_t klo = inter ? lo / 2 : lo % (C / 2), khi = inter ? hi / 2 : hi % (C / 2);

		if (!inter && lo < C / 2 && hi >= C / 2) {
			klo = lo;
			khi = hi - C / 2 > lo ? hi - C / 2 : lo;
		}
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  "the frequencies of pairs %llu..%llu of %llu differ (A / B from %.6g to %.6g; %llu of %llu columns), the others agree: a frequency-scaling rule or parameter (YaRN's ramp, truncate, beta or L0; llama3's band; LongRoPE's long vs short factors; the scaling not applied)",
			  (unsigned long long)klo, (unsigned long long)khi,
			  (unsigned long long)(C / 2), rmin, rmax, (unsigned long long)nd,
			  (unsigned long long)nr);
	} else {
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  "the frequencies of %llu of %llu columns differ (columns %llu..%llu, A / B from %.6g to %.6g), the others agree: a frequency-scaling rule or parameter (YaRN's ramp, truncate, beta or L0; llama3's band; LongRoPE's long vs short factors; the scaling not applied)",
			  (unsigned long long)nd, (unsigned long long)nr, (unsigned long long)lo,
			  (unsigned long long)hi, rmin, rmax);
	}
	if (f) {
		pe_meta_int(&f->ev, "first_column", (int64_t)lo);
		pe_meta_int(&f->ev, "last_column", (int64_t)hi);
		pe_meta_num(&f->ev, "ratio_min", rmin);
		pe_meta_num(&f->ev, "ratio_max", rmax);
	}
}

/* ---- swapped-sin-cos (generic) ---- */

static void test_swapped(struct ctx *c)
{
	size_t k, nv = c->n * (size_t)c->C, n = 0;
	double s2 = 0, var = 0;

	for (k = 0; k < nv; k++)
		if (finite2(c->a[k], c->b[k])) {
			s2 += (double)c->a[k] * (double)c->a[k] + (double)c->b[k] * (double)c->b[k];
			n++;
		}
	if (!n)
		return;
	s2 /= (double)n;
	for (k = 0; k < nv; k++) {
		double m = s2 - (double)c->b[k] * (double)c->b[k];

		c->pred[k] = (float)copysign(sqrt(m > 0 ? m : 0), (double)c->a[k]);
		if (finite2(c->a[k], c->b[k]))
			var += fabs((double)c->b[k] * (double)c->b[k] - s2 / 2);
	}
	/* a table of one constant magnitude says nothing */
	if (!(var > 1e-6 * s2 * (double)n))
		return;
	offer(c, PE_CAUSE_SWAPPED_SIN_COS, residual(c, c->pred, 0),
	      "A^2 + B^2 = %.6g everywhere: A holds the sin where B holds the cos (or the reverse), amplitude %.6g",
	      s2, sqrt(s2));
}

/* ---- precision (files: B's frequencies, the steps in a narrow type) ---- */

struct pipe {
	enum pe_store d;
	unsigned steps;
};

static const struct pipe pipes[] = {
	{ PE_STORE_FLOAT16, PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES },
	{ PE_STORE_FLOAT16, PE_AUDIT_INV_FREQ | PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES },
	{ PE_STORE_FLOAT16, PE_AUDIT_INV_FREQ },
	{ PE_STORE_BFLOAT16, PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES },
	{ PE_STORE_BFLOAT16, PE_AUDIT_INV_FREQ | PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES },
	{ PE_STORE_BFLOAT16, PE_AUDIT_INV_FREQ },
	{ PE_STORE_FLOAT32, PE_AUDIT_POSITIONS | PE_AUDIT_ANGLES },
};

static const char *steps_words(unsigned steps, char *buf, size_t n)
{
	size_t at = 0, k;

	buf[0] = '\0';
	for (k = 0; pe_audit_step_names[k] && at < n; k++)
		if (steps & (1u << k))
			at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "",
					       pe_audit_step_names[k]);
	return buf;
}

/* the first position (of 0..limit) where the pipeline's angles move a
 * value of a unit sinusoid of frequency w by more than tol */
static uint64_t first_bite(const double *w, uint64_t C, const struct pipe *pp, uint64_t limit,
			   double tol)
{
	uint64_t p, j;

	for (p = 0; p < limit; p++)
		for (j = 0; j < C; j++) {
			double inv, pos = (double)p, a, e;

			if (!(w[j] > 0))
				continue;
			inv = (double)(float)w[j];
			if (pp->steps & PE_AUDIT_INV_FREQ)
				inv = pe_store_round(pp->d, inv);
			if (pp->steps & PE_AUDIT_POSITIONS)
				pos = pe_store_round(pp->d, pos);
			a = pos * inv;
			a = pp->steps & PE_AUDIT_ANGLES ? pe_store_round(pp->d, a) : (double)(float)a;
			e = fabs(a - (double)p * w[j]);
			if (2 * fabs(sin(e / 2)) > tol)
				return p;
		}
	return UINT64_MAX;
}

static void test_precision_files(struct ctx *c)
{
	uint64_t C = c->C, j;
	double *u, *v;
	size_t i, k;

	if (!c->freq_ok)
		return;
	u = malloc(2 * (size_t)C * sizeof *u);
	if (!u)
		return;
	v = u + C;
	for (j = 0; j < C; j++)
		if (c->wb[j] >= 0)
			fit_uv(c, c->b, j, c->wb[j], &u[j], &v[j]);
	for (k = 0; k < sizeof pipes / sizeof pipes[0]; k++) {
		const struct pipe *pp = &pipes[k];
		struct pe_diag_finding *f;
		char sw[64], where[64];
		uint64_t bite;
		double res;
		size_t step;

		/* every 8th sample row first: a pipeline that explains nothing
		 * there is not worth the cos of every value */
		for (step = 8; step >= 1; step /= 8) {
			for (i = 0; i < c->n; i += step) {
				double pos = (double)c->row[i];

				if (pp->steps & PE_AUDIT_POSITIONS)
					pos = pe_store_round(pp->d, pos);
				for (j = 0; j < C; j++) {
					double inv, a;

					if (c->wb[j] < 0) {
						c->pred[i * C + j] = c->b[i * C + j];
						continue;
					}
					inv = (double)(float)c->wb[j];
					if (pp->steps & PE_AUDIT_INV_FREQ)
						inv = pe_store_round(pp->d, inv);
					a = pos * inv;
					a = pp->steps & PE_AUDIT_ANGLES ? pe_store_round(pp->d, a)
									 : (double)(float)a;
					c->pred[i * C + j] = (float)(u[j] * cos(a) + v[j] * sin(a));
				}
			}
			res = residual_every(c, c->pred, step);
			if (step == 8 && !(res <= 0.5))
				break;
		}
		if (!(res <= PE_DIAG_FIT) && c->have[PE_CAUSE_PRECISION])
			continue;
		bite = first_bite(c->wb, C, pp, c->R < 65536 ? c->R : 65536, pe_store_eps(pp->d));
		if (bite == UINT64_MAX)
			snprintf(where, sizeof where, "nowhere in the table");
		else
			snprintf(where, sizeof where, "at position %llu", (unsigned long long)bite);
		f = offer(c, PE_CAUSE_PRECISION, res,
			  "A is what B's angles give with %s in %s (B's frequencies estimated from its values); angle quantisation first moves a value by more than %g %s",
			  steps_words(pp->steps, sw, sizeof sw), pe_store_names[pp->d],
			  pe_store_eps(pp->d), where);
		if (f) {
			pe_meta_str(&f->ev, "dtype", pe_store_names[pp->d]);
			pe_meta_str(&f->ev, "steps", sw);
			if (bite != UINT64_MAX)
				pe_meta_int(&f->ev, "first_position", (int64_t)bite);
		}
	}
	free(u);
}

/* the part of each difference beyond what float32 arithmetic leaves: for
 * sinusoidal tables 2^-22 amplitude (2 + p w) (the angle's and cos's
 * roundings, twice over), else 4 ulps */
static void test_float32_bound(struct ctx *c)
{
	uint64_t C = c->C, j;
	double *amp = malloc((size_t)C * sizeof *amp), s = 0;
	size_t i;
	struct pe_diag_finding *f;

	if (!amp)
		return;
	for (j = 0; j < C; j++) {
		amp[j] = 0;
		for (i = 0; i < c->n; i++)
			if (isfinite(c->b[i * C + j]))
				amp[j] = fmax(amp[j], fabs((double)c->b[i * C + j]));
	}
	for (i = 0; i < c->n; i++)
		for (j = 0; j < C; j++) {
			float x = c->a[i * C + j], y = c->b[i * C + j];
			double bound, e;

			if (!finite2(x, y))
				continue;
			if (c->freq_ok && c->wb[j] >= 0)
				bound = amp[j] * 0x1p-22 * (2 + (double)c->row[i] * c->wb[j]);
			else
				bound = 4 * pe_ulp_of(fabsf(x) > fabsf(y) ? x : y);
			e = fabs((double)x - (double)y) - bound;
			if (e > 0)
				s += e * e;
		}
	free(amp);
	f = offer(c, PE_CAUSE_PRECISION, sqrt(s / c->d0),
		  c->freq_ok ? "every difference is within what float32 angles and cos/sin leave (|a - b| <= 2^-22 amplitude (2 + position x frequency)): a float32 pipeline against an exact or float64 one, the error growing with position"
			     : "every difference is within 4 float32 ulps: rounding, not a formula");
	if (f)
		pe_meta_str(&f->ev, "dtype", "float32");
}

/* ---- B generated: its parameters ---- */

/* the sample rows of rope p's table into c->pred; 1 when p is not a valid
 * rope (the variant is skipped) */
static int rope_variant(struct ctx *c, const struct pe_rope_params *p, enum pe_rope_table table)
{
	struct pe_error e = { PE_OK, "" };
	struct pe_rope r;
	struct pe_tensor t;
	int rc = 1;

	memset(&r, 0, sizeof r);
	if (pe_rope_init(&r, p, &e) != 0)
		goto out;
	if (pe_rope_tensor(&r, table, &t, &e) != 0 || t.rows != c->R || t.cols != c->C)
		goto out;
	rc = fill_sample(&t, c->row, c->n, c->pred, c->err);
out:
	pe_rope_free(&r);
	return rc;
}

/* residual of a rope variant, or inf when it is no rope */
static int variant_res(struct ctx *c, const struct pe_rope_params *p, enum pe_rope_table table,
		       double *res)
{
	int rc = rope_variant(c, p, table);

	*res = INFINITY;
	if (rc < 0)
		return -1;
	if (rc == 0)
		*res = residual(c, c->pred, 0);
	return 0;
}

static int test_model_precision(struct ctx *c, const struct pe_rope *rb, enum pe_rope_table table)
{
	struct pe_rope_params p = rb->p;
	struct pe_rope r;
	struct pe_error e = { PE_OK, "" };
	struct pe_diag_finding *f;
	double res;
	size_t k;

	/* the other of exact and PyTorch's float32 pipeline */
	p.precision = rb->p.precision == PE_ROPE_EXACT ? PE_ROPE_FLOAT32 : PE_ROPE_EXACT;
	if (p.precision == PE_ROPE_FLOAT32) {
		int cpu = pe_torch_cpu_detect();

		pe_torch_defaults(&p.torch);
		if (cpu >= 0)
			p.torch.cpu = (enum pe_torch_cpu)cpu;
	}
	if (variant_res(c, &p, table, &res) != 0)
		return -1;
	f = offer(c, PE_CAUSE_PRECISION, res, "A is B's table computed %s",
		  p.precision == PE_ROPE_FLOAT32
			  ? "by PyTorch's float32 pipeline (transformers' inv_freq, float32 angles, cos/sin)"
			  : "exactly (B is PyTorch's float32 pipeline)");
	if (f)
		pe_meta_str(&f->ev, "dtype", "float32");
	/* the narrow types' steps, from the float32 pipeline */
	p = rb->p;
	if (p.precision == PE_ROPE_EXACT) {
		int cpu = pe_torch_cpu_detect();

		p.precision = PE_ROPE_FLOAT32;
		pe_torch_defaults(&p.torch);
		if (cpu >= 0)
			p.torch.cpu = (enum pe_torch_cpu)cpu;
	}
	memset(&r, 0, sizeof r);
	if (pe_rope_init(&r, &p, &e) != 0) {
		pe_rope_free(&r);
		return 0;
	}
	for (k = 0; k < sizeof pipes / sizeof pipes[0]; k++) {
		static const unsigned extra[] = { 0, PE_AUDIT_TABLE };
		size_t x, i;

		if (pipes[k].d == PE_STORE_FLOAT32)
			continue;
		for (x = 0; x < 2; x++) {
			struct pipe pp = { pipes[k].d, pipes[k].steps | extra[x] };
			char sw[64], where[64];
			uint64_t bite = UINT64_MAX, pos;
			float *lo, *ex;

			for (i = 0; i < c->n; i++)
				pe_audit_rope_rows(&r, table, pp.d, pp.steps, c->row[i], 1,
						   c->pred + i * c->C);
			res = residual(c, c->pred, 0);
			if (!(res <= PE_DIAG_FIT) && c->have[PE_CAUSE_PRECISION] &&
			    c->best[PE_CAUSE_PRECISION].residual <= res)
				continue;
			/* where it bites: the first position whose error beats the
			 * storage of the exact value alone */
			lo = malloc(2 * (size_t)c->C * sizeof *lo);
			if (!lo) {
				pe_rope_free(&r);
				return pe_fail(c->err, PE_ERR_NOMEM, "out of memory");
			}
			ex = lo + c->C;
			for (pos = 0; pos < c->R && pos < 65536 && table != PE_ROPE_INV_FREQ; pos++) {
				struct pe_audit_row ar;

				pe_audit_rope_rows(&r, table, pp.d, pp.steps & ~(unsigned)PE_AUDIT_TABLE, pos,
						   1, lo);
				pe_audit_rope_rows(&r, table, pp.d, 0, pos, 1, ex);
				pe_audit_compare_row(ex, lo, c->C, &ar);
				if (ar.max_abs > pe_store_eps(pp.d)) {
					bite = pos;
					break;
				}
			}
			free(lo);
			steps_words(pp.steps, sw, sizeof sw);
			if (bite == UINT64_MAX)
				snprintf(where, sizeof where, "nowhere in the table");
			else
				snprintf(where, sizeof where, "first at position %llu",
					 (unsigned long long)(rb->p.offset + (int64_t)bite));
			f = offer(c, PE_CAUSE_PRECISION, res,
				  "A is B computed with %s in %s (from PyTorch's float32 inv_freq); the angles' rounding moves a value by more than one ulp of 1 (%g) %s",
				  sw, pe_store_names[pp.d], pe_store_eps(pp.d), where);
			if (f) {
				pe_meta_str(&f->ev, "dtype", pe_store_names[pp.d]);
				pe_meta_str(&f->ev, "steps", sw);
				if (bite != UINT64_MAX)
					pe_meta_int(&f->ev, "first_position",
						    rb->p.offset + (int64_t)bite);
				pe_meta_int(&f->ev, "first_unrepresentable_position",
					    (int64_t)pe_store_first_unrepresentable(pp.d));
			}
		}
	}
	pe_rope_free(&r);
	return 0;
}

static const char *scaling_name(enum pe_rope_scaling s)
{
	return pe_rope_scaling_name(s);
}

/* the theta A's frequencies fit, rounded to as few digits as fit as well */
static int test_model_theta(struct ctx *c, const struct pe_rope *rb, enum pe_rope_table table)
{
	struct pe_rope_params p = rb->p;
	double b0, b1, th, dev, res, best = INFINITY, pick = NAN;
	int inter = rb->p.layout == PE_LAYOUT_INTERLEAVED, digits;
	struct pe_diag_finding *f;

	if (!c->wa || (table != PE_ROPE_COS && table != PE_ROPE_SIN) ||
	    !fit_theta(c, c->wa, inter, &b0, &b1, &th, &dev) || !(th > 1) || !isfinite(th))
		return 0;
	for (digits = 1; digits <= 7; digits++) {
		char t[40];
		double v;

		snprintf(t, sizeof t, "%.*g", digits, th);
		v = strtod(t, NULL);
		if (v == rb->p.theta)
			continue;
		p.theta = v;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		if (res < best * 0.999) {
			best = res;
			pick = v;
		}
	}
	if (pick == pick) {
		p.theta = pick;
		f = offer(c, PE_CAUSE_THETA, best, "A is B's table with theta %.10g (B: %.10g)", pick,
			  rb->p.theta);
		if (f) {
			pe_meta_num(&f->ev, "theta_a", pick);
			pe_meta_num(&f->ev, "theta_b", rb->p.theta);
		}
	}
	return 0;
}

static int test_model(struct ctx *c)
{
	const struct pe_diag_model *m = c->in->model;
	const struct pe_rope *rb = m->rope;
	const struct pe_rope_params *p0 = &rb->p;
	enum pe_rope_table table = m->table;
	struct pe_rope_params p;
	struct pe_diag_finding *f;
	double res;
	enum pe_rope_scaling s;

	if (test_model_precision(c, rb, table) != 0)
		return -1;
	/* the other table: sin for cos */
	if (table == PE_ROPE_COS || table == PE_ROPE_SIN) {
		if (variant_res(c, p0, table == PE_ROPE_COS ? PE_ROPE_SIN : PE_ROPE_COS, &res) != 0)
			return -1;
		offer(c, PE_CAUSE_SWAPPED_SIN_COS, res, "A is B's %s table, B its %s",
		      table == PE_ROPE_COS ? "sin" : "cos", table == PE_ROPE_COS ? "cos" : "sin");
		/* the layout */
		p = *p0;
		p.layout = p0->layout == PE_LAYOUT_INTERLEAVED ? PE_LAYOUT_HALF : PE_LAYOUT_INTERLEAVED;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_PERMUTED_COLUMNS, res, "A is B's table in the %s layout (%s)",
			  p.layout == PE_LAYOUT_HALF ? "half" : "interleaved",
			  p.layout == PE_LAYOUT_HALF ? "[f | f], HF rotate_half"
						     : "pairs 2j, 2j+1, GPT-J / Meta complex");
		if (f)
			pe_meta_str(&f->ev, "permutation", p.layout == PE_LAYOUT_HALF ? "interleaved-to-half"
										       : "half-to-interleaved");
	}
	/* another scaling, or none */
	for (s = PE_ROPE_NONE; s <= PE_ROPE_LONGROPE; s++) {
		if (s == p0->scaling)
			continue;
		p = *p0;
		p.scaling = s;
		if (s != PE_ROPE_NONE && !(p.factor > 0))
			continue;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  s == PE_ROPE_NONE ? "A is B's table without its %s scaling (the scaling not applied)%s"
					    : "A is B's table with %s scaling instead of %s",
			  s == PE_ROPE_NONE ? scaling_name(p0->scaling) : scaling_name(s),
			  s == PE_ROPE_NONE ? "" : scaling_name(p0->scaling));
		if (f)
			pe_meta_str(&f->ev, "scaling", scaling_name(s));
	}
	if (p0->scaling == PE_ROPE_YARN) {
		p = *p0;
		p.truncate = !p0->truncate;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  "A is B's YaRN table with truncate %s (B: %s): the correction range %s",
			  p.truncate ? "true" : "false", p0->truncate ? "true" : "false",
			  p.truncate ? "floored and ceiled in A" : "kept fractional in A (gpt-oss)");
		if (f)
			pe_meta_bool(&f->ev, "truncate", p.truncate);
	}
	if (p0->scaling == PE_ROPE_YARN || p0->scaling == PE_ROPE_LLAMA3 ||
	    p0->scaling == PE_ROPE_LONGROPE || p0->scaling == PE_ROPE_DYNAMIC) {
		uint64_t l0s[8];
		size_t nl = 0, k;

		if (m->max_positions && m->max_positions != p0->original_max)
			l0s[nl++] = m->max_positions;
		l0s[nl++] = p0->original_max * 2;
		if (p0->original_max >= 2)
			l0s[nl++] = p0->original_max / 2;
		if (p0->factor > 0 && p0->original_max * p0->factor < 1e15)
			l0s[nl++] = (uint64_t)((double)p0->original_max * p0->factor);
		for (k = 0; k < nl; k++) {
			p = *p0;
			p.original_max = l0s[k];
			if (variant_res(c, &p, table, &res) != 0)
				return -1;
			f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
				  "A is B's table with the original context L0 = %llu (B: %llu)%s",
				  (unsigned long long)l0s[k], (unsigned long long)p0->original_max,
				  l0s[k] == m->max_positions ? ": L0 taken from max_position_embeddings" : "");
			if (f)
				pe_meta_int(&f->ev, "original_max_positions", (int64_t)l0s[k]);
		}
	}
	if (p0->scaling == PE_ROPE_LONGROPE || p0->scaling == PE_ROPE_DYNAMIC) {
		/* the other side of L0: long factors (or the dynamic base) for a
		 * short sequence, or the reverse */
		p = *p0;
		p.seq_len = rb->seq_len > p0->original_max ? p0->original_max : p0->original_max + 1;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  p0->scaling == PE_ROPE_LONGROPE
				  ? "A uses LongRoPE's %s factors where B uses the %s ones (chosen by seq_len against L0 %llu: transformers takes max(position_ids) + 1)"
				  : "A is dynamic NTK %s rescaling where B is %s (seq_len against L0 %llu)",
			  p0->scaling == PE_ROPE_LONGROPE ? (rb->use_long ? "short" : "long")
							  : (rb->seq_len > p0->original_max ? "without" : "with"),
			  p0->scaling == PE_ROPE_LONGROPE ? (rb->use_long ? "long" : "short")
							  : (rb->seq_len > p0->original_max ? "rescaled" : "not"),
			  (unsigned long long)p0->original_max);
		if (f)
			pe_meta_int(&f->ev, "seq_len", (int64_t)p.seq_len);
	}
	if ((p0->scaling == PE_ROPE_LINEAR || p0->scaling == PE_ROPE_YARN) && p0->factor > 0) {
		/* the factor inside the power: 1/(f theta)^(2j/d) */
		p = *p0;
		p.scaling = PE_ROPE_NONE;
		p.theta = p0->theta * p0->factor;
		if (variant_res(c, &p, table, &res) != 0)
			return -1;
		f = offer(c, PE_CAUSE_COLUMN_SCALE, res,
			  "A's inv_freq is 1/(f theta)^(2j/d) where B's is 1/(f theta^(2j/d)): the factor %g inside the power (A/B = f^(2j/d - 1), like a base of %g)",
			  p0->factor, p.theta);
		if (f)
			pe_meta_str(&f->ev, "rule", "factor inside the power");
	}
	/* a doubled angle: twice the frequencies (B unscaled: linear 1/2) */
	if (p0->scaling == PE_ROPE_NONE && (table == PE_ROPE_COS || table == PE_ROPE_SIN)) {
		double S;

		p = *p0;
		p.scaling = PE_ROPE_LINEAR;
		p.factor = 0.5;
		if (rope_variant(c, &p, table) < 0)
			return -1;
		S = fit_amplitude(c);
		f = offer(c, PE_CAUSE_DOUBLE_ROTATION, residual(c, c->pred, 0),
			  "A is B with every angle doubled (the rotation applied twice), amplitude x %.6g",
			  S);
		if (f)
			pe_meta_num(&f->ev, "scale", S);
	}
	return test_model_theta(c, rb, table);
}

/* ---- the whole ---- */

static int by_residual(const void *x, const void *y)
{
	const struct pe_diag_finding *a = x, *b = y;

	if (a->residual != b->residual)
		return a->residual < b->residual ? -1 : 1;
	return (int)a->cause - (int)b->cause;
}

int pe_diagnose(const struct pe_diag_in *in, struct pe_diag *d, struct pe_error *err)
{
	struct ctx c;
	size_t cap, k, nv;
	int rc = -1;
	enum pe_cause cause;

	memset(d, 0, sizeof *d);
	memset(&c, 0, sizeof c);
	c.in = in;
	c.d = d;
	c.err = err;
	c.R = in->a->rows;
	c.C = in->a->cols;
	cap = HEAD_ROWS + LADDER_M * 64 + SPREAD_ROWS + 8;
	if (c.R <= PE_DIAG_ALL_ROWS && cap < c.R)
		cap = (size_t)c.R;
	c.row = malloc(cap * sizeof *c.row);
	if (!c.row)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	c.n = pick_rows(in, c.R, c.C, c.row, cap, d->sample, sizeof d->sample);
	d->rows_examined = c.n;
	nv = c.n * (size_t)c.C;
	c.a = malloc(nv * sizeof *c.a);
	c.b = malloc(nv * sizeof *c.b);
	c.pred = malloc(nv * sizeof *c.pred);
	if (!c.a || !c.b || !c.pred) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory for the diagnosis's %zu rows", c.n);
		goto out;
	}
	if (fill_sample(in->a, c.row, c.n, c.a, err) != 0 ||
	    fill_sample(in->b, c.row, c.n, c.b, err) != 0)
		goto out;
	for (k = 0; k < nv; k++)
		if (finite2(c.a[k], c.b[k])) {
			double e = (double)c.a[k] - (double)c.b[k];

			c.d0 += e * e;
			c.ssa += (double)c.a[k] * (double)c.a[k];
			c.ssb += (double)c.b[k] * (double)c.b[k];
		}
	if (!(c.d0 > 0)) {
		/* the sample holds no finite difference (NaN against numbers) */
		rc = 0;
		goto out;
	}
	test_scale(&c);
	test_storage(&c);
	test_permutation(&c);
	test_transposed(&c);
	if (test_row_offset(&c) != 0 || frequencies(&c) != 0)
		goto out;
	test_frequencies(&c);
	test_swapped(&c);
	if (in->model && in->model->rope) {
		if (test_model(&c) != 0)
			goto out;
	} else {
		test_precision_files(&c);
		test_float32_bound(&c);
	}
	for (cause = 0; cause < PE_NCAUSES; cause++) {
		if (!c.have[cause])
			continue;
		if (c.best[cause].residual <= PE_DIAG_FIT && d->n < PE_DIAG_MAX) {
			d->f[d->n++] = c.best[cause];
		} else if (c.best[cause].residual < PE_DIAG_CLOSE &&
			   (!d->has_closest || c.best[cause].residual < d->closest.residual)) {
			if (d->has_closest)
				pe_meta_free(&d->closest.ev);
			d->closest = c.best[cause];
			d->has_closest = 1;
		} else {
			pe_meta_free(&c.best[cause].ev);
		}
		c.have[cause] = 0;
	}
	qsort(d->f, d->n, sizeof d->f[0], by_residual);
	rc = 0;
out:
	for (cause = 0; cause < PE_NCAUSES; cause++)
		if (c.have[cause])
			pe_meta_free(&c.best[cause].ev);
	free(c.row);
	free(c.a);
	free(c.b);
	free(c.pred);
	free(c.wa);
	free(c.wb);
	return rc;
}

void pe_diag_free(struct pe_diag *d)
{
	size_t k;

	for (k = 0; k < d->n; k++)
		pe_meta_free(&d->f[k].ev);
	if (d->has_closest)
		pe_meta_free(&d->closest.ev);
	d->n = 0;
	d->has_closest = 0;
}
