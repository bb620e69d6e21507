/*
 * testutil.h - shared helpers for the cmocka unit tests.
 * cmocka 1.1 has no double comparison; these print both values on failure.
 */
#ifndef PE_TESTUTIL_H
#define PE_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/rope.h"

/* |actual - expected| <= abs_tol + rel_tol * |expected|, else fail printing
 * both values (and what) */
#define assert_close(actual, expected, abs_tol, rel_tol) \
	pe_assert_close((actual), (expected), (abs_tol), (rel_tol), #actual, __FILE__, __LINE__)

void pe_assert_close(double actual, double expected, double abs_tol, double rel_tol,
		     const char *what, const char *file, int line);

/* Distance in units in the last place between two floats (0 if equal,
 * +0 and -0 equal). */
int64_t pe_ulp_diff(float a, float b);

/* Read a whole file (malloc'd, *n bytes); NULL on failure. */
unsigned char *pe_read_file(const char *path, size_t *n);

/* A fresh temporary file path under $TMPDIR (or /tmp); caller frees. */
char *pe_temp_path(const char *suffix);

/* x rounded to binary32 by MPFR itself: 24 bits, binary32's exponent
 * range with subnormals, overflow to infinity (the correctly rounded
 * reference of test_exact and test_similarity). */
float pe_mpfr_to_f32(const void *mpfr_value);

/* 1 when long double arithmetic has the x87 format's 64-bit significand,
 * as on real x86-64 hardware; 0 under valgrind, whose CPU emulation does
 * x87 arithmetic in 64-bit double (and on targets whose long double is
 * double).  posenc's correctly rounded paths rely on the 64 bits. */
int pe_long_double_is_extended(void);

/* In a test that checks results only the 64-bit significand gives: skip
 * the test, saying why, where long double is narrower (see above). */
#define PE_NEED_EXTENDED_LONG_DOUBLE() \
	do { \
		if (!pe_long_double_is_extended()) { \
			print_message("skipped: long double has no 64-bit significand here " \
				      "(valgrind emulates x87 in double)\n"); \
			skip(); \
		} \
	} while (0)

/* 1 when PE_TEST_QUICK is set in the environment (make valgrind sets it):
 * tests whose size only adds confidence use smaller sizes. */
int pe_test_quick(void);

/* A seeded 64-bit generator (splitmix64) for test data. */
uint64_t pe_test_rand(uint64_t *state);

/* Path of a file in the source tree (PE_SOURCE_DIR/rel); static buffer. */
const char *pe_source_path(const char *rel);

/* A tensor's rows from memory: data holds rows of cols 4-byte values
 * (float or int32); pe_test_fill_from is a pe_fill_fn over it. */
struct pe_test_src {
	const void *data;
	size_t cols;
};

struct pe_error;
int pe_test_fill_from(const void *ctx, uint64_t r0, size_t nrows, void *out,
		      struct pe_error *err);

/* RoPE parameters at their defaults with n positions and rotary width R. */
struct pe_rope_params pe_test_rope_params(uint64_t n, uint64_t R);

#endif
