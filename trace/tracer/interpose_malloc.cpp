// The C allocation functions: malloc, calloc, realloc, reallocarray, free, posix_memalign,
// aligned_alloc, memalign, valloc, pvalloc.  Each forwards to the next definition (glibc's or a
// later preloaded allocator's) and records one event (traced_call.hpp).  Before the real
// functions are known (the dlsym bootstrap) malloc/calloc are served from the static arena.
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "traced_call.hpp"

#define ALLOCSTRESS_EXPORT extern "C" __attribute__((visibility("default"), flatten))

using namespace allocstress::tracer;

namespace {

std::size_t page_size() {
  static std::size_t cached = 0;  // benign race: every thread computes the same value
  if (cached == 0) cached = std::size_t(sysconf(_SC_PAGESIZE));
  return cached;
}

// Saturating product, as calloc/reallocarray record it (the call fails on overflow anyway).
std::size_t product(std::size_t a, std::size_t b) {
  std::size_t p;
  return __builtin_mul_overflow(a, b, &p) ? SIZE_MAX : p;
}

}  // namespace

ALLOCSTRESS_EXPORT void* malloc(std::size_t size) noexcept {
  return traced_allocation(TraceOp::malloc, size, 0, __builtin_return_address(0), [&] {
    auto* real = g_real.malloc;
    return real != nullptr ? real(size) : arena_allocate(size, 16);
  });
}

ALLOCSTRESS_EXPORT void* calloc(std::size_t count, std::size_t size) noexcept {
  return traced_allocation(TraceOp::calloc, product(count, size), 0, __builtin_return_address(0), [&] {
    auto* real = g_real.calloc;
    if (real != nullptr) return real(count, size);
    const std::size_t n = product(count, size);
    return n == SIZE_MAX ? nullptr : arena_allocate(n, 16);
  });
}

ALLOCSTRESS_EXPORT void free(void* p) noexcept {
  if (__builtin_expect(arena_owns(p), 0)) return;
  traced_free(TraceOp::free, p, 0, 0, __builtin_return_address(0), [&] { g_real.free(p); });
}

// A bootstrap-arena block handed to realloc moves to the real allocator (a malloc event).
static void* realloc_arena_block(void* old, std::size_t size) {
  void* p = malloc(size);
  if (p != nullptr) {
    const std::size_t old_size = arena_block_size(old);
    std::memcpy(p, old, old_size < size ? old_size : size);
  }
  return p;
}

ALLOCSTRESS_EXPORT void* realloc(void* old, std::size_t size) noexcept {
  if (__builtin_expect(arena_owns(old), 0)) return realloc_arena_block(old, size);
  return traced_reallocation(TraceOp::realloc, old, size, __builtin_return_address(0), [&] { return g_real.realloc(old, size); });
}

ALLOCSTRESS_EXPORT void* reallocarray(void* old, std::size_t count, std::size_t size) noexcept {
  if (__builtin_expect(arena_owns(old), 0)) {
    const std::size_t n = product(count, size);
    if (n == SIZE_MAX) {
      errno = ENOMEM;
      return nullptr;
    }
    return realloc_arena_block(old, n);
  }
  return traced_reallocation(TraceOp::reallocarray, old, product(count, size), __builtin_return_address(0), [&]() -> void* {
    if (g_real.reallocarray != nullptr) return g_real.reallocarray(old, count, size);
    const std::size_t n = product(count, size);
    if (n == SIZE_MAX) {
      errno = ENOMEM;
      return nullptr;
    }
    return g_real.realloc(old, n);
  });
}

ALLOCSTRESS_EXPORT int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  int result = 0;
  traced_allocation(TraceOp::posix_memalign, size, alignment, __builtin_return_address(0), [&]() -> void* {
    result = g_real.posix_memalign(out, alignment, size);
    return result == 0 ? *out : nullptr;
  });
  return result;
}

// aligned_alloc, memalign, valloc and pvalloc may be missing from a preloaded allocator; the
// next definition is then glibc's (the same pairing the program would get without the tracer).
ALLOCSTRESS_EXPORT void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  return traced_allocation(TraceOp::aligned_alloc, size, alignment, __builtin_return_address(0),
                           [&] { return next_function(g_real.aligned_alloc, "aligned_alloc")(alignment, size); });
}

ALLOCSTRESS_EXPORT void* memalign(std::size_t alignment, std::size_t size) noexcept {
  return traced_allocation(TraceOp::memalign, size, alignment, __builtin_return_address(0),
                           [&] { return next_function(g_real.memalign, "memalign")(alignment, size); });
}

ALLOCSTRESS_EXPORT void* valloc(std::size_t size) noexcept {
  return traced_allocation(TraceOp::valloc, size, page_size(), __builtin_return_address(0),
                           [&] { return next_function(g_real.valloc, "valloc")(size); });
}

ALLOCSTRESS_EXPORT void* pvalloc(std::size_t size) noexcept {
  return traced_allocation(TraceOp::pvalloc, size, page_size(), __builtin_return_address(0),
                           [&] { return next_function(g_real.pvalloc, "pvalloc")(size); });
}
