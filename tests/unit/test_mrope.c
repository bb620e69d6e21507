/*
 * Multimodal RoPE: the position ids of the worked examples of
 * research/rope-2026.md B.4 (computed there with a re-implementation of
 * transformers' and Qwen's get_rope_index) and of transformers' own test
 * (grid 1 x 4 x 3, merge 1), written out here; the lane maps of B.5; the
 * worked angles of B.5 against cos/sin of the closed form theta^(-2j/R)
 * in double; a text-only sequence against the plain rope table (both
 * correctly rounded: the same bits); the sequence parser's and the
 * layout's refusals.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mrope.h"
#include "testutil.h"

struct ids {
	int32_t *t, *h, *w;
	uint64_t n;
};

static void get_ids(const struct pe_mrope *m, struct ids *v)
{
	v->n = m->n;
	v->t = malloc(3 * m->n * sizeof *v->t);
	assert_non_null(v->t);
	v->h = v->t + m->n;
	v->w = v->h + m->n;
	pe_mrope_ids(m, 0, (size_t)m->n, v->t, v->h, v->w);
}

static void expect_row(const int32_t *got, const int32_t *want, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			print_error("%s: token %zu is %d, want %d\n", what, i, got[i], want[i]);
			fail();
		}
}

/* the ids of seq (rule, merge, tokens per second K, split) */
static void layout(const char *seq, enum pe_mrope_rule rule, uint64_t merge, double K, int split,
		   struct pe_mrope *m, struct pe_mrope_seq *s, struct ids *v)
{
	struct pe_mrope_params p;
	struct pe_error err;

	assert_int_equal(pe_mrope_seq_parse(seq, strlen(seq), s, &err), 0);
	pe_mrope_defaults(&p);
	p.seq = s;
	p.rule = rule;
	p.merge = merge;
	p.tokens_per_second = K;
	p.split = split;
	if (pe_mrope_init(m, &p, &err) != 0) {
		print_error("%s: %s\n", seq, err.msg);
		fail();
	}
	get_ids(m, v);
}

static void done(struct pe_mrope *m, struct pe_mrope_seq *s, struct ids *v)
{
	free(v->t);
	pe_mrope_free(m);
	pe_mrope_seq_free(s);
}

/* B.4: 3 text tokens, an image of 1 x 4 x 6 patches (merge 2: 1 x 2 x 3
 * tokens), 2 text tokens; both rules agree */
static void test_b4_image(void **state)
{
	static const int32_t T[] = { 0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7 };
	static const int32_t H[] = { 0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7 };
	static const int32_t W[] = { 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7 };
	struct pe_mrope m;
	struct pe_mrope_seq s;
	struct ids v;
	int rule;

	(void)state;
	for (rule = 0; rule < 2; rule++) {
		layout("text:3,image:1x4x6,text:2", (enum pe_mrope_rule)rule, 2, 0, 0, &m, &s, &v);
		assert_int_equal(v.n, 11);
		expect_row(v.t, T, 11, "T");
		expect_row(v.h, H, 11, "H");
		expect_row(v.w, W, 11, "W");
		assert_int_equal(m.delta, -3);
		done(&m, &s, &v);
	}
	/* an image given as HxW is 1 x H x W; blanks around items */
	layout(" text:3 , image:4x6,text:2 ", PE_MROPE_HF, 2, 0, 0, &m, &s, &v);
	expect_row(v.w, W, 11, "W (image:4x6)");
	done(&m, &s, &v);
}

/* transformers' test: grid (1, 4, 3), merge 1, one text token each side */
static void test_hf_own_case(void **state)
{
	static const int32_t T[] = { 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5 };
	static const int32_t H[] = { 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5 };
	static const int32_t W[] = { 0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 5 };
	struct pe_mrope m;
	struct pe_mrope_seq s;
	struct ids v;

	(void)state;
	layout("text:1,image:1x4x3,text:1", PE_MROPE_HF, 1, 0, 0, &m, &s, &v);
	expect_row(v.t, T, 14, "T");
	expect_row(v.h, H, 14, "H");
	expect_row(v.w, W, 14, "W");
	done(&m, &s, &v);
}

/* B.4's divergence: Qwen2.5-VL video 4 x 4 x 6, merge 2, interval 2
 * (2 tokens per second, 1 s per grid): the trailing text starts at 6
 * under transformers' rule (3 + max(2, 3)), at 10 under Qwen's (max + 1) */
static void test_b4_video_rules(void **state)
{
	struct pe_mrope m;
	struct pe_mrope_seq s;
	struct ids v;
	int32_t T[29], H[29], W[29];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		T[i] = H[i] = W[i] = (int32_t)i;
	for (i = 0; i < 24; i++) {
		T[3 + i] = 3 + 2 * (int32_t)(i / 6);
		H[3 + i] = 3 + (int32_t)(i % 6 / 3);
		W[3 + i] = 3 + (int32_t)(i % 3);
	}
	T[27] = H[27] = W[27] = 6;
	T[28] = H[28] = W[28] = 7;
	layout("text:3,video:4x4x6@1.0,text:2", PE_MROPE_HF, 2, 2, 0, &m, &s, &v);
	expect_row(v.t, T, 29, "hf T");
	expect_row(v.h, H, 29, "hf H");
	expect_row(v.w, W, 29, "hf W");
	assert_int_equal(m.delta, -19);
	done(&m, &s, &v);

	T[27] = H[27] = W[27] = 10;
	T[28] = H[28] = W[28] = 11;
	layout("text:3,video:4x4x6,text:2", PE_MROPE_REFERENCE, 2, 2, 0, &m, &s, &v);
	expect_row(v.t, T, 29, "reference T");
	expect_row(v.w, W, 29, "reference W");
	assert_int_equal(m.delta, -17);
	done(&m, &s, &v);

	/* B.3: 2 s per grid (fps 1) is an interval of 4 under both rules;
	 * 0.5 s (fps 4) an interval of 1 */
	layout("video:3x2x2@2", PE_MROPE_HF, 2, 2, 0, &m, &s, &v);
	assert_true(v.t[0] == 0 && v.t[1] == 4 && v.t[2] == 8);
	done(&m, &s, &v);
	layout("video:3x2x2@2", PE_MROPE_REFERENCE, 2, 2, 0, &m, &s, &v);
	assert_true(v.t[0] == 0 && v.t[1] == 4 && v.t[2] == 8);
	done(&m, &s, &v);
	layout("video:3x2x2@0.5", PE_MROPE_REFERENCE, 2, 2, 0, &m, &s, &v);
	assert_true(v.t[0] == 0 && v.t[1] == 1 && v.t[2] == 2);
	done(&m, &s, &v);
	/* untimed (Qwen2-VL): the temporal index itself */
	layout("video:3x2x2", PE_MROPE_HF, 2, 0, 0, &m, &s, &v);
	assert_true(v.t[0] == 0 && v.t[1] == 1 && v.t[2] == 2);
	done(&m, &s, &v);
}

/* B.4's Qwen3-VL case: two frames of 1 x 4 x 6 with two timestamp tokens
 * between; and one video of two frames split without text between */
static void test_b4_qwen3(void **state)
{
	static const int32_t T[] = { 0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8, 8, 8, 8, 8, 8, 11, 12 };
	static const int32_t H[] = { 0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8, 8, 8, 9, 9, 9, 11, 12 };
	static const int32_t W[] = { 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 9, 10, 8, 9, 10, 11, 12 };
	static const int32_t T2[] = { 3, 3, 3, 3, 3, 3, 6, 6, 6, 6, 6, 6 };
	static const int32_t H2[] = { 3, 3, 3, 4, 4, 4, 6, 6, 6, 7, 7, 7 };
	static const int32_t W2[] = { 3, 4, 5, 3, 4, 5, 6, 7, 8, 6, 7, 8 };
	struct pe_mrope m;
	struct pe_mrope_seq s;
	struct ids v;
	int rule;

	(void)state;
	for (rule = 0; rule < 2; rule++) {
		layout("text:3,video:1x4x6,text:2,video:1x4x6,text:2", (enum pe_mrope_rule)rule, 2, 0,
		       1, &m, &s, &v);
		expect_row(v.t, T, 19, "T");
		expect_row(v.h, H, 19, "H");
		expect_row(v.w, W, 19, "W");
		assert_int_equal(m.delta, -6);
		done(&m, &s, &v);
		layout("text:3,video:2x4x6,text:1", (enum pe_mrope_rule)rule, 2, 0, 1, &m, &s, &v);
		expect_row(v.t + 3, T2, 12, "split T");
		expect_row(v.h + 3, H2, 12, "split H");
		expect_row(v.w + 3, W2, 12, "split W");
		assert_int_equal(v.t[15], 9);
		done(&m, &s, &v);
	}
}

/* any block of tokens gives the ids of the whole sequence's */
static void test_ids_blocks(void **state)
{
	struct pe_mrope m;
	struct pe_mrope_seq s;
	struct ids v;
	int32_t t[40], h[40], w[40];
	uint64_t first;
	size_t count;

	(void)state;
	layout("text:5,image:1x4x6,video:3x6x4@2,text:7,image:2x2x2,text:1", PE_MROPE_REFERENCE, 2,
	       2, 0, &m, &s, &v);
	for (first = 0; first < v.n; first++)
		for (count = 1; first + count <= v.n && count <= 40; count += 3) {
			pe_mrope_ids(&m, first, count, t, h, w);
			assert_memory_equal(t, v.t + first, count * sizeof *t);
			assert_memory_equal(h, v.h + first, count * sizeof *h);
			assert_memory_equal(w, v.w + first, count * sizeof *w);
		}
	done(&m, &s, &v);
}

static void expect_lanes(enum pe_mrope_layout l, uint64_t a, uint64_t b, uint64_t c, size_t half,
			 const char *want)
{
	const uint64_t sec[3] = { a, b, c };
	unsigned char lane[64];
	struct pe_error err;
	size_t j;

	assert_int_equal(pe_mrope_lanes(l, sec, half, lane, &err), 0);
	for (j = 0; j < half; j++)
		if ("THW"[lane[j]] != want[j]) {
			print_error("sections %llu,%llu,%llu: lane %zu is %c, want %c (%s)\n",
				    (unsigned long long)a, (unsigned long long)b,
				    (unsigned long long)c, j, "THW"[lane[j]], want[j], want);
			fail();
		}
}

/* B.5's lane maps */
static void test_lanes(void **state)
{
	char want[65];
	size_t j;

	(void)state;
	/* Qwen2-VL, head 128: 16 T, 24 H, 24 W */
	for (j = 0; j < 64; j++)
		want[j] = j < 16 ? 'T' : j < 40 ? 'H' : 'W';
	expect_lanes(PE_MROPE_CHUNKED, 16, 24, 24, 64, want);
	/* Qwen3-VL [24, 20, 20]: THW x 20, then TTTT */
	for (j = 0; j < 64; j++)
		want[j] = j >= 60 ? 'T' : "THW"[j % 3];
	expect_lanes(PE_MROPE_INTERLEAVED, 24, 20, 20, 64, want);
	/* Qwen3.5 (rotary 64 of 256, [11, 11, 10]): THW x 10 + TH */
	expect_lanes(PE_MROPE_INTERLEAVED, 11, 11, 10, 32, "THWTHWTHWTHWTHWTHWTHWTHWTHWTHWTH");
	/* [20, 6, 6] on 32: THW x 6 + T x 14, not a cycle */
	expect_lanes(PE_MROPE_INTERLEAVED, 20, 6, 6, 32, "THWTHWTHWTHWTHWTHWTTTTTTTTTTTTTT");
}

/* the value the tables hold: attention 1, cos or sin of p theta^(-2j/R) */
static double closed(double theta, size_t j, size_t R, double p, int want_cos)
{
	double a = p * pow(theta, -2.0 * (double)j / (double)R);

	return want_cos ? cos(a) : sin(a);
}

static float *fill(struct pe_mrope *m, enum pe_mrope_table table, struct pe_tensor *t)
{
	struct pe_error err;
	float *v;

	assert_int_equal(pe_mrope_tensor(m, table, t, &err), 0);
	v = malloc((size_t)(t->rows * t->cols) * sizeof *v);
	assert_non_null(v);
	assert_int_equal(t->fill(t->ctx, 0, (size_t)t->rows, v, &err), 0);
	return v;
}

/* B.5's worked angles: the image token (T, H, W) = (3, 3, 5) of
 * "text:3,image:1x4x6" (its 3rd token), head 128 */
static void test_worked_angles(void **state)
{
	struct pe_mrope_params p;
	struct pe_mrope_seq s;
	struct pe_mrope m;
	struct pe_tensor t;
	struct pe_error err;
	const char *seq = "text:3,image:1x4x6";
	float *c, *sn;
	size_t j;

	(void)state;
	assert_int_equal(pe_mrope_seq_parse(seq, strlen(seq), &s, &err), 0);
	pe_mrope_defaults(&p);
	p.seq = &s;
	assert_int_equal(pe_mrope_init(&m, &p, &err), 0);
	c = fill(&m, PE_MROPE_COS, &t);
	assert_true(t.rows == 9 && t.cols == 128);
	/* pair 0 (T): angle 3, cos -0.9899925; pair 16 (H): 3 x 0.0316228;
	 * pair 40 (W): 5 x 1.7782794e-4; each in columns j and j + 64 */
	assert_close(c[5 * 128 + 0], -0.9899925, 1e-7, 0);
	assert_close(c[5 * 128 + 16], cos(3 * 0.0316228), 1e-7, 0);
	assert_close(c[5 * 128 + 40], cos(5 * 1.7782794e-4), 1e-7, 0);
	for (j = 0; j < 64; j++) {
		double p3 = m.lane[j] == 2 ? 5 : 3;

		assert_close(c[5 * 128 + j], closed(1e6, j, 128, p3, 1), 1e-7, 0);
		assert_true(c[5 * 128 + j] == c[5 * 128 + j + 64]);
	}
	free(c);
	pe_mrope_free(&m);

	/* Qwen3-VL (theta 5e6, interleaved 24, 20, 20): pair 1 (H) 3 x 0.78583,
	 * pair 2 (W) 5 x 0.6175287, pair 60 (T) 3 x 5.2446e-7 */
	p.rope.theta = 5e6;
	p.layout = PE_MROPE_INTERLEAVED;
	p.section[0] = 24;
	p.section[1] = 20;
	p.section[2] = 20;
	assert_int_equal(pe_mrope_init(&m, &p, &err), 0);
	sn = fill(&m, PE_MROPE_SIN, &t);
	assert_close(sn[5 * 128 + 1], sin(3 * 0.78583), 2e-5, 0);
	assert_close(sn[5 * 128 + 2], sin(5 * 0.6175287), 1e-6, 0);
	assert_close(sn[5 * 128 + 60], 3 * 5.2446e-7, 0, 2e-5);	/* 5 digits given */
	for (j = 0; j < 64; j++)
		assert_close(sn[5 * 128 + j], closed(5e6, j, 128, m.lane[j] == 2 ? 5 : 3, 0), 1e-7, 0);
	free(sn);
	pe_mrope_free(&m);
	pe_mrope_seq_free(&s);
}

/* a text-only sequence is plain RoPE: the same correctly rounded bits,
 * whether filled as rope's rows (a run) or value by value (the same ids
 * given in reverse) */
static void test_text_is_rope(void **state)
{
	static int32_t rev[3 * 300];
	struct pe_mrope_params p;
	struct pe_rope_params rp;
	struct pe_mrope_seq s;
	struct pe_mrope m, mr;
	struct pe_rope r;
	struct pe_tensor t, tr;
	struct pe_error err;
	float *a, *b, *c;
	int table, i;

	(void)state;
	assert_int_equal(pe_mrope_seq_parse("text:300", 8, &s, &err), 0);
	pe_mrope_defaults(&p);
	p.seq = &s;
	p.rope.rotary_dim = 64;
	p.section[0] = 8;
	p.section[1] = 12;
	p.section[2] = 12;
	assert_int_equal(pe_mrope_init(&m, &p, &err), 0);
	for (i = 0; i < 3 * 300; i++)
		rev[i] = 299 - i % 300;
	p.seq = NULL;
	p.ids = rev;
	p.n = 300;
	assert_int_equal(pe_mrope_init(&mr, &p, &err), 0);
	pe_rope_defaults(&rp);
	rp.positions = 300;
	rp.rotary_dim = 64;
	rp.theta = 1e6;
	assert_int_equal(pe_rope_init(&r, &rp, &err), 0);
	for (table = 0; table < 2; table++) {
		a = fill(&m, table ? PE_MROPE_SIN : PE_MROPE_COS, &t);
		assert_int_equal(pe_rope_tensor(&r, table ? PE_ROPE_SIN : PE_ROPE_COS, &tr, &err), 0);
		b = malloc(300 * 64 * sizeof *b);
		assert_non_null(b);
		assert_int_equal(tr.fill(tr.ctx, 0, 300, b, &err), 0);
		assert_memory_equal(a, b, 300 * 64 * sizeof *a);
		c = fill(&mr, table ? PE_MROPE_SIN : PE_MROPE_COS, &t);
		for (i = 0; i < 300; i++)
			assert_memory_equal(c + i * 64, b + (299 - i) * 64, 64 * sizeof *c);
		free(a);
		free(b);
		free(c);
	}
	pe_rope_free(&r);
	pe_mrope_free(&m);
	pe_mrope_free(&mr);
	pe_mrope_seq_free(&s);
}

/* the ids and lanes tables */
static void test_int_tables(void **state)
{
	struct pe_mrope_params p;
	struct pe_mrope_seq s;
	struct pe_mrope m;
	struct pe_tensor t;
	struct pe_error err;
	int32_t *v;
	const char *seq = "text:3,image:1x4x6,text:2";

	(void)state;
	assert_int_equal(pe_mrope_seq_parse(seq, strlen(seq), &s, &err), 0);
	pe_mrope_defaults(&p);
	p.seq = &s;
	assert_int_equal(pe_mrope_init(&m, &p, &err), 0);
	v = (int32_t *)(void *)fill(&m, PE_MROPE_IDS, &t);
	assert_true(t.dtype == PE_I32 && t.rows == 3 && t.cols == 11);
	assert_true(v[4] == 3 && v[11 + 6] == 4 && v[22 + 5] == 5 && v[22 + 10] == 7);
	free(v);
	v = (int32_t *)(void *)fill(&m, PE_MROPE_LANES, &t);
	assert_true(t.ndim == 1 && t.shape[0] == 128);
	assert_true(v[15] == 0 && v[16] == 1 && v[40] == 2 && v[64 + 15] == 0 && v[64 + 16] == 1 &&
		    v[127] == 2);
	free(v);
	pe_mrope_free(&m);
	pe_mrope_seq_free(&s);
}

/* n comma- and newline-separated numbers of the file at rel (under the
 * source tree) */
static void read_numbers(const char *rel, double *v, size_t n)
{
	size_t len, k = 0;
	char *text = (char *)pe_read_file(pe_source_path(rel), &len), *p, *end;

	assert_non_null(text);
	text = realloc(text, len + 1);
	assert_non_null(text);
	text[len] = '\0';
	for (p = text; k < n; p = end + (*end != '\0')) {
		v[k++] = strtod(p, &end);
		assert_true(end != p && (*end == ',' || *end == '\n'));
	}
	assert_true(*p == '\0');
	free(text);
}

/* Qwen2-VL's rotary module as PyTorch without MKL runs it on AVX2
 * (data/make_mrope_reference.py, Debian's python3-torch 1.13): which
 * frequencies and positions share a SLEEF vector call decides some values,
 * so the tables are bit for bit only in the forward's own memory order */
static void test_pytorch_sleef(void **state)
{
	static double ids[3 * 200], want[200 * 16];
	static int32_t id32[3 * 200];
	struct pe_mrope_params p;
	struct pe_mrope m;
	struct pe_tensor t;
	struct pe_error err;
	float *got;
	size_t i;
	int table;

	(void)state;
	read_numbers("data/mrope-ids-n200.csv", ids, 3 * 200);
	for (i = 0; i < 3 * 200; i++)
		id32[i] = (int32_t)ids[i];
	pe_mrope_defaults(&p);
	p.ids = id32;
	p.n = 200;
	p.rope.theta = 10000;
	p.rope.rotary_dim = 16;
	p.section[0] = 2;
	p.section[1] = 3;
	p.section[2] = 3;
	p.rope.precision = PE_ROPE_FLOAT32;
	p.rope.torch.cpu = PE_TORCH_AVX2;
	p.rope.torch.vml = PE_TORCH_SLEEF;
	assert_int_equal(pe_mrope_init(&m, &p, &err), 0);
	for (table = 0; table < 2; table++) {
		read_numbers(table ? "data/mrope-qwen2-vl-sleef-avx2-sin.csv"
				   : "data/mrope-qwen2-vl-sleef-avx2-cos.csv", want, 200 * 16);
		got = fill(&m, table ? PE_MROPE_SIN : PE_MROPE_COS, &t);
		for (i = 0; i < 200 * 16; i++)
			if (got[i] != (float)want[i]) {
				print_error("%s[%zu][%zu]: %.9g, PyTorch %.9g\n", table ? "sin" : "cos",
					    i / 16, i % 16, (double)got[i], want[i]);
				fail();
			}
		free(got);
	}
	pe_mrope_free(&m);
}

static void expect_parse_error(const char *text, const char *msg)
{
	struct pe_mrope_seq s;
	struct pe_error err;

	memset(&err, 0, sizeof err);
	assert_int_equal(pe_mrope_seq_parse(text, strlen(text), &s, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	if (strcmp(err.msg, msg) != 0) {
		print_error("'%s': got '%s'\nwant '%s'\n", text, err.msg, msg);
		fail();
	}
	assert_null(s.item);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("", "{sequence} is empty: give items such as text:3,image:1x4x6");
	expect_parse_error("  ", "{sequence} is empty: give items such as text:3,image:1x4x6");
	expect_parse_error("text:3,,text:2", "{sequence} item 2 is empty (a comma too many)");
	expect_parse_error("text:3,", "{sequence} item 2 is empty (a comma too many)");
	expect_parse_error("text:3,imge:1x4x6",
			   "{sequence} item 2 'imge:1x4x6': not text:N, image:TxHxW or video:TxHxW[@S]");
	expect_parse_error("text", "{sequence} item 1 'text': expected text:N");
	expect_parse_error("text:0", "{sequence} item 1 'text:0': the count of tokens must be from 1 to 2^40");
	expect_parse_error("text:-3", "{sequence} item 1 'text:-3': expected text:N, N a count of tokens");
	expect_parse_error("text:3x",
			   "{sequence} item 1 'text:3x': expected text:N, N a count of tokens");
	expect_parse_error("image:4",
			   "{sequence} item 1 'image:4': expected image:TxHxW or image:HxW, the grid in patches");
	expect_parse_error("video:4x6",
			   "{sequence} item 1 'video:4x6': expected video:TxHxW[@S], the grid in patches (S seconds per temporal grid)");
	expect_parse_error("image:1x4x6x2",
			   "{sequence} item 1 'image:1x4x6x2': expected image:TxHxW or image:HxW, the grid in patches");
	expect_parse_error("image:1x0x6",
			   "{sequence} item 1 'image:1x0x6': grid sizes must be from 1 to 2^24 patches");
	expect_parse_error("image:1x4x6@1",
			   "{sequence} item 1 'image:1x4x6@1': expected image:TxHxW or image:HxW, the grid in patches");
	expect_parse_error("video:1x4x6@",
			   "{sequence} item 1 'video:1x4x6@': @S must be the seconds per temporal grid, a positive number");
	expect_parse_error("video:1x4x6@nan",
			   "{sequence} item 1 'video:1x4x6@nan': @S must be the seconds per temporal grid, a positive number");
	expect_parse_error("video:1x4x6@-1",
			   "{sequence} item 1 'video:1x4x6@-1': @S must be the seconds per temporal grid, a positive number");
	expect_parse_error("video:1x4x99999999999999999999",
			   "{sequence} item 1 'video:1x4x99999999999999999999': grid sizes must be from 1 to 2^24 patches");
}

static void expect_init_error(const char *seq, uint64_t merge, double K, int split,
			      const uint64_t *sec, const char *msg)
{
	struct pe_mrope_params p;
	struct pe_mrope_seq s;
	struct pe_mrope m;
	struct pe_error err;

	assert_int_equal(pe_mrope_seq_parse(seq, strlen(seq), &s, &err), 0);
	pe_mrope_defaults(&p);
	p.seq = &s;
	p.merge = merge;
	p.tokens_per_second = K;
	p.split = split;
	if (sec)
		memcpy(p.section, sec, sizeof p.section);
	assert_int_equal(pe_mrope_init(&m, &p, &err), -1);
	assert_int_equal(err.code, PE_ERR_PARAM);
	if (strcmp(err.msg, msg) != 0) {
		print_error("'%s': got '%s'\nwant '%s'\n", seq, err.msg, msg);
		fail();
	}
	pe_mrope_free(&m);
	pe_mrope_seq_free(&s);
}

static void test_init_errors(void **state)
{
	static const uint64_t bad[3] = { 16, 24, 20 }, huge[3] = { 64, UINT64_MAX, 0 };

	(void)state;
	expect_init_error("text:3,image:1x4x5", 2, 0, 0, NULL,
			  "{sequence} item 2 'image:1x4x5': the grid's height 4 and width 5 must be multiples of the spatial merge, 2 ({merge})");
	expect_init_error("text:3", 2, 0, 0, bad,
			  "{mrope_section} 16,24,20 must sum to the rotary half R/2 = 64 (one section per stream, in frequencies)");
	expect_init_error("text:3", 2, 0, 0, huge,
			  "{mrope_section} 64,18446744073709551615,0 must sum to the rotary half R/2 = 64 (one section per stream, in frequencies)");
	expect_init_error("video:2x4x4@0.5", 2, 0, 0, NULL,
			  "{sequence} item 1 'video:2x4x4@0.5': seconds per grid (@S) space a video's temporal ids by {tokens_per_second} (Qwen2.5-VL's timing), not given");
	expect_init_error("video:2x4x4", 2, 2, 1, NULL,
			  "{tokens_per_second} does not apply to videos split into frames ({video_frames} split: their timestamps are text tokens)");
	expect_init_error("video:2x4x4@2", 2, 0, 1, NULL,
			  "{sequence} item 1 'video:2x4x4@2': seconds per grid (@S) do not apply to videos split into frames ({video_frames} split: their timestamps are text tokens)");
	expect_init_error("text:2147483647,text:2", 2, 0, 0, NULL,
			  "{sequence} item 2 'text:2' takes position ids beyond 2^31 - 1 (int32)");
	expect_init_error("video:16777216x2x2@1000000", 2, 1000, 0, NULL,
			  "{sequence} item 1 'video:16777216x2x2@1000000' takes position ids beyond 2^31 - 1 (int32)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b4_image),
		cmocka_unit_test(test_hf_own_case),
		cmocka_unit_test(test_b4_video_rules),
		cmocka_unit_test(test_b4_qwen3),
		cmocka_unit_test(test_ids_blocks),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_worked_angles),
		cmocka_unit_test(test_text_is_rope),
		cmocka_unit_test(test_int_tables),
		cmocka_unit_test(test_pytorch_sleef),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_init_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
