/* A drop-in allocator slow in one size class only, the independent reference of the profile run's
 * latency by class (cells/profiling/latency_profile.*; tests/cli/references/latency_reference.sh).
 *
 * Model: it forwards to glibc's __libc_malloc family, and malloc(n) for n in [SLOW_FROM,
 * SLOW_TO] (1024..65536 bytes: the profile run's "medium" class here, see below) first spins on
 * clock_gettime(CLOCK_MONOTONIC) until the delay (20 us, or SLOW_CLASS_MALLOC_NS) has passed: no
 * system call, no sleep, so the call takes at least the delay of wall time whatever the load (a
 * preemption only lengthens it).
 * Every other call (smaller mallocs, every free, calloc, realloc, the aligned family) costs
 * glibc's own time plus one call.
 *
 * Why that range: the library defines no malloc_usable_size, so the profile run's fingerprint
 * finds no size classes and keeps its default bounds, small below 1024 bytes (by power-of-two
 * bucket: a bucket's class is its lower end's), medium above; glibc's large-object threshold is
 * far above the sizes the test asks for.  The delayed sizes are exactly the medium class.
 * Never measured otherwise. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SLOW_FROM 1024
#define SLOW_TO 65536

/* The delay, ns: SLOW_CLASS_MALLOC_NS from the environment when the library loads (0: the same
 * allocator without the delay, the test's baseline), else 20000. */
static uint64_t slow_ns = 20000;
__attribute__((constructor)) static void read_delay(void) {
  const char* text = getenv("SLOW_CLASS_MALLOC_NS");
  if (text != NULL && *text != '\0') slow_ns = strtoull(text, NULL, 10);
}

extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void* malloc(size_t n) {
  if (n >= SLOW_FROM && n <= SLOW_TO) {
    const uint64_t start = now_ns();
    while (now_ns() - start < slow_ns) {
    }
  }
  return __libc_malloc(n);
}
void free(void* p) { __libc_free(p); }
void* calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void* realloc(void* p, size_t n) { return __libc_realloc(p, n); }
void* memalign(size_t alignment, size_t n) { return __libc_memalign(alignment, n); }
void* aligned_alloc(size_t alignment, size_t n) { return __libc_memalign(alignment, n); }
int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return 22; /* EINVAL */
  void* p = __libc_memalign(alignment, n);
  if (p == NULL) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
