/*
 * Every float32 pattern through the SLEEF emulation (core/sleef32.h) and
 * Debian's libsleef: sin, cos, exp, log and log1p in vectors of 16 consecutive patterns
 * (AVX-512F) and 8 (AVX2), pow with the pattern's magnitude as base and an
 * exponent stream; glibc's powf emulation against this C library's on the
 * same bases, and its sinf and cosf on every pattern.  PE_EXHAUSTIVE_SLICE=K/N: only vectors K mod N.  Prints the
 * counts; exit 1 on any mismatch.  About 10 minutes on one core.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sleef32.h"
#include "core/torch32.h"
#include "sleef_ref.h"

int main(void)
{
	static const char *const names[] = { "sin", "cos", "exp", "pow", "log", "log1p",
					     "glibc powf", "glibc sinf", "glibc cosf" };
	const char *slice = getenv("PE_EXHAUSTIVE_SLICE");
	uint64_t u, n[REF_NFN + 3] = { 0 }, bad[REF_NFN + 3] = { 0 }, K = 0, N = 1;
	int has2 = ref_has_avx2(), has512 = ref_has_avx512(), f, rc = 0;
	float x[16], ax[16], y[16], out[16];
	size_t k, h;

	if (slice && sscanf(slice, "%llu/%llu", (unsigned long long *)&K, (unsigned long long *)&N) != 2)
		K = 0, N = 1;
	if (!has2) {
		puts("sleef32: no AVX2 on this CPU: libsleef's vector functions cannot run here");
		return 1;
	}
	for (u = 16 * K; u < ((uint64_t)1 << 32); u += 16 * N) {
		for (k = 0; k < 16; k++) {
			uint32_t w = (uint32_t)(u + k);

			memcpy(&x[k], &w, sizeof w);
			ax[k] = fabsf(x[k]);
			y[k] = (float)((u / 16 + k * 7) % 4099) / 1024.0f - 2.0f;
		}
		for (f = REF_SIN; f < REF_NFN; f++) {
			const float *in = f == REF_POW ? ax : x;

			if (has512) {
				ref_avx512((enum ref_fn)f, in, y, out);
				for (k = 0; k < 16; k++, n[f]++)
					if (!ref_same(out[k], ref_emulate((enum ref_fn)f, in, 16, k, y[k])) &&
					    bad[f]++ < 5)
						printf("%s16 %a: %a\n", names[f], (double)in[k], (double)out[k]);
			}
			for (h = 0; h < 16; h += 8) {
				ref_avx2((enum ref_fn)f, in + h, y + h, out);
				for (k = 0; k < 8; k++, n[f]++)
					if (!ref_same(out[k], ref_emulate((enum ref_fn)f, in + h, 8, k, y[h + k])) &&
					    bad[f]++ < 5)
						printf("%s8 %a: %a\n", names[f], (double)in[h + k], (double)out[k]);
			}
		}
		for (k = 0; k < 16; k++, n[REF_NFN]++)
			if (!ref_same(powf(ax[k], y[k]), pe_glibc_powf(ax[k], y[k])) && bad[REF_NFN]++ < 5)
				printf("powf %a %a\n", (double)ax[k], (double)y[k]);
		for (k = 0; k < 16; k++, n[REF_NFN + 1]++, n[REF_NFN + 2]++) {
			if (!ref_same(sinf(x[k]), pe_glibc_sinf(x[k])) && bad[REF_NFN + 1]++ < 5)
				printf("sinf %a\n", (double)x[k]);
			if (!ref_same(cosf(x[k]), pe_glibc_cosf(x[k])) && bad[REF_NFN + 2]++ < 5)
				printf("cosf %a\n", (double)x[k]);
		}
	}
	for (f = 0; f < REF_NFN + 3; f++) {
		printf("sleef32: %s: %llu lanes, %llu differ\n", names[f], (unsigned long long)n[f],
		       (unsigned long long)bad[f]);
		rc |= bad[f] != 0;
	}
	return rc;
}
