// `eqclass`: the equivalence-class (cache-conscious) allocator of the Gleipnir experiments
// (BACKGROUND §2).  Every block is placed so that its address maps to a chosen set of the L1 data
// cache (geometry from hwloc: S sets of `line` bytes; the mapping repeats every S * line bytes).
//
// Policy: a block of k lines (k = ceil(n / line) <= S) gets a start set from a cursor that walks
// the sets, advancing k sets per block.  The first K blocks (assumed hot: a tree's top levels, a
// list's head) spread over all S sets; later blocks only over the upper half, so cold late blocks
// do not evict hot early ones.  K is 1000 as published, or ALLOCSTRESS_EQCLASS_HOT_BLOCKS from
// the environment (recorded in the results' context.allocator_environment).  A workload that knows better passes a
// PlacementHint: hot blocks walk all sets, cold blocks the upper half, whatever the counter says.
//
// Mechanics: one free list per (k, start set).  When it is empty, a run of lcm(k, S) lines is
// carved from the current arena, starting at the first line whose set is congruent to the wanted
// set modulo gcd(k, S); that yields one block for every start set of that residue class, and at
// most gcd(k, S) - 1 lines are skipped.  A freed block goes back on the list of the set its
// address maps to.  Blocks larger than S lines cannot be steered and are served by a PoolAllocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <numeric>
#include <string_view>

#include "allocator.hpp"
#include "platform/profilers/cache_geometry.hpp"
#include "os_chunks.hpp"
#include "pool_allocator.hpp"

namespace allocstress {

class EqClassAllocator {
 public:
  static constexpr std::size_t kWalkAllSetsBlocks = 1000;  // "the first ~1000 nodes" of the dissertation
  static constexpr const char* kHotBlocksVariable = "ALLOCSTRESS_EQCLASS_HOT_BLOCKS";

  // K: kWalkAllSetsBlocks, or the environment's override.  Throws std::invalid_argument naming
  // the variable when it is set to anything but a whole number in 0..1e12.
  static std::size_t hot_blocks_from_environment() {
    const char* text = std::getenv(kHotBlocksVariable);
    if (text == nullptr) return kWalkAllSetsBlocks;
    const std::string s(text);
    if (s.empty() || s.size() > 13 || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(std::string(kHotBlocksVariable) + "='" + s + "' is not a whole number (accepted: 0..1000000000000)");
    return std::size_t(std::stoull(s));
  }
  static constexpr std::size_t kArenaBytes = std::size_t{4} << 20;

  explicit EqClassAllocator(std::size_t max_block_bytes, const CacheGeometry& geometry = l1_data_cache())
      : line_(geometry.line), sets_(geometry.sets()), hot_blocks_(hot_blocks_from_environment()), large_(max_block_bytes) {
    heads_ = static_cast<void**>(chunks_.map(sets_ * sets_ * sizeof(void*)));
    if (heads_ == nullptr) throw std::bad_alloc();
  }
  EqClassAllocator(const EqClassAllocator&) = delete;
  EqClassAllocator& operator=(const EqClassAllocator&) = delete;

  void* allocate(std::size_t n) { return allocate(n, PlacementHint::none); }

  void* allocate(std::size_t n, PlacementHint hint) {
    const std::size_t k = lines_of(n);
    if (k > sets_) return large_.allocate(n);
    const std::size_t set = next_start_set(k, hint);
    void*& head = heads_[(k - 1) * sets_ + set];
    if (head == nullptr && !carve(k, set)) return nullptr;
    void* block = head;
    head = *static_cast<void**>(block);
    return block;
  }

  void deallocate(void* p, std::size_t n) {
    const std::size_t k = lines_of(n);
    if (k > sets_) return large_.deallocate(p, n);
    void*& head = heads_[(k - 1) * sets_ + set_of(p)];
    *static_cast<void**>(p) = head;
    head = p;
  }

  std::size_t set_of(const void* p) const { return std::size_t(reinterpret_cast<std::uintptr_t>(p) / line_ % sets_); }
  std::size_t sets() const { return sets_; }
  static constexpr std::string_view name() { return "eqclass"; }

 private:
  std::size_t lines_of(std::size_t n) const { return (n + line_ - 1) / line_; }

  std::size_t next_start_set(std::size_t k, PlacementHint hint) {
    const bool all_sets = hint == PlacementHint::hot || (hint == PlacementHint::none && counter_ < hot_blocks_);
    ++counter_;
    if (all_sets) {
      const std::size_t s = all_cursor_;
      all_cursor_ = (all_cursor_ + k) % sets_;
      return s;
    }
    // Upper half: starts that keep the block inside [S/2, S) when it fits there.
    const std::size_t half = sets_ / 2;
    const std::size_t starts = k < half ? half - k + 1 : 1;
    const std::size_t s = half + upper_cursor_ % starts;
    upper_cursor_ = (upper_cursor_ + k) % starts;
    return s;
  }

  // Fills the free lists of every start set congruent to `set` modulo gcd(k, S).
  bool carve(std::size_t k, std::size_t set) {
    const std::size_t g = std::gcd(k, sets_);
    const std::size_t blocks = sets_ / g;
    const std::size_t run_bytes = blocks * k * line_;
    auto first_line_at_or_after = [&](std::byte* p) {
      const std::size_t have = set_of(p) % g, want = set % g;
      return p + ((want + g - have) % g) * line_;
    };
    std::byte* start = arena_next_ == nullptr ? nullptr : first_line_at_or_after(arena_next_);
    if (start == nullptr || start + run_bytes > arena_end_) {
      auto* chunk = static_cast<std::byte*>(chunks_.map(kArenaBytes, line_ * sets_));
      if (chunk == nullptr) return false;
      arena_end_ = chunk + kArenaBytes;
      start = first_line_at_or_after(chunk);
    }
    arena_next_ = start + run_bytes;
    for (std::size_t j = blocks; j-- > 0;) {  // push in reverse: the lowest address is handed out first
      std::byte* block = start + j * k * line_;
      void*& head = heads_[(k - 1) * sets_ + set_of(block)];
      *reinterpret_cast<void**>(block) = head;
      head = block;
    }
    return true;
  }

  std::size_t line_, sets_;
  std::size_t hot_blocks_;  // K
  ChunkSource chunks_;
  PoolAllocator large_;
  void** heads_ = nullptr;  // [k - 1][start set]
  std::byte* arena_next_ = nullptr;
  std::byte* arena_end_ = nullptr;
  std::size_t counter_ = 0, all_cursor_ = 0, upper_cursor_ = 0;
};

static_assert(Allocator<EqClassAllocator>);
static_assert(HasPlacementHint<EqClassAllocator>);

}  // namespace allocstress
