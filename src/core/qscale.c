#include "core/qscale.h"

#include <math.h>

double pe_qscale_llama4(uint64_t p, double floor_scale, double attn_scale)
{
	return log1p(floor(((double)p + 1.0) / floor_scale)) * attn_scale + 1.0;
}

double pe_qscale_beta(uint64_t p, double beta, uint64_t L0)
{
	return 1.0 + beta * log(1.0 + (double)(p / L0));
}
