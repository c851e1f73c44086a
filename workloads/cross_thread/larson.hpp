// Workload `larson` (issue 8; after Larson & Krishnan's server benchmark): slot arrays that pass
// from thread to thread, so that each thread frees a random share of the blocks its predecessor
// left -- with pinned workers and barriers instead of the original's freshly spawned threads.
//
// Model.  T threads, T slot arrays (slots_per_thread slots each), R rounds.  Each thread's
// iterations are split into the R rounds (the first iterations mod R rounds get one more).  In
// round r thread t works on array (t - r) mod T -- i.e. array a goes to thread (a + r) mod T -- and
// runs alloc-test's loop on it (alloc_test.hpp): a Pareto-picked slot that is empty gets a new
// block of a sampled size, written whole; a full slot has its block read back whole (write_read)
// and freed with the thread's own allocator instance.  Then all threads meet at a barrier and the
// arrays rotate.  So from round 1 on, the blocks a thread frees are partly its own (allocated
// since it received the array) and partly those the previous holders left, in the proportion the
// Pareto popularity gives: hot slots turn over within a round, cold ones carry their blocks to
// the next threads.  A remote free is a free of a block another thread allocated; each slot
// records its allocating thread beside its block (LarsonSlot: same 16 bytes as alloc-test's Slot,
// so this costs no extra memory traffic).  One thread, or one round, has no rotation partner:
// every free is local and the stream is alloc-test's (op_stream_hash equal).
//
// Determinism: the rounds are separated by barriers, so everything -- every thread's stream
// (make_thread_rng(seed, t), continued across rounds), which blocks each array holds, who frees
// what -- is a pure function of (params, rounds, seed); only timing depends on scheduling.
//
// Live bytes: a thread's live bytes are those of the array it holds (each array carries its
// count across the hand-over); its peak is the most its arrays held while it held them, and the
// end value is its final array's.  (Summed over threads, as for alloc-test: Σ of per-thread peaks
// >= the process's peak.)
//
// Timing: the barrier waits are timed with `Clock` and reported as wait_ticks so that the caller
// can leave them out of the measured cycles: a round's cost is its own work, not how long the
// slowest thread took.  Void baseline: every slot holds the thread's void buffer; "freeing" a
// buffer another thread's void allocator returned is a no-op, so the baseline includes all the
// work except the allocator's (picking, sizes, memset/read, ownership tracking, the rotation).
#pragma once

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "workloads/cross_thread/cross_thread.hpp"

namespace allocstress {

struct LarsonSlot {
  void* block;
  std::uint32_t size;   // 0 = empty (sizes are < 2^32: E <= 28, fleet <= 4 MiB)
  std::uint32_t owner;  // the thread that allocated the block
};
static_assert(sizeof(LarsonSlot) == 16);

// The shared state of one larson run: T slot arrays in harness memory (MappedArray), the live
// bytes each holds, and the barrier between rounds.  Built before the measured phase.
class LarsonBoard {
 public:
  // pre: threads >= 1, slots_per_array >= ParetoSlotPicker::kMinSlots.
  LarsonBoard(unsigned threads, std::size_t slots_per_array) : live_(threads, 0), barrier_(threads) {
    for (unsigned a = 0; a < threads; ++a) arrays_.push_back(std::make_unique<MappedArray<LarsonSlot>>(slots_per_array));
  }
  unsigned threads() const { return unsigned(arrays_.size()); }
  std::span<LarsonSlot> array(unsigned a) { return arrays_[a]->span(); }
  std::uint64_t& live_bytes(unsigned a) { return live_[a]; }
  // The array thread t holds in round r: array a goes to thread (a + r) mod T.
  unsigned array_of(unsigned t, std::uint64_t round) const {
    const unsigned n = threads();
    return unsigned((t + n - round % n) % n);
  }
  std::barrier<>& barrier() { return barrier_; }
  // As HandoffRing::abandon: a worker that cannot run says so before any worker starts.
  void abandon() { abandoned_.store(true); }
  bool abandoned() const { return abandoned_.load(); }

 private:
  std::vector<std::unique_ptr<MappedArray<LarsonSlot>>> arrays_;
  std::vector<std::uint64_t> live_;  // written by the array's holder; the barrier hands it over
  std::barrier<> barrier_;
  std::atomic<bool> abandoned_{false};
};

// Iterations of round r when `iterations` are split into `rounds`.
constexpr std::uint64_t larson_round_iterations(std::uint64_t iterations, std::uint64_t rounds, std::uint64_t r) {
  return iterations / rounds + (r < iterations % rounds ? 1 : 0);
}

namespace detail {

template <MemoryAccess kAccess, class Clock, Allocator A, class Sizes>
CrossThreadOutcome larson_loop(A& alloc, LarsonBoard& board, const ParetoSlotPicker& picker, const Sizes& sizes,
                               const AllocTestParams& p, std::uint64_t rounds, unsigned t) {
  CrossThreadOutcome out;
  AllocTestThreadOutcome& o = out.base;
  NoObserver observer;
  WaitMeter<Clock> waits;
  WorkloadRng rng = make_thread_rng(p.seed, t);
  bool failed = false;  // the allocator refused: no more work, but every barrier is still met
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const unsigned a = board.array_of(t, r);
    const std::span<LarsonSlot> slots = board.array(a);
    std::uint64_t live = board.live_bytes(a);
    const std::uint64_t n = failed ? 0 : larson_round_iterations(p.iterations_per_thread, rounds, r);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::size_t s = picker.pick(rng());
      LarsonSlot& slot = slots[s];
      if (slot.size == 0) {
        const Slot b = malloc_counted<kAccess>(alloc, observer, sizes, rng, o, live, s);
        if (b.size == 0) [[unlikely]] {
          failed = true;
          break;
        }
        slot = LarsonSlot{b.block, std::uint32_t(b.size), t};
      } else {
        free_counted<kAccess>(alloc, observer, o, live, slot.block, slot.size, s);
        ++(slot.owner == t ? out.local_frees : out.remote_frees);
        slot.size = 0;
      }
    }
    board.live_bytes(a) = live;
    if (r + 1 < rounds) {
      waits.begin();
      board.barrier().arrive_and_wait();
      waits.end();
    }
  }
  o.end_live_requested_bytes = board.live_bytes(board.array_of(t, rounds - 1));
  out.wait_ticks = waits.ticks();
  return out;
}

}  // namespace detail

// Runs thread t's share of a larson run (the model: file comment): p.iterations_per_thread split
// into `rounds` (pre: 1 <= rounds <= p.iterations_per_thread), p.access, p.seed; the board gives
// T.  Every worker of the board must run this (or the board must be abandoned).  The caller times
// the call; Clock times the barrier waits.  Blocks still held at the end stay in the arrays:
// thread t releases its final array, board.array(board.array_of(t, rounds - 1)).
template <class Clock = NoClock, Allocator A, class Sizes>
CrossThreadOutcome run_larson_thread(A& alloc, LarsonBoard& board, const ParetoSlotPicker& picker, const Sizes& sizes,
                                     const AllocTestParams& p, std::uint64_t rounds, unsigned t) {
  if (board.abandoned()) return {};
  return with_memory_access(p.access, [&]<MemoryAccess kAccess>() {
    return detail::larson_loop<kAccess, Clock>(alloc, board, picker, sizes, p, rounds, t);
  });
}

}  // namespace allocstress
