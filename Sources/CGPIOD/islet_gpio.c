#include "islet_gpio.h"
#include <gpiod.h>

int islet_gpio_backend_major(void) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    return 1;
#else
    return 2;
#endif
}
