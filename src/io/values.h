/*
 * values.h - a list of numbers from a file (diffusion timesteps, ...).
 *
 *   text         numbers separated by commas, blanks or line ends (one a
 *                line, as numpy.savetxt writes a vector); '#' starts a
 *                comment; each parsed strictly as a finite double and kept
 *                in double, so 0.1 is the double 0.1
 *   npy,         read as read.h reads a table (f4, f2, bf16 exactly, f8
 *   safetensors  rounded to float32): a vector, or a table of one row or
 *                one column; tensor picks a safetensors tensor (NULL: the
 *                only one)
 *
 * Errors are PE_ERR_DATA lines that start with the file's name ("t.txt:
 * line 3: 'abc' is not a number"); PE_ERR_IO when it cannot be read.
 */
#ifndef PE_VALUES_H
#define PE_VALUES_H

#include <stddef.h>

#include "core/err.h"
#include "io/read.h"

/* At most max values (more is an error, as is none) into *out (malloc'd,
 * the caller frees), their count in *n; info (may be NULL) says what was
 * read (format "text" is reported as csv with dtype "text").  Inputs
 * larger than max_bytes are refused.  Returns 0 or -1. */
int pe_read_values(const char *path, const char *tensor, size_t max, size_t max_bytes,
		   double **out, size_t *n, struct pe_table_info *info, struct pe_error *err);

/* The text form alone, of the len bytes at buf (name for messages). */
int pe_values_parse_text(const unsigned char *buf, size_t len, const char *name, size_t max,
			 double **out, size_t *n, struct pe_error *err);

#endif
