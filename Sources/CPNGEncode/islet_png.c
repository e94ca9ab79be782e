// See include/islet_png.h.
#include "islet_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct sink {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
};

static void put(png_structp png, png_bytep data, size_t length) {
    struct sink *s = png_get_io_ptr(png);
    if (s->failed) return;
    if (length > SIZE_MAX - s->size) { s->failed = 1; return; }
    if (s->size + length > s->capacity) {
        size_t want = s->capacity ? s->capacity : 4096;
        while (want < s->size + length) {
            if (want > SIZE_MAX / 2) { s->failed = 1; return; }
            want *= 2;
        }
        uint8_t *grown = realloc(s->bytes, want);
        if (!grown) { s->failed = 1; return; }
        s->bytes = grown;
        s->capacity = want;
    }
    memcpy(s->bytes + s->size, data, length);
    s->size += length;
}

static void flush(png_structp png) { (void)png; }

// libpng reports errors by longjmp; warnings (none expected) are dropped.
static void quiet(png_structp png, png_const_charp message) { (void)png; (void)message; }

int islet_png_gray1(const uint8_t *bits, uint32_t width, uint32_t height, uint32_t scale,
                    uint8_t **out, size_t *size) {
    if (!bits || !out || !size || width == 0 || height == 0 || scale == 0 || scale > 64 ||
        width > 4096 || height > 4096)
        return -1;
    const uint32_t w = width * scale, h = height * scale;
    const size_t row_bytes = (w + 7) / 8;
    struct sink s = {0};
    // volatile: set before setjmp, read after a longjmp.
    uint8_t *volatile row = calloc(row_bytes, 1);
    if (!row) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, quiet);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        free(s.bytes);
        return -1;
    }
    png_set_write_fn(png, &s, put, flush);
    png_set_IHDR(png, info, w, h, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    // Up only: a repeated row filters to zeros. No per-row filter search.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        memset(row, 0, row_bytes);
        const uint8_t *src = bits + (size_t)y * width;
        for (uint32_t x = 0; x < width; x++) {
            if (!src[x]) continue;
            for (uint32_t k = 0; k < scale; k++) {
                const uint32_t px = x * scale + k;
                row[px >> 3] |= (uint8_t)(0x80u >> (px & 7));   // PNG packs the leftmost pixel in the high bit
            }
        }
        for (uint32_t k = 0; k < scale; k++) png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (s.failed) {
        free(s.bytes);
        return -1;
    }
    *out = s.bytes;
    *size = s.size;
    return 0;
}

void islet_png_free(uint8_t *buffer) { free(buffer); }
