/* Distances on the float32 line and the narrow types' rounding (ulp.h). */
#include "core/ulp.h"

#include <math.h>
#include <string.h>

int64_t pe_ulp_key(float x)
{
	uint32_t u;

	memcpy(&u, &x, sizeof u);
	return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

uint64_t pe_ulp_dist(float a, float b)
{
	int64_t d;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : PE_ULP_INF;
	if (isinf(a) || isinf(b))
		return a == b ? 0 : PE_ULP_INF;
	d = pe_ulp_key(a) - pe_ulp_key(b);
	return (uint64_t)(d < 0 ? -d : d);
}

double pe_ulp_of(float x)
{
	int e;

	if (!isfinite(x))
		return NAN;
	if (fabsf(x) < 0x1p-126f)
		return 0x1p-149;
	frexpf(x, &e);		/* |x| in [2^(e-1), 2^e): 24 bits from 2^(e-1) */
	return ldexp(1.0, e - 24);
}

double pe_store_round(enum pe_store d, double x)
{
	switch (d) {
	case PE_STORE_FLOAT16:
		return pe_round_f16(x);
	case PE_STORE_BFLOAT16:
		return pe_round_bf16(x);
	case PE_STORE_FLOAT32:
		return (double)(float)x;
	case PE_STORE_FLOAT64:
		break;
	}
	return x;
}

uint64_t pe_store_first_unrepresentable(enum pe_store d)
{
	switch (d) {
	case PE_STORE_FLOAT16:
		return 2049;
	case PE_STORE_BFLOAT16:
		return 257;
	case PE_STORE_FLOAT32:
		return ((uint64_t)1 << 24) + 1;
	case PE_STORE_FLOAT64:
		break;
	}
	return ((uint64_t)1 << 53) + 1;
}

double pe_store_eps(enum pe_store d)
{
	switch (d) {
	case PE_STORE_FLOAT16:
		return 0x1p-10;
	case PE_STORE_BFLOAT16:
		return 0x1p-7;
	case PE_STORE_FLOAT32:
		return 0x1p-23;
	case PE_STORE_FLOAT64:
		break;
	}
	return 0x1p-52;
}
