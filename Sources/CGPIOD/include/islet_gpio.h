#ifndef ISLET_GPIO_H
#define ISLET_GPIO_H
// The GPIO shim's interface: plain C types only, so neither libgpiod 1.6 nor 2.x leaks into Swift.
// Filled in by the buttons work; this declares what the rest of the tree may rely on.
int islet_gpio_backend_major(void);
#endif
