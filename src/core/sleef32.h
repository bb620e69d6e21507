/*
 * sleef32.h - SLEEF 3.5.1's single-precision u10 functions as PyTorch's CPU
 * kernels call them (Vectorized<float>::sin/cos/exp/pow/log/log1p of the AVX2 and
 * AVX-512 builds), emulated one lane at a time in portable C.
 *
 * Why an emulation.  SLEEF's scalar functions are not the same bits as its
 * vector ones (99.92% for cos), and a CPU without AVX2 or AVX-512 cannot run
 * those: so each function here follows the published algorithm of the
 * vector variant (Shibata and Petrogalli, "SLEEF: a portable vectorized
 * library of C standard mathematical functions", IEEE TPDS 2020; the
 * double-float steps of SLEEF 3.5.1's sleefsimdsp.c), with fmaf() exactly
 * where both x86 variants fuse (they define ENABLE_FMA_SP).  The build
 * forbids contraction (-ffp-contract=off), so every other product and sum
 * is rounded as written, and fmaf() is exact in software too: the same
 * bits on every CPU.  tests/unit/test_sleef32.c proves equality with
 * Debian's libsleef vector functions; `make check-exhaustive` over every
 * float.
 *
 * AVX2 against AVX-512.  Lane for lane the two variants give the same bits
 * (every float below 1e6 compared, and the unit test's samples): they
 * differ only in how many lanes share a vector, which matters for sin and
 * cos.  Their reduction is chosen for the whole vector: when every lane is
 * below 125 in magnitude, Cody-Waite with three constants; else Payne-
 * Hanek (rempif) for all of them, which gives different bits for about
 * 0.04% (sin) and 0.46% (cos) of the small lanes.  So a lane's value
 * depends on its neighbours: pe_sleef_sinf/cosf take the path as an
 * argument, and pe_sleef_trig_ph says which path a vector takes.
 *
 * Special values follow the vector code (NaN in, NaN out; expf beyond its
 * range 0 or inf); PyTorch's tables never reach them, the tests do.
 */
#ifndef PE_SLEEF32_H
#define PE_SLEEF32_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A float's bits and back (the emulations work on the encoding, as the
 * vector code does on its lanes). */
static inline uint32_t pe_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static inline float pe_f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* Lanes of a vector: Vectorized<float>::size() in the two builds. */
#define PE_SLEEF_AVX2_LANES 8
#define PE_SLEEF_AVX512_LANES 16

/* 1 when a vector of these n lanes (n >= 1) takes the Payne-Hanek path:
 * some lane is not below 125 in magnitude (NaN included). */
int pe_sleef_trig_ph(const float *x, size_t n);

/* Sleef_sinf{8,16}_u10 / Sleef_cosf{8,16}_u10 of one lane; ph: the vector's
 * path (pe_sleef_trig_ph).  A lane of 125 or more needs ph = 1. */
float pe_sleef_sinf(float d, int ph);
float pe_sleef_cosf(float d, int ph);

/* Sleef_expf{8,16}_u10. */
float pe_sleef_expf(float d);

/* Sleef_powf{8,16}_u10 (the AVX2 and AVX-512 variants agree). */
float pe_sleef_powf(float x, float y);

/* Sleef_logf{8,16}_u10 and Sleef_log1pf{8,16}_u10 (the two variants agree):
 * torch.log of a build without MKL, and torch.log1p of every build (ATen
 * calls SLEEF for it even where MKL serves log; measured with torch
 * 2.13.0: equal to libsleef's vector function on all integers below 2^22,
 * and unlike MKL's vmsLog1p). */
float pe_sleef_logf(float d);
float pe_sleef_log1pf(float d);

#endif
