// The libgpiod 2.x backend of the GPIO shim (Debian 13 Trixie and later): the same functions as
// the 1.6 backend in islet_gpio.c, over 2.x's settings/config/request objects. Compiled only
// when the header is 2.x (it lacks GPIOD_LINE_BULK_MAX_LINES).
#include "islet_gpio.h"
#include "islet_gpio_internal.h"
#include <gpiod.h>

#ifndef GPIOD_LINE_BULK_MAX_LINES

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

int islet_gpio_backend_major(void) { return 2; }

struct islet_gpio_chip { struct gpiod_chip *chip; struct gpiod_chip_info *info; };
struct islet_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;  // NULL for an output
    unsigned int offset;
    int fd;
};


islet_gpio_chip *islet_gpio_chip_open(const char *path, int *error_out) {
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (chip == NULL) { if (error_out) *error_out = errno_or(ENODEV); return NULL; }
    errno = 0;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (info == NULL) { if (error_out) *error_out = errno_or(EIO); gpiod_chip_close(chip); return NULL; }
    islet_gpio_chip *handle = calloc(1, sizeof *handle);
    if (handle == NULL) {
        gpiod_chip_info_free(info);
        gpiod_chip_close(chip);
        if (error_out) *error_out = ENOMEM;
        return NULL;
    }
    handle->chip = chip;
    handle->info = info;
    return handle;
}

void islet_gpio_chip_close(islet_gpio_chip *chip) {
    if (chip == NULL) return;
    gpiod_chip_info_free(chip->info);
    gpiod_chip_close(chip->chip);
    free(chip);
}

void islet_gpio_chip_describe(islet_gpio_chip *chip, char *name, size_t name_size,
                              char *label, size_t label_size) {
    copy_text(name, name_size, chip ? gpiod_chip_info_get_name(chip->info) : "");
    copy_text(label, label_size, chip ? gpiod_chip_info_get_label(chip->info) : "");
}

unsigned int islet_gpio_chip_line_count(islet_gpio_chip *chip) {
    return chip ? (unsigned int)gpiod_chip_info_get_num_lines(chip->info) : 0;
}

int islet_gpio_chip_line_info(islet_gpio_chip *chip, unsigned int offset,
                              char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *used) {
    if (chip == NULL) return -EINVAL;
    errno = 0;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (info == NULL) return -errno_or(EINVAL);
    copy_text(name, name_size, gpiod_line_info_get_name(info));
    copy_text(consumer, consumer_size, gpiod_line_info_get_consumer(info));
    if (used) *used = gpiod_line_info_is_used(info) ? 1 : 0;
    gpiod_line_info_free(info);
    return 0;
}

static enum gpiod_line_bias bias_setting(int bias) {
    switch (bias) {
    case ISLET_GPIO_BIAS_DISABLE: return GPIOD_LINE_BIAS_DISABLED;
    case ISLET_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case ISLET_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

// Requests one line with `settings`; the chip is only needed while requesting.
static struct gpiod_line_request *request_one(const char *path, unsigned int offset,
                                              const char *consumer,
                                              struct gpiod_line_settings *settings,
                                              int *error_out) {
    struct gpiod_line_request *request = NULL;
    struct gpiod_line_config *line_cfg = NULL;
    struct gpiod_request_config *req_cfg = NULL;
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (chip == NULL) { if (error_out) *error_out = errno_or(ENODEV); return NULL; }
    line_cfg = gpiod_line_config_new();
    req_cfg = gpiod_request_config_new();
    if (line_cfg == NULL || req_cfg == NULL) { if (error_out) *error_out = ENOMEM; goto done; }
    errno = 0;
    if (gpiod_line_config_add_line_settings(line_cfg, &offset, 1, settings) < 0) {
        if (error_out) *error_out = errno_or(EINVAL);
        goto done;
    }
    gpiod_request_config_set_consumer(req_cfg, consumer);
    errno = 0;
    request = gpiod_chip_request_lines(chip, req_cfg, line_cfg);
    if (request == NULL && error_out) *error_out = errno_or(EIO);
done:
    if (req_cfg) gpiod_request_config_free(req_cfg);
    if (line_cfg) gpiod_line_config_free(line_cfg);
    gpiod_chip_close(chip);
    return request;
}

islet_gpio_line *islet_gpio_request_edges(const char *path, unsigned int offset,
                                          const char *consumer, int bias, int active_low,
                                          int *error_out) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (settings == NULL) { if (error_out) *error_out = ENOMEM; return NULL; }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_bias(settings, bias_setting(bias));
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    // The daemon schedules on CLOCK_MONOTONIC; 2.x would otherwise leave the choice to the kernel.
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
    struct gpiod_line_request *request = request_one(path, offset, consumer, settings, error_out);
    gpiod_line_settings_free(settings);
    if (request == NULL) return NULL;

    islet_gpio_line *handle = calloc(1, sizeof *handle);
    struct gpiod_edge_event_buffer *events = gpiod_edge_event_buffer_new(16);
    int fd = gpiod_line_request_get_fd(request);
    int fl = fcntl(fd, F_GETFL);
    if (handle == NULL || events == NULL || fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        if (error_out) *error_out = (handle == NULL || events == NULL) ? ENOMEM : errno_or(EIO);
        if (events) gpiod_edge_event_buffer_free(events);
        free(handle);
        gpiod_line_request_release(request);
        return NULL;
    }
    handle->request = request;
    handle->events = events;
    handle->offset = offset;
    handle->fd = fd;
    return handle;
}

islet_gpio_line *islet_gpio_request_output(const char *path, unsigned int offset,
                                           const char *consumer, int active_low, int initial,
                                           int *error_out) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (settings == NULL) { if (error_out) *error_out = ENOMEM; return NULL; }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    gpiod_line_settings_set_output_value(settings, initial ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    struct gpiod_line_request *request = request_one(path, offset, consumer, settings, error_out);
    gpiod_line_settings_free(settings);
    if (request == NULL) return NULL;
    islet_gpio_line *handle = calloc(1, sizeof *handle);
    if (handle == NULL) { gpiod_line_request_release(request); if (error_out) *error_out = ENOMEM; return NULL; }
    handle->request = request;
    handle->offset = offset;
    handle->fd = -1;
    return handle;
}

int islet_gpio_line_fd(islet_gpio_line *line) { return line ? line->fd : -1; }

int islet_gpio_line_read_edges(islet_gpio_line *line, int *rising, uint64_t *timestamp_ns,
                               int capacity) {
    if (line == NULL || line->events == NULL || capacity <= 0) return -EINVAL;
    size_t want = capacity < 16 ? (size_t)capacity : 16;
    errno = 0;
    int n = gpiod_line_request_read_edge_events(line->request, line->events, want);
    if (n < 0) {
        int e = errno_or(EIO);
        return (e == EAGAIN || e == EWOULDBLOCK) ? 0 : -e;
    }
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->events, (unsigned long)i);
        rising[i] = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? 1 : 0;
        timestamp_ns[i] = gpiod_edge_event_get_timestamp_ns(event);
    }
    return n;
}

int islet_gpio_line_get(islet_gpio_line *line) {
    if (line == NULL) return -EINVAL;
    errno = 0;
    enum gpiod_line_value v = gpiod_line_request_get_value(line->request, line->offset);
    return v == GPIOD_LINE_VALUE_ERROR ? -errno_or(EIO) : (v == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0);
}

int islet_gpio_line_set(islet_gpio_line *line, int value) {
    if (line == NULL) return -EINVAL;
    errno = 0;
    int r = gpiod_line_request_set_value(line->request, line->offset,
                                         value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    return r < 0 ? -errno_or(EIO) : 0;
}

void islet_gpio_line_release(islet_gpio_line *line) {
    if (line == NULL) return;
    if (line->events) gpiod_edge_event_buffer_free(line->events);
    gpiod_line_request_release(line->request);
    free(line);
}

#endif
