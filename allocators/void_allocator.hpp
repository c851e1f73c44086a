// The void baseline: returns one fixed buffer (cache-hot for small blocks) for every request and frees nothing.
// Running a workload on it measures everything except the allocator (sampling, loop, touching
// memory that stays in cache), which the harness subtracts from every real allocator's figure.
#pragma once

#include <cstddef>
#include <string_view>

#include "allocator.hpp"
#include "void_buffer.hpp"

namespace allocstress {

class VoidAllocator {
 public:
  // pre: max_block_bytes >= every size later passed to allocate().  The buffer is mapped and
  // written here, i.e. before the measured phase, so it counts as harness memory, not overhead;
  // its memory is bounded (void_buffer.hpp: at most 64 MiB whatever the largest request).
  explicit VoidAllocator(std::size_t max_block_bytes) : buffer_(max_block_bytes) {}

  void* allocate(std::size_t /*n*/) { return buffer_.data(); }
  void deallocate(void* /*p*/, std::size_t /*n*/) {}
  // The replay's optional capabilities: the same buffer, no copying, no zeroing (allocator work).
  void* reallocate(void* /*p*/, std::size_t /*old_n*/, std::size_t /*n*/) { return buffer_.data(); }
  void* allocate_zeroed(std::size_t /*n*/) { return buffer_.data(); }
  void* allocate_aligned(std::size_t /*n*/, std::size_t /*alignment*/) { return buffer_.data(); }
  static constexpr std::string_view name() { return "void"; }

 private:
  VoidBuffer buffer_;  // page-aligned: every alignment a workload asks for up to 4 KiB
};

static_assert(Allocator<VoidAllocator>);

}  // namespace allocstress
