/* A drop-in "allocator that catches nothing": the negative control of the misuse battery
 * (allocstress-safety-probe, tests/cli/allocators/safety_controls.sh).  Never measured.
 *
 * Model: a bump allocator over one large reserved region (MAP_NORESERVE), which it never reuses:
 * free is a no-op for any pointer at all.  Each block is laid out as [16-byte header holding the
 * size][16 bytes unused][the block, its size rounded up to 16][32 bytes unused], so small
 * overflows and underflows hit nothing, and blocks stay 16-aligned.  Nothing is checked: sizes are
 * rounded with wrapping arithmetic, calloc and reallocarray multiply without an overflow check,
 * an alignment that is not a power of two or above 64 KiB is ignored (16 is kept).  When a
 * request would pass the region's end, the block at the cursor is still returned (the cursor
 * moves on by one minimal block), so an impossible size gets a "block" back: never touch it.
 *
 * Contract: no call ever fails or reports anything; realloc copies into a new block (realloc(p, 0)
 * gives a new block); malloc(0) gives a unique block; calloc memory is zero (fresh, never reused).
 * Every case of the battery ends `outcome silent`. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION ((size_t)8 << 30)
#define HONOURED_ALIGNMENT ((size_t)64 << 10)
enum { BEFORE = 32, AFTER = 32, MINIMAL_STEP = BEFORE + 16 + AFTER };

static _Atomic uintptr_t cursor;
static uintptr_t region_end;
static atomic_int state; /* 0 unmapped, 1 mapping, 2 ready */

static void init(void) {
  if (atomic_load_explicit(&state, memory_order_acquire) == 2) return;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&state, &expected, 1)) {
    while (atomic_load_explicit(&state, memory_order_acquire) != 2) sched_yield();
    return;
  }
  void* base = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    static const char message[] = "catch-none: cannot reserve its region\n";
    if (write(STDERR_FILENO, message, sizeof message - 1) < 0) abort();
    abort();
  }
  region_end = (uintptr_t)base + REGION;
  atomic_store(&cursor, (uintptr_t)base);
  atomic_store_explicit(&state, 2, memory_order_release);
}

static void* bump(size_t n, size_t alignment) {
  init();
  const size_t rounded = (n + 15) & ~(size_t)15; /* wraps for huge n: on purpose */
  if (alignment < 16 || (alignment & (alignment - 1)) != 0 || alignment > HONOURED_ALIGNMENT) alignment = 16;
  uintptr_t at = atomic_load(&cursor), p, next;
  do {
    p = (at + BEFORE + alignment - 1) & ~(uintptr_t)(alignment - 1);
    next = p + rounded + AFTER;                                         /* wraps: on purpose */
    if (next < at || next > region_end) next = at + MINIMAL_STEP;       /* past the end: not owned */
  } while (!atomic_compare_exchange_weak(&cursor, &at, next));
  memcpy((char*)p - BEFORE, &n, sizeof n);
  return (void*)p;
}

static size_t size_of(const void* p) {
  size_t n;
  memcpy(&n, (const char*)p - BEFORE, sizeof n);
  return n;
}

void* malloc(size_t n) { return bump(n, 16); }
void free(void* p) { (void)p; }
void* calloc(size_t n, size_t m) { return bump(n * m, 16); } /* unchecked product; fresh memory is zero */

void* realloc(void* p, size_t n) {
  void* q = bump(n, 16);
  if (p != NULL) {
    const size_t old = size_of(p);
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

void* reallocarray(void* p, size_t n, size_t m) { return realloc(p, n * m); }
void* memalign(size_t alignment, size_t n) { return bump(n, alignment); }
void* aligned_alloc(size_t alignment, size_t n) { return bump(n, alignment); }
int posix_memalign(void** out, size_t alignment, size_t n) {
  *out = bump(n, alignment);
  return 0;
}
void* valloc(size_t n) { return bump(n, 4096); }
void* pvalloc(size_t n) { return bump((n + 4095) & ~(size_t)4095, 4096); }
size_t malloc_usable_size(void* p) { return p != NULL ? size_of(p) : 0; }
