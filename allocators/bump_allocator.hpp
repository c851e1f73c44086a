// `bump`: a monotonic allocator that never reuses memory.  Blocks are laid out back to back in
// allocation order (16-byte aligned) inside 64 MiB chunks; deallocate does nothing.  It is the
// ideal-locality, zero-bookkeeping reference for the data-structure workloads: nodes allocated
// together sit together, with no headers between them.
// Memory grows with every allocation, so long alloc-test runs exhaust the process budget of
// os_chunks.hpp and the cell fails with "allocation ... returned nullptr" -- by design.
#pragma once

#include <cstddef>
#include <string_view>

#include "allocator.hpp"
#include "os_chunks.hpp"

namespace allocstress {

class BumpAllocator {
 public:
  static constexpr std::size_t kAlignment = 16;
  static constexpr std::size_t kChunkBytes = std::size_t{64} << 20;

  explicit BumpAllocator(std::size_t /*max_block_bytes*/) {}

  void* allocate(std::size_t n) {
    n = round_up(n, kAlignment);
    if (n > std::size_t(end_ - next_)) {
      const std::size_t chunk = n > kChunkBytes ? round_up(n, ChunkSource::page_size()) : kChunkBytes;
      auto* p = static_cast<std::byte*>(chunks_.map(chunk));
      if (p == nullptr) return nullptr;
      next_ = p;
      end_ = p + chunk;
    }
    void* block = next_;
    next_ += n;
    return block;
  }
  void deallocate(void* /*p*/, std::size_t /*n*/) {}
  static constexpr std::string_view name() { return "bump"; }

 private:
  ChunkSource chunks_;
  std::byte* next_ = nullptr;
  std::byte* end_ = nullptr;
};

static_assert(Allocator<BumpAllocator>);

}  // namespace allocstress
