/*
 * dtype.h - the narrow float types tables are stored or computed in:
 * IEEE binary16 (float16: 11-bit significand, exponents -14..15, subnormals
 * down to 2^-24) and bfloat16 (float32's exponent range, 8-bit significand).
 *
 * Every rounding is to nearest, ties to even, in one step from the value
 * given (a double is not rounded to float32 first: that would round twice);
 * beyond the largest finite value the result is +-inf, as a cast in NumPy
 * or PyTorch gives; NaN stays NaN (a quiet one, sign kept).  The integer
 * forms are the IEEE bit patterns, little end first when written.
 */
#ifndef PE_STORE_H
#define PE_STORE_H

#include <stdint.h>

/* Stored dtypes of a result (--dtype), in --dtype's order of names. */
enum pe_store { PE_STORE_FLOAT32, PE_STORE_FLOAT16, PE_STORE_BFLOAT16, PE_STORE_FLOAT64 };

/* "float32", "float16", "bfloat16", "float64", NULL-terminated. */
extern const char *const pe_store_names[];

/* Bytes per value of d. */
unsigned pe_store_size(enum pe_store d);

/* x rounded to the type, as a double (exactly representable there too). */
double pe_round_f16(double x);
double pe_round_bf16(double x);

/* x rounded to the type, as its bits. */
uint16_t pe_to_f16(double x);
uint16_t pe_to_bf16(double x);

/* The value of a type's bits, exactly (a NaN keeps its sign and payload,
 * as NumPy widens them). */
float pe_from_f16(uint16_t h);
float pe_from_bf16(uint16_t b);

#endif
