/*
 * Skewing by the index formula (see skew.h).  Why the formula and not the
 * pad/reshape/slice trick: the trick's output row i is, for j <= i (causal)
 * or every j (bidir), one contiguous slice of input row i -- element
 * R[i][c] sits at flat offset i(L+1) + c + 1 of the padded buffer and output
 * (i, j) reads offset (i+1)L + j; they meet at c = j - i + L - 1 -- so the
 * formula is a memcpy per row and never allocates the padded buffers.  The
 * causal trick's upper triangle reads on into row i+1 of the padded buffer:
 * offset (i+1)L + j = (i+1)(L+1) + (j - i - 1), its pad at j = i + 1 and
 * R[i+1][j - i - 2] after it.
 */
#include <string.h>

#include "core/skew.h"

const char *const pe_skew_mode_names[] = { "bidir", "causal", NULL };

enum { KIND_1D, KIND_2D, KIND_INDEX };

/* The largest L of an index map: its inverse bidir rows (2L - 1) must fit
 * a tensor row. */
#define INDEX_MAX_L (PE_MAX_COLS / 2)

void pe_skew_input_shape(const struct pe_skew_params *p, uint64_t L, uint64_t *rows,
			 uint64_t *cols)
{
	*rows = p->broadcast ? 1 : L;
	*cols = p->mode == PE_SKEW_BIDIR && !p->inverse ? 2 * L - 1 : L;
}

static void set_out(struct pe_skew *s)
{
	s->out_rows = s->L;
	s->out_cols = s->p.inverse && s->p.mode == PE_SKEW_BIDIR ? 2 * s->L - 1 : s->L;
}

static int broadcast_init(struct pe_skew *s, const struct pe_matrix *in, struct pe_error *err)
{
	uint64_t n;

	if (s->p.inverse)
		return pe_fail(err, PE_ERR_PARAM, "the inverse of a broadcast row is not defined");
	if (in->rows != 1 && in->cols != 1)
		return pe_fail(err, PE_ERR_DATA, "a broadcast row must be one row (or one column) of values; got %llu x %llu",
			       (unsigned long long)in->rows, (unsigned long long)in->cols);
	n = in->rows == 1 ? in->cols : in->rows;
	if (s->p.mode == PE_SKEW_BIDIR && n % 2 == 0)
		return pe_fail(err, PE_ERR_DATA, "bidir skew of a broadcast row needs 2L-1 values (an odd count); got %llu",
			       (unsigned long long)n);
	s->L = s->p.mode == PE_SKEW_BIDIR ? (n + 1) / 2 : n;
	s->in = in->v;
	s->in_cols = 0;		/* every query reads row 0 */
	set_out(s);
	return 0;
}

int pe_skew_init(struct pe_skew *s, const struct pe_skew_params *p, const struct pe_matrix *in,
		 struct pe_error *err)
{
	uint64_t rows, cols;

	memset(s, 0, sizeof *s);
	s->p = *p;
	s->kind = KIND_1D;
	if (p->broadcast)
		return broadcast_init(s, in, err);
	s->L = in->rows;
	pe_skew_input_shape(p, s->L, &rows, &cols);
	if (in->rows != rows || in->cols != cols) {
		if (p->inverse)
			return pe_fail(err, PE_ERR_DATA, "inverse %s skew needs an L x L matrix; got %llu x %llu (for L = %llu: %llu x %llu)",
				       pe_skew_mode_names[p->mode], (unsigned long long)in->rows,
				       (unsigned long long)in->cols, (unsigned long long)s->L,
				       (unsigned long long)rows, (unsigned long long)cols);
		return pe_fail(err, PE_ERR_DATA, "%s skew needs L x %s relative logits; got %llu x %llu (for L = %llu: %llu x %llu)",
			       pe_skew_mode_names[p->mode], p->mode == PE_SKEW_BIDIR ? "(2L-1)" : "L",
			       (unsigned long long)in->rows, (unsigned long long)in->cols,
			       (unsigned long long)s->L, (unsigned long long)rows,
			       (unsigned long long)cols);
	}
	if (p->inverse && p->mode == PE_SKEW_BIDIR && 2 * s->L - 1 > PE_MAX_COLS)
		return pe_fail(err, PE_ERR_DATA, "inverse bidir skew of %llu queries: rows of %llu values are beyond posenc's limit (%llu)",
			       (unsigned long long)s->L, (unsigned long long)(2 * s->L - 1),
			       (unsigned long long)PE_MAX_COLS);
	s->in = in->v;
	s->in_cols = in->cols;
	set_out(s);
	return 0;
}

static int grid_ok(uint64_t h, uint64_t w, struct pe_error *err)
{
	if (h == 0 || w == 0 || h > PE_MAX_COLS / w)
		return pe_fail(err, PE_ERR_PARAM, "a %llu x %llu grid: its H * W tokens must be 1 to %llu",
			       (unsigned long long)h, (unsigned long long)w,
			       (unsigned long long)PE_MAX_COLS);
	return 0;
}

/* Elements from one row of m to the next as R_h / R_w (0: broadcast). */
static uint64_t rel_stride(const struct pe_skew_params *p, const struct pe_matrix *m)
{
	return p->broadcast ? 0 : m->cols;
}

int pe_skew_check_rel(const struct pe_skew_params *p, uint64_t h, uint64_t w,
		      enum pe_skew_axis axis, const struct pe_matrix *m, struct pe_error *err)
{
	uint64_t side = axis == PE_SKEW_ROWS ? h : w, cols = 2 * side - 1;
	uint64_t rows = p->broadcast ? 1 : h * w;
	const char *name = axis == PE_SKEW_ROWS ? "R_h" : "R_w";
	const char *layout;

	if (grid_ok(h, w, err) != 0)
		return -1;
	if (m->rows == rows && m->cols == cols)
		return 0;
	if (p->broadcast && m->cols == 1 && m->rows == cols)
		return 0;	/* a 1-D array */
	if (p->broadcast)
		layout = axis == PE_SKEW_ROWS ? "one row of 2H-1 values, row distances -(H-1)..H-1"
					      : "one row of 2W-1 values, column distances -(W-1)..W-1";
	else
		layout = axis == PE_SKEW_ROWS ? "HW x (2H-1): a row per query token, a column per row distance"
					      : "HW x (2W-1): a row per query token, a column per column distance";
	return pe_fail(err, PE_ERR_DATA, "%s of a %llu x %llu grid needs %llu x %llu (%s); got %llu x %llu",
		       name, (unsigned long long)h, (unsigned long long)w, (unsigned long long)rows,
		       (unsigned long long)cols, layout, (unsigned long long)m->rows,
		       (unsigned long long)m->cols);
}

int pe_skew_init_2d(struct pe_skew *s, const struct pe_skew_params *p, uint64_t h, uint64_t w,
		    const struct pe_matrix *rh, const struct pe_matrix *rw, struct pe_error *err)
{
	memset(s, 0, sizeof *s);
	s->p = *p;
	s->kind = KIND_2D;
	if (p->inverse || p->raw || p->mode != PE_SKEW_BIDIR)
		return pe_fail(err, PE_ERR_PARAM, "a 2-D skew is bidirectional, forward and exact");
	if (pe_skew_check_rel(p, h, w, PE_SKEW_ROWS, rh, err) != 0 ||
	    pe_skew_check_rel(p, h, w, PE_SKEW_COLS, rw, err) != 0)
		return -1;
	s->H = h;
	s->W = w;
	s->L = h * w;
	s->rh = rh->v;
	s->rw = rw->v;
	s->rh_stride = rel_stride(p, rh);
	s->rw_stride = rel_stride(p, rw);
	s->out_rows = s->out_cols = s->L;
	return 0;
}

int pe_skew_init_index(struct pe_skew *s, const struct pe_skew_params *p, uint64_t L,
		       struct pe_error *err)
{
	memset(s, 0, sizeof *s);
	s->p = *p;
	s->kind = KIND_INDEX;
	if (p->raw || p->broadcast)
		return pe_fail(err, PE_ERR_PARAM, "an index map has no raw or broadcast form");
	if (L < 1 || L > INDEX_MAX_L)
		return pe_fail(err, PE_ERR_PARAM, "an index map of %llu queries: L must be 1 to %llu",
			       (unsigned long long)L, (unsigned long long)INDEX_MAX_L);
	s->L = L;
	set_out(s);
	return 0;
}

/* ---- fill functions: rows [r0, r0 + n) ---- */

static void fill_value(float *o, size_t n, float v)
{
	size_t k;

	for (k = 0; k < n; k++)
		o[k] = v;
}

/* Output row i of a 1-D forward skew. */
static void forward_row(const struct pe_skew *s, uint64_t i, float *o)
{
	uint64_t L = s->L;
	const float *r = s->in + i * s->in_cols;	/* in_cols 0: the broadcast row */

	if (s->p.mode == PE_SKEW_BIDIR) {
		memcpy(o, r + (L - 1 - i), (size_t)L * sizeof *o);
		return;
	}
	memcpy(o, r + (L - 1 - i), (size_t)(i + 1) * sizeof *o);	/* j <= i */
	if (i + 1 == L)
		return;
	if (!s->p.raw) {
		fill_value(o + i + 1, (size_t)(L - i - 1), s->p.fill);
		return;
	}
	o[i + 1] = 0.0f;	/* the prepended zero column of row i + 1 */
	if (i + 2 < L)
		memcpy(o + i + 2, s->in + (i + 1) * s->in_cols, (size_t)(L - i - 2) * sizeof *o);
}

/* Output row i of a 1-D inverse: R[i][c] = A[i][c + i - L + 1]. */
static void inverse_row(const struct pe_skew *s, uint64_t i, float *o)
{
	uint64_t L = s->L, lo = L - 1 - i;	/* the first column with a key */
	const float *a = s->in + i * s->in_cols;

	if (s->p.mode == PE_SKEW_CAUSAL && s->p.raw) {
		/* t2t's masked inverse: flat offset i(L+1) + c + 1 of [0-row; A] */
		if (i == 0)
			fill_value(o, (size_t)lo, 0.0f);
		else
			memcpy(o, s->in + (i - 1) * s->in_cols + i + 1, (size_t)lo * sizeof *o);
	} else {
		/* bidir raw: the pads it reads are zeros */
		fill_value(o, (size_t)lo, s->p.raw ? 0.0f : s->p.fill);
	}
	if (s->p.mode == PE_SKEW_CAUSAL) {
		memcpy(o + lo, a, (size_t)(i + 1) * sizeof *o);
		return;
	}
	memcpy(o + lo, a, (size_t)L * sizeof *o);
	fill_value(o + lo + L, (size_t)i, s->p.raw ? 0.0f : s->p.fill);
}

static void row_2d(const struct pe_skew *s, uint64_t n, float *o)
{
	uint64_t H = s->H, W = s->W, xn = n / W, yn = n % W, xm, ym;
	const float *rw = s->rw + n * s->rw_stride + (W - 1 - yn);
	const float *rh = s->rh + n * s->rh_stride + (H - 1 - xn);

	for (xm = 0; xm < H; xm++) {
		float h = rh[xm];

		for (ym = 0; ym < W; ym++)
			o[xm * W + ym] = rw[ym] + h;
	}
}

static void index_row(const struct pe_skew *s, uint64_t i, int32_t *o)
{
	uint64_t L = s->L, k, cols = s->out_cols;
	int64_t shift = (int64_t)L - 1 - (int64_t)i;	/* forward: column j reads j + shift */

	for (k = 0; k < cols; k++) {
		int64_t src = s->p.inverse ? (int64_t)k - shift : (int64_t)k + shift;
		int valid = src >= 0 && src < (int64_t)(s->p.inverse ? L : s->p.mode == PE_SKEW_BIDIR ? 2 * L - 1 : L);

		/* causal forward: only j <= i; causal inverse: only c >= L - 1 - i */
		if (s->p.mode == PE_SKEW_CAUSAL && !s->p.inverse && k > i)
			valid = 0;
		o[k] = valid ? (int32_t)src : s->p.index_fill;
	}
}

static int fill(const void *ctx, uint64_t r0, size_t nrows, void *out, struct pe_error *err)
{
	const struct pe_skew *s = ctx;
	size_t r;

	(void)err;
	for (r = 0; r < nrows; r++) {
		uint64_t i = r0 + r;

		switch (s->kind) {
		case KIND_2D:
			row_2d(s, i, (float *)out + r * s->out_cols);
			break;
		case KIND_INDEX:
			index_row(s, i, (int32_t *)out + r * s->out_cols);
			break;
		default:
			if (s->p.inverse)
				inverse_row(s, i, (float *)out + r * s->out_cols);
			else
				forward_row(s, i, (float *)out + r * s->out_cols);
		}
	}
	return 0;
}

void pe_skew_fill_rows(const struct pe_skew *s, uint64_t *r0, uint64_t *r1)
{
	*r0 = *r1 = 0;
	if (s->kind != KIND_1D || s->p.raw || (s->p.mode == PE_SKEW_BIDIR && !s->p.inverse) ||
	    s->L < 2)
		return;
	*r1 = s->p.mode == PE_SKEW_BIDIR ? s->L : s->L - 1;
}

int pe_skew_tensor(const struct pe_skew *s, const char *name, struct pe_tensor *t,
		   struct pe_error *err)
{
	uint64_t shape[2] = { s->out_rows, s->out_cols };

	if (pe_tensor_init(t, name, s->kind == KIND_INDEX ? PE_I32 : PE_F32, fill, s, 1, 2, shape,
			   err) != 0)
		return -1;
	t->f32_exact = 1;	/* a gather of float32 values read (and the float32 --fill) */
	return 0;
}
