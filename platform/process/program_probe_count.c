/* The counting half of liballocstress_probe_count.so (program_probe.c is the reporting half and
 * states the model): interposes the malloc family and C++ operator new/delete, forwards every call
 * to the next definition and counts the allocation calls of its process from __libc_start_main.
 * Same rules as the reporting half: C only, hidden symbols except the interposed ones. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/process/program_probe_count.h"

#define PROBE_API __attribute__((visibility("default")))

atomic_ulong g_calls;

/* The program's calls start at __libc_start_main, which _start calls through the PLT once every
 * shared library is initialised (the executable's own constructors run inside it).  Calls before
 * it are the libraries' initialisation, not the program's: the allocator's own dlsym allocates
 * (jemalloc: 1 call in coreutils' true, which never calls malloc; glibc: none).  They are
 * dropped here.  A program that does not start through glibc's __libc_start_main is counted
 * from its load. */
typedef int (*main_fn)(int, char**, char**);
typedef int (*start_main_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);
PROBE_API int __libc_start_main(main_fn main, int argc, char** argv, void (*init)(void), void (*fini)(void),
                                void (*rtld_fini)(void), void* stack_end) {
  start_main_fn next_start;
  *(void**)&next_start = dlsym(RTLD_NEXT, "__libc_start_main");
  if (next_start == NULL) _exit(127);  /* cannot happen in a glibc process; never run main unstarted */
  atomic_store_explicit(&g_calls, 0, memory_order_relaxed);
  return next_start(main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* ---- counting interposers ------------------------------------------------------------------
 * Each forwards to the next definition (dlsym(RTLD_NEXT), resolved once, on the first call or at
 * load) and counts the allocation calls: malloc, calloc, realloc, reallocarray, the memalign
 * family, operator new.  While the thread resolving them is inside dlsym, which may allocate, its
 * calls are served from a static arena that free() ignores.  A `new` that the next library
 * implements with malloc (libstdc++'s does, jemalloc's and tcmalloc's do not) counts once: the
 * thread's malloc inside it is not counted.  With no operator new after this library (a C
 * program), new and delete fall back to malloc and free, consistently for the whole process. */

typedef void* (*malloc_fn)(size_t);
typedef void* (*calloc_fn)(size_t, size_t);
typedef void* (*realloc_fn)(void*, size_t);
typedef void* (*reallocarray_fn)(void*, size_t, size_t);
typedef void (*free_fn)(void*);
typedef int (*posix_memalign_fn)(void**, size_t, size_t);
typedef void* (*aligned_fn)(size_t, size_t);
typedef void* (*new_fn)(size_t);
typedef void* (*new_nothrow_fn)(size_t, const void*);
typedef void* (*new_aligned_fn)(size_t, size_t);
typedef void* (*new_aligned_nothrow_fn)(size_t, size_t, const void*);
typedef void (*delete_fn)(void*);
typedef void (*delete_sized_fn)(void*, size_t);

static struct {
  malloc_fn malloc;
  calloc_fn calloc;
  realloc_fn realloc;
  reallocarray_fn reallocarray;
  free_fn free;
  posix_memalign_fn posix_memalign;
  aligned_fn aligned_alloc, memalign;
  malloc_fn valloc, pvalloc;
  new_fn new_, new_array;
  new_nothrow_fn new_nothrow, new_array_nothrow;
  new_aligned_fn new_aligned, new_array_aligned;
  new_aligned_nothrow_fn new_aligned_nothrow, new_array_aligned_nothrow;
  delete_fn delete_, delete_array;
  delete_sized_fn delete_sized, delete_array_sized, delete_aligned, delete_array_aligned;
  void (*delete_sized_aligned)(void*, size_t, size_t);
  void (*delete_array_sized_aligned)(void*, size_t, size_t);
  int cxx;  /* operator new/delete found after this library */
} next;

static atomic_int g_state;  /* 0 unresolved, 1 resolving, 2 resolved */
/* volatile: glibc declares dlsym a leaf, so the compiler would drop the store around it. */
static __thread volatile int t_resolving __attribute__((tls_model("initial-exec")));
static __thread int t_in_new __attribute__((tls_model("initial-exec")));

enum { kArenaBytes = 64 * 1024, kArenaHeader = 16 };
static _Alignas(64) unsigned char g_arena[kArenaBytes];
static atomic_size_t g_arena_used;

static int in_arena(const void* p) {
  return (const unsigned char*)p >= g_arena && (const unsigned char*)p < g_arena + kArenaBytes;
}
/* Zeroed (never reused); its size stored in the 16 bytes before it. */
static void* arena_alloc(size_t n, size_t align) {
  if (align < kArenaHeader) align = kArenaHeader;
  if (n > kArenaBytes || align > 4096) return NULL;
  const size_t need = (n + kArenaHeader + align + 15) & ~(size_t)15;
  const size_t at = atomic_fetch_add(&g_arena_used, need);
  if (at + need > kArenaBytes) return NULL;
  uintptr_t p = (uintptr_t)(g_arena + at + kArenaHeader);
  p = (p + align - 1) & ~(uintptr_t)(align - 1);
  memcpy((void*)(p - sizeof(size_t)), &n, sizeof n);
  return (void*)p;
}
static size_t arena_size(const void* p) {
  size_t n;
  memcpy(&n, (const unsigned char*)p - sizeof n, sizeof n);
  return n;
}

#define RESOLVE(slot, name) (*(void**)&next.slot = dlsym(RTLD_NEXT, name))

void resolve_next(void) {
  if (atomic_load_explicit(&g_state, memory_order_acquire) == 2) return;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&g_state, &expected, 1)) {
    while (atomic_load_explicit(&g_state, memory_order_acquire) != 2) sched_yield();  /* another thread */
    return;
  }
  t_resolving = 1;
  RESOLVE(malloc, "malloc");
  RESOLVE(free, "free");
  RESOLVE(calloc, "calloc");
  RESOLVE(realloc, "realloc");
  RESOLVE(reallocarray, "reallocarray");
  RESOLVE(posix_memalign, "posix_memalign");
  RESOLVE(aligned_alloc, "aligned_alloc");
  RESOLVE(memalign, "memalign");
  RESOLVE(valloc, "valloc");
  RESOLVE(pvalloc, "pvalloc");
  RESOLVE(new_, "_Znwm");
  RESOLVE(new_array, "_Znam");
  RESOLVE(new_nothrow, "_ZnwmRKSt9nothrow_t");
  RESOLVE(new_array_nothrow, "_ZnamRKSt9nothrow_t");
  RESOLVE(new_aligned, "_ZnwmSt11align_val_t");
  RESOLVE(new_array_aligned, "_ZnamSt11align_val_t");
  RESOLVE(new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t");
  RESOLVE(new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t");
  RESOLVE(delete_, "_ZdlPv");
  RESOLVE(delete_array, "_ZdaPv");
  RESOLVE(delete_sized, "_ZdlPvm");
  RESOLVE(delete_array_sized, "_ZdaPvm");
  RESOLVE(delete_aligned, "_ZdlPvSt11align_val_t");
  RESOLVE(delete_array_aligned, "_ZdaPvSt11align_val_t");
  RESOLVE(delete_sized_aligned, "_ZdlPvmSt11align_val_t");
  RESOLVE(delete_array_sized_aligned, "_ZdaPvmSt11align_val_t");
  /* All of them, or the fallback for all: a block from one family is never freed by the other. */
  next.cxx = next.new_ && next.new_array && next.new_nothrow && next.new_array_nothrow && next.new_aligned &&
             next.new_array_aligned && next.new_aligned_nothrow && next.new_array_aligned_nothrow && next.delete_ &&
             next.delete_array && next.delete_sized && next.delete_array_sized && next.delete_aligned &&
             next.delete_array_aligned && next.delete_sized_aligned && next.delete_array_sized_aligned;
  t_resolving = 0;
  atomic_store_explicit(&g_state, 2, memory_order_release);
}

static inline void count(void) {
  if (!t_in_new) atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed);
}

PROBE_API void* malloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 16);
  resolve_next();
  count();
  return next.malloc(n);
}

PROBE_API void* calloc(size_t k, size_t n) {
  if (t_resolving) {
    size_t bytes;
    return __builtin_mul_overflow(k, n, &bytes) ? NULL : arena_alloc(bytes, 16);
  }
  resolve_next();
  count();
  return next.calloc(k, n);
}

PROBE_API void free(void* p) {
  if (p == NULL || in_arena(p)) return;
  if (t_resolving) return;  /* cannot happen: nothing but the arena was handed out yet */
  resolve_next();
  next.free(p);
}

PROBE_API void* realloc(void* p, size_t n) {
  if (t_resolving || in_arena(p)) {
    void* q = t_resolving ? arena_alloc(n, 16) : malloc(n);
    if (q != NULL && p != NULL) {
      const size_t old = arena_size(p);
      memcpy(q, p, old < n ? old : n);
    }
    return q;
  }
  resolve_next();
  count();
  return next.realloc(p, n);
}

PROBE_API void* reallocarray(void* p, size_t k, size_t n) {
  size_t bytes;
  if (t_resolving || in_arena(p)) {
    if (__builtin_mul_overflow(k, n, &bytes)) {
      errno = ENOMEM;
      return NULL;
    }
    return realloc(p, bytes);
  }
  resolve_next();
  count();
  if (next.reallocarray != NULL) return next.reallocarray(p, k, n);
  if (__builtin_mul_overflow(k, n, &bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  return next.realloc(p, bytes);
}

PROBE_API int posix_memalign(void** out, size_t align, size_t n) {
  if (t_resolving) {
    *out = arena_alloc(n, align);
    return *out != NULL ? 0 : ENOMEM;
  }
  resolve_next();
  count();
  return next.posix_memalign(out, align, n);
}

PROBE_API void* aligned_alloc(size_t align, size_t n) {
  if (t_resolving) return arena_alloc(n, align);
  resolve_next();
  count();
  return next.aligned_alloc(align, n);
}

PROBE_API void* memalign(size_t align, size_t n) {
  if (t_resolving) return arena_alloc(n, align);
  resolve_next();
  count();
  return next.memalign(align, n);
}

PROBE_API void* valloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 4096);
  resolve_next();
  count();
  return next.valloc(n);
}

PROBE_API void* pvalloc(size_t n) {
  if (t_resolving) return arena_alloc(n, 4096);
  resolve_next();
  count();
  return next.pvalloc(n);
}

/* operator new/delete.  The next `new` runs with t_in_new set (its malloc is not counted again);
 * the flag is a depth restored by a cleanup that also runs when it throws (-fexceptions). */
static void leave_new(int* saved) { t_in_new = *saved; }
#define INSIDE_NEW int saved_in_new __attribute__((cleanup(leave_new))) = t_in_new; t_in_new = 1

static void* fallback_new(size_t n, int nothrow) {
  void* p = next.malloc(n != 0 ? n : 1);
  if (p == NULL && !nothrow) abort();  /* no libstdc++ to throw std::bad_alloc with */
  return p;
}
static void* fallback_new_aligned(size_t n, size_t align, int nothrow) {
  void* p = NULL;
  if (next.posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n != 0 ? n : 1) != 0) p = NULL;
  if (p == NULL && !nothrow) abort();
  return p;
}

#define NEW_BODY(call, fallback) \
  resolve_next();                \
  count();                       \
  if (!next.cxx) return fallback; \
  INSIDE_NEW;                    \
  return call

PROBE_API void* _Znwm(size_t n) { NEW_BODY(next.new_(n), fallback_new(n, 0)); }
PROBE_API void* _Znam(size_t n) { NEW_BODY(next.new_array(n), fallback_new(n, 0)); }
PROBE_API void* _ZnwmRKSt9nothrow_t(size_t n, const void* tag) { NEW_BODY(next.new_nothrow(n, tag), fallback_new(n, 1)); }
PROBE_API void* _ZnamRKSt9nothrow_t(size_t n, const void* tag) { NEW_BODY(next.new_array_nothrow(n, tag), fallback_new(n, 1)); }
PROBE_API void* _ZnwmSt11align_val_t(size_t n, size_t a) { NEW_BODY(next.new_aligned(n, a), fallback_new_aligned(n, a, 0)); }
PROBE_API void* _ZnamSt11align_val_t(size_t n, size_t a) { NEW_BODY(next.new_array_aligned(n, a), fallback_new_aligned(n, a, 0)); }
PROBE_API void* _ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void* tag) {
  NEW_BODY(next.new_aligned_nothrow(n, a, tag), fallback_new_aligned(n, a, 1));
}
PROBE_API void* _ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t a, const void* tag) {
  NEW_BODY(next.new_array_aligned_nothrow(n, a, tag), fallback_new_aligned(n, a, 1));
}

#define DELETE_BODY(call)                        \
  if (p == NULL || in_arena(p)) return;          \
  resolve_next();                                \
  if (next.cxx) call;                            \
  else next.free(p)

PROBE_API void _ZdlPv(void* p) { DELETE_BODY(next.delete_(p)); }
PROBE_API void _ZdaPv(void* p) { DELETE_BODY(next.delete_array(p)); }
PROBE_API void _ZdlPvm(void* p, size_t n) { DELETE_BODY(next.delete_sized(p, n)); }
PROBE_API void _ZdaPvm(void* p, size_t n) { DELETE_BODY(next.delete_array_sized(p, n)); }
PROBE_API void _ZdlPvSt11align_val_t(void* p, size_t a) { DELETE_BODY(next.delete_aligned(p, a)); }
PROBE_API void _ZdaPvSt11align_val_t(void* p, size_t a) { DELETE_BODY(next.delete_array_aligned(p, a)); }
PROBE_API void _ZdlPvmSt11align_val_t(void* p, size_t n, size_t a) { DELETE_BODY(next.delete_sized_aligned(p, n, a)); }
PROBE_API void _ZdaPvmSt11align_val_t(void* p, size_t n, size_t a) { DELETE_BODY(next.delete_array_sized_aligned(p, n, a)); }
