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
// Mechanics (due_queue.hpp).  Pending frees sit in a two-level timing wheel (DueQueue): lists per
// due time for the current window of 65536 allocations, chunked lists per later window, filed
// into the first level when the clock enters their window; a block is filed at most twice, so
// every operation is O(1) amortised.  Live blocks are records in a pool mapped from the OS (never from the
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
#include "workloads/lifetimes/due_queue.hpp"
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
// due), adding to `out`, and to `window_live_sum` the live bytes after each allocation from the
// steady-state window's start on (the window ends at N: a soak round, past N, passes a sum it
// discards).  Stops early when the allocator returns nullptr.  A block is filed for
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
    window_live_sum += t >= window_begin ? live : 0;
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
    detail::LiveBytesSum discarded = 0;  // past N: outside the window
    detail::run_lifetime_allocations<kAccess>(alloc, workspace, none, out, count, discarded);
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
