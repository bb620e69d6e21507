/*
 * metajson.h - a result's parameters (core/meta.h) as JSON text, the one
 * spelling used by json output, safetensors "__metadata__" and PNG text
 * chunks.
 *
 * The text is always valid JSON and valid UTF-8: a non-finite number is the
 * string "inf", "-inf" or "nan" (a bare value in pe_meta_value_text), and a
 * byte of a string that starts no valid UTF-8 sequence (a file name in
 * another encoding) becomes U+FFFD, as Python's errors='replace'.
 */
#ifndef PE_METAJSON_H
#define PE_METAJSON_H

#include "core/meta.h"

/* The meta as a compact JSON object, e.g. {"kind":"sinusoidal","dim":768}.
 * Returns a malloc'd string (caller frees) or NULL when out of memory. */
char *pe_meta_json(const struct pe_meta *m);

/* One value as text: strings as they are (not quoted), numbers shortest,
 * booleans true/false, lists as a JSON array.  malloc'd, or NULL. */
char *pe_meta_value_text(const struct pe_meta_item *it);

/* s with invalid UTF-8 replaced as above; malloc'd, or NULL. */
char *pe_utf8_clean(const char *s);

/* s as a JSON string literal with quotes; malloc'd, or NULL. */
char *pe_json_quote(const char *s);

#endif
