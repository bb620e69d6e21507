/*
 * check_tables - every value of three whole tables against an independent
 * reference (make check-exhaustive; not part of make check: about 180 M
 * values, 42 s on two busy cores):
 *   sinusoidal vaswani 65536 x 1024 and 1,000,000 x 64 (base 1e4), and
 *   rope exact, theta 1e4, 131072 x 128: its cos, sin and angles tables
 *   and inv_freq.
 * The tables are made by libposenc as the CLI makes them (the pump, two
 * workers); the reference shares no code or method with posenc.
 *
 * The reference, per value.  Each frequency comes from its formula in MPFR
 * (400 bits); from it, the frequency in turns g = f / 2 pi and f itself as
 * triple doubles (to 2^-158).  For a position p the turns p g are taken
 * modulo 1 exactly (p g0 and p g1 as exact two-products with fma, the
 * integer part of each double removed, which is exact), summed in
 * double-double, reduced to a quarter turn, times 2 pi in double-double
 * (|x| <= pi/4), and sin x, cos x summed by Taylor series in double-double
 * (to x^29/29! < 2^-112), then mapped through the quadrant.  Its error E is
 * about 2^-100; E <= 2^-97 is checked on samples (below).
 *
 * The filter.  Let v be the exact value, r = rh + rl the reference, c the
 * float32 nearest rh, and m-, m+ the float32 rounding boundaries (midpoints)
 * below and above c.  If r - m- > T and m+ - r > T with T = 2^-90 (the two
 * differences computed with error below 2^-100), then m- < v < m+ since
 * |v - r| <= E < T, so v rounds to c: posenc's float must equal c.
 * Otherwise -- a value within 2^-90 of a boundary, a few per table, p = 0
 * among them -- MPFR decides: sin or cos of p f at 256 bits rounded to
 * binary32 (pe_mpfr_to_f32).  Angles: r = p f as a double-double (exact
 * two-products), T = 2^-95 |r|.
 *
 * Checking the reference.  For every value MPFR decided, and for every
 * 65536th value besides, |r - MPFR's 256-bit value| must be <= 2^-97; the
 * largest difference seen is printed.  Exit status 1 on any mismatch.
 */
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"
#include "core/rope.h"
#include "core/sinusoidal.h"
#include "testutil.h"

#define NTHREADS 2
#define CHUNK 1024		/* rows per work item; threads take alternate chunks */
#define REF_PREC 400
#define VAL_PREC 256
#define SAMPLE_EVERY 65536
#define NTERMS 15		/* Taylor terms: x^(2i+1)/(2i+1)!, x^2i/(2i)!, i < 15 */

enum kind { K_SIN, K_COS, K_ANGLE, NKIND };

struct dd {
	double hi, lo;
};

struct freq {
	double g[3];		/* f / 2 pi, triple double */
	double f[3];		/* f, triple double */
	mpfr_t mf;		/* f at REF_PREC */
};

struct check {
	const char *name;
	uint64_t rows;
	size_t cols, nfreq;
	int64_t offset;
	double scale;
	struct freq *fr;
	const float *tab[NKIND];	/* rows x cols each, or NULL */
	int (*colmap)[NKIND][2];	/* per frequency: up to two columns of each kind, -1 none */
};

struct stats {
	uint64_t values, mpfr_calls, samples, bad;
	double worst_ref;	/* max |reference - MPFR| seen */
};

struct work {
	const struct check *c;
	int id;
	struct stats st;
};

static struct dd S[NTERMS], C[NTERMS], TWOPI;

static struct dd two_sum(double a, double b)
{
	struct dd r;
	double bb;

	r.hi = a + b;
	bb = r.hi - a;
	r.lo = (a - (r.hi - bb)) + (b - bb);
	return r;
}

static struct dd fast_sum(double a, double b)
{
	struct dd r;

	r.hi = a + b;
	r.lo = b - (r.hi - a);
	return r;
}

static struct dd dd_add(struct dd a, struct dd b)
{
	struct dd s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);

	s.lo += t.hi;
	s = fast_sum(s.hi, s.lo);
	s.lo += t.lo;
	return fast_sum(s.hi, s.lo);
}

static struct dd dd_add_d(struct dd a, double b)
{
	struct dd s = two_sum(a.hi, b);

	s.lo += a.lo;
	return fast_sum(s.hi, s.lo);
}

static struct dd dd_mul(struct dd a, struct dd b)
{
	double p = a.hi * b.hi, e = fma(a.hi, b.hi, -p);

	e += a.hi * b.lo + a.lo * b.hi;
	return fast_sum(p, e);
}

static struct dd dd_of(mpfr_t x)
{
	struct dd r;
	mpfr_t t;

	mpfr_init2(t, REF_PREC);
	r.hi = mpfr_get_d(x, MPFR_RNDN);
	mpfr_sub_d(t, x, r.hi, MPFR_RNDN);
	r.lo = mpfr_get_d(t, MPFR_RNDN);
	mpfr_clear(t);
	return r;
}

static void td_of(mpfr_t x, double *d)
{
	mpfr_t t;
	int i;

	mpfr_init2(t, REF_PREC);
	mpfr_set(t, x, MPFR_RNDN);
	for (i = 0; i < 3; i++) {
		d[i] = mpfr_get_d(t, MPFR_RNDN);
		mpfr_sub_d(t, t, d[i], MPFR_RNDN);
	}
	mpfr_clear(t);
}

static void init_constants(void)
{
	mpfr_t t;
	int i;

	mpfr_init2(t, REF_PREC);
	for (i = 0; i < NTERMS; i++) {
		/* (-1)^i / (2i+1)! and (-1)^i / (2i)! */
		mpfr_fac_ui(t, (unsigned long)(2 * i + 1), MPFR_RNDN);
		mpfr_ui_div(t, 1, t, MPFR_RNDN);
		if (i % 2)
			mpfr_neg(t, t, MPFR_RNDN);
		S[i] = dd_of(t);
		mpfr_fac_ui(t, (unsigned long)(2 * i), MPFR_RNDN);
		mpfr_ui_div(t, 1, t, MPFR_RNDN);
		if (i % 2)
			mpfr_neg(t, t, MPFR_RNDN);
		C[i] = dd_of(t);
	}
	mpfr_const_pi(t, MPFR_RNDN);
	mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
	TWOPI = dd_of(t);
	mpfr_clear(t);
}

static void set_freq(struct freq *fr)
{
	mpfr_t t;

	mpfr_init2(t, REF_PREC);
	td_of(fr->mf, fr->f);
	mpfr_const_pi(t, MPFR_RNDN);
	mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
	mpfr_div(t, fr->mf, t, MPFR_RNDN);
	td_of(t, fr->g);
	mpfr_clear(t);
}

/* sin and cos of 2 pi p g, about 2^-100 (see the top) */
static void ref_sincos(const struct freq *fr, int64_t p, struct dd *s, struct dd *c)
{
	double pd = (double)p, h0, l0, h1, l1, q;
	struct dd t, x, x2, ss, cc;
	int i, quad;

	h0 = pd * fr->g[0];
	l0 = fma(pd, fr->g[0], -h0);
	h1 = pd * fr->g[1];
	l1 = fma(pd, fr->g[1], -h1);
	h0 -= rint(h0);
	l0 -= rint(l0);
	h1 -= rint(h1);
	l1 -= rint(l1);
	t = two_sum(h0, l0);
	t = dd_add_d(t, h1);
	t = dd_add_d(t, l1);
	t = dd_add_d(t, pd * fr->g[2]);
	q = rint(4 * t.hi);
	t = fast_sum(t.hi - q / 4, t.lo);	/* exact subtraction: |t.hi - q/4| <= 1/8 */
	quad = (int)(((int64_t)q % 4 + 4) % 4);
	x = dd_mul(t, TWOPI);
	x2 = dd_mul(x, x);
	ss = S[NTERMS - 1];
	cc = C[NTERMS - 1];
	for (i = NTERMS - 2; i >= 0; i--) {
		ss = dd_add(dd_mul(ss, x2), S[i]);
		cc = dd_add(dd_mul(cc, x2), C[i]);
	}
	ss = dd_mul(ss, x);
	switch (quad) {
	case 0:
		*s = ss;
		*c = cc;
		break;
	case 1:
		*s = cc;
		c->hi = -ss.hi;
		c->lo = -ss.lo;
		break;
	case 2:
		s->hi = -ss.hi;
		s->lo = -ss.lo;
		c->hi = -cc.hi;
		c->lo = -cc.lo;
		break;
	default:
		s->hi = -cc.hi;
		s->lo = -cc.lo;
		*c = ss;
		break;
	}
}

/* p f as a double-double: two exact products, f to 2^-158 */
static struct dd ref_angle(const struct freq *fr, int64_t p)
{
	double pd = (double)p, h0 = pd * fr->f[0], h1 = pd * fr->f[1];
	struct dd t = two_sum(h0, h1);

	t = dd_add_d(t, fma(pd, fr->f[0], -h0));
	t = dd_add_d(t, fma(pd, fr->f[1], -h1));
	return dd_add_d(t, pd * fr->f[2]);
}

/* 1 with *out = the float32 every value within tol of r rounds to, when
 * no rounding boundary lies within tol (see the top) */
static int ref_round(struct dd r, double tol, float *out)
{
	float c = (float)r.hi;
	double dc = (double)c;
	double up = (double)nextafterf(c, INFINITY), dn = (double)nextafterf(c, -INFINITY);
	double mhi = (dc + up) / 2, mlo = (dc + dn) / 2;

	*out = c;
	if (!isfinite(up) || !isfinite(dn))
		return 0;
	return (mhi - r.hi) - r.lo > tol && (r.hi - mlo) + r.lo > tol;
}

/* MPFR: scale * sin or cos of p f, or p f (K_ANGLE), rounded to binary32;
 * *ref_err = |r - the 256-bit value| */
static float mpfr_value(const struct check *c, const struct freq *fr, int64_t p, enum kind k,
			struct dd r, double *ref_err)
{
	mpfr_t a, d;
	float v;

	mpfr_inits2(VAL_PREC, a, d, (mpfr_ptr)0);
	mpfr_set_d(a, (double)p, MPFR_RNDN);
	mpfr_mul(a, a, fr->mf, MPFR_RNDN);
	if (k == K_SIN)
		mpfr_sin(a, a, MPFR_RNDN);
	else if (k == K_COS)
		mpfr_cos(a, a, MPFR_RNDN);
	if (k != K_ANGLE)
		mpfr_mul_d(a, a, c->scale, MPFR_RNDN);
	v = pe_mpfr_to_f32(a);
	mpfr_sub_d(d, a, r.hi, MPFR_RNDN);
	mpfr_sub_d(d, d, r.lo, MPFR_RNDN);
	if (k == K_ANGLE && mpfr_sgn(a) != 0)
		mpfr_div(d, d, a, MPFR_RNDN);	/* relative for angles */
	*ref_err = fabs(mpfr_get_d(d, MPFR_RNDN));
	mpfr_clears(a, d, (mpfr_ptr)0);
	return v;
}

static void check_one(struct work *w, const struct freq *fr, int64_t p, enum kind k,
		      struct dd r, const float *row, const int *cols, uint64_t rowi)
{
	const struct check *c = w->c;
	double tol = k == K_ANGLE ? fabs(r.hi) * 0x1p-95 : 0x1p-90, err = 0;
	float want;
	int i, sample = w->st.values % SAMPLE_EVERY == 0;

	if (k != K_ANGLE) {
		r.hi *= c->scale;	/* scale 1 in these tables: exact */
		r.lo *= c->scale;
	}
	if (!ref_round(r, tol, &want) || sample) {
		float m = mpfr_value(c, fr, p, k, r, &err);

		if (!ref_round(r, tol, &want))
			w->st.mpfr_calls++;
		else if (memcmp(&m, &want, sizeof m) != 0)
			w->st.bad++;	/* the reference itself is wrong */
		want = m;
		w->st.samples++;
		if (err > w->st.worst_ref)
			w->st.worst_ref = err;
		if (err > 0x1p-97)
			w->st.bad++;	/* beyond the reference's bound */
	}
	for (i = 0; i < 2; i++) {
		if (cols[i] < 0)
			continue;
		w->st.values++;
		if (memcmp(&row[cols[i]], &want, sizeof want) != 0) {
			if (w->st.bad++ < 10)
				fprintf(stderr, "%s: row %llu col %d kind %d: posenc %.9g, correctly rounded %.9g\n",
					c->name, (unsigned long long)rowi, cols[i], (int)k,
					(double)row[cols[i]], (double)want);
		}
	}
}

static void *worker(void *arg)
{
	struct work *w = arg;
	const struct check *c = w->c;
	uint64_t r0, r;
	size_t k;

	for (r0 = (uint64_t)w->id * CHUNK; r0 < c->rows; r0 += (uint64_t)NTHREADS * CHUNK) {
		for (r = r0; r < r0 + CHUNK && r < c->rows; r++) {
			int64_t p = c->offset + (int64_t)r;

			for (k = 0; k < c->nfreq; k++) {
				const struct freq *fr = &c->fr[k];
				struct dd s, co;

				if (c->tab[K_SIN] || c->tab[K_COS])
					ref_sincos(fr, p, &s, &co);
				if (c->tab[K_SIN])
					check_one(w, fr, p, K_SIN, s, c->tab[K_SIN] + r * c->cols,
						  c->colmap[k][K_SIN], r);
				if (c->tab[K_COS])
					check_one(w, fr, p, K_COS, co, c->tab[K_COS] + r * c->cols,
						  c->colmap[k][K_COS], r);
				if (c->tab[K_ANGLE])
					check_one(w, fr, p, K_ANGLE, ref_angle(fr, p),
						  c->tab[K_ANGLE] + r * c->cols, c->colmap[k][K_ANGLE], r);
			}
		}
	}
	return NULL;
}

/* runs the check on NTHREADS threads; prints a line, returns mismatches */
static uint64_t run(const struct check *c)
{
	struct work w[NTHREADS];
	pthread_t th[NTHREADS];
	struct stats t = { 0, 0, 0, 0, 0 };
	int i;

	for (i = 0; i < NTHREADS; i++) {
		memset(&w[i], 0, sizeof w[i]);
		w[i].c = c;
		w[i].id = i;
		if (pthread_create(&th[i], NULL, worker, &w[i]) != 0) {
			fprintf(stderr, "check_tables: pthread_create failed\n");
			exit(2);
		}
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		t.values += w[i].st.values;
		t.mpfr_calls += w[i].st.mpfr_calls;
		t.samples += w[i].st.samples;
		t.bad += w[i].st.bad;
		if (w[i].st.worst_ref > t.worst_ref)
			t.worst_ref = w[i].st.worst_ref;
	}
	printf("%s: %llu values, %llu near a rounding boundary decided by MPFR, %llu MPFR "
	       "checks of the reference (worst difference 2^%.1f%s), %llu wrong\n",
	       c->name, (unsigned long long)t.values, (unsigned long long)t.mpfr_calls,
	       (unsigned long long)t.samples, t.worst_ref > 0 ? log2(t.worst_ref) : -999.0,
	       c->tab[K_ANGLE] ? ", relative for angles" : "", (unsigned long long)t.bad);
	fflush(stdout);
	return t.bad;
}

static float *materialize(const struct pe_tensor *t)
{
	struct pe_pump_opts opts = { NTHREADS, NULL, NULL };
	struct pe_error err;
	float *v = malloc((size_t)(t->rows * t->cols) * sizeof *v);

	if (!v || pe_tensor_materialize(t, v, &opts, &err) != 0) {
		fprintf(stderr, "check_tables: %s: %s\n", t->name, v ? err.msg : "out of memory");
		exit(2);
	}
	return v;
}

static struct freq *alloc_freqs(size_t n)
{
	struct freq *fr = calloc(n, sizeof *fr);
	size_t k;

	if (!fr)
		exit(2);
	for (k = 0; k < n; k++)
		mpfr_init2(fr[k].mf, REF_PREC);
	return fr;
}

static void free_freqs(struct freq *fr, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		mpfr_clear(fr[k].mf);
	free(fr);
}

/* 10000^(-2k/D) */
static void pow_freq(struct freq *fr, double base, long k2, unsigned long d)
{
	mpfr_t b;

	mpfr_init2(b, REF_PREC);
	mpfr_set_d(b, base, MPFR_RNDN);
	mpfr_set_si(fr->mf, -k2, MPFR_RNDN);
	mpfr_div_ui(fr->mf, fr->mf, d, MPFR_RNDN);
	mpfr_pow(fr->mf, b, fr->mf, MPFR_RNDN);
	mpfr_clear(b);
	set_freq(fr);
}

static uint64_t check_sinusoidal(const char *name, uint64_t n, uint64_t d)
{
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal s;
	struct pe_tensor t;
	struct pe_error err;
	struct check c;
	size_t k;
	uint64_t bad;
	float *v;

	pe_sinusoidal_defaults(&p, PE_SIN_VASWANI);
	p.positions = n;
	p.dim = d;
	if (pe_sinusoidal_init(&s, &p, &err) != 0 || pe_sinusoidal_tensor(&s, &t, &err) != 0) {
		fprintf(stderr, "check_tables: %s\n", err.msg);
		exit(2);
	}
	v = materialize(&t);
	memset(&c, 0, sizeof c);
	c.name = name;
	c.rows = n;
	c.cols = (size_t)d;
	c.nfreq = (size_t)d / 2;
	c.scale = 1.0;
	c.fr = alloc_freqs(c.nfreq);
	c.colmap = malloc(c.nfreq * sizeof *c.colmap);
	if (!c.colmap)
		exit(2);
	for (k = 0; k < c.nfreq; k++) {
		pow_freq(&c.fr[k], p.base, 2 * (long)k, (unsigned long)d);
		c.colmap[k][K_SIN][0] = (int)(2 * k);
		c.colmap[k][K_COS][0] = (int)(2 * k + 1);
		c.colmap[k][K_SIN][1] = c.colmap[k][K_COS][1] = -1;
		c.colmap[k][K_ANGLE][0] = c.colmap[k][K_ANGLE][1] = -1;
	}
	c.tab[K_SIN] = c.tab[K_COS] = v;
	bad = run(&c);
	free(v);
	free(c.colmap);
	free_freqs(c.fr, c.nfreq);
	pe_sinusoidal_free(&s);
	return bad;
}

static uint64_t check_rope(uint64_t n)
{
	struct pe_rope_params p;
	struct pe_rope r;
	struct pe_tensor t[4];
	struct pe_error err;
	struct check c;
	size_t k, half;
	uint64_t bad = 0;
	float *v[4];
	int i;

	pe_rope_defaults(&p);
	p.positions = n;
	p.rotary_dim = 128;
	half = 64;
	if (pe_rope_init(&r, &p, &err) != 0) {
		fprintf(stderr, "check_tables: %s\n", err.msg);
		exit(2);
	}
	for (i = 0; i < 4; i++) {
		if (pe_rope_tensor(&r, (enum pe_rope_table)i, &t[i], &err) != 0) {
			fprintf(stderr, "check_tables: %s\n", err.msg);
			exit(2);
		}
		v[i] = materialize(&t[i]);
	}
	memset(&c, 0, sizeof c);
	c.name = n == 131072 ? "rope 131072x128 (cos, sin, angles)" : "rope (cos, sin, angles)";
	c.rows = p.positions;
	c.cols = 128;
	c.nfreq = half;
	c.scale = r.attention;
	c.fr = alloc_freqs(half);
	c.colmap = malloc(half * sizeof *c.colmap);
	if (!c.colmap)
		exit(2);
	for (k = 0; k < half; k++) {
		float want;

		pow_freq(&c.fr[k], p.theta, 2 * (long)k, 128);
		for (i = 0; i < NKIND; i++) {
			c.colmap[k][i][0] = (int)k;
			c.colmap[k][i][1] = (int)(k + half);
		}
		want = pe_mpfr_to_f32(c.fr[k].mf);
		if (memcmp(&want, &v[PE_ROPE_INV_FREQ][k], sizeof want) != 0) {
			fprintf(stderr, "rope inv_freq %zu: posenc %.9g, correctly rounded %.9g\n", k,
				(double)v[PE_ROPE_INV_FREQ][k], (double)want);
			bad++;
		}
	}
	printf("rope inv_freq: 64 values, %llu wrong\n", (unsigned long long)bad);
	c.tab[K_SIN] = v[PE_ROPE_SIN];
	c.tab[K_COS] = v[PE_ROPE_COS];
	c.tab[K_ANGLE] = v[PE_ROPE_ANGLES];
	bad += run(&c);
	for (i = 0; i < 4; i++)
		free(v[i]);
	free(c.colmap);
	free_freqs(c.fr, half);
	pe_rope_free(&r);
	return bad;
}

/* --quick: the same checks on tables a sixteenth the size, for trying a
 * change (not exhaustive) */
int main(int argc, char **argv)
{
	int q = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 16 : 1;
	uint64_t bad = 0;

	init_constants();
	bad += check_sinusoidal(q > 1 ? "sinusoidal 4096x1024" : "sinusoidal 65536x1024", 65536 / q,
				1024);
	bad += check_sinusoidal(q > 1 ? "sinusoidal 62500x64" : "sinusoidal 1000000x64",
				1000000 / q, 64);
	bad += check_rope(131072 / q);
	printf("check_tables: %s\n", bad ? "FAILED" : "every value correctly rounded");
	return bad ? 1 : 0;
}
