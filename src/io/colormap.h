/*
 * colormap.h - the colour maps of PNG heatmaps, and matplotlib's rule for
 * turning a value into one of their 256 colours.
 *
 * Maps: viridis (the default), magma, inferno, plasma, cividis, coolwarm,
 * rdbu, gray, and each reversed as NAME_r (as in matplotlib).  Every map is
 * built exactly as matplotlib 3.x builds its 256-entry lookup table, so
 * pe_colormap_lut() equals matplotlib's cmap(np.arange(256), bytes=True)
 * (RGB only): listed maps take the published 256-entry tables, segmented
 * maps (coolwarm, rdbu, gray) interpolate their control points linearly with
 * the same arithmetic, and a byte is floor(255 * c) (matplotlib truncates).
 *
 * rdbu is matplotlib's RdBu: low values dark red, high values dark blue
 * (ColorBrewer's order).  For "negative blue, positive red" use rdbu_r or
 * coolwarm.
 */
#ifndef PE_COLORMAP_H
#define PE_COLORMAP_H

#include <stdint.h>

#define PE_CMAP_DEFAULT 0	/* viridis */

/* The map called name ("viridis", "rdbu_r", ...); -1 if none. */
int pe_colormap_by_name(const char *name);

/* Name of map index (0 <= index < pe_colormap_count()). */
const char *pe_colormap_name(int index);
int pe_colormap_count(void);

/* "viridis|magma|inferno|plasma|cividis|coolwarm|rdbu|gray" (each also
 * NAME_r), for messages and help. */
const char *pe_colormap_list(void);

/* The 256 colours of map index as 8-bit RGB, lut[i*3 + 0..2]. */
void pe_colormap_lut(int index, unsigned char lut[768]);

/*
 * Colour i (0 <= i < n; a larger i is the last) of the map resampled into
 * n >= 1 colours, as matplotlib's cmap.resampled(n) (plt.get_cmap(name, n))
 * gives it: colour i is the map at t = i / (n - 1), the ends are the map's
 * end colours.  For listed maps (viridis, magma, inferno, plasma, cividis)
 * that is lut[min(255, floor(256 t))] with numpy's linspace arithmetic for
 * t, so it can differ by one entry from exact fractions (n = 99, i = 49 is
 * entry 127, not 128); segmented maps (coolwarm, rdbu, gray) are
 * interpolated again at the n positions, as matplotlib does.  n == 1 gives
 * the first colour.  For integer ids drawn as discrete colours.
 */
void pe_colormap_resampled(int index, uint64_t n, uint64_t i, unsigned char rgb[3]);

/*
 * The colour index of a value, as matplotlib's Normalize + Colormap do it:
 * x = (v - vmin) / scale with scale = vmax - vmin; index = floor(256 x),
 * 255 for x == 1; x < 0 (or -inf) gives 0 and x >= 1 (or inf) 255 (the
 * under/over colours are the end colours); NaN gives -1.
 *
 * _f32 repeats matplotlib's float32 arithmetic for float32 data (the
 * subtraction, division and scaling by 256 are each rounded to float), so
 * a float32 table maps to exactly the colours matplotlib gives it; pass
 * vmin as a float and scale as (float)(vmax - vmin) computed in double.
 * _f64 is matplotlib's arithmetic for integer data (done in double).
 * scale must be positive.
 */
int pe_colormap_index_f32(float v, float vmin, float scale);
int pe_colormap_index_f64(double v, double vmin, double scale);

#endif
