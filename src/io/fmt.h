/*
 * fmt.h - numbers as text, the same way in every text format.
 *
 * float32: the shortest decimal (in %g style) that strtof reads back to the
 * identical bits, as NumPy's repr(np.float32(x)) is shortest; doubles (meta
 * values, --dtype float64 tables): the shortest that strtod reads back, 17
 * significant digits at most.  NaN and infinities are
 * printed "nan", "inf", "-inf" (csv only; json refuses them).  The C locale
 * is assumed: posenc never calls setlocale, so the decimal point is '.'.
 *
 * float32 exactly: the fewest significant digits p, walking down from 8
 * (9 when 8 do not read back), for which printf's correctly rounded
 * %.{p}g reads back; written as %g writes it ("0.5403023", "1.5e-07",
 * "3.4028235e+38", "-0", "1e-45") except that from 1e1 to below 1e16 the
 * digits are always fixed, padded with zeros, without a decimal point
 * ("10", "123456790").  Where the interval of decimals that read back is
 * lopsided (powers of two) this can take one digit more than the shortest
 * decimal NumPy finds: 2^-96 is "1.26217745e-29", NumPy's "1.2621775e-29".
 */
#ifndef PE_FMT_H
#define PE_FMT_H

#include <stddef.h>
#include <stdint.h>

#define PE_FMT_BUF 40
/* The longest text pe_fmt_f32 returns ("-1000000000000000" from -1e15
 * up: 16 fixed digits and a sign), and of an int32 by pe_fmt_i64 (11); the
 * NUL after it makes one byte more. */
#define PE_FMT_F32_MAX 17
/* The longest text of pe_fmt_f64 ("-2.2250738585072014e-308"). */
#define PE_FMT_F64_MAX 24

/* Write v into buf (at least PE_FMT_BUF bytes); returns the length. */
size_t pe_fmt_f32(float v, char *buf);
/* The same bytes as pe_fmt_f32, by the definition above (snprintf and
 * strtof); about 10x slower.  The reference the tests compare with. */
size_t pe_fmt_f32_slow(float v, char *buf);
size_t pe_fmt_f64(double v, char *buf);

/*
 * float16 and bfloat16 (their bits, core/dtype.h) as pe_fmt_f32 writes a
 * float32: the fewest digits p, walking down from 8, whose printf %.{p}g
 * text reads back -- strtod, then rounded once to the type -- to the same
 * bits (at most 5 digits for float16, 4 for bfloat16, so a reader that
 * rounds the text to the type, as NumPy, PyTorch and ml_dtypes do, gets
 * the value back); the same fixed and exponent forms.  The _slow ones are
 * that definition (snprintf and strtod), the tests' reference.
 */
size_t pe_fmt_f16(uint16_t h, char *buf);
size_t pe_fmt_bf16(uint16_t b, char *buf);
size_t pe_fmt_f16_slow(uint16_t h, char *buf);
size_t pe_fmt_bf16_slow(uint16_t b, char *buf);
size_t pe_fmt_i64(int64_t v, char *buf);

#endif
