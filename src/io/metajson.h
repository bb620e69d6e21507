/*
 * metajson.h - a result's parameters (core/meta.h) as JSON text, the one
 * spelling used by json output, safetensors "__metadata__" and PNG text
 * chunks.
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

/* s as a JSON string literal with quotes; malloc'd, or NULL. */
char *pe_json_quote(const char *s);

#endif
