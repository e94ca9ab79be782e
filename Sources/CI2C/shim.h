// libi2c has no pkg-config file; its functions return -errno, not -1.
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

// The ioctl request numbers are macros Swift cannot import as typed constants everywhere.
static inline unsigned long islet_i2c_rdwr(void) { return I2C_RDWR; }
static inline unsigned long islet_i2c_slave(void) { return I2C_SLAVE; }
static inline unsigned long islet_i2c_funcs(void) { return I2C_FUNCS; }
static inline unsigned long islet_i2c_func_i2c(void) { return I2C_FUNC_I2C; }
static inline unsigned long islet_i2c_func_smbus_write_i2c_block(void) { return I2C_FUNC_SMBUS_WRITE_I2C_BLOCK; }

// Each helper returns 0 (or a count) on success and -errno on failure, so Swift never reads the
// thread's errno after another call may have changed it. ioctl is variadic in C: wrap it here.

static inline int islet_i2c_open(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static inline int islet_i2c_close(int fd) {
    return close(fd) < 0 ? -errno : 0;
}

static inline int islet_i2c_get_funcs(int fd, unsigned long *funcs) {
    return ioctl(fd, I2C_FUNCS, funcs) < 0 ? -errno : 0;
}

static inline int islet_i2c_set_slave(int fd, uint16_t address) {
    return ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0 ? -errno : 0;
}

// One plain I2C write message: start, address, len bytes, stop.
static inline int islet_i2c_rdwr_write(int fd, uint16_t address, const uint8_t *buf, uint16_t len) {
    struct i2c_msg msg = { .addr = address, .flags = 0, .len = len, .buf = (uint8_t *)buf };
    struct i2c_rdwr_ioctl_data data = { .msgs = &msg, .nmsgs = 1 };
    return ioctl(fd, I2C_RDWR, &data) < 0 ? -errno : 0;
}

// libi2c: command byte then up to 32 bytes. libi2c returns -errno (or -1 with errno on old builds).
static inline int islet_i2c_smbus_block_write(int fd, uint8_t command, const uint8_t *buf, uint8_t len) {
    errno = 0;
    int r = i2c_smbus_write_i2c_block_data(fd, command, len, buf);
    if (r >= 0) return 0;
    if (r == -1 && errno != 0) return -errno;
    return r;
}
