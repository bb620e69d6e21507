/*
 * png_write.h - 8-bit RGB PNG encoding with libpng, and nothing else: the
 * pixels come a row at a time from the caller (a whole image in memory, or
 * rows made on the fly, so a huge heatmap never needs its image at once),
 * text chunks as given.  No time stamp: the same pixels and text give the
 * same file.
 */
#ifndef PE_PNG_WRITE_H
#define PE_PNG_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "core/err.h"

#define PE_PNG_TEXT_MAX 8

/* A text chunk: tEXt (Latin-1) or, with itxt, iTXt (UTF-8). */
struct pe_png_text {
	const char *key, *text;
	int itxt;
};

/* Row y (0 = top) of the image: 3 w bytes, valid until the next call. */
typedef const unsigned char *(*pe_png_row_fn)(void *ctx, int y);

/* Write a w x h image whose rows row(ctx, 0 .. h - 1) gives, in order, with
 * the text chunks, to fp.  Returns 0, or -1 with err (a failed write
 * carries the output's message).  On failure fp holds part of a file: the
 * caller aborts the output (io/output.h). */
int pe_png_write(FILE *fp, int w, int h, pe_png_row_fn row, void *ctx,
		 const struct pe_png_text *text, size_t ntext, struct pe_error *err);

#endif
