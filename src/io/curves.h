/*
 * curves.h - the column names of a curve file: a csv whose first line
 * names its columns ("offset,mean,std,count", what --header and
 * similarity --profile write).  The values themselves are read as any
 * table (io/read.h); this reads the names alone, so posenc plot can tell a
 * curve from a matrix and name its series.
 */
#ifndef PE_CURVES_H
#define PE_CURVES_H

#include <stddef.h>

#include "core/err.h"

struct pe_names {
	char **name;	/* n malloc'd names, trimmed */
	size_t n;
};

/*
 * The names on the first line of the text in buf (len bytes) that is not
 * empty or a comment, when that line is a header: some field of it is
 * not a number (the csv reader then skips it as a header too, or refuses
 * the file).  No header, or binary data (a NUL in that line): n = 0.  Fields are separated by commas, or by
 * runs of blanks when the line has no comma.  Returns 0, or -1 with
 * PE_ERR_NOMEM.  Free with pe_names_free().
 */
int pe_names_parse(const unsigned char *buf, size_t len, struct pe_names *out,
		   struct pe_error *err);

/* pe_names_parse() of the file at path (standard input "-" has none:
 * it can be read once, and is read as a table). */
int pe_names_read(const char *path, struct pe_names *out, struct pe_error *err);

void pe_names_free(struct pe_names *n);

#endif
