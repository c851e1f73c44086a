/* A drop-in "allocator that catches everything": the positive control of the misuse battery
 * (allocstress-safety-probe, tests/cli/allocators/safety_controls.sh).  Never measured.
 *
 * Model: every block is a mapping of its own.  The block (its size rounded up to 16, or its
 * alignment) ends where a PROT_NONE guard page begins; a header right before it holds a magic
 * word, the mapping, the size and, last, a canary word; the slack between the block's end and the
 * guard page is filled with canary bytes.  A table (open addressing, static storage, one spin
 * lock) remembers every block ever handed out, live or freed.  A free first checks the table,
 * then the canaries, then turns the whole mapping PROT_NONE and never reuses it: any later access
 * to a freed block faults, and the address is never handed out again.  It never calls malloc.
 *
 * Contract: each misuse ends the process with one line "catch-all: <what> 0x..." on stderr and
 * abort(): a free (or realloc, malloc_usable_size) of a pointer it did not hand out ("invalid
 * free") or already freed ("double free"), broken canaries ("overflow"/"underflow"), a size above
 * PTRDIFF_MAX or too big to map, a calloc/reallocarray product that overflows, an alignment that
 * is not a power of two or above 2^30 (posix_memalign: also below sizeof(void*)), realloc(p, 0).
 * The one refusal that does not abort: a size of 0 gives NULL with errno EINVAL (malloc(0),
 * calloc with a zero product, aligned_alloc/memalign(a, 0); posix_memalign returns EINVAL). */
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

#define MAGIC 0x43a7c4a11b10c5edull
#define CANARY 0x5ca1ab1ec0ffee11ull
#define CANARY_BYTE 0xcb
#define MAX_ALIGNMENT ((size_t)1 << 30)

struct header { /* right before the block: the canary word touches it */
  uint64_t magic;  /* MAGIC ^ block */
  uintptr_t base;  /* the mapping: base .. base + length (its last page the guard) */
  size_t length;
  size_t size;     /* what was asked */
  uint64_t canary; /* CANARY ^ block */
};

/* ---- messages (no stdio: it would allocate) ---- */

static void append(char* buf, size_t* len, const char* s) {
  while (*s != '\0' && *len < 255) buf[(*len)++] = *s++;
}
static void append_number(char* buf, size_t* len, uint64_t v, unsigned base) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v != 0);
  if (base == 16) append(buf, len, "0x");
  while (n > 0 && *len < 255) buf[(*len)++] = digits[--n];
}
/* "catch-all: <what> <number>\n" on stderr, then abort(). */
static _Noreturn void die(const char* what, uint64_t number, unsigned base) {
  char buf[272];
  size_t len = 0;
  append(buf, &len, "catch-all: ");
  append(buf, &len, what);
  append(buf, &len, " ");
  append_number(buf, &len, number, base);
  buf[len++] = '\n';
  if (write(STDERR_FILENO, buf, len) < 0) abort();
  abort();
}

/* ---- the table of every block handed out: 0 empty, p live, p | 1 freed ---- */

enum { SLOT_BITS = 19, SLOTS = 1 << SLOT_BITS };
static uintptr_t table[SLOTS];
static size_t table_used;
static atomic_flag table_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&table_lock, memory_order_acquire)) sched_yield();
}
static void unlock(void) { atomic_flag_clear_explicit(&table_lock, memory_order_release); }

/* The slot holding p (live or freed), else the empty slot where it would go.  Under the lock. */
static size_t slot_of(uintptr_t p) {
  size_t i = (size_t)(((uint64_t)p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - SLOT_BITS));
  while (table[i] != 0 && (table[i] & ~(uintptr_t)1) != p) i = (i + 1) & (SLOTS - 1);
  return i;
}

/* Marks p freed (or only checks it is live, for realloc and malloc_usable_size) and returns its
 * header after checking the canaries; dies naming the misuse otherwise. */
static struct header* take(void* block, int mark_freed, const char* invalid, const char* freed) {
  const uintptr_t p = (uintptr_t)block;
  lock();
  const size_t i = slot_of(p);
  const uintptr_t entry = table[i];
  if (entry == p && mark_freed) table[i] = p | 1;
  unlock();
  if (entry == 0) die(invalid, p, 16);
  if (entry != p) die(freed, p, 16);
  struct header* h = (struct header*)p - 1;
  if (h->magic != (MAGIC ^ p) || h->canary != (CANARY ^ p)) die("underflow: the header before the block was overwritten:", p, 16);
  const unsigned char* end = (const unsigned char*)h->base + h->length - (size_t)sysconf(_SC_PAGESIZE);
  for (const unsigned char* c = (const unsigned char*)p + h->size; c < end; c++)
    if (*c != CANARY_BYTE) die("overflow: bytes past the end of the block were overwritten:", p, 16);
  return h;
}

static void* map_block(size_t n, size_t alignment) {
  if (n == 0) {
    errno = EINVAL;
    return NULL;
  }
  if (n > PTRDIFF_MAX) die("size above PTRDIFF_MAX:", n, 10);
  if (alignment < 16) alignment = 16;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t data = (n + sizeof(struct header) + alignment + page - 1) / page * page; /* no overflow: n <= PTRDIFF_MAX */
  const size_t length = data + page;
  char* base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) die("cannot map a block of", n, 10);
  if (mprotect(base + data, page, PROT_NONE) != 0) die("cannot protect the guard page of a block of", n, 10);
  const uintptr_t end = (uintptr_t)base + data;
  const uintptr_t p = (end - n) & ~(uintptr_t)(alignment - 1);
  struct header* h = (struct header*)p - 1;
  h->magic = MAGIC ^ p;
  h->base = (uintptr_t)base;
  h->length = length;
  h->size = n;
  h->canary = CANARY ^ p;
  memset((char*)p + n, CANARY_BYTE, end - (p + n));
  lock();
  if (table_used >= SLOTS / 4 * 3) die("the table of blocks is full at", table_used, 10);
  table[slot_of(p)] = p;
  table_used++;
  unlock();
  return (void*)p;
}

static void check_alignment(const char* what, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > MAX_ALIGNMENT) die(what, alignment, 10);
}

static size_t product(size_t n, size_t m, const char* what) {
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) die(what, n, 10);
  return total;
}

void* malloc(size_t n) { return map_block(n, 16); }

void free(void* block) {
  if (block == NULL) return;
  struct header* h = take(block, 1, "invalid free of", "double free of");
  const uintptr_t base = h->base;
  const size_t length = h->length;
  /* Retired for good: PROT_NONE, its pages given back, its addresses never mapped again. */
  if (mmap((void*)base, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
    die("cannot retire the mapping of", base, 16);
}

void* calloc(size_t n, size_t m) { return map_block(product(n, m, "calloc count times size overflows, count"), 16); }

void* realloc(void* block, size_t n) {
  if (block == NULL) return malloc(n);
  if (n == 0) die("realloc to size 0 of", (uintptr_t)block, 16);
  const struct header* h = take(block, 0, "invalid realloc of", "realloc of a freed block");
  const size_t old = h->size;
  void* fresh = map_block(n, 16);
  memcpy(fresh, block, old < n ? old : n);
  free(block);
  return fresh;
}

void* reallocarray(void* block, size_t n, size_t m) {
  return realloc(block, product(n, m, "reallocarray count times size overflows, count"));
}

void* memalign(size_t alignment, size_t n) {
  check_alignment("memalign with a bad alignment:", alignment);
  return map_block(n, alignment);
}

void* aligned_alloc(size_t alignment, size_t n) {
  check_alignment("aligned_alloc with a bad alignment:", alignment);
  return map_block(n, alignment);
}

int posix_memalign(void** out, size_t alignment, size_t n) {
  check_alignment("posix_memalign with a bad alignment:", alignment);
  if (alignment < sizeof(void*)) die("posix_memalign with a bad alignment:", alignment, 10);
  void* p = map_block(n, alignment);
  if (p == NULL) return EINVAL; /* n == 0 */
  *out = p;
  return 0;
}

void* valloc(size_t n) { return map_block(n, (size_t)sysconf(_SC_PAGESIZE)); }

void* pvalloc(size_t n) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (n > PTRDIFF_MAX) die("size above PTRDIFF_MAX:", n, 10);
  return map_block((n + page - 1) / page * page, page);
}

size_t malloc_usable_size(void* block) {
  if (block == NULL) return 0;
  return take(block, 0, "malloc_usable_size of a pointer it did not hand out:", "malloc_usable_size of a freed block")->size;
}
