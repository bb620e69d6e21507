#include "core/gemm.h"

#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef PE_OPENBLAS_SONAME
#define PE_OPENBLAS_SONAME "libopenblas.so.0"
#endif

/*
 * OpenBLAS is loaded when the first similarity needs it, not linked: its
 * relocations and constructor cost every posenc run about 5 ms at start-up
 * (an empty program linked with it: 8.6 ms against 3.9 ms), more than a
 * tenth of generating a 256 MiB table.
 *
 * openblas_set_num_threads and blas_thread_shutdown_ are OpenBLAS's own,
 * not CBLAS; Debian's openblas-pthread build provides them and compiles in
 * the locking that makes concurrent single-threaded calls safe (OpenBLAS
 * issue 2126).  That build starts its thread pool when the library loads,
 * and an idle pool thread spins (sched_yield) for about 0.1 s of CPU before
 * it sleeps: on two cores that steals one from posenc's workers, so the
 * pool is shut down; a BLAS without these functions is left alone.
 */
typedef void dgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
		      blasint, blasint, double, const double *, blasint, const double *, blasint,
		      double, double *, blasint);
typedef void sgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
		      blasint, blasint, float, const float *, blasint, const float *, blasint,
		      float, float *, blasint);

static struct {
	pthread_once_t once;
	dgemm_fn *dgemm;
	sgemm_fn *sgemm;
	char why[200];
} blas = { PTHREAD_ONCE_INIT, NULL, NULL, "" };

static void load(void)
{
	void *lib = dlopen(PE_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL), *d, *s, *nt, *sd;
	void (*set_threads)(int);
	int (*shutdown)(void);
	const char *e;

	if (!lib) {
		e = dlerror();
		snprintf(blas.why, sizeof blas.why, "%s", e ? e : PE_OPENBLAS_SONAME);
		return;
	}
	d = dlsym(lib, "cblas_dgemm");
	s = dlsym(lib, "cblas_sgemm");
	if (!d || !s) {
		snprintf(blas.why, sizeof blas.why, "%s has no cblas_dgemm/cblas_sgemm",
			 PE_OPENBLAS_SONAME);
		return;	/* the library stays loaded: dlclose is not worth its risks */
	}
	/* dlsym's void * to a function pointer: POSIX allows it, ISO C has
	 * no such conversion, so through memcpy */
	nt = dlsym(lib, "openblas_set_num_threads");
	sd = dlsym(lib, "blas_thread_shutdown_");
	if (nt) {
		memcpy(&set_threads, &nt, sizeof set_threads);
		set_threads(1);
	}
	if (sd) {
		memcpy(&shutdown, &sd, sizeof shutdown);
		shutdown();
	}
	memcpy(&blas.sgemm, &s, sizeof blas.sgemm);
	memcpy(&blas.dgemm, &d, sizeof blas.dgemm);
}

int pe_gemm_init(struct pe_error *err)
{
	pthread_once(&blas.once, load);
	if (!blas.dgemm)
		return pe_fail(err, PE_ERR_IO, "cannot load OpenBLAS: %s", blas.why);
	return 0;
}

void pe_gemm_d(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
	       size_t ldb, double *c, size_t ldc)
{
	blas.dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)m, (blasint)n, (blasint)k,
		   1.0, a, (blasint)lda, b, (blasint)ldb, 0.0, c, (blasint)ldc);
}

void pe_gemm_s(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
	       size_t ldb, float *c, size_t ldc)
{
	blas.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)m, (blasint)n, (blasint)k,
		   1.0f, a, (blasint)lda, b, (blasint)ldb, 0.0f, c, (blasint)ldc);
}
