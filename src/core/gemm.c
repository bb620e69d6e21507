/* MAP_ANONYMOUS is outside POSIX: this file asks for it. */
#define _DEFAULT_SOURCE
#include "core/gemm.h"

#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

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
 *
 * Address space (RLIMIT_AS, `ulimit -v`).  Every caller of a level-3
 * routine takes one of OpenBLAS's buffers, and every pool thread holds one
 * for its life: BUFFER_SIZE bytes (32 << 22, 128 MiB, on x86-64; less on
 * most other platforms), mapped the first time a buffer is needed beyond
 * those mapped so far and kept for reuse.  Before 0.3.30 (Debian 12 ships
 * 0.3.21) a mapping that fails is retried for ever (OpenBLAS issue 5289):
 * under a limit that cannot hold one more buffer, the pool thread started
 * by dlopen, or a GEMM call, spins at 100 % CPU and never returns.  So the
 * library is loaded with OPENBLAS_NUM_THREADS=1 in the environment (no
 * pool at all: nothing mapped but the library itself), and
 * pe_gemm_init(callers) maps the buffers of `callers` concurrent calls
 * before any call is made, each after a trial mapping of the same size
 * shows it will succeed: then no call ever maps one, and a limit too tight
 * is one error instead of a hang.  blas_memory_alloc/blas_memory_free are
 * OpenBLAS's (exported, not in its header); without them nothing is
 * prepared (another BLAS has no such loop).
 */
#define BUFFER_BYTES ((size_t)128 << 20)
/* the trial's margin: OpenBLAS falls back to malloc(BUFFER_SIZE + a page) */
#define TRIAL_BYTES (BUFFER_BYTES + ((size_t)1 << 20))
#define MAX_CALLERS 64

typedef void dgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
		      blasint, blasint, double, const double *, blasint, const double *, blasint,
		      double, double *, blasint);
typedef void sgemm_fn(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
		      blasint, blasint, float, const float *, blasint, const float *, blasint,
		      float, float *, blasint);

static struct {
	pthread_once_t once;
	pthread_mutex_t mu;	/* buffers */
	dgemm_fn *dgemm;
	sgemm_fn *sgemm;
	void *(*buf_alloc)(int);
	void (*buf_free)(void *);
	int buffers;		/* buffers mapped by pe_gemm_init */
	char why[200];
} blas = { PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, NULL, NULL, NULL, NULL, 0, "" };

/* dlopen with OpenBLAS's pool held to one thread, that is none, while its
 * constructor runs; the caller's own setting comes back afterwards. */
static void *open_single_threaded(void)
{
	const char *old = getenv("OPENBLAS_NUM_THREADS");
	char *keep = old ? strdup(old) : NULL;
	void *lib;

	setenv("OPENBLAS_NUM_THREADS", "1", 1);
	lib = dlopen(PE_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (keep)
		setenv("OPENBLAS_NUM_THREADS", keep, 1);
	else if (!old)
		unsetenv("OPENBLAS_NUM_THREADS");
	free(keep);
	return lib;
}

static void load(void)
{
	void *lib = open_single_threaded(), *d, *s, *nt, *sd, *ba, *bf;
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
	ba = dlsym(lib, "blas_memory_alloc");
	bf = dlsym(lib, "blas_memory_free");
	if (nt) {
		memcpy(&set_threads, &nt, sizeof set_threads);
		set_threads(1);
	}
	if (sd) {
		memcpy(&shutdown, &sd, sizeof shutdown);
		shutdown();
	}
	if (ba && bf) {
		memcpy(&blas.buf_alloc, &ba, sizeof blas.buf_alloc);
		memcpy(&blas.buf_free, &bf, sizeof blas.buf_free);
	}
	memcpy(&blas.sgemm, &s, sizeof blas.sgemm);
	memcpy(&blas.dgemm, &d, sizeof blas.dgemm);
}

/* Whether one more buffer can be mapped now: a trial mapping of its size
 * (with OpenBLAS's flags), unmapped at once. */
static int room_for_buffer(void)
{
	void *p = mmap(NULL, TRIAL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, TRIAL_BYTES);
	return 1;
}

/* The error for `missing` buffers that do not fit, of `callers`. */
static int no_room(int callers, int missing, struct pe_error *err)
{
	struct rlimit rl;
	unsigned long long in_use = 0, pages;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return pe_fail(err, PE_ERR_NOMEM,
			       "not enough memory for OpenBLAS (%zu MiB for %s%d thread%s)",
			       BUFFER_BYTES >> 20, callers == 1 ? "its " : "each of its ", callers,
			       callers == 1 ? "" : "s");
	/* the address space in use now (Linux), to say what limit would do */
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%llu", &pages) == 1)
			in_use = pages * (unsigned long long)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
	return pe_fail(err, PE_ERR_NOMEM,
		       "not enough address space for OpenBLAS (ulimit -v is %llu KiB; it needs about %llu KiB, with %zu MiB for %s%d thread%s)",
		       (unsigned long long)rl.rlim_cur >> 10,
		       (in_use + (unsigned long long)missing * TRIAL_BYTES) >> 10, BUFFER_BYTES >> 20,
		       callers == 1 ? "its " : "each of its ", callers, callers == 1 ? "" : "s");
}

/* Map the buffers of `callers` concurrent calls, under blas.mu: take that
 * many at once (the first ones mapped already come back first), each new
 * one after a trial, then give them all back. */
static int prepare_buffers(int callers, struct pe_error *err)
{
	void *held[MAX_CALLERS];
	int n, rc = 0;

	for (n = 0; n < callers; n++) {
		if (n >= blas.buffers && !room_for_buffer()) {
			rc = no_room(callers, callers - n, err);
			break;
		}
		if (!(held[n] = blas.buf_alloc(0))) {
			rc = pe_fail(err, PE_ERR_NOMEM, "OpenBLAS has no buffer for %d threads", callers);
			break;
		}
	}
	if (n > blas.buffers)
		blas.buffers = n;
	while (n-- > 0)
		blas.buf_free(held[n]);
	return rc;
}

int pe_gemm_init(int callers, struct pe_error *err)
{
	int rc = 0;

	pthread_once(&blas.once, load);
	if (!blas.dgemm)
		return pe_fail(err, PE_ERR_IO, "cannot load OpenBLAS: %s", blas.why);
	if (callers < 1)
		callers = 1;
	if (callers > MAX_CALLERS)
		return pe_fail(err, PE_ERR_USAGE, "at most %d threads call BLAS, got %d", MAX_CALLERS,
			       callers);
	pthread_mutex_lock(&blas.mu);
	if (blas.buf_alloc && callers > blas.buffers)
		rc = prepare_buffers(callers, err);
	pthread_mutex_unlock(&blas.mu);
	return rc;
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
