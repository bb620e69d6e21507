#include "core/gemm.h"

#include <cblas.h>

/* OpenBLAS's own, not in CBLAS; Debian's openblas-pthread build provides
 * them and compiles in the locking that makes concurrent single-threaded
 * calls safe (OpenBLAS issue 2126).  The pthread build starts its thread
 * pool when the library loads, and an idle pool thread spins (sched_yield)
 * for about 0.1 s of CPU before it sleeps: on two cores that steals one
 * from posenc's workers at every start, so the pool is shut down; a BLAS
 * without these functions (weak) is simply left alone. */
#if defined(__GNUC__)
#define WEAK __attribute__((weak))
#else
#define WEAK
#endif
void openblas_set_num_threads(int num_threads) WEAK;
int blas_thread_shutdown_(void) WEAK;

void pe_gemm_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	if (openblas_set_num_threads)
		openblas_set_num_threads(1);
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
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
