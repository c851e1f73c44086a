/* The misuse battery of allocstress-safety-probe: one function per case, each making exactly one
 * heap misuse and then looking for harm.
 *
 * Model: a case sets up (step setup), makes the misuse (step misuse: one call, or one access by
 * this program to memory it registered as the fault handler's target), makes the allocator calls
 * that would hand out the harm (step follow) and reads memory to see it (step check).  Pointers
 * are compared before they are touched; harm ends the case at once (`outcome corrupted ...`,
 * _exit(0)) with no further allocator call.  A case that ends quietly says what it observed
 * (`outcome silent ...`); a call that refused says so (`outcome error <errno name> ...`).
 *
 * Contract: the names, groups, scored flags and descriptions of safety_cases[] below are what
 * `list` prints and what the runner's tables show; every case prints `step setup` first. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

enum { BLOCK = 64, MAX_FOLLOW = 16 };

static void* blocks[MAX_FOLLOW];
static size_t sizes[MAX_FOLLOW];

static int overlaps(uintptr_t a, size_t an, uintptr_t b, size_t bn) { return a < b + bn && b < a + an; }

_Noreturn void harm_at(const char* what, const void* p) {
  struct line l;
  line_start(&l, "outcome corrupted ");
  line_str(&l, what);
  line_str(&l, " ");
  line_hex(&l, (uintptr_t)p);
  outcome_line(&l);
}

/* blocks[i] (sizes[i] bytes) was just handed out: compare it, untouched, with the live blocks
 * before it and with [avoid, avoid + avoid_len). */
static void check_new_block(size_t i, const void* avoid, size_t avoid_len, const char* avoid_harm) {
  const uintptr_t p = (uintptr_t)blocks[i];
  if (p == 0) return;
  if (avoid_len > 0 && overlaps(p, sizes[i], (uintptr_t)avoid, avoid_len)) harm_at(avoid_harm, blocks[i]);
  for (size_t j = 0; j < i; j++) {
    const uintptr_t q = (uintptr_t)blocks[j];
    if (q == 0) continue;
    if (q == p) harm_at("the same block was handed out twice", blocks[i]);
    if (overlaps(p, sizes[i], q, sizes[j])) {
      struct line l;
      line_start(&l, "outcome corrupted two live blocks overlap ");
      line_hex(&l, q);
      line_str(&l, " and ");
      line_hex(&l, p);
      outcome_line(&l);
    }
  }
}

/* count more live blocks of `size` bytes into blocks[first...], each checked as it comes. */
static void follow_mallocs(size_t first, size_t count, size_t size, const void* avoid, size_t avoid_len,
                           const char* avoid_harm) {
  for (size_t i = first; i < first + count && i < MAX_FOLLOW; i++) {
    sizes[i] = size;
    blocks[i] = heap.malloc(size);
    check_new_block(i, avoid, avoid_len, avoid_harm);
  }
}

void* must_malloc(size_t n) {
  errno = 0;
  void* p = heap.malloc(n);
  if (p != NULL) return p;
  struct line l;
  line_start(&l, "outcome error ");
  line_errno(&l, errno);
  line_str(&l, " (set-up malloc(");
  line_dec(&l, n);
  line_str(&l, ") returned NULL)");
  outcome_line(&l);
}

/* After an overflow: free, allocate 8 blocks of mixed sizes, fill each with its own byte, and
 * see whether any lost it to another. */
static _Noreturn void refill_and_check(void) {
  static const size_t mixed[8] = {24, 24, 40, 56, 24, 40, 56, 24};
  for (size_t i = 0; i < 8; i++) {
    sizes[i] = mixed[i];
    blocks[i] = heap.malloc(mixed[i]);
    check_new_block(i, NULL, 0, NULL);
    if (blocks[i] != NULL) memset(blocks[i], (int)(i + 1), mixed[i]);
  }
  step("check");
  for (size_t i = 0; i < 8; i++) {
    const volatile unsigned char* b = blocks[i];
    for (size_t j = 0; b != NULL && j < mixed[i]; j++)
      if (b[j] != i + 1) {
        struct line l;
        line_start(&l, "outcome corrupted two live blocks overlap: the ");
        line_dec(&l, mixed[i]);
        line_str(&l, "-byte block ");
        line_hex(&l, (uintptr_t)blocks[i]);
        line_str(&l, " lost its fill at byte ");
        line_dec(&l, j);
        outcome_line(&l);
      }
  }
  outcome("silent", "the blocks allocated after it kept their contents");
}

static void case_double_free(void) {
  step("setup");
  void* p = must_malloc(BLOCK);
  heap.free(p);
  step("misuse");
  heap.free(p);
  step("follow");
  follow_mallocs(0, 2, BLOCK, NULL, 0, NULL);
  outcome("silent", "no block handed out twice");
}

static void case_double_free_later(void) {
  step("setup");
  void* p = must_malloc(BLOCK);
  void* q = must_malloc(BLOCK);
  void* r = must_malloc(BLOCK);
  heap.free(p);
  heap.free(q);
  heap.free(r);
  step("misuse");
  heap.free(p);
  step("follow");
  follow_mallocs(0, 4, BLOCK, NULL, 0, NULL);
  outcome("silent", "no block handed out twice");
}

/* Threads run one after another (each joined before the next starts): deterministic. */
static void* shared_block;
static void* thread_allocate_free(void* arg) {
  (void)arg;
  install_alt_stack(1);
  shared_block = must_malloc(BLOCK);
  heap.free(shared_block);
  return NULL;
}
static void* thread_free_again(void* arg) {
  (void)arg;
  install_alt_stack(1);
  step("misuse");
  heap.free(shared_block);
  return NULL;
}
static void* thread_follow(void* first) {
  install_alt_stack(1);
  follow_mallocs((size_t)(uintptr_t)first, 8, BLOCK, NULL, 0, NULL);
  return NULL;
}
static void run_on_new_thread(void* (*body)(void*), size_t arg) {
  pthread_t t;
  const int rc = pthread_create(&t, NULL, body, (void*)(uintptr_t)arg);
  if (rc != 0) {
    struct line l;
    line_start(&l, "outcome error ");
    line_errno(&l, rc);
    line_str(&l, " (pthread_create failed)");
    outcome_line(&l);
  }
  pthread_join(t, NULL);
}
static void case_double_free_threads(void) {
  step("setup");
  run_on_new_thread(thread_allocate_free, 0);
  run_on_new_thread(thread_free_again, 0); /* prints step misuse */
  step("follow");
  run_on_new_thread(thread_follow, 0);
  run_on_new_thread(thread_follow, 8);
  outcome("silent", "no block handed out twice");
}

static void case_free_stack(void) {
  _Alignas(16) unsigned char local[64];
  step("setup");
  memset(local, 0, sizeof local);
  step("misuse");
  heap.free(local + 16);
  step("follow");
  follow_mallocs(0, 4, BLOCK, local, sizeof local, "malloc handed out memory inside the stack array");
  outcome("silent", "no block inside the stack array");
}

static void free_inside(size_t offset) {
  step("setup");
  unsigned char* p = must_malloc(BLOCK);
  step("misuse");
  heap.free(p + offset);
  step("follow");
  follow_mallocs(0, 8, 48, p, BLOCK, "a new block overlaps the live block");
  outcome("silent", "no new block overlaps the live block");
}
static void case_free_interior(void) { free_inside(16); }
static void case_free_unaligned(void) { free_inside(1); }

static void case_free_mmap(void) {
  step("setup");
  void* m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) outcome("error", "0 (set-up mmap failed)");
  step("misuse");
  heap.free(m);
  step("follow");
  follow_mallocs(0, 8, BLOCK, m, 4096, "malloc handed out memory inside the mmap'd page");
  outcome("silent", "no block inside the mmap'd page");
}

/* Writes `count` bytes 0x41 from p + from (negative: before the block), as the misuse. */
static void write_bytes(unsigned char* p, ptrdiff_t from, size_t count) {
  target_add(p + from, count);
  step("misuse");
  volatile unsigned char* v = p;
  for (size_t i = 0; i < count; i++) v[from + (ptrdiff_t)i] = 0x41;
  targets_clear();
}
static void overflow(size_t count) {
  step("setup");
  unsigned char* p = must_malloc(24);
  void* q = must_malloc(24);
  write_bytes(p, 24, count);
  step("follow");
  heap.free(p);
  heap.free(q);
  refill_and_check();
}
static void case_overflow_1(void) { overflow(1); }
static void case_overflow_16(void) { overflow(16); }
static void case_underflow(void) {
  step("setup");
  unsigned char* p = must_malloc(BLOCK);
  write_bytes(p, -8, 8);
  step("follow");
  heap.free(p);
  refill_and_check();
}

static void case_write_after_free(void) {
  static void* later[256];
  const uint64_t written = 0xA5A5A5A5A5A5A5A5u;
  step("setup");
  unsigned char* p = must_malloc(BLOCK);
  heap.free(p);
  target_add(p, BLOCK);
  step("misuse");
  for (size_t i = 0; i < BLOCK; i++) ((volatile unsigned char*)p)[i] = 0xA5;
  targets_clear();
  step("follow");
  int checking = 0;
  for (size_t i = 0; i < 256; i++) {
    later[i] = heap.malloc(BLOCK);
    const uintptr_t q = (uintptr_t)later[i];
    if (q == 0) continue;
    if ((q & 0xFFFFFFFFu) == 0xA5A5A5A5u) harm_at("malloc handed out the written value as an address", later[i]);
    if (!checking) step("check"); /* once: the later mallocs come under it too */
    checking = 1;
    for (uintptr_t w = (q + 7) & ~(uintptr_t)7; w + 8 <= q + BLOCK; w += 8)
      if (*(const volatile uint64_t*)w == written) harm_at("a later block holds the value written after free", later[i]);
  }
  outcome("silent", "no later block holds the value written after free");
}

static void case_read_after_free(void) {
  step("setup");
  unsigned char* p = must_malloc(BLOCK);
  memset(p, 0x3C, BLOCK);
  heap.free(p);
  target_add(p, BLOCK);
  step("misuse");
  int kept = 1;
  for (size_t i = 16; i < BLOCK; i++)
    if (((const volatile unsigned char*)p)[i] != 0x3C) kept = 0;
  targets_clear();
  outcome("silent", kept ? "old data still readable after free" : "old data gone after free");
}

static _Alignas(64) unsigned char target_area[4096];
static void case_freelist_overwrite(void) {
  const uintptr_t bait = (uintptr_t)(target_area + 1024);
  step("setup");
  volatile uintptr_t* p = must_malloc(BLOCK);
  volatile uintptr_t* q = must_malloc(BLOCK);
  heap.free((void*)q);
  heap.free((void*)p);
  target_add((const void*)p, 16);
  target_add((const void*)q, 16);
  step("misuse");
  p[0] = bait;
  p[1] = bait;
  q[0] = bait;
  q[1] = bait;
  targets_clear();
  step("follow");
  follow_mallocs(0, 16, BLOCK, target_area, sizeof target_area, "malloc handed out the attacker's address");
  outcome("silent", "the attacker's address was never handed out");
}

const struct safety_case safety_cases[] = {
    {"double-free", "double free", 1, "Frees the same block twice in a row.", case_double_free},
    {"double-free-later", "double free", 1, "Frees a block again after two more blocks were freed since.",
     case_double_free_later},
    {"double-free-threads", "double free", 1, "Frees in one thread a block that another thread already freed.",
     case_double_free_threads},
    {"free-stack", "invalid free", 1, "Frees a pointer into a local array on the stack.", case_free_stack},
    {"free-interior", "invalid free", 1, "Frees a pointer 16 bytes inside a live block.", case_free_interior},
    {"free-unaligned", "invalid free", 1, "Frees a pointer 1 byte inside a live block.", case_free_unaligned},
    {"free-mmap", "invalid free", 1, "Frees a page that came from mmap, not from malloc.", case_free_mmap},
    {"overflow-1", "overflow", 1, "Writes 1 byte past the end of a 24-byte block.", case_overflow_1},
    {"overflow-16", "overflow", 1, "Writes 16 bytes past the end of a 24-byte block.", case_overflow_16},
    {"underflow", "overflow", 1, "Writes the 8 bytes just before a block.", case_underflow},
    {"write-after-free", "use after free", 1, "Writes over a whole 64-byte block after freeing it.",
     case_write_after_free},
    {"read-after-free", "use after free", 1, "Reads a block after freeing it and says whether its data is still there.",
     case_read_after_free},
    {"freelist-overwrite", "use after free", 1,
     "Overwrites the start of two freed blocks with an address, as an attack on a free list would.",
     case_freelist_overwrite},
    {"malloc-size-max", "sizes", 1, "Asks malloc for SIZE_MAX bytes.", case_malloc_size_max},
    {"malloc-size-near-max", "sizes", 1, "Asks malloc for SIZE_MAX - 4095 bytes, which wraps when rounded up to a page.",
     case_malloc_size_near_max},
    {"malloc-ptrdiff-max", "sizes", 1, "Asks malloc for PTRDIFF_MAX + 1 bytes, more than any object may have.",
     case_malloc_ptrdiff_max},
    {"calloc-overflow", "sizes", 1, "Calls calloc with a count and a size whose product wraps to 2 bytes.",
     case_calloc_overflow},
    {"reallocarray-overflow", "sizes", 1, "Calls reallocarray with a count and a size whose product wraps to 2 bytes.",
     case_reallocarray_overflow},
    {"memalign-bad-alignment", "alignment", 1, "Calls memalign with alignment 24, not a power of two.",
     case_memalign_bad_alignment},
    {"aligned-alloc-bad-alignment", "alignment", 1, "Calls aligned_alloc with alignment 24, not a power of two.",
     case_aligned_alloc_bad_alignment},
    {"posix-memalign-bad-alignment", "alignment", 1, "Calls posix_memalign with alignment 24, not a power of two.",
     case_posix_memalign_bad_alignment},
    {"memalign-huge-alignment", "alignment", 1, "Calls memalign with alignment 2^62, which no block can have.",
     case_memalign_huge_alignment},
    {"realloc-zero", "edge", 0, "Calls realloc with size 0, whose result the C standard leaves to the library.",
     case_realloc_zero},
    {"malloc-zero", "edge", 0, "Calls malloc(0) twice and compares the two pointers.", case_malloc_zero},
};
const size_t safety_case_count = sizeof safety_cases / sizeof safety_cases[0];
