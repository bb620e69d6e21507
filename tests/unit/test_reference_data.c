/*
 * posenc's sinusoidal tables against the NumPy-made reference tables in
 * data/ (see data/README.md): every value within 1 float32 ulp.
 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vaswani),
		cmocka_unit_test(test_marian),
		cmocka_unit_test(test_t2t),
		cmocka_unit_test(test_fairseq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
