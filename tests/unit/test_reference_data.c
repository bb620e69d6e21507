/*
 * posenc's sinusoidal tables against the reference tables in data/ (see
 * data/README.md): the NumPy-made ones within 1 float32 ulp; the PyTorch
 * tutorial's float32 buffer, made by PyTorch 1.13, against --precision
 * float32, within the bounds measured when it was added (PyTorch's own
 * float32 exp and sin are not correctly rounded, so not bit for bit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sinusoidal.h"
#include "testutil.h"

static void compare(const char *file, enum pe_sin_preset preset, int64_t padding)
{
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal s;
	size_t len, r = 0, c, nrows;
	unsigned char *text = pe_read_file(pe_source_path(file), &len);
	char *line, *save = NULL, *tok, *save2;
	float *t;

	assert_non_null(text);
	pe_sinusoidal_defaults(&p, preset);
	p.positions = 32;
	p.dim = 9;
	p.padding_idx = padding;
	assert_int_equal(pe_sinusoidal_init(&s, &p, NULL), 0);
	nrows = (size_t)s.rows;
	t = malloc(nrows * 9 * sizeof *t);
	assert_non_null(t);
	assert_int_equal(pe_sinusoidal_fill(&s, 0, nrows, t, NULL), 0);
	for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), r++) {
		assert_true(r < nrows);
		c = 0;
		for (tok = strtok_r(line, ",", &save2); tok; tok = strtok_r(NULL, ",", &save2), c++) {
			float want = strtof(tok, NULL);

			assert_true(c < 9);
			if (pe_ulp_diff(t[r * 9 + c], want) > 1)
				fail_msg("%s row %zu col %zu: %.9g vs %.9g", file, r, c,
					 (double)t[r * 9 + c], (double)want);
		}
		assert_int_equal(c, 9);
	}
	assert_int_equal(r, nrows);
	free(t);
	free(text);
	pe_sinusoidal_free(&s);
}

static void test_vaswani(void **state)
{
	(void)state;
	compare("data/sinusoidal-vaswani-n32-d9.csv", PE_SIN_VASWANI, -1);
}

static void test_marian(void **state)
{
	(void)state;
	compare("data/sinusoidal-marian-n32-d9.csv", PE_SIN_MARIAN, -1);
}

static void test_t2t(void **state)
{
	(void)state;
	compare("data/sinusoidal-t2t-n32-d9.csv", PE_SIN_T2T, -1);
}

static void test_fairseq(void **state)
{
	(void)state;
	compare("data/sinusoidal-fairseq-pad1-n32-d9.csv", PE_SIN_FAIRSEQ, 1);
}

/* The float32 table at rows first..first+31 (D = 64) and the exact one;
 * float32 as PyTorch without MKL on AVX2 (Debian's python3-torch 1.13 made
 * the reference: its CPU capability AVX2, one thread) */
static void tables(int64_t first, int float32, float *t)
{
	struct pe_sinusoidal_params p;
	struct pe_sinusoidal s;

	pe_sinusoidal_defaults(&p, PE_SIN_VASWANI);
	p.positions = 32;
	p.dim = 64;
	p.offset = first;
	p.float32 = float32;
	p.torch.cpu = PE_TORCH_AVX2;
	p.torch.vml = PE_TORCH_SLEEF;
	assert_int_equal(pe_sinusoidal_init(&s, &p, NULL), 0);
	assert_int_equal(pe_sinusoidal_fill(&s, 0, 32, t, NULL), 0);
	pe_sinusoidal_free(&s);
}

static void read_csv(const char *file, float *v, size_t n)
{
	size_t len, k = 0;
	unsigned char *text = pe_read_file(pe_source_path(file), &len);
	char *p, *end;

	assert_non_null(text);
	for (p = (char *)text; k < n; k++, p = end + 1) {
		v[k] = strtof(p, &end);
		assert_true(end != p);
	}
	free(text);
}

/*
 * Rows 0..31 and 4000..4031 of the tutorial's buffer, made by PyTorch 1.13
 * (SLEEF's exp, sin and cos, no MKL): every value identical.  (The exact
 * table is more than 1e-4 away at 4000: the float32 recipe's own rounding
 * of the frequency and the angle.)
 */
static void test_pytorch_tutorial(void **state)
{
	float ref[32 * 64], f32[32 * 64], ex[32 * 64];
	double worstex = 0;
	size_t k, same = 0;

	(void)state;
	read_csv("data/sinusoidal-pytorch-tutorial-p0-n32-d64.csv", ref, 32 * 64);
	tables(0, 1, f32);
	for (k = 0; k < 32 * 64; k++)
		same += memcmp(&f32[k], &ref[k], sizeof f32[k]) == 0;
	assert_int_equal(same, 32 * 64);
	read_csv("data/sinusoidal-pytorch-tutorial-p4000-n32-d64.csv", ref, 32 * 64);
	tables(4000, 1, f32);
	tables(4000, 0, ex);
	same = 0;
	for (k = 0; k < 32 * 64; k++) {
		same += memcmp(&f32[k], &ref[k], sizeof f32[k]) == 0;
		worstex = fmax(worstex, fabs((double)ex[k] - (double)ref[k]));
	}
	assert_int_equal(same, 32 * 64);
	assert_true(worstex > 1e-4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vaswani),
		cmocka_unit_test(test_marian),
		cmocka_unit_test(test_t2t),
		cmocka_unit_test(test_fairseq),
		cmocka_unit_test(test_pytorch_tutorial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
