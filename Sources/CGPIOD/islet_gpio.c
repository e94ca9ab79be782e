// The GPIO shim keeps only what must be C: the libgpiod 1.6 backend (Debian 12, Raspberry Pi OS
// Bookworm). epoll, timers and clocks are IsletSystem's.
// GPIOD_LINE_BULK_MAX_LINES exists only in 1.6's header; under 2.x (Debian 13) the backend in
// islet_gpio_v2.c provides the same functions instead.
#include "islet_gpio.h"
#include "islet_gpio_internal.h"
#include <gpiod.h>
#include <errno.h>
#include <unistd.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

int islet_gpio_backend_major(void) { return 1; }

struct islet_gpio_chip { struct gpiod_chip *chip; };
struct islet_gpio_line { struct gpiod_chip *chip; struct gpiod_line *line; int fd; };


islet_gpio_chip *islet_gpio_chip_open(const char *path, int *error_out) {
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (chip == NULL) { if (error_out) *error_out = errno_or(ENODEV); return NULL; }
    islet_gpio_chip *handle = calloc(1, sizeof *handle);
    if (handle == NULL) { gpiod_chip_close(chip); if (error_out) *error_out = ENOMEM; return NULL; }
    handle->chip = chip;
    return handle;
}

void islet_gpio_chip_close(islet_gpio_chip *chip) {
    if (chip == NULL) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

void islet_gpio_chip_describe(islet_gpio_chip *chip, char *name, size_t name_size,
                              char *label, size_t label_size) {
    copy_text(name, name_size, chip ? gpiod_chip_name(chip->chip) : "");
    copy_text(label, label_size, chip ? gpiod_chip_label(chip->chip) : "");
}

unsigned int islet_gpio_chip_line_count(islet_gpio_chip *chip) {
    return chip ? gpiod_chip_num_lines(chip->chip) : 0;
}

int islet_gpio_chip_line_info(islet_gpio_chip *chip, unsigned int offset,
                              char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *used) {
    if (chip == NULL) return -EINVAL;
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (line == NULL) return -errno_or(EINVAL);
    copy_text(name, name_size, gpiod_line_name(line));
    copy_text(consumer, consumer_size, gpiod_line_consumer(line));
    if (used) *used = gpiod_line_is_used(line) ? 1 : 0;
    return 0;
}

static int bias_flags(int bias) {
    switch (bias) {
    case ISLET_GPIO_BIAS_DISABLE: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case ISLET_GPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case ISLET_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    default: return 0;
    }
}

static islet_gpio_line *open_line(const char *path, unsigned int offset, int *error_out) {
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (chip == NULL) { if (error_out) *error_out = errno_or(ENODEV); return NULL; }
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (line == NULL) {
        if (error_out) *error_out = errno_or(EINVAL);
        gpiod_chip_close(chip);
        return NULL;
    }
    islet_gpio_line *handle = calloc(1, sizeof *handle);
    if (handle == NULL) { gpiod_chip_close(chip); if (error_out) *error_out = ENOMEM; return NULL; }
    handle->chip = chip;
    handle->line = line;
    handle->fd = -1;
    return handle;
}

islet_gpio_line *islet_gpio_request_edges(const char *path, unsigned int offset,
                                          const char *consumer, int bias, int active_low,
                                          int *error_out) {
    islet_gpio_line *handle = open_line(path, offset, error_out);
    if (handle == NULL) return NULL;
    int flags = bias_flags(bias) | (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0);
    errno = 0;
    if (gpiod_line_request_both_edges_events_flags(handle->line, consumer, flags) < 0) {
        if (error_out) *error_out = errno_or(EIO);
        islet_gpio_line_release(handle);
        return NULL;
    }
    handle->fd = gpiod_line_event_get_fd(handle->line);
    // The daemon reads only when poll says so, but a spurious wake-up must never block it.
    int fl = fcntl(handle->fd, F_GETFL);
    if (fl < 0 || fcntl(handle->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        if (error_out) *error_out = errno_or(EIO);
        islet_gpio_line_release(handle);
        return NULL;
    }
    return handle;
}

islet_gpio_line *islet_gpio_request_output(const char *path, unsigned int offset,
                                           const char *consumer, int active_low, int initial,
                                           int *error_out) {
    islet_gpio_line *handle = open_line(path, offset, error_out);
    if (handle == NULL) return NULL;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    errno = 0;
    if (gpiod_line_request_output_flags(handle->line, consumer, flags, initial ? 1 : 0) < 0) {
        if (error_out) *error_out = errno_or(EIO);
        islet_gpio_line_release(handle);
        return NULL;
    }
    return handle;
}

int islet_gpio_line_fd(islet_gpio_line *line) { return line ? line->fd : -1; }

int islet_gpio_line_read_edges(islet_gpio_line *line, int *rising, uint64_t *timestamp_ns,
                               int capacity) {
    if (line == NULL || line->fd < 0 || capacity <= 0) return -EINVAL;
    struct gpiod_line_event events[16];
    unsigned int want = capacity < 16 ? (unsigned int)capacity : 16;
    errno = 0;
    int n = gpiod_line_event_read_fd_multiple(line->fd, events, want);
    if (n < 0) {
        int e = errno_or(EIO);
        return (e == EAGAIN || e == EWOULDBLOCK) ? 0 : -e;
    }
    for (int i = 0; i < n; i++) {
        rising[i] = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE ? 1 : 0;
        timestamp_ns[i] = (uint64_t)events[i].ts.tv_sec * 1000000000ull + (uint64_t)events[i].ts.tv_nsec;
    }
    return n;
}

int islet_gpio_line_get(islet_gpio_line *line) {
    if (line == NULL) return -EINVAL;
    errno = 0;
    int v = gpiod_line_get_value(line->line);
    return v < 0 ? -errno_or(EIO) : v;
}

int islet_gpio_line_set(islet_gpio_line *line, int value) {
    if (line == NULL) return -EINVAL;
    errno = 0;
    return gpiod_line_set_value(line->line, value ? 1 : 0) < 0 ? -errno_or(EIO) : 0;
}

void islet_gpio_line_release(islet_gpio_line *line) {
    if (line == NULL) return;
    // Closing the chip releases every line requested through it.
    gpiod_chip_close(line->chip);
    free(line);
}

#endif
