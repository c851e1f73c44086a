// The void baseline: returns one fixed, cache-hot buffer for every request and frees nothing.
// Running a workload on it measures everything except the allocator (sampling, loop, touching
// memory that stays in cache), which the harness subtracts from every real allocator's figure.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string_view>

#include "allocator.hpp"

namespace allocstress {

class VoidAllocator {
 public:
  // pre: max_block_bytes >= every size later passed to allocate().  The buffer is allocated and
  // touched here, i.e. before the measured phase, so it counts as harness memory, not overhead.
  explicit VoidAllocator(std::size_t max_block_bytes)
      : bytes_(round_up(max_block_bytes)),
        buffer_(static_cast<std::byte*>(std::aligned_alloc(kAlignment, bytes_))) {
    if (buffer_ == nullptr) throw std::bad_alloc();
    for (std::size_t i = 0; i < bytes_; ++i) buffer_[i] = std::byte{0};
  }
  ~VoidAllocator() { std::free(buffer_); }
  VoidAllocator(const VoidAllocator&) = delete;
  VoidAllocator& operator=(const VoidAllocator&) = delete;

  void* allocate(std::size_t /*n*/) { return buffer_; }
  void deallocate(void* /*p*/, std::size_t /*n*/) {}
  // The replay's optional capabilities: the same buffer, no copying, no zeroing (allocator work).
  void* reallocate(void* /*p*/, std::size_t /*old_n*/, std::size_t /*n*/) { return buffer_; }
  void* allocate_zeroed(std::size_t /*n*/) { return buffer_; }
  void* allocate_aligned(std::size_t /*n*/, std::size_t /*alignment*/) { return buffer_; }
  static constexpr std::string_view name() { return "void"; }

 private:
  static constexpr std::size_t kAlignment = 64;
  static std::size_t round_up(std::size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

  std::size_t bytes_;
  std::byte* buffer_;
};

static_assert(Allocator<VoidAllocator>);

}  // namespace allocstress
