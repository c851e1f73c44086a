// The next definitions of the interposed functions (dlsym(RTLD_NEXT, ...)): glibc's, or those of
// an allocator preloaded after the tracer (LD_PRELOAD=liballocstress_trace.so:libjemalloc.so.2).
//
// Bootstrap: dlsym itself allocates (its error state), i.e. it re-enters the tracer's malloc
// before any real malloc is known.  Those few requests are served from a static arena; frees of
// arena blocks are ignored (arena_owns()), the arena is never reused.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>

namespace allocstress::tracer {

// Operator new/delete are called through these C-compatible types: std::align_val_t is an
// enumeration over size_t and std::nothrow_t is passed by reference, so (size_t, align_val_t)
// and (size_t, size_t), (void*, const nothrow_t&) and (void*, const void*) have the same ABI.
using NewFn = void* (*)(std::size_t);
using NewAlignedFn = void* (*)(std::size_t, std::size_t);
using NewNothrowFn = void* (*)(std::size_t, const void*);
using NewAlignedNothrowFn = void* (*)(std::size_t, std::size_t, const void*);
using DeleteFn = void (*)(void*);
using DeleteSizedFn = void (*)(void*, std::size_t);  // also (void*, align_val_t)
using DeleteSizedAlignedFn = void (*)(void*, std::size_t, std::size_t);
using DeleteNothrowFn = void (*)(void*, const void*);
using DeleteAlignedNothrowFn = void (*)(void*, std::size_t, const void*);

struct RealFunctions {
  void* (*malloc)(std::size_t);
  void* (*calloc)(std::size_t, std::size_t);
  void* (*realloc)(void*, std::size_t);
  void* (*reallocarray)(void*, std::size_t, std::size_t);
  void (*free)(void*);
  int (*posix_memalign)(void**, std::size_t, std::size_t);
  void* (*aligned_alloc)(std::size_t, std::size_t);
  void* (*memalign)(std::size_t, std::size_t);
  void* (*valloc)(std::size_t);
  void* (*pvalloc)(std::size_t);
  NewFn op_new, op_new_array;
  NewNothrowFn op_new_nothrow, op_new_array_nothrow;
  NewAlignedFn op_new_aligned, op_new_array_aligned;
  NewAlignedNothrowFn op_new_aligned_nothrow, op_new_array_aligned_nothrow;
  DeleteFn op_delete, op_delete_array;
  DeleteSizedFn op_delete_sized, op_delete_array_sized, op_delete_aligned, op_delete_array_aligned;
  DeleteSizedAlignedFn op_delete_sized_aligned, op_delete_array_sized_aligned;
  DeleteNothrowFn op_delete_nothrow, op_delete_array_nothrow;
  DeleteAlignedNothrowFn op_delete_aligned_nothrow, op_delete_array_aligned_nothrow;
  int (*execve)(const char*, char* const[], char* const[]);
  int (*execvp)(const char*, char* const[]);
  int (*execvpe)(const char*, char* const[], char* const[]);
  int (*fexecve)(int, char* const[], char* const[]);
  void (*exit_now)(int);  // _exit
  void (*exit_now_c99)(int);  // _Exit
  int (*sigaction)(int, const struct sigaction*, struct sigaction*);
};

extern RealFunctions g_real;
// True once every g_real entry is resolved (acquire: the entries are then visible).
extern std::atomic<bool> g_resolved;

// Resolves g_real; called once, with the calling thread's recursion guard held.  A missing
// malloc-family symbol is fatal (one line on stderr, abort): nothing could be forwarded.
void resolve_real_functions();

// Operator new/delete of a libstdc++ loaded after start-up (dlopen, e.g. a Python extension):
// the slot is filled on first use.  Fatal when no later library defines `name`.
void* resolve_late_symbol(const char* name);
template <class Fn>
Fn next_function(Fn& slot, const char* name) {
  Fn fn = __atomic_load_n(&slot, __ATOMIC_RELAXED);
  if (__builtin_expect(fn != nullptr, 1)) return fn;
  fn = reinterpret_cast<Fn>(resolve_late_symbol(name));
  __atomic_store_n(&slot, fn, __ATOMIC_RELAXED);
  return fn;
}

// The bootstrap arena (see above).  arena_allocate returns zeroed memory, nullptr when full.
inline constexpr std::size_t kArenaBytes = 64 * 1024;  // dlsym needs well under 1 KiB; the rest is margin
extern unsigned char g_arena[kArenaBytes];
void* arena_allocate(std::size_t size, std::size_t alignment);
inline bool arena_owns(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  return b >= g_arena && b < g_arena + kArenaBytes;
}
// Size of an arena block (for realloc of one).
std::size_t arena_block_size(const void* p);

}  // namespace allocstress::tracer
