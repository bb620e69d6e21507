#include "core/gemm.h"

#include <cblas.h>

/* OpenBLAS's own, not in CBLAS; Debian's openblas-pthread build provides it
 * and compiles in the locking that makes concurrent single-threaded calls
 * safe (OpenBLAS issue 2126). */
void openblas_set_num_threads(int num_threads);

void pe_gemm_init(void)
{
	openblas_set_num_threads(1);
}

void pe_gemm_d(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
	       size_t ldb, double *c, size_t ldc)
{
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0, a,
		    (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
}

void pe_gemm_s(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
	       size_t ldb, float *c, size_t ldc)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0f, a,
		    (int)lda, b, (int)ldb, 0.0f, c, (int)ldc);
}
