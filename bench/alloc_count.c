/* Counts heap allocations for islet-bench's render_allocs_per_tick figure.
 *
 * Built by `make bench` as a shared object and loaded with LD_PRELOAD, so every
 * malloc-family call of the process (the Swift runtime's swift_slowAlloc ends in
 * malloc, posix_memalign or aligned_alloc) passes through here first. Each call
 * bumps one atomic counter and forwards to glibc's own entry points (__libc_*),
 * which glibc exports for exactly this kind of wrapper; no dlsym, so no recursion
 * during start-up. islet-bench finds islet_alloc_count() with dlsym and reads it
 * before and after the measured renders; without the preload that figure is null. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t allocations;

static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

/* Allocations (malloc, calloc, realloc, the aligned forms) since the process started. */
uint64_t islet_alloc_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t align, size_t n) { count(); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n) { count(); return __libc_memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n) {
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    count();
    void *p = __libc_memalign(align, n);
    if (p == NULL && n != 0) return ENOMEM;
    *out = p;
    return 0;
}
