/*
 * fuzz.h - what every fuzz target shares: the libFuzzer entry point and the
 * checks of a reader's contract (io/read.h) that a sanitizer alone would not
 * catch.  A broken contract calls abort(), so libFuzzer and the regression
 * driver (driver.c) both report it as a crash with the input kept.
 *
 * The targets are built two ways: with clang -fsanitize=fuzzer (make fuzz)
 * and, with driver.c as main, by the normal compiler for make check.
 */
#ifndef PE_FUZZ_H
#define PE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond)                                                                 \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* A copy of data[0, size) with a NUL after it (callers free). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		if (size)
			memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* The error half of the contract: a code, a text that starts with the name
 * given.  The text may hold control bytes quoted from the input (a newline
 * in a rope_type, in a tensor name): cli/msg.c escapes them when it prints,
 * so they are not checked here. */
static inline void fuzz_check_error(const struct pe_error *err, const char *name)
{
	FUZZ_REQUIRE(err->code != PE_OK);
	FUZZ_REQUIRE(memchr(err->msg, '\0', sizeof err->msg) != NULL);
	FUZZ_REQUIRE(err->msg[0] != '\0');
	if (err->code == PE_ERR_DATA)
		FUZZ_REQUIRE(strncmp(err->msg, name, strlen(name)) == 0);
}

/* A parser's result: on success a whole matrix (every value read, so an
 * out-of-bounds or unset pointer shows), on failure an empty one. */
static inline void fuzz_check_matrix(int rc, struct pe_matrix *m, const struct pe_error *err,
				     const char *name)
{
	if (rc == 0) {
		volatile float sink = 0.0f;
		uint64_t i;

		FUZZ_REQUIRE(m->rows >= 1 && m->cols >= 1 && m->v != NULL);
		for (i = 0; i < m->rows * m->cols; i++)
			sink += m->v[i];
		(void)sink;
	} else {
		FUZZ_REQUIRE(rc == -1);
		FUZZ_REQUIRE(m->v == NULL);
		fuzz_check_error(err, name);
	}
	pe_matrix_free(m);
}

#endif
