// The Linux calls Glibc's Swift module does not import (epoll, timerfd, signalfd, eventfd),
// wrapped so that each returns a result or -errno: Swift never reads errno after another call
// may have changed it, and epoll's packed struct never crosses into Swift.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <sys/random.h>

// The C side's one EINTR retry (IsletSystem's `SystemCall.retryingInterrupts` is the Swift
// side's): stores `call` in `result`, calling it again while a signal interrupts it.
#define ISLET_RETRYING_INTERRUPTS(result, call) \
    do { (result) = (call); } while ((result) < 0 && errno == EINTR)

static inline int islet_epoll_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// op: 0 add, 1 modify, 2 delete. `readable`/`writable` select EPOLLIN/EPOLLOUT; the tag is the fd.
static inline int islet_epoll_control(int ep, int op, int fd, int readable, int writable) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
    ev.data.fd = fd;
    int cop = op == 0 ? EPOLL_CTL_ADD : op == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(ep, cop, fd, &ev) < 0 ? -errno : 0;
}

// Waits up to timeout_ms (-1: forever); stores each ready fd and its flags (bit 0 readable or
// hung up or in error, bit 1 writable, bit 2 the peer is gone: hung up or in error). Returns how
// many, or -errno (EINTR included).
static inline int islet_epoll_wait(int ep, int *fds, uint32_t *flags, int capacity, int timeout_ms) {
    struct epoll_event evs[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(ep, evs, capacity, timeout_ms);
    if (n < 0) return -errno;
    for (int i = 0; i < n; i++) {
        fds[i] = evs[i].data.fd;
        uint32_t e = evs[i].events;
        flags[i] = ((e & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) ? 1u : 0u) | ((e & EPOLLOUT) ? 2u : 0u)
                 | ((e & (EPOLLHUP | EPOLLERR)) ? 4u : 0u);
    }
    return n;
}

// clock: 0 CLOCK_MONOTONIC, 1 CLOCK_REALTIME.
static inline int islet_timerfd_create(int clock) {
    int fd = timerfd_create(clock == 1 ? CLOCK_REALTIME : CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// Arms at the absolute instant in ns of the timer's clock (0 disarms; a past instant fires at once).
// cancel_on_set: the read fails with ECANCELED when the wall clock is set (CLOCK_REALTIME only).
static inline int islet_timerfd_arm(int fd, uint64_t at_ns, int cancel_on_set) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t)(at_ns / 1000000000ull);
    spec.it_value.tv_nsec = (long)(at_ns % 1000000000ull);
    int flags = TFD_TIMER_ABSTIME | (cancel_on_set ? TFD_TIMER_CANCEL_ON_SET : 0);
    return timerfd_settime(fd, flags, &spec, NULL) < 0 ? -errno : 0;
}

// Consumes the expirations; returns their count, 0 when none are pending, or -errno
// (-ECANCELED: the wall clock was set).
static inline int64_t islet_timerfd_read(int fd) {
    uint64_t n = 0;
    ssize_t r;
    ISLET_RETRYING_INTERRUPTS(r, read(fd, &n, sizeof n));
    if (r == (ssize_t)sizeof n) return (int64_t)n;
    if (r < 0 && errno == EAGAIN) return 0;
    return r < 0 ? -errno : -EIO;
}

// Blocks SIGTERM, SIGINT and SIGHUP for the process's threads and returns a signalfd for them.
static inline int islet_signalfd_for_stop_and_reload(void) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &mask, NULL) != 0) return -EINVAL;
    int fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// The next pending signal's number, 0 when none is pending, or -errno.
static inline int islet_signalfd_next(int fd) {
    struct signalfd_siginfo info;
    ssize_t r;
    ISLET_RETRYING_INTERRUPTS(r, read(fd, &info, sizeof info));
    if (r == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (r < 0 && errno == EAGAIN) return 0;
    return r < 0 ? -errno : -EIO;
}

static inline int islet_eventfd_create(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// Adds one to the counter (from any thread): the descriptor becomes readable.
static inline int islet_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t r;
    ISLET_RETRYING_INTERRUPTS(r, write(fd, &one, sizeof one));
    if (r == (ssize_t)sizeof one) return 0;
    return r < 0 ? -errno : -EIO;
}

// Consumes the counter; 0 when nothing was pending.
static inline int64_t islet_eventfd_drain(int fd) { return islet_timerfd_read(fd); }

// clock: 0 CLOCK_MONOTONIC, 1 CLOCK_REALTIME, 2 CLOCK_BOOTTIME, 3 CLOCK_THREAD_CPUTIME_ID.
static inline uint64_t islet_clock_ns(int clock) {
    struct timespec ts;
    clockid_t id = clock == 1 ? CLOCK_REALTIME : clock == 2 ? CLOCK_BOOTTIME
                 : clock == 3 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// getrandom(2): fills `buffer` from the kernel's pool; the count, or -errno.
static inline ssize_t islet_getrandom(void *buffer, size_t size) {
    ssize_t n;
    ISLET_RETRYING_INTERRUPTS(n, getrandom(buffer, size, 0));
    return n < 0 ? -errno : n;
}
