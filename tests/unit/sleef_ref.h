/*
 * sleef_ref.h - Debian's libsleef vector functions, the reference the
 * float32 emulation (core/sleef32.h) is proven against: ref_avx2 and
 * ref_avx512 apply one of them to 8 or 16 lanes.  The posenc build is
 * baseline x86-64, so the vector code is compiled for its target here only
 * and called only when the CPU has it (ref_has_avx2 / ref_has_avx512).
 */
#ifndef PE_SLEEF_REF_H
#define PE_SLEEF_REF_H

#include <string.h>

#include "core/sleef32.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define PE_SLEEF_REF 1

/* the intrinsics first, each with its own target; sleef.h declares its
 * vector functions only where __AVX2__ and __AVX512F__ are defined */
#include <immintrin.h>
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f")
#include <sleef.h>
#pragma GCC pop_options

enum ref_fn { REF_SIN, REF_COS, REF_EXP, REF_POW, REF_LOG, REF_LOG1P, REF_NFN };

static int ref_has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static int ref_has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f");
}

/* out[k] = fn(x[k] (, y[k])), k < 8, by Sleef_*f8_u10avx2 */
__attribute__((target("avx2,fma"), noinline)) static void ref_avx2(enum ref_fn fn, const float *x,
							 const float *y, float *out)
{
	__m256 a = _mm256_loadu_ps(x), r;

	switch (fn) {
	case REF_SIN:
		r = Sleef_sinf8_u10avx2(a);
		break;
	case REF_COS:
		r = Sleef_cosf8_u10avx2(a);
		break;
	case REF_EXP:
		r = Sleef_expf8_u10avx2(a);
		break;
	case REF_LOG:
		r = Sleef_logf8_u10avx2(a);
		break;
	case REF_LOG1P:
		r = Sleef_log1pf8_u10avx2(a);
		break;
	default:
		r = Sleef_powf8_u10avx2(a, _mm256_loadu_ps(y));
		break;
	}
	_mm256_storeu_ps(out, r);
}

/* the same, k < 16, by Sleef_*f16_u10avx512f */
__attribute__((target("avx2,fma,avx512f"), noinline)) static void ref_avx512(enum ref_fn fn, const float *x,
							  const float *y, float *out)
{
	__m512 a = _mm512_loadu_ps(x), r;

	switch (fn) {
	case REF_SIN:
		r = Sleef_sinf16_u10avx512f(a);
		break;
	case REF_COS:
		r = Sleef_cosf16_u10avx512f(a);
		break;
	case REF_EXP:
		r = Sleef_expf16_u10avx512f(a);
		break;
	case REF_LOG:
		r = Sleef_logf16_u10avx512f(a);
		break;
	case REF_LOG1P:
		r = Sleef_log1pf16_u10avx512f(a);
		break;
	default:
		r = Sleef_powf16_u10avx512f(a, _mm512_loadu_ps(y));
		break;
	}
	_mm512_storeu_ps(out, r);
}

/* the emulation of the same: lane k of the n lanes x (y[k] pow's exponent) */
static inline float ref_emulate(enum ref_fn fn, const float *x, size_t n, size_t k, float y)
{
	switch (fn) {
	case REF_SIN:
		return pe_sleef_sinf(x[k], pe_sleef_trig_ph(x, n));
	case REF_COS:
		return pe_sleef_cosf(x[k], pe_sleef_trig_ph(x, n));
	case REF_EXP:
		return pe_sleef_expf(x[k]);
	case REF_LOG:
		return pe_sleef_logf(x[k]);
	case REF_LOG1P:
		return pe_sleef_log1pf(x[k]);
	default:
		return pe_sleef_powf(x[k], y);
	}
}

/* identical bits, or both NaN (the vector code's NaN payloads are not part
 * of the contract: PyTorch's tables hold no NaN) */
static inline int ref_same(float a, float b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
}
#endif

#endif
