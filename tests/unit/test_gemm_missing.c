/*
 * core/gemm.c when OpenBLAS cannot be loaded: compiled here with a library
 * name that does not exist, pe_gemm_init fails (PE_ERR_IO) with one message
 * naming the library and dlopen's reason, every time it is asked, so
 * similarity reports it as one posenc: line instead of crashing.  (The
 * library that does load is exercised by test_similarity and the CLI.)
 */
#define PE_OPENBLAS_SONAME "libposenc-test-no-such-blas.so.0"
#include "core/gemm.c"

#include "testutil.h"

static void test_missing_library(void **state)
{
	struct pe_error err;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		err.code = PE_OK;
		err.msg[0] = '\0';
		assert_int_equal(pe_gemm_init(1, &err), -1);
		assert_int_equal(err.code, PE_ERR_IO);
		assert_non_null(strstr(err.msg, "cannot load OpenBLAS: "));
		assert_non_null(strstr(err.msg, "libposenc-test-no-such-blas.so.0"));
		assert_null(strchr(err.msg, '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
