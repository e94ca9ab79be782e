#ifndef ISLET_PNG_H
#define ISLET_PNG_H
// A 1-bit greyscale PNG of a scaled panel picture, through libpng's full write API (the
// simplified API writes 8-bit grey only: at scale 16 that is 2 MiB of pixels to deflate, 42–222
// ms per frame). Every scaled row repeats the one above `scale - 1` times; with the Up filter
// those rows are all zeros, which deflate takes at almost no cost.

#include <stddef.h>
#include <stdint.h>

/// `bits`: width × height pixels, row by row, one byte each (nonzero: lit, drawn white).
/// Writes the PNG into a buffer from malloc (*out, *size; free it with islet_png_free).
/// 0 on success; -1 when libpng or memory failed (nothing to free then).
int islet_png_gray1(const uint8_t *bits, uint32_t width, uint32_t height, uint32_t scale,
                    uint8_t **out, size_t *size);
void islet_png_free(uint8_t *buffer);

#endif
