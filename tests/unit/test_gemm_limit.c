/*
 * core/gemm under a limit on the address space (RLIMIT_AS, `ulimit -v`):
 * OpenBLAS before 0.3.30 retries a buffer it cannot map for ever, at the
 * pool's start when the library loads and in a GEMM call that needs one
 * more buffer.  Each case runs in a child process (the library loads once
 * per process) with an alarm: a hang is a child killed by SIGALRM, a
 * failure here, never a stuck test.
 *   - a limit that holds the library but not one buffer before
 *     pe_gemm_init: -1, PE_ERR_NOMEM, one line naming the limit (with
 *     OpenBLAS's pool left on, this hangs in dlopen on a machine of two
 *     CPUs or more: the pool thread maps its buffer);
 *   - after pe_gemm_init(3), the limit lowered until no buffer fits any
 *     more: three threads calling GEMM at once all finish with the right
 *     product (the buffers were mapped by pe_gemm_init, not by the calls).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/gemm.h"
#include "testutil.h"

#define N 256
#define CALLERS 3
#define ALARM_SECONDS 30

/* The address space in use now, bytes (Linux), or 0. */
static rlim_t in_use(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}

/* Room for `mib` MiB more. */
static int tighten(rlim_t mib)
{
	struct rlimit rl;
	rlim_t now = in_use();

	if (!now)
		return -1;
	rl.rlim_cur = rl.rlim_max = now + (mib << 20);
	return setrlimit(RLIMIT_AS, &rl);
}

/* Run f in a child with an alarm; its exit status (0: passed). */
static int in_child(int (*f)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(ALARM_SECONDS);
		_exit(f());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		fail_msg("the child was killed by signal %d%s", WTERMSIG(st),
			 WTERMSIG(st) == SIGALRM ? " after " "30" " s: OpenBLAS hung" : "");
	return WEXITSTATUS(st);
}

static int refused(void)
{
	struct pe_error err = { PE_OK, "" };

	/* the library (36 MiB for Debian's) but not one buffer (128 MiB) */
	if (tighten(96) != 0)
		return 10;
	if (pe_gemm_init(1, &err) != -1)
		return 11;
	if (err.code != PE_ERR_NOMEM)
		return 12;
	if (!strstr(err.msg, "not enough address space for OpenBLAS (ulimit -v is ") ||
	    !strstr(err.msg, " KiB; it needs about ") || strchr(err.msg, '\n'))
		return 13;
	return 0;
}

static void test_refused_before_load(void **state)
{
	(void)state;
	assert_int_equal(in_child(refused), 0);
}

static double a[CALLERS][N * N], c[CALLERS][N * N];
static pthread_barrier_t go;

static void *caller(void *arg)
{
	size_t t = (size_t)arg;
	int rep;

	pthread_barrier_wait(&go);
	for (rep = 0; rep < 4; rep++)
		pe_gemm_d(N, N, N, a[t], N, a[t], N, c[t], N);
	return NULL;
}

/* a[t] has rows e_i (t + 1): A A^T = (t + 1)^2 I */
static int calls_map_nothing(void)
{
	struct pe_error err = { PE_OK, "" };
	pthread_t th[CALLERS];
	size_t t, i, j;

	for (t = 0; t < CALLERS; t++)
		for (i = 0; i < N; i++)
			a[t][i * N + i] = (double)(t + 1);
	if (pe_gemm_init(CALLERS, &err) != 0)
		return 20;
	if (pthread_barrier_init(&go, NULL, CALLERS + 1) != 0)
		return 21;
	for (t = 0; t < CALLERS; t++)
		if (pthread_create(&th[t], NULL, caller, (void *)t) != 0)
			return 22;
	/* the threads' stacks are mapped: now no buffer fits any more */
	if (tighten(32) != 0)
		return 23;
	pthread_barrier_wait(&go);
	for (t = 0; t < CALLERS; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < CALLERS; t++)
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				if (c[t][i * N + j] != (i == j ? (double)((t + 1) * (t + 1)) : 0.0))
					return 24;
	return 0;
}

static void test_calls_after_init(void **state)
{
	(void)state;
	assert_int_equal(in_child(calls_map_nothing), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_before_load),
		cmocka_unit_test(test_calls_after_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
