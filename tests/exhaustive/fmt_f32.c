/*
 * Every float32 bit pattern through pe_fmt_f32 and through its definition,
 * pe_fmt_f32_slow (printf's correctly rounded %.{p}g and strtof: no code in
 * common with the fast path), comparing the bytes.  2^32 patterns at about
 * half a microsecond each (the printf side), so not part of make check:
 * make check-exhaustive runs it.
 *
 * Environment: PE_EXHAUSTIVE_THREADS (default 2), PE_EXHAUSTIVE_SLICE=K/N
 * to check only the patterns congruent to K mod N (a deterministic 1/N
 * spread over every exponent).  Prints the count checked and mismatched
 * (the first few in full); exits 1 on any mismatch.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/fmt.h"

#define CHUNK ((uint64_t)1 << 20)	/* patterns per unit of work */
#define NCHUNK (((uint64_t)1 << 32) / CHUNK)
#define MAX_THREADS 64
#define SHOW 10

struct shared {
	pthread_mutex_t mu;
	uint64_t next_chunk, done_chunks, checked, mismatched;
	uint32_t k, n;	/* the slice: bits % n == k */
	time_t start;
};

static void *worker(void *arg)
{
	struct shared *sh = arg;
	char fast[PE_FMT_BUF], slow[PE_FMT_BUF];
	size_t len;
	uint64_t c, b, first, checked, bad;
	uint32_t bits;
	float v;

	for (;;) {
		pthread_mutex_lock(&sh->mu);
		c = sh->next_chunk++;
		pthread_mutex_unlock(&sh->mu);
		if (c >= NCHUNK)
			return NULL;
		checked = bad = 0;
		first = c * CHUNK + (sh->k + sh->n - c * CHUNK % sh->n) % sh->n;
		for (b = first; b < (c + 1) * CHUNK; b += sh->n) {
			bits = (uint32_t)b;
			memcpy(&v, &bits, sizeof v);
			len = pe_fmt_f32(v, fast);
			pe_fmt_f32_slow(v, slow);
			checked++;
			if (strcmp(fast, slow) != 0 || len > PE_FMT_F32_MAX) {
				pthread_mutex_lock(&sh->mu);
				if (sh->mismatched + bad < SHOW)
					printf("MISMATCH bits 0x%08x: fast '%s', definition '%s'\n",
					       (unsigned)bits, fast, slow);
				pthread_mutex_unlock(&sh->mu);
				bad++;
			}
		}
		pthread_mutex_lock(&sh->mu);
		sh->checked += checked;
		sh->mismatched += bad;
		if (++sh->done_chunks % (NCHUNK / 16) == 0)
			printf("fmt_f32: %llu/16 done, %llu checked, %llu mismatched, %.0f s\n",
			       (unsigned long long)(sh->done_chunks / (NCHUNK / 16)),
			       (unsigned long long)sh->checked, (unsigned long long)sh->mismatched,
			       difftime(time(NULL), sh->start));
		fflush(stdout);
		pthread_mutex_unlock(&sh->mu);
	}
}

int main(void)
{
	struct shared sh;
	pthread_t th[MAX_THREADS];
	const char *s = getenv("PE_EXHAUSTIVE_SLICE"), *t = getenv("PE_EXHAUSTIVE_THREADS");
	unsigned k = 0, n = 1;
	int nth = t ? atoi(t) : 2, i;

	if (s && (sscanf(s, "%u/%u", &k, &n) != 2 || n == 0 || k >= n)) {
		fprintf(stderr, "fmt_f32: PE_EXHAUSTIVE_SLICE must be K/N with K < N, got '%s'\n", s);
		return 2;
	}
	if (nth < 1 || nth > MAX_THREADS) {
		fprintf(stderr, "fmt_f32: PE_EXHAUSTIVE_THREADS must be 1..%d\n", MAX_THREADS);
		return 2;
	}
	memset(&sh, 0, sizeof sh);
	pthread_mutex_init(&sh.mu, NULL);
	sh.k = k;
	sh.n = n;
	sh.start = time(NULL);
	printf("fmt_f32: pe_fmt_f32 against pe_fmt_f32_slow, bit patterns %u mod %u of 2^32, %d threads\n",
	       k, n, nth);
	fflush(stdout);
	for (i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, worker, &sh) != 0) {
			fprintf(stderr, "fmt_f32: cannot start thread %d\n", i);
			return 1;
		}
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	printf("fmt_f32: %llu checked, %llu mismatched, %.0f s\n",
	       (unsigned long long)sh.checked, (unsigned long long)sh.mismatched,
	       difftime(time(NULL), sh.start));
	pthread_mutex_destroy(&sh.mu);
	return sh.mismatched ? 1 : 0;
}
