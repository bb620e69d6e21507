/*
 * gemm.h - the one place posenc calls BLAS: C = A B^T for row-major A (m x k)
 * and B (n x k), as CBLAS's dgemm / sgemm (OpenBLAS: its header found by
 * pkg-config, the library loaded at run time, see gemm.c).
 *
 * Numeric contract: pe_gemm_d accumulates in double, pe_gemm_s in float; the
 * order of the additions is BLAS's own (blocked, vectorised, possibly fused
 * multiply-adds), so a result is only known to within the usual bound for
 * any order: |C - exact| <= gamma_k sum_l |a_l b_l|, gamma_k = k u / (1 - k u)
 * (u = 2^-53, or 2^-24 for floats).  core/similarity.c relies on that bound
 * alone, never on the order.
 *
 * Threads: posenc runs its own worker threads (core/pipeline.h) and calls
 * these from several of them at once, so BLAS itself must use one thread;
 * pe_gemm_init() sets that once for the process, when it loads the library.
 *
 * Address space: OpenBLAS maps a buffer of 128 MiB (x86-64) for each call
 * running at once, and before 0.3.30 it retries a mapping that fails for
 * ever; pe_gemm_init() maps the buffers before the calls (see gemm.c), so a
 * `ulimit -v` too small for them is an error there, never a hang.
 */
#ifndef PE_GEMM_H
#define PE_GEMM_H

#include <stddef.h>

#include "core/err.h"

/* Load OpenBLAS (PE_OPENBLAS_SONAME, at the first call; thread-safe) with
 * one BLAS thread and no thread pool, and make room for `callers` calls of
 * pe_gemm_d/pe_gemm_s at once (1..64; at most that many threads may call
 * them at once afterwards).  Call it while no other thread of the process
 * maps memory: it maps OpenBLAS's buffers after checking that each fits.
 * Returns 0, or -1: PE_ERR_IO when the library cannot be loaded,
 * PE_ERR_NOMEM when its buffers do not fit (under RLIMIT_AS: the message
 * gives the limit and about what it would take).  pe_gemm_d and pe_gemm_s
 * need a successful call first. */
int pe_gemm_init(int callers, struct pe_error *err);

void pe_gemm_d(size_t m, size_t n, size_t k, const double *a, size_t lda, const double *b,
	       size_t ldb, double *c, size_t ldc);
void pe_gemm_s(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *b,
	       size_t ldb, float *c, size_t ldc);

#endif
