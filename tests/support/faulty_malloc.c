/* A drop-in "allocator" for tests of the harness's fault handling.  It forwards to glibc's
 * __libc_malloc family, so it passes the preload check; after ALLOCSTRESS_TEST_FAULT_AFTER
 * malloc calls (default 100000: past harness start-up, inside the measured loop) it does what
 * ALLOCSTRESS_TEST_FAULT says: "abort" (SIGABRT), "segv" (SIGSEGV), "hang" (sleeps forever), or
 * "none" (behaves).  Never use it to measure anything. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

static unsigned long calls;

static void maybe_fault(void) {
  static long after = -1;
  if (after < 0) {
    const char* a = getenv("ALLOCSTRESS_TEST_FAULT_AFTER");
    after = a ? atol(a) : 100000;
  }
  if (++calls < (unsigned long)after) return;
  const char* mode = getenv("ALLOCSTRESS_TEST_FAULT");
  if (mode == NULL || strcmp(mode, "none") == 0) return;
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "segv") == 0) raise(SIGSEGV);
  if (strcmp(mode, "hang") == 0)
    for (;;) pause();
}

void* malloc(size_t n) {
  maybe_fault();
  return __libc_malloc(n);
}
void free(void* p) { __libc_free(p); }
void* calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void* realloc(void* p, size_t n) { return __libc_realloc(p, n); }
int posix_memalign(void** out, size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}
