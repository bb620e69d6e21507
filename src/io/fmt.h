/*
 * fmt.h - numbers as text, the same way in every text format.
 *
 * float32: the shortest decimal (in %g style) that strtof reads back to the
 * identical bits, as NumPy's repr(np.float32(x)) is shortest; doubles (meta
 * values): the shortest that strtod reads back.  NaN and infinities are
 * printed "nan", "inf", "-inf" (csv only; json refuses them).  The C locale
 * is assumed: posenc never calls setlocale, so the decimal point is '.'.
 */
#ifndef PE_FMT_H
#define PE_FMT_H

#include <stddef.h>
#include <stdint.h>

#define PE_FMT_BUF 40

/* Write v into buf (at least PE_FMT_BUF bytes); returns the length. */
size_t pe_fmt_f32(float v, char *buf);
size_t pe_fmt_f64(double v, char *buf);
size_t pe_fmt_i64(int64_t v, char *buf);

#endif
