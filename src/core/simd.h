/*
 * simd.h - PE_VECTOR_KERNEL: a function's loops vectorised for the CPU at
 * hand.  With GCC on x86-64 one clone per instruction set (baseline, AVX2,
 * AVX-512F), chosen at load time, so a portable binary still uses the wide
 * units.  The same bytes on every path: IEEE double products, sums,
 * quotients and square roots, no contraction (-ffp-contract=off), each
 * rounded as written.  no-trapping-math lets a comparison become a mask
 * instead of a branch (floating-point exception flags are all it changes;
 * posenc never reads them); the Makefile's -fno-math-errno lets sqrt be
 * the vector instruction (an optimize attribute cannot).
 */
#ifndef PE_SIMD_H
#define PE_SIMD_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PE_VECTOR_KERNEL \
	__attribute__((target_clones("default", "avx2", "avx512f"), \
		       optimize("tree-loop-vectorize", "vect-cost-model=dynamic", \
				"no-trapping-math")))
#else
#define PE_VECTOR_KERNEL
#endif

#endif
