// Workload `fitted`: an alloc-test-family loop driven by empirical size and lifetime
// distributions, as `allocstress fit` derives them from a trace (trace_fit.hpp; parameters and
// file format: lifetime_params.hpp).
//
// Model.  Each worker thread makes N = allocations_per_thread allocations, numbered 0..N-1; the
// allocation number is the thread's clock.  Allocation #t draws, independently of everything
// else,
//   - a size from the size table (a row chosen by weight, then a size uniform in its min..max),
//   - a lifetime L from the lifetime table in the same way, or "never" with probability
//     immortal_share -- the table and share of the block's size class when the parameters have
//     lifetime_classes (the first class with size <= max_size; else the top-level ones);
// and the block is freed right before allocation #(t+L): L = 1 frees it before the very next
// allocation.  Blocks due at the same time are freed one after the other, then the allocation
// follows.  A block that is never freed, or whose due time is N or later, stays live to the end
// of the loop; the release step (release_lifetime_blocks, outside the measured phase) frees it.
// A soak (`lifetime --soak`, continue_lifetime_thread) runs the clock on past N in rounds: the
// same draws, and every block whose lifetime is finite is freed when due, also after N.
// Every block is written whole on allocation and read back whole before it is freed, with the
// same code as alloc-test (MemoryAccess: none, touch, write, write_read), so a scribbling allocator
// changes read_checksum.  Threads are independent (no cross-thread frees, as in alloc-test).
// The operation stream is a pure function of (parameters, seed, thread index), never of the
// allocator or the access mode; op_stream_hash proves which stream was measured.
//
// Also measured (a 128-bit add per allocation): the mean of the live requested bytes right after
// each allocation #t over the second half of the clock, t = floor(N/2) .. N-1.  That window is
// in steady state for every law whose lifetimes are at most floor(N/2) (the lifetime models',
// lifetime_models.hpp): there E[live] = E[size x lifetime], Little's law, exactly.
//
// Not modelled: correlation between size and lifetime other than through size classes, or
// between either and time (phases, a program's ramp-up and teardown), cross-thread frees,
// realloc, alignment.
//
// Mechanics.  Pending frees sit in a two-level timing wheel (DueQueue): lists per due time for
// the current window of 65536 allocations, chunked lists per later window, filed into the first
// level when the clock enters their window; a block is filed at most twice, so every operation
// is O(1) amortised.  Live blocks are records in a pool mapped from the OS (never from the
// allocator under test), reused last-freed-first.  The pools are sized and touched by a dry run
// of the thread's own stream when the workspace is made (before the measured phase), so the
// measured loop allocates nothing of its own.  Per allocation the loop draws 4 random numbers
// (2 per table) where alloc-test draws 3 per malloc/free pair.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "allocators/allocator.hpp"
#include "workloads/alias_table.hpp"
#include "workloads/alloc_test.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {

// Draws a value from a table of weighted ranges (ValueRange) in O(1) and without data-dependent
// branches: Walker/Vose alias table over the rows; one 64-bit draw picks the row (high 32 bits:
// the column by multiply-shift, low 32 bits: the coin between the column's row and its alias),
// a second draw the value inside the row by multiply-shift (drawn for one-value rows too, so the
// stream never branches on the row).
class RangeSampler {
 public:
  // pre: rows non-empty, weights >= 0 with a positive finite sum, min <= max (validate() ensures it).
  explicit RangeSampler(const std::vector<ValueRange>& rows);

  template <class Rng>
  std::uint64_t sample(Rng& rng) const {
    const std::uint64_t r = rng();
    const std::uint64_t column = ((r >> 32) * columns_.size()) >> 32;
    const AliasColumn& c = columns_[column];
    const Row& row = rows_[static_cast<std::uint32_t>(r) < c.threshold ? column : c.alias];
    return row.min + multiply_high(rng(), row.span + 1);
  }

  // The probability with which sample() picks row i, as realised by the 32-bit coins.
  double row_probability(std::size_t i) const { return probability_[i]; }
  // The largest value sample() can return (over rows of positive weight).
  std::uint64_t max_value() const { return max_value_; }

 private:
  struct Row {
    std::uint64_t min, span;  // span = max - min
  };
  static std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) {
    __extension__ using U128 = unsigned __int128;
    return static_cast<std::uint64_t>((U128(a) * U128(b)) >> 64);
  }
  std::vector<AliasColumn> columns_;
  std::vector<Row> rows_;
  std::vector<double> probability_;
  std::uint64_t max_value_ = 0;
};

// The sampling side of a LifetimeParams, built once per cell and shared read-only by workers.
// A lifetime is drawn from the law of the block's size class: a scan of the classes' max_size
// (none without classes), then the same two draws as without classes, so a parameter set
// without classes gives the stream it gave before classes existed.
class LifetimeModel {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};  // the lifetime of an immortal block

  // Validates `params` (std::invalid_argument as validate()).
  explicit LifetimeModel(const LifetimeParams& params);

  const LifetimeParams& params() const { return params_; }
  // Largest size the model can draw: what an allocator's constructor is told.
  std::size_t max_size() const { return static_cast<std::size_t>(sizes_.max_value()); }
  template <class Rng> std::uint64_t draw_size(Rng& rng) const { return sizes_.sample(rng); }
  // A lifetime for a block of `size` bytes (kNever: immortal).
  template <class Rng>
  std::uint64_t draw_lifetime(Rng& rng, std::uint64_t size) const {
    std::size_t c = 0;
    while (c < class_max_size_.size() && size > class_max_size_[c]) ++c;
    return lifetimes_[c].sample(rng);
  }

 private:
  LifetimeParams params_;
  RangeSampler sizes_;
  std::vector<std::uint64_t> class_max_size_;  // lifetime_classes' max_size, ascending
  std::vector<RangeSampler> lifetimes_;        // one per class, then the top-level law
};

// What one worker thread of the lifetime engine did: the alloc-test-family counts, and the mean
// live requested bytes over the steady-state window (the second half of the clock, see above).
struct LifetimeThreadOutcome : AllocTestThreadOutcome {
  std::uint64_t window_allocations = 0;      // allocations made in the window
  double window_mean_live_requested_bytes = 0;  // 0 when none was
};

// The first allocation number of the steady-state window of a loop of n allocations.
constexpr std::uint64_t lifetime_window_begin(std::uint64_t n) { return n / 2; }

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

// Everything one worker thread of the fitted workload owns: its random stream, its live-block
// pool and due queue.  Made before the measured phase (it runs a dry run of the thread's stream
// to size the pool); used for one run.
class LifetimeWorkspace {
 public:
  // `model` must outlive the workspace.
  LifetimeWorkspace(const LifetimeModel& model, unsigned thread_index);
  LifetimeWorkspace(const LifetimeWorkspace&) = delete;
  LifetimeWorkspace& operator=(const LifetimeWorkspace&) = delete;

  // What the dry run saw: the outcome the measured run will report for a correct allocator
  // (mallocs, frees, peak/end and window live bytes, op_stream_hash; read_checksum 0: it touches
  // no memory).
  const LifetimeThreadOutcome& planned() const { return planned_; }
  // The peak number of blocks live at once in this thread's stream.
  std::uint32_t planned_peak_live_blocks() const { return planned_peak_blocks_; }
  // The records in use since the run began; those with size != 0 are live blocks (after the
  // loop: the ones the release step frees).
  std::span<LiveBlock> records() { return {pool.items(), pool.high_water()}; }

  const LifetimeModel& model;
  WorkloadRng rng;
  MappedPool<LiveBlock> pool;
  DueQueue queue;
  // The loop's clock: allocations made so far, the number of the next one (a soak continues it past N).
  std::uint64_t clock = 0;
  // A soak: blocks due at N or later are filed too, up to kSoakReach allocations ahead (the loop).
  // Set after construction, before the run: the dry run is a single run.
  bool soaking = false;
  static constexpr std::uint64_t kSoakReach = std::uint64_t{1} << 31;

 private:
  LifetimeThreadOutcome planned_;
  std::uint32_t planned_peak_blocks_ = 0;
};

namespace detail {

__extension__ using LiveBytesSum = unsigned __int128;  // Σ live over the window: up to 2^32 terms of up to 2^64

// Makes allocations ws.clock .. ws.clock + count - 1 of the thread's stream (frees first what is
// due), adding to `out`, and to `window_live_sum` the live bytes after each allocation of the
// steady-state window.  Stops early when the allocator returns nullptr.  A block is filed for
// its free when it falls due within reach: in one run, before the end of the clock (N); in a
// soak (ws.soaking), less than kSoakReach allocations ahead -- the due queue's 32-bit clock
// wraps, which is harmless below 2^32 - 2^16 -- so that soak rounds free it on time.  A block not
// filed stays live until the release step.
template <MemoryAccess kAccess, Allocator A, class Observer>
void run_lifetime_allocations(A& alloc, LifetimeWorkspace& ws, Observer& observer, LifetimeThreadOutcome& out, std::uint64_t count,
                              LiveBytesSum& window_live_sum) {
  std::uint64_t live = out.end_live_requested_bytes;
  const LifetimeModel& model = ws.model;
  const std::uint64_t n = model.params().allocations_per_thread, window_begin = lifetime_window_begin(n);
  const bool soaking = ws.soaking;  // a local: the block writes (char stores) would make the compiler reload a member
  auto free_block = [&](std::uint32_t i) {
    LiveBlock& b = ws.pool.items()[i];
    free_counted<kAccess>(alloc, observer, out, live, b.block, b.size, i);
    b.size = 0;
    ws.pool.give_back(i);
  };
  const std::uint64_t end = ws.clock + count;
  std::uint64_t t = ws.clock;
  for (; t < end; ++t) {
    const auto now = static_cast<std::uint32_t>(t);
    ws.queue.advance(ws.pool.items(), now, free_block);
    const std::uint64_t size = model.draw_size(ws.rng);
    const std::uint64_t lifetime = model.draw_lifetime(ws.rng, size);
    void* block = allocate_observed(alloc, observer, size);
    if (block == nullptr) [[unlikely]] {
      out.failed_allocation_bytes = size;
      break;
    }
    const std::uint32_t i = ws.pool.take();
    write_block<kAccess>(block, size, static_cast<int>(i & 0xff));
    LiveBlock& b = ws.pool.items()[i];
    b.block = block;
    b.size = static_cast<std::uint32_t>(size);
    if (lifetime < (soaking ? LifetimeWorkspace::kSoakReach : n - t))
      ws.queue.insert(ws.pool.items(), i, static_cast<std::uint32_t>(t + lifetime), now);
    live += size;
    out.peak_live_requested_bytes = live > out.peak_live_requested_bytes ? live : out.peak_live_requested_bytes;
    window_live_sum += t >= window_begin && t < n ? live : 0;
    ++out.mallocs;
    out.op_stream_hash = hash_op(out.op_stream_hash, i, true, size);
  }
  ws.clock = t;
  out.end_live_requested_bytes = live;
}

// The thread's whole stream, allocations 0 .. N-1 (the measured run, and the dry run).
template <MemoryAccess kAccess, Allocator A, class Observer>
LifetimeThreadOutcome run_lifetime_loop(A& alloc, LifetimeWorkspace& ws, Observer& observer) {
  LifetimeThreadOutcome out;
  LiveBytesSum window_live_sum = 0;
  const std::uint64_t n = ws.model.params().allocations_per_thread, window_begin = lifetime_window_begin(n);
  ws.clock = 0;
  run_lifetime_allocations<kAccess>(alloc, ws, observer, out, n, window_live_sum);
  out.window_allocations = out.mallocs > window_begin ? out.mallocs - window_begin : 0;
  if (out.window_allocations > 0) out.window_mean_live_requested_bytes = double(window_live_sum) / double(out.window_allocations);
  return out;
}

}  // namespace detail

// Runs one worker thread of the fitted workload (the model above) against `alloc`.  The caller
// times this call; nothing in it allocates except through `alloc`.  A workspace runs once.
template <Allocator A, class Observer = NoObserver>
LifetimeThreadOutcome run_lifetime_thread(A& alloc, LifetimeWorkspace& workspace, MemoryAccess access,
                                           Observer&& observer = Observer{}) {
  return with_memory_access(access, [&]<MemoryAccess kAccess>() { return detail::run_lifetime_loop<kAccess>(alloc, workspace, observer); });
}

// A soak round: `count` more allocations of the stream, continuing the clock where the last call
// left it (pre: workspace.soaking was set before run_lifetime_thread), adding to `out` (the
// window figures stay the run's).  False when the allocator returned nullptr.  Past N the
// stream is the same model; only the pools may grow (an mremap from the OS), as the dry run
// sized them for N allocations.
template <Allocator A>
bool continue_lifetime_thread(A& alloc, LifetimeWorkspace& workspace, MemoryAccess access, LifetimeThreadOutcome& out, std::uint64_t count) {
  return with_memory_access(access, [&]<MemoryAccess kAccess>() {
    NoObserver none;
    detail::LiveBytesSum outside_the_window = 0;
    detail::run_lifetime_allocations<kAccess>(alloc, workspace, none, out, count, outside_the_window);
    return out.failed_allocation_bytes == 0;
  });
}

// Frees every block still live in `workspace` (teardown, outside the measured phase).
template <Allocator A>
void release_lifetime_blocks(A& alloc, LifetimeWorkspace& workspace) {
  for (LiveBlock& b : workspace.records()) {
    if (b.size == 0) continue;
    alloc.deallocate(b.block, b.size);
    b.size = 0;
  }
}

}  // namespace allocstress
