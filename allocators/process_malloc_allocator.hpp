// The process's own malloc/free: glibc, or whatever drop-in library LD_PRELOAD put first.
// Every drop-in allocator in allocators/manifest.tsv is measured through this one backend; the
// cell verifies beforehand that `malloc` really resolves into the expected library.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdlib>
#include <string_view>

#include "allocator.hpp"

namespace allocstress {

class ProcessMallocAllocator {
 public:
  explicit ProcessMallocAllocator(std::size_t /*max_block_bytes*/) {}

  void* allocate(std::size_t n) { return std::malloc(n); }
  void deallocate(void* p, std::size_t /*n*/) { std::free(p); }
  // The replay's optional capabilities (workloads/replay/replay_loop.hpp): the library's own calls.
  void* reallocate(void* p, std::size_t /*old_n*/, std::size_t n) { return std::realloc(p, n); }
  void* allocate_zeroed(std::size_t n) { return std::calloc(1, n); }
  void* allocate_aligned(std::size_t n, std::size_t alignment) {
    void* p = nullptr;
    return posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, n) == 0 ? p : nullptr;
  }
  std::size_t usable_size(void* p) { return malloc_usable_size(p); }
  static constexpr std::string_view name() { return "malloc"; }
};

static_assert(Allocator<ProcessMallocAllocator>);
static_assert(HasUsableSize<ProcessMallocAllocator>);

}  // namespace allocstress
