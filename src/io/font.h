/*
 * font.h - a small bitmap font (5x7 pixels per glyph, printable ASCII) for
 * the labels and titles of PNG heatmaps, scaled by whole pixels so text
 * stays sharp.  Text is UTF-8: each character outside printable ASCII is
 * drawn as '?'.
 */
#ifndef PE_FONT_H
#define PE_FONT_H

#define PE_GLYPH_W 5
#define PE_GLYPH_H 7
#define PE_GLYPH_ADVANCE 6	/* glyph width plus one pixel of space */

/* Fill the rw x rh rectangle at (x, y) of an 8-bit RGB image of w x h
 * pixels (rows of 3w bytes) with rgb, clipped to the image. */
void pe_rgb_fill(unsigned char *img, int w, int h, int x, int y, int rw, int rh,
		 const unsigned char rgb[3]);

/* Width in pixels of s drawn at scale (no space after the last glyph);
 * 0 for "". */
int pe_font_width(const char *s, int scale);

/*
 * Draw s with its top-left corner at (x, y) into an 8-bit RGB image of
 * w x h pixels (rows of 3w bytes), each font pixel a scale x scale square
 * of colour rgb.  Pixels outside the image are skipped.
 */
void pe_font_draw(unsigned char *img, int w, int h, int x, int y, const char *s, int scale,
		  const unsigned char rgb[3]);

/*
 * Draw s turned 90 degrees counter-clockwise, reading bottom to top (a
 * y-axis title, as matplotlib draws one): the tops of the glyphs face left.
 * (x, y) is the top-left corner of its box, PE_GLYPH_H * scale pixels wide
 * and pe_font_width(s, scale) tall; the first character is at the bottom.
 * Same image, scale and clipping as pe_font_draw().
 */
void pe_font_draw_up(unsigned char *img, int w, int h, int x, int y, const char *s, int scale,
		     const unsigned char rgb[3]);

#endif
