#include "testutil.h"

#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PE_SOURCE_DIR
#define PE_SOURCE_DIR "."
#endif

void pe_assert_close(double actual, double expected, double abs_tol, double rel_tol,
		     const char *what, const char *file, int line)
{
	double diff = fabs(actual - expected);

	if (isnan(expected) && isnan(actual))
		return;
	if (!(diff <= abs_tol + rel_tol * fabs(expected))) {
		print_error("%s: got %.17g, expected %.17g (diff %.3g > %.3g + %.3g*|expected|)\n",
			    what, actual, expected, diff, abs_tol, rel_tol);
		_fail(file, line);
	}
}

int pe_long_double_is_extended(void)
{
	volatile long double one = 1.0L, eps = 0x1p-63L;

	return one + eps != one;
}

int pe_test_quick(void)
{
	const char *q = getenv("PE_TEST_QUICK");

	return q != NULL && *q != '\0' && strcmp(q, "0") != 0;
}

int64_t pe_ulp_diff(float a, float b)
{
	int32_t ia, ib;
	int64_t la, lb;

	if (a == b)
		return 0;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	/* map the sign-magnitude bit patterns onto a monotonic integer line */
	la = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
	lb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return la > lb ? la - lb : lb - la;
}

unsigned char *pe_read_file(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, fp) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[len] = '\0';
			*n = (size_t)len;
		}
	}
	fclose(fp);
	return buf;
}

char *pe_temp_path(const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	static unsigned counter;
	char *p = malloc(512);

	if (!p)
		return NULL;
	snprintf(p, 512, "%s/posenc-test-%ld-%u%s", dir && *dir ? dir : "/tmp", (long)getpid(),
		 counter++, suffix ? suffix : "");
	return p;
}

const char *pe_source_path(const char *rel)
{
	static char buf[1024];

	snprintf(buf, sizeof buf, "%s/%s", PE_SOURCE_DIR, rel);
	return buf;
}

float pe_mpfr_to_f32(const void *mpfr_value)
{
	mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
	mpfr_t y;
	int t;
	float f;

	mpfr_init2(y, 24);
	mpfr_set_emin(-148);
	mpfr_set_emax(128);
	t = mpfr_set(y, (mpfr_srcptr)mpfr_value, MPFR_RNDN);
	t = mpfr_check_range(y, t, MPFR_RNDN);
	mpfr_subnormalize(y, t, MPFR_RNDN);
	f = mpfr_get_flt(y, MPFR_RNDN);
	mpfr_set_emin(emin);
	mpfr_set_emax(emax);
	mpfr_clear(y);
	return f;
}

uint64_t pe_test_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

int pe_test_fill_from(const void *ctx, uint64_t r0, size_t nrows, void *out,
		      struct pe_error *err)
{
	const struct pe_test_src *s = ctx;

	(void)err;
	memcpy(out, (const char *)s->data + r0 * s->cols * 4, nrows * s->cols * 4);
	return 0;
}

struct pe_rope_params pe_test_rope_params(uint64_t n, uint64_t R)
{
	struct pe_rope_params p;

	pe_rope_defaults(&p);
	p.positions = n;
	p.rotary_dim = R;
	return p;
}
