/* The conformance mode of allocstress-safety-probe (properties: safety_samples.c).
 *
 * Model: conformance checks what every C program assumes of malloc, kind by kind (alignment,
 * aligned_alloc, posix_memalign, memalign, realloc, calloc, malloc_usable_size).  No fault
 * handler runs in this mode: a crash kills the process, and the last `check <kind>` line says
 * where.
 *
 * Contract (stdout):
 *   conformance: per kind `check <kind>` then `ok <kind>`, `fail <kind>: <reason>` (the first
 *                failure of the kind only; the other kinds still run) or `skip <kind>: <why>`
 *                (an entry point this process gets from another object than malloc's: calling
 *                it and freeing its block with this malloc would crash); last `done`, exit 0. */
#define _GNU_SOURCE
#include "safety_probe.h"

#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <unistd.h>

enum { SMALL_SIZES = 2048, LARGE_SIZES = 22, ALL_SIZES = SMALL_SIZES + LARGE_SIZES };

/* 1..2048, then 2^k and 3 * 2^k for k = 12..22 (4 KiB .. 4 MiB, and three times those). */
static size_t size_at(size_t i) {
  if (i < SMALL_SIZES) return i + 1;
  const size_t j = i - SMALL_SIZES;
  return ((size_t)1 << (12 + j / 2)) * (j % 2 == 0 ? 1 : 3);
}

static void fail_start(struct line* l, const char* kind) {
  line_start(l, "fail ");
  line_str(l, kind);
  line_str(l, ": ");
}
static void say2(const char* first, const char* kind) {
  struct line l;
  line_start(&l, first);
  line_str(&l, kind);
  line_emit(&l, STDOUT_FILENO);
}
static void null_failure(const char* kind, const char* call, size_t a, size_t n, int error) {
  struct line l;
  fail_start(&l, kind);
  line_str(&l, call);
  line_str(&l, "(");
  if (a != 0) {
    line_dec(&l, a);
    line_str(&l, ", ");
  }
  line_dec(&l, n);
  line_str(&l, ") failed: ");
  line_errno(&l, error);
  line_emit(&l, STDOUT_FILENO);
}
/* "<call>(<a>, <n>) returned 0x..., not aligned to <want>" (a == 0: no alignment argument). */
static void misaligned(struct line* l, const char* call, size_t a, size_t n, const void* p, size_t want) {
  line_str(l, call);
  line_str(l, "(");
  if (a != 0) {
    line_dec(l, a);
    line_str(l, ", ");
  }
  line_dec(l, n);
  line_str(l, ") returned ");
  line_hex(l, (uintptr_t)p);
  line_str(l, ", not aligned to ");
  line_dec(l, want);
}

/* The weak reading of the alignment rule (C2x, N2293): a block need only suit the types that fit
 * in it, so malloc(n) must be aligned to min(alignof(max_align_t), the largest power of 2 <= n). */
static size_t weak_alignment(size_t n) {
  size_t a = 1;
  while (a * 2 <= n && a * 2 <= alignof(max_align_t)) a *= 2;
  return a;
}

/* Every size held live at once.  The rule checked: every block of n bytes is aligned to
 * min(alignof(max_align_t), the largest power of 2 <= n), so every size class of 16 bytes or more
 * to alignof(max_align_t) -- C23's wording (N2293), which allows what jemalloc, tcmalloc, mimalloc
 * and tbbmalloc do: blocks under 16 bytes aligned to 8.  Such blocks get a `note` line; a block
 * that breaks the rule fails (its size, address and the alignment it needed). */
static int check_alignment(int unused) {
  (void)unused;
  static void* live[ALL_SIZES];
  size_t count = 0, strict_n = 0, weak_n = 0;
  const void *strict_p = NULL, *weak_p = NULL;
  for (size_t i = 0; i < ALL_SIZES; i++) {
    const size_t n = size_at(i);
    errno = 0;
    void* p = heap.malloc(n);
    if (p == NULL) {
      null_failure("alignment", "malloc", 0, n, errno);
      for (size_t j = 0; j < count; j++) heap.free(live[j]);
      return 0;
    }
    live[count++] = p;
    if (strict_n == 0 && (uintptr_t)p % alignof(max_align_t) != 0) {
      strict_n = n;
      strict_p = p;
    }
    if (weak_n == 0 && (uintptr_t)p % weak_alignment(n) != 0) {
      weak_n = n;
      weak_p = p;
    }
  }
  for (size_t i = 0; i < count; i++) heap.free(live[i]);
  struct line l;
  if (weak_n != 0) {
    fail_start(&l, "alignment");
    misaligned(&l, "malloc", 0, weak_n, weak_p, weak_alignment(weak_n));
    line_str(&l, weak_alignment(weak_n) == alignof(max_align_t) ? " (alignof(max_align_t))" : " (the largest power of 2 <= the size)");
    line_emit(&l, STDOUT_FILENO);
    return 0;
  }
  if (strict_n != 0) {
    line_start(&l, "note alignment: ");
    misaligned(&l, "malloc", 0, strict_n, strict_p, alignof(max_align_t));
    line_str(&l, ", which C23 allows for a block under alignof(max_align_t) bytes");
    line_emit(&l, STDOUT_FILENO);
  }
  return 1;
}

/* kind 0: aligned_alloc(a, 2a) for a = 16..64 KiB; 1: posix_memalign(&p, a, 100) and 2:
 * memalign(a, 100) for a = 8..64 KiB. */
static int check_aligned_entry(int kind) {
  static const char* const names[] = {"aligned_alloc", "posix_memalign", "memalign"};
  for (size_t a = kind == 0 ? 16 : 8; a <= 65536; a *= 2) {
    const size_t n = kind == 0 ? 2 * a : 100;
    void* p = NULL;
    int error = 0;
    errno = 0;
    if (kind == 0) {
      p = heap.aligned_alloc(a, n);
      error = errno;
    } else if (kind == 1) {
      error = heap.posix_memalign(&p, a, n);
      if (error != 0) p = NULL;
    } else {
      p = heap.memalign(a, n);
      error = errno;
    }
    if (p == NULL) {
      null_failure(names[kind], names[kind], a, n, error);
      return 0;
    }
    const int ok = (uintptr_t)p % a == 0;
    if (!ok) {
      struct line l;
      fail_start(&l, names[kind]);
      misaligned(&l, names[kind], a, n, p, a);
      line_emit(&l, STDOUT_FILENO);
    }
    heap.free(p);
    if (!ok) return 0;
  }
  return 1;
}

static unsigned char pattern(size_t i) { return (unsigned char)(i % 251 + 1); }

static int check_realloc(int unused) {
  (void)unused;
  static const size_t steps[] = {8, 16, 100, 1000, 100000, 1u << 20, 50, 7};
  unsigned char* p = heap.malloc(steps[0]);
  if (p == NULL) {
    null_failure("realloc", "malloc", 0, steps[0], errno);
    return 0;
  }
  for (size_t i = 0; i < steps[0]; i++) p[i] = pattern(i);
  for (size_t s = 1; s < sizeof steps / sizeof steps[0]; s++) {
    const size_t old = steps[s - 1], n = steps[s], kept = old < n ? old : n;
    errno = 0;
    unsigned char* q = heap.realloc(p, n);
    if (q == NULL) {
      null_failure("realloc", "realloc", 0, n, errno);
      heap.free(p);
      return 0;
    }
    for (size_t i = 0; i < kept; i++) {
      if (q[i] == pattern(i)) continue;
      struct line l;
      fail_start(&l, "realloc");
      line_str(&l, "realloc(");
      line_hex(&l, (uintptr_t)p);
      line_str(&l, ", ");
      line_dec(&l, n);
      line_str(&l, ") returned ");
      line_hex(&l, (uintptr_t)q);
      line_str(&l, " without byte ");
      line_dec(&l, i);
      line_str(&l, " of the old block");
      line_emit(&l, STDOUT_FILENO);
      heap.free(q);
      return 0;
    }
    for (size_t i = kept; i < n; i++) q[i] = pattern(i);
    p = q;
  }
  heap.free(p);
  return 1;
}

static int check_calloc(int unused) {
  (void)unused;
  static const size_t sizes[] = {16, 100, 1000, 10000, 100000, 1u << 20};
  static unsigned char* many[64];
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const size_t n = sizes[s];
    for (size_t i = 0; i < 64; i++) {
      many[i] = heap.malloc(n);
      if (many[i] != NULL) memset(many[i], 0xFF, n);
    }
    for (size_t i = 0; i < 64; i++) heap.free(many[i]);
    int ok = 1;
    for (size_t i = 0; i < 64; i++) {
      errno = 0;
      many[i] = heap.calloc(1, n);
      if (many[i] == NULL && ok) {
        null_failure("calloc", "calloc", 1, n, errno);
        ok = 0;
      }
      for (size_t b = 0; ok && many[i] != NULL && b < n; b++) {
        if (many[i][b] == 0) continue;
        struct line l;
        fail_start(&l, "calloc");
        line_str(&l, "calloc(1, ");
        line_dec(&l, n);
        line_str(&l, ") returned ");
        line_hex(&l, (uintptr_t)many[i]);
        line_str(&l, " with byte ");
        line_dec(&l, b);
        line_str(&l, " not zero");
        line_emit(&l, STDOUT_FILENO);
        ok = 0;
      }
    }
    for (size_t i = 0; i < 64; i++) heap.free(many[i]);
    if (!ok) return 0;
  }
  return 1;
}

static int check_usable_size(int unused) {
  (void)unused;
  for (size_t i = 0; i < ALL_SIZES; i++) {
    const size_t n = size_at(i);
    void* p = heap.malloc(n);
    if (p == NULL) {
      null_failure("malloc_usable_size", "malloc", 0, n, errno);
      return 0;
    }
    const size_t usable = heap.malloc_usable_size(p);
    heap.free(p);
    if (usable >= n) continue;
    struct line l;
    fail_start(&l, "malloc_usable_size");
    line_str(&l, "malloc_usable_size(");
    line_hex(&l, (uintptr_t)p);
    line_str(&l, ") = ");
    line_dec(&l, usable);
    line_str(&l, " for malloc(");
    line_dec(&l, n);
    line_str(&l, ")");
    line_emit(&l, STDOUT_FILENO);
    return 0;
  }
  return 1;
}

/* An entry point from another object than malloc's would hand out (or read) blocks of another
 * heap: the check is skipped, naming where it comes from. */
static int provided(const char* kind, const char* symbol) {
  if (same_object_as_malloc(symbol)) return 1;
  const char* from = symbol_object("malloc");
  struct line l;
  line_start(&l, "skip ");
  line_str(&l, kind);
  line_str(&l, ": not provided by ");
  line_str(&l, from != NULL ? from : "the malloc of this process");
  line_emit(&l, STDOUT_FILENO);
  return 0;
}

static void run_kind(const char* kind, const char* symbol, int (*check)(int), int arg) {
  say2("check ", kind);
  if (symbol != NULL && !provided(kind, symbol)) return;
  if (check(arg)) say2("ok ", kind);
}

_Noreturn void run_conformance(void) {
  run_kind("alignment", NULL, check_alignment, 0);
  run_kind("aligned_alloc", "aligned_alloc", check_aligned_entry, 0);
  run_kind("posix_memalign", "posix_memalign", check_aligned_entry, 1);
  run_kind("memalign", "memalign", check_aligned_entry, 2);
  run_kind("realloc", NULL, check_realloc, 0);
  run_kind("calloc", NULL, check_calloc, 0);
  run_kind("malloc_usable_size", "malloc_usable_size", check_usable_size, 0);
  say("done");
  _exit(0);
}
