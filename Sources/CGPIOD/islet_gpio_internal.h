#ifndef ISLET_GPIO_INTERNAL_H
#define ISLET_GPIO_INTERNAL_H
// Helpers shared by the libgpiod 1.6 and 2.x backends; private to the shim.
#include <errno.h>
#include <stddef.h>
#include <string.h>

// Copies a C string into a fixed buffer, always terminated; NULL reads as "".
static inline void copy_text(char *dst, size_t size, const char *src) {
    if (dst == NULL || size == 0) return;
    if (src == NULL) src = "";
    strncpy(dst, src, size - 1);
    dst[size - 1] = '\0';
}

// libgpiod sets errno on most failures but not all: fall back to a fitting code.
static inline int errno_or(int fallback) { return errno != 0 ? errno : fallback; }

#endif
