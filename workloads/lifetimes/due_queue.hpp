// The lifetime engine's bookkeeping (workloads/lifetimes/lifetime_workload.hpp): the records of
// live blocks, pools of them mapped from the OS (never from the allocator under test), and the
// timing wheel of pending frees.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocstress {

// One live block of the workload: 16 bytes, so records never straddle cache lines.
struct LiveBlock {
  void* block;
  std::uint32_t size;  // 0 = record unused (sizes are 1..kMaxFittedBlockSize)
  std::uint32_t next;  // link in a due list or in the pool's free list
};
static_assert(sizeof(LiveBlock) == 16);

namespace detail {
// Maps `new_bytes` from the OS (old == nullptr) or grows `old` to it (mremap, may move).
// Throws std::bad_alloc.
void* map_bytes(void* old, std::size_t old_bytes, std::size_t new_bytes);
void unmap_bytes(void* p, std::size_t bytes);
}  // namespace detail

// Items (with a `std::uint32_t next` field) in memory mapped from the OS, never from the
// allocator under test, handed out by index and reused last-returned-first.  Grows (mremap)
// when full: only the dry run grows a pool; the measured run's pools are sized by the dry run.
template <class T>
class MappedPool {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  MappedPool() = default;
  ~MappedPool() {
    if (base_ != nullptr) detail::unmap_bytes(base_, capacity_ * sizeof(T));
  }
  MappedPool(const MappedPool&) = delete;
  MappedPool& operator=(const MappedPool&) = delete;

  T* items() { return base_; }
  std::uint32_t take() {
    if (free_head_ != kNone) {
      const std::uint32_t i = free_head_;
      free_head_ = base_[i].next;
      return i;
    }
    if (used_ == capacity_) [[unlikely]] grow();
    return used_++;
  }
  void give_back(std::uint32_t i) {
    base_[i].next = free_head_;
    free_head_ = i;
  }
  // Items ever handed out since reset(): the peak number in use at once.
  std::uint32_t high_water() const { return used_; }
  // Empties the pool, keeping room for `items` items, zeroed (so their pages are resident).
  void reset(std::size_t items) {
    while (capacity_ < items) grow();
    if (items > 0) std::memset(static_cast<void*>(base_), 0, items * sizeof(T));
    used_ = 0;
    free_head_ = kNone;
  }

 private:
  void grow() {
    const std::size_t items = capacity_ < 1024 ? 1024 : std::min<std::size_t>(capacity_ * 2, kNone);
    base_ = static_cast<T*>(detail::map_bytes(base_, capacity_ * sizeof(T), items * sizeof(T)));
    capacity_ = items;
  }
  T* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::uint32_t used_ = 0;
  std::uint32_t free_head_ = kNone;
};

// Pending frees, by due time (times are allocation numbers; advance() must be called with
// now = 0, 1, 2, ... in order).  A two-level timing wheel over the 32-bit clock:
//   level 0  65536 lists (linked through LiveBlock::next) of the records due at each time of
//            the current window of 65536 allocations;
//   level 1  per later window, a list of chunks of (record, due within the window) entries.
// When the clock enters a window, its level-1 entries are filed into level 0.  Chunks are
// contiguous, so that step streams through them and does not chase links through the (cold)
// records of long-lived blocks.  Every block is filed at most twice: O(1) per operation.
class DueQueue {
 public:
  static constexpr unsigned kWindowBits = 16;
  static constexpr std::uint32_t kWindow = 1u << kWindowBits;

  DueQueue();  // the list heads are mapped from the OS, like the pools
  ~DueQueue();
  DueQueue(const DueQueue&) = delete;
  DueQueue& operator=(const DueQueue&) = delete;
  // Empties the queue, keeping room for the chunks the last use needed at its peak.
  void reset();

  // Files record i, due at `due` > now.
  void insert(LiveBlock* records, std::uint32_t i, std::uint32_t due, std::uint32_t now) {
    if ((due ^ now) < kWindow) {
      records[i].next = now_[due & (kWindow - 1)];
      now_[due & (kWindow - 1)] = i;
      return;
    }
    std::uint32_t& head = later_[due >> kWindowBits];
    if (head == kNone || chunks_.items()[head].count == kChunkEntries) [[unlikely]] {
      const std::uint32_t c = chunks_.take();
      chunks_.items()[c].count = 0;
      chunks_.items()[c].link = head;
      head = c;
    }
    Chunk& chunk = chunks_.items()[head];
    chunk.record[chunk.count] = i;
    chunk.offset[chunk.count++] = static_cast<std::uint16_t>(due);
  }
  // Moves the clock to `now` and calls on_due(i) for every record due at now (i is unlinked
  // first).  Also prefetches the first record due kPrefetchAhead allocations later: the record
  // of a long-lived block is cold, and its miss would otherwise stall the free.
  template <class F>
  void advance(LiveBlock* records, std::uint32_t now, F&& on_due) {
    if ((now & (kWindow - 1)) == 0) [[unlikely]] enter_window(records, now >> kWindowBits);
    const std::uint32_t ahead = now_[(now + kPrefetchAhead) & (kWindow - 1)];
    if (ahead != kNone) __builtin_prefetch(records + ahead);
    std::uint32_t& head = now_[now & (kWindow - 1)];
    std::uint32_t i = head;
    head = kNone;
    while (i != kNone) {
      const std::uint32_t next = records[i].next;
      on_due(i);
      i = next;
    }
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  static constexpr std::uint32_t kChunkEntries = 20;
  static constexpr std::uint32_t kPrefetchAhead = 16;
  struct Chunk {
    std::uint32_t next;   // free list of the pool
    std::uint32_t link;   // the window's next chunk
    std::uint32_t count;
    std::uint32_t record[kChunkEntries];
    std::uint16_t offset[kChunkEntries];  // due time within the window
  };
  void enter_window(LiveBlock* records, std::uint32_t window);
  std::uint32_t* now_;    // kWindow list heads: level 0
  std::uint32_t* later_;  // kWindow chunk-list heads: level 1, by window
  MappedPool<Chunk> chunks_;
};

}  // namespace allocstress
