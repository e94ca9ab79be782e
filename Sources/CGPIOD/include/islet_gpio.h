#ifndef ISLET_GPIO_H
#define ISLET_GPIO_H
// The GPIO shim's interface: plain C types and opaque handles only, so neither libgpiod 1.6 nor
// 2.x leaks into Swift. A 2.x backend implements the same functions in another .c file.
// Every function that can fail returns a negative errno (or NULL and sets *error_out to errno).

#include <stddef.h>
#include <stdint.h>

/// Which libgpiod API this shim was compiled against: 1 (1.6) or 2 (2.x).
int islet_gpio_backend_major(void);

/// Bias values for islet_gpio_request_edges.
#define ISLET_GPIO_BIAS_AS_IS 0
#define ISLET_GPIO_BIAS_DISABLE 1
#define ISLET_GPIO_BIAS_PULL_UP 2
#define ISLET_GPIO_BIAS_PULL_DOWN 3

/// An open GPIO chip (/dev/gpiochipN), for reading its description and line names.
typedef struct islet_gpio_chip islet_gpio_chip;

/// Opens a chip by device path. On failure returns NULL and stores errno in *error_out.
islet_gpio_chip *islet_gpio_chip_open(const char *path, int *error_out);
void islet_gpio_chip_close(islet_gpio_chip *chip);
/// The kernel's name ("gpiochip0") and label ("pinctrl-bcm2711"), copied NUL-terminated.
void islet_gpio_chip_describe(islet_gpio_chip *chip, char *name, size_t name_size,
                              char *label, size_t label_size);
unsigned int islet_gpio_chip_line_count(islet_gpio_chip *chip);
/// A line's name and consumer ("" when unnamed or unused); *used is 1 when another
/// requester holds it. Returns 0 or a negative errno.
int islet_gpio_chip_line_info(islet_gpio_chip *chip, unsigned int offset,
                              char *name, size_t name_size,
                              char *consumer, size_t consumer_size, int *used);

/// One requested line: an input watching both edges, or an output.
typedef struct islet_gpio_line islet_gpio_line;

/// Requests `offset` on the chip at `path` as an input with the given bias, watching both edges.
/// With active_low set, "rising" in the events below means the line went to its active level.
islet_gpio_line *islet_gpio_request_edges(const char *path, unsigned int offset,
                                          const char *consumer, int bias, int active_low,
                                          int *error_out);
/// Requests `offset` as an output at the logical `initial` value (0 or 1).
islet_gpio_line *islet_gpio_request_output(const char *path, unsigned int offset,
                                           const char *consumer, int active_low, int initial,
                                           int *error_out);
/// The event file descriptor (non-blocking) of an input line, or -1 for an output.
int islet_gpio_line_fd(islet_gpio_line *line);
/// Reads up to `capacity` pending edges without blocking. rising[i] is 1 for a logical rising
/// edge; timestamp_ns[i] is the kernel's timestamp (CLOCK_MONOTONIC on Linux >= 5.7).
/// Returns the number read (0 when none are pending) or a negative errno.
int islet_gpio_line_read_edges(islet_gpio_line *line, int *rising, uint64_t *timestamp_ns,
                               int capacity);
/// The logical value (0 or 1) or a negative errno.
int islet_gpio_line_get(islet_gpio_line *line);
/// Sets an output's logical value; returns 0 or a negative errno.
int islet_gpio_line_set(islet_gpio_line *line, int value);
/// Releases the line and closes its chip.
void islet_gpio_line_release(islet_gpio_line *line);


#endif
