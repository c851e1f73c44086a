// `pool`: size-segregated pools with no per-block header (BACKGROUND §2, Gleipnir's pool
// allocator).  A request is rounded up to its size class -- 16-byte steps up to 256 B, then four
// classes per power of two up to 1 MiB -- and served from that class's free list, else carved
// from the class's current page-aligned chunk (64 KiB, or 4 blocks for big classes).  Freed blocks
// go back on their class's free list (an intrusive next pointer in the block); chunks are kept
// until the allocator is destroyed.  Blocks above 1 MiB are mapped and unmapped one by one.
// Unlike Gleipnir's pool, free is O(1): the Allocator contract passes the block's size, so the
// owning pool need not be searched for.
#pragma once

#include <bit>
#include <cstddef>
#include <string_view>

#include "allocator.hpp"
#include "os_chunks.hpp"

namespace allocstress {

class PoolAllocator {
 public:
  static constexpr std::size_t kMaxPooledBytes = std::size_t{1} << 20;
  static constexpr unsigned kClasses = 16 + 4 * 12;  // 16..256 by 16; then (256, 1 MiB] in quarters
  static constexpr std::size_t kChunkBytes = std::size_t{64} << 10;

  explicit PoolAllocator(std::size_t /*max_block_bytes*/) {}

  void* allocate(std::size_t n) {
    if (n > kMaxPooledBytes) return chunks_.map(n);
    Pool& pool = pools_[class_of(n)];
    if (pool.free_list != nullptr) {
      void* block = pool.free_list;
      pool.free_list = *static_cast<void**>(block);
      return block;
    }
    const std::size_t size = class_size(class_of(n));
    if (size > std::size_t(pool.end - pool.next)) {
      const std::size_t chunk = size * 4 > kChunkBytes ? size * 4 : kChunkBytes;
      auto* p = static_cast<std::byte*>(chunks_.map(chunk));
      if (p == nullptr) return nullptr;
      pool.next = p;
      pool.end = p + chunk;
    }
    void* block = pool.next;
    pool.next += size;
    return block;
  }

  void deallocate(void* p, std::size_t n) {
    if (n > kMaxPooledBytes) return chunks_.unmap(p, n);
    Pool& pool = pools_[class_of(n)];
    *static_cast<void**>(p) = pool.free_list;
    pool.free_list = p;
  }

  std::size_t mapped_bytes() const { return chunks_.mapped_bytes(); }
  static constexpr std::string_view name() { return "pool"; }

  // pre: 0 < n <= kMaxPooledBytes.
  static constexpr unsigned class_of(std::size_t n) {
    if (n <= 256) return unsigned((n + 15) / 16) - 1;
    const unsigned k = unsigned(std::bit_width(n - 1)) - 1;  // 2^k < n <= 2^(k+1)
    const std::size_t quarter = std::size_t{1} << (k - 2);
    const unsigned sub = unsigned((n - (std::size_t{1} << k) + quarter - 1) / quarter);  // 1..4
    return 16 + (k - 8) * 4 + (sub - 1);
  }
  static constexpr std::size_t class_size(unsigned c) {
    if (c < 16) return 16 * std::size_t(c + 1);
    const unsigned k = 8 + (c - 16) / 4;
    return (std::size_t{1} << k) + ((c - 16) % 4 + 1) * (std::size_t{1} << (k - 2));
  }

 private:
  struct Pool {
    void* free_list = nullptr;
    std::byte* next = nullptr;  // carving cursor in the current chunk
    std::byte* end = nullptr;
  };
  ChunkSource chunks_;
  Pool pools_[kClasses];
};

static_assert(Allocator<PoolAllocator>);
static_assert(PoolAllocator::class_size(PoolAllocator::kClasses - 1) == PoolAllocator::kMaxPooledBytes);
static_assert(PoolAllocator::class_of(257) == 16 && PoolAllocator::class_size(16) == 320);

}  // namespace allocstress
