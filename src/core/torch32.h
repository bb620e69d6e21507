/*
 * torch32.h - PyTorch CPU's float32 elementwise operations, with the bits
 * its kernels give (torch 2.13.0 from pip, and builds without MKL such as
 * Debian's python3-torch), for the float32 emulations of rope and
 * sinusoidal.
 *
 * What PyTorch runs (measured with torch 2.13.0+cpu and Debian's 1.13.1
 * against the libraries themselves; README, Accuracy):
 *   - products, quotients, sums: IEEE float32, correctly rounded.
 *   - torch.pow(Scalar, Tensor) (HF's `base ** (arange / dim)`):
 *     cpu_kernel_vec, so SLEEF's Sleef_powf_u10 on the first
 *     n - n % (2 lanes) elements and std::pow (glibc's powf) on the rest;
 *     lanes = 8 for ATen's AVX2 kernels, 16 for AVX-512; the same for
 *     torch.pow(Tensor, Tensor) of a one-element base (dynamic NTK's).
 *   - torch.pow(Tensor, Scalar) with a Python float exponent (dynamic NTK's
 *     `(...) ** (R / (R - 2))`): std::pow(float, double), the double pow.
 *   - torch.polar(abs, angle) (the complex freqs_cis of Llama 4 and
 *     DeepSeek-V2): a scalar kernel, abs * std::cos(angle) and
 *     abs * std::sin(angle) element by element, so glibc's cosf and sinf
 *     whatever the capability, thread count or MKL.
 *   - cos, sin, exp, log of a float tensor (ATen's vml): in a build with MKL
 *     (pip's x86-64 wheels) MKL's vmsCos / vmsSin / vmsExp / vmsLn in VML_HA mode,
 *     whatever ATen's capability; in a build without MKL SLEEF's u10
 *     functions, a vector of lanes at a time from the start of each chunk
 *     of at::parallel_for (grain 2048, one chunk per thread), the last
 *     vector of a chunk padded with zeros.  Which reduction SLEEF's sin and
 *     cos take depends on the whole vector (core/sleef32.h), so there the
 *     bits depend on the lanes and on torch's thread count (exp and log
 *     look at no other lane).
 *   - log1p of a float tensor: SLEEF's u10 function in every build, MKL's
 *     or not (pe_sleef_log1pf: torch 2.13.0's pip wheel gives its bits,
 *     not vmsLog1p's, on every integer below 2^22).
 *
 * Calling sequence: fill a struct pe_torch (pe_torch_defaults), call
 * pe_torch_check once (it loads MKL when asked), then the operations from
 * any number of threads.
 */
#ifndef PE_TORCH32_H
#define PE_TORCH32_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* ATen's CPU capability: which vector kernels run (ATEN_CPU_CAPABILITY). */
enum pe_torch_cpu { PE_TORCH_AVX2, PE_TORCH_AVX512 };

/* Where a build's cos, sin and exp come from. */
enum pe_torch_vml { PE_TORCH_SLEEF, PE_TORCH_MKL };

struct pe_torch {
	enum pe_torch_cpu cpu;
	enum pe_torch_vml vml;
	unsigned threads;	/* torch.get_num_threads() (>= 1; SLEEF's cos/sin) */
};

enum pe_torch_unary { PE_TORCH_COS, PE_TORCH_SIN, PE_TORCH_EXP, PE_TORCH_LOG };

/* The names in enum order, NULL-terminated ("auto" is the CLI's). */
extern const char *const pe_torch_cpu_names[];
extern const char *const pe_torch_vml_names[];

/* avx512, SLEEF, 1 thread. */
void pe_torch_defaults(struct pe_torch *t);

/* The capability PyTorch picks on this CPU (cpuinfo's test: AVX-512 F, VL,
 * BW, DQ and FMA for avx512, AVX2 and FMA for avx2); -1 for ATen's DEFAULT
 * kernels (an x86-64 CPU without AVX2, or another architecture), which
 * posenc does not reproduce. */
int pe_torch_cpu_detect(void);

/* Vector lanes of a capability. */
size_t pe_torch_lanes(enum pe_torch_cpu cpu);

/* Ready t for the operations: with PE_TORCH_MKL, loads MKL's runtime
 * (PE_MKL_SONAME, default libmkl_rt.so.2, as pip's `mkl` package installs
 * it; once per process, thread-safe), PE_ERR_IO when it cannot. */
int pe_torch_check(const struct pe_torch *t, struct pe_error *err);

/* glibc's powf (2.28 and later), the build its x86-64 ifunc picks on a CPU
 * with FMA and AVX2 (e_powf-fma: the compiler fuses a * b + c where it can),
 * emulated: what PyTorch's scalar tail calls. */
float pe_glibc_powf(float x, float y);

/* glibc's sinf and cosf (the algorithm of 2018 in sysdeps/ieee754/flt-32,
 * as glibc 2.36 ships it), the build its x86-64 ifunc picks on a CPU with
 * FMA and AVX2, emulated: what torch.polar calls element by element (ATen's
 * polar kernel is scalar, std::cos and std::sin on each element, whatever
 * the capability or thread count).  glibc's build without FMA rounds the
 * reduction x - n pi/2 differently: it differs in 12 (sinf) and 22 (cosf)
 * of the 2^32 inputs, all within 120 and near a multiple of pi/2 (measured
 * with glibc 2.36); PyTorch's users, on CPUs with AVX2, get this one. */
float pe_glibc_sinf(float x);
float pe_glibc_cosf(float x);

/* torch.pow(Tensor, Scalar) of a float32 element x and a Python float e
 * other than ATen's special exponents (0.5, -0.5, -1, 3, -2):
 * std::pow(float, double), the double power rounded to float32.  Computed
 * as the correctly rounded double (of a 256-bit exp(e ln x), core/mp.h):
 * glibc's pow is within 0.52 ulp of it, so the float32 could differ only
 * where that double lies within an ulp of a float32 rounding boundary
 * (test_sleef32.c compares with the C library's pow); the same bytes on
 * every CPU.  e == 2 is ATen's x * x, the same value.  x < 0 gives NaN
 * (but for e == 2). */
float pe_torch_pow_exp(float x, double e);

/* out[i] = base ** e[i], i < n, as torch.pow(Scalar, Tensor) on a
 * contiguous exponent tensor of n elements (n < 32768, one chunk); also
 * torch.pow(Tensor, Tensor) with a one-element base (the same loop, the
 * base broadcast). */
void pe_torch_pow_scalar(const struct pe_torch *t, float base, const float *e, float *out,
			 size_t n);

/*
 * Elements [first, first + count) of op(x) for a contiguous float32 tensor
 * of `total` elements: out[i] = op(x(first + i)).  x(g) gives element g of
 * the input (any g < total: SLEEF's sin and cos look at the lanes that share
 * a vector with the ones asked for); ctx is its argument.  Thread-safe.
 */
typedef float pe_torch_elem_fn(const void *ctx, uint64_t g);
void pe_torch_unary(const struct pe_torch *t, enum pe_torch_unary op, pe_torch_elem_fn *x,
		    const void *ctx, uint64_t total, uint64_t first, size_t count, float *out);

/* The MKL functions themselves (PE_TORCH_MKL after pe_torch_check): y =
 * op(x) over n elements in VML_HA mode, as ATen calls them. */
void pe_torch_mkl(enum pe_torch_unary op, const float *x, float *y, size_t n);

#endif
