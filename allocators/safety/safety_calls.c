/* The size, alignment and edge cases of allocstress-safety-probe (the rest and the table of
 * cases are in safety_cases.c).
 *
 * Model: each makes one allocator call with an impossible or edge argument (step misuse) and
 * reports what came back without touching it: a block (`outcome silent returned a block ...`)
 * or a refusal (`outcome error <errno name>`, or the code posix_memalign returned).
 *
 * Contract: as safety_cases.c; malloc-zero alone has a follow step (a second malloc(0)). */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <errno.h>

enum { BLOCK = 64 };

/* The size and alignment cases: one call, never touched. */
static _Noreturn void block_or_error(const void* r, int error, const char* request) {
  struct line l;
  if (r == NULL) {
    line_start(&l, "outcome error ");
    line_errno(&l, error);
  } else {
    line_start(&l, "outcome silent returned a block ");
    line_hex(&l, (uintptr_t)r);
    line_str(&l, " for ");
    line_str(&l, request);
  }
  outcome_line(&l);
}
#define SIZE_CASE(fn, call, request) \
  void fn(void) {                     \
    step("setup");                    \
    step("misuse");                   \
    errno = 0;                        \
    const void* r = (call);           \
    block_or_error(r, errno, request); \
  }
SIZE_CASE(case_malloc_size_max, heap.malloc(SIZE_MAX), "SIZE_MAX bytes")
SIZE_CASE(case_malloc_size_near_max, heap.malloc(SIZE_MAX - 4095), "SIZE_MAX - 4095 bytes")
SIZE_CASE(case_malloc_ptrdiff_max, heap.malloc((size_t)PTRDIFF_MAX + 1), "PTRDIFF_MAX + 1 bytes")
SIZE_CASE(case_calloc_overflow, heap.calloc(SIZE_MAX / 2 + 2, 2), "a count times size that wraps to 2 bytes")

/* glibc's reallocarray checks the product itself before it calls the preloaded realloc: say so. */
void case_reallocarray_overflow(void) {
  step("setup");
  step("misuse");
  errno = 0;
  const void* r = heap.reallocarray != NULL ? heap.reallocarray(NULL, SIZE_MAX / 2 + 2, 2) : NULL;
  const int error = errno;
  if (r != NULL || same_object_as_malloc("reallocarray"))
    block_or_error(r, error, "a count times size that wraps to 2 bytes");
  struct line l;
  line_start(&l, "outcome error ");
  line_errno(&l, error);
  line_str(&l, " (from the reallocarray of ");
  const char* from = symbol_object("reallocarray");
  line_str(&l, from != NULL ? from : "nowhere: no object defines it");
  line_str(&l, ", not the allocator's)");
  outcome_line(&l);
}
SIZE_CASE(case_memalign_bad_alignment, heap.memalign ? heap.memalign(24, BLOCK) : NULL, "alignment 24")
SIZE_CASE(case_aligned_alloc_bad_alignment, heap.aligned_alloc ? heap.aligned_alloc(24, BLOCK) : NULL,
          "alignment 24")
SIZE_CASE(case_memalign_huge_alignment, heap.memalign ? heap.memalign((size_t)1 << 62, BLOCK) : NULL,
          "alignment 2^62")

void case_posix_memalign_bad_alignment(void) {
  void* r = NULL;
  step("setup");
  step("misuse");
  errno = 0;
  const int rc = heap.posix_memalign(&r, 24, BLOCK);
  block_or_error(rc == 0 ? r : NULL, rc, "alignment 24");
}

void case_realloc_zero(void) {
  step("setup");
  void* p = must_malloc(BLOCK);
  step("misuse");
  errno = 0;
  void* q = heap.realloc(p, 0);
  const int error = errno;
  struct line l;
  if (q == NULL) {
    line_start(&l, "outcome error ");
    line_errno(&l, error);
    line_str(&l, " NULL, the block freed");
  } else {
    line_start(&l, "outcome silent returned a block ");
    line_hex(&l, (uintptr_t)q);
  }
  outcome_line(&l);
}

void case_malloc_zero(void) {
  step("setup");
  step("misuse");
  errno = 0;
  void* a = heap.malloc(0);
  if (a == NULL) block_or_error(NULL, errno, "");
  step("follow");
  void* b = heap.malloc(0);
  if (b == a) harm_at("malloc(0) returned the same pointer twice", a);
  outcome("silent", b != NULL ? "unique block" : "unique block (the second malloc(0) returned NULL)");
}
