/*
 * The PNG encoder (png_write.h).  libpng reports errors by longjmp; the
 * setjmp stays in pe_png_write() and no jump crosses into the rest of
 * posenc.
 */
#include "io/png_write.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

#include "io/output.h"

/* The output and why a write callback failed. */
struct writer {
	FILE *fp;
	struct pe_error werr;
};

static void on_write(png_structp png, png_bytep data, size_t n)
{
	struct writer *p = png_get_io_ptr(png);

	if (pe_write(p->fp, data, n, &p->werr) != 0)
		png_error(png, "write failed");
}

static void on_flush(png_structp png)
{
	(void)png;
}

static void on_error(png_structp png, png_const_charp msg)
{
	struct writer *p = png_get_error_ptr(png);

	if (p->werr.code == PE_OK)
		pe_fail(&p->werr, PE_ERR_DATA, "png: %s", msg);
	png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static void set_text(png_text *t, int itxt, const char *key, const char *text)
{
	memset(t, 0, sizeof *t);
	t->compression = itxt ? PNG_ITXT_COMPRESSION_NONE : PNG_TEXT_COMPRESSION_NONE;
	t->key = (png_charp)key;
	t->text = (png_charp)text;
	t->lang = (png_charp)"";
	t->lang_key = (png_charp)"";
}

int pe_png_write(FILE *fp, int w, int h, pe_png_row_fn row, void *ctx,
		 const struct pe_png_text *text, size_t ntext, struct pe_error *err)
{
	struct writer wr;
	png_structp png;
	png_infop info;
	png_text pt[PE_PNG_TEXT_MAX];
	size_t i;
	int y;

	if (ntext > PE_PNG_TEXT_MAX)
		return pe_fail(err, PE_ERR_PARAM, "png: %zu text chunks, at most %d", ntext,
			       PE_PNG_TEXT_MAX);
	wr.fp = fp;
	wr.werr.code = PE_OK;
	wr.werr.msg[0] = 0;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &wr, on_error, on_warning);
	if (!png)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	info = png_create_info_struct(png);
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		*err = wr.werr;
		return -1;
	}
	png_set_write_fn(png, &wr, on_write, on_flush);
	/*
	 * Deflate is most of the time spent here.  A heatmap's pixels are at
	 * most a few hundred colours repeated in runs, which LZ77 matches as
	 * they are: a row filter turns them into differences that repeat
	 * less, so no filter is both the fastest and (from level 2) the
	 * smallest.  Measured at 4096 x 4096 on 2 busy cores (zlib 1.2.13,
	 * seconds in png_write_row and png_write_end, median of 7 runs, of 3
	 * for libpng's default; then the file in MB), bench/case_png.py flags:
	 *
	 *                     level 1   level 2   level 3   level 4   libpng's
	 *                     none      none      none      none      6, all
	 *   sinusoidal 4096   0.50 17.7 0.51 15.2 0.85 13.4 0.65 13.4 1.92 20.1
	 *   cosine sim. 256   0.28  7.8 0.21  4.8 0.19  2.9 0.20  2.1 0.72  1.9
	 *   learned (noise)        -    0.74 24.3      -    1.01 24.3      -
	 *
	 * With the "up" filter at level 3 (posenc before): 0.83 20.7, 0.24 3.5
	 * and 1.45 36.6; sub, avg and paeth (median of 3) were slower than no
	 * filter from level 2 on, or within 3%, and larger for the sinusoid.
	 * Level 2 unfiltered is the fastest for the sinusoid and the noise and
	 * within 10% of it for the similarity; its sinusoidal file is 27%
	 * smaller than before, the similarity one 40% larger (1024 x 1024
	 * sinusoidal: 0.026 s 0.86 MB, before 0.046 s 1.29 MB).
	 */
	png_set_compression_level(png, 2);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (i = 0; i < ntext; i++)
		set_text(&pt[i], text[i].itxt, text[i].key, text[i].text);
	png_set_text(png, info, pt, (int)ntext);
	png_write_info(png, info);
	for (y = 0; y < h; y++)
		png_write_row(png, row(ctx, y));
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return 0;
}

