// libi2c has no pkg-config file; its functions return -errno, not -1.
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

// The ioctl request numbers are macros Swift cannot import as typed constants everywhere.
static inline unsigned long islet_i2c_rdwr(void) { return I2C_RDWR; }
static inline unsigned long islet_i2c_slave(void) { return I2C_SLAVE; }
static inline unsigned long islet_i2c_funcs(void) { return I2C_FUNCS; }
