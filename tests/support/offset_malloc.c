/* A drop-in allocator that hands out misaligned blocks: the conformance preflight's known
 * failures (allocstress-safety-probe conformance, tests/cli/allocators/safety_controls.sh).  Never measured.
 * Built twice: -DOFFSET=8 (every block 8 mod 16: not aligned to alignof(max_align_t) = 16) and
 * -DOFFSET=1 (every block 1 mod 16).
 *
 * Model: it forwards to glibc's __libc_malloc family.  Each glibc block (16-aligned) starts with
 * a 16-byte header, [the size asked][the glibc pointer], and the user's block starts OFFSET bytes
 * after it; the glibc pointer is found again at block - OFFSET - 8.
 *
 * Contract: every entry point (malloc, free, calloc, realloc, memalign, aligned_alloc,
 * posix_memalign, valloc, pvalloc, malloc_usable_size) hands out or accepts such offset blocks,
 * aligned requests included (their blocks are offset from the alignment too), so a process does
 * not crash merely because of the offset: the conformance check, not a crash, finds it.
 * realloc(p, 0) frees and returns NULL, as glibc's does. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef OFFSET
#error "build with -DOFFSET=8 or -DOFFSET=1"
#endif

extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

enum { LEAD = 16 + OFFSET }; /* from the glibc block to the user's */

static void* place(char* raw, size_t n) {
  if (raw == NULL) return NULL;
  memcpy(raw, &n, sizeof n);
  memcpy(raw + 8, &raw, sizeof raw);
  return raw + LEAD;
}
static char* raw_of(void* p) {
  char* raw;
  memcpy(&raw, (char*)p - OFFSET - 8, sizeof raw);
  return raw;
}
static int too_big(size_t n) {
  if (n <= SIZE_MAX - LEAD - 64) return 0;
  errno = ENOMEM;
  return 1;
}

void* malloc(size_t n) { return too_big(n) ? NULL : place(__libc_malloc(n + LEAD), n); }

void free(void* p) {
  if (p != NULL) __libc_free(raw_of(p));
}

void* calloc(size_t n, size_t m) {
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return too_big(total) ? NULL : place(__libc_calloc(1, total + LEAD), total);
}

void* realloc(void* p, size_t n) {
  if (p == NULL) return malloc(n);
  if (n == 0) {
    free(p);
    return NULL;
  }
  if (too_big(n)) return NULL;
  return place(__libc_realloc(raw_of(p), n + LEAD), n); /* the contents move with the header */
}

void* memalign(size_t alignment, size_t n) {
  if (alignment <= 16) return malloc(n);
  return too_big(n) ? NULL : place(__libc_memalign(alignment, n + LEAD), n);
}

void* aligned_alloc(size_t alignment, size_t n) { return memalign(alignment, n); }

int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = memalign(alignment, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t n) { return memalign(4096, n); }

void* pvalloc(size_t n) { return too_big(n) ? NULL : memalign(4096, (n + 4095) & ~(size_t)4095); }

size_t malloc_usable_size(void* p) {
  size_t n = 0;
  if (p != NULL) memcpy(&n, raw_of(p), sizeof n);
  return n;
}
