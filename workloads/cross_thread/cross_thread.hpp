// Workload `xthread` (issue 8, cross-thread frees): alloc-test in which a chosen share of the frees
// is done by another thread.
//
// Model.  T worker threads form a ring.  Thread i runs exactly alloc-test's loop over its own
// slots (alloc_test.hpp: same ParetoSlotPicker, same size sampler, same stream
// make_thread_rng(seed, i)), so its slot / size / malloc-or-free stream is alloc-test's.  When it
// picks a full slot, a *separate* stream (make_route_rng(seed, i)) decides with probability
// remote_share whether the block is
//   freed locally   alloc-test's free step: read back whole (write_read), freed, or
//   handed off      pushed, as {block, size}, into the bounded SPSC queue to thread (i+1) mod T
//                   (handoff_queue.hpp); the receiving thread reads it back whole (write_read)
//                   and frees it with its own allocator instance.
// Either way the slot is empty afterwards.  A thread drains its incoming queue every 32
// iterations (kXThreadDrainEvery), and whenever its own push finds the outgoing queue full (a
// waiting producer keeps consuming, so the ring cannot deadlock: every queue's consumer is either
// iterating, which drains, waiting on its own push, which drains, or finishing, which drains).
// After its iterations a thread closes its outgoing queue and drains its incoming one until that
// queue's producer has closed it and it is empty; so every block handed off is freed inside run().
//
// remote_share 0 is exactly alloc-test's stream (no route draws, the queues stay empty; the
// op_stream_hash equals run_alloc_test_thread's); 1 makes every free a remote one (the pure
// producer/consumer pattern in the allocator's view: each thread frees only blocks of its
// predecessor).  One thread has no other thread: its hand-offs go through its own queue and are
// freed by itself up to 32 iterations later (a delayed local free; achieved remote share 0).
//
// Determinism: each thread's allocations, local frees and hand-offs, and each queue's order, are
// pure functions of (params, remote_share, seed, thread); only when a remote free happens relative
// to the consumer's own work depends on scheduling (and therefore the allocator's state at that
// moment, and the read checksum's order of summation -- not its value).
//
// Counts (exact): mallocs, local frees (own blocks), remote frees (blocks another thread
// allocated), hand-offs, pushes that found the queue full, the largest backlog one drain found.
// Live bytes are the bytes held in the thread's slots: a handed-off block leaves its producer's
// count when pushed and is counted by nobody while queued, so the live series -- and the peak --
// is alloc-test's for every remote_share (blowup against share 0 compares equal live bytes) and
// under-counts the true live heap by the queued blocks: at most queue_capacity x max size per
// queue, in practice max_queue_backlog blocks.
//
// Timing: a thread's waits (spells in which its push cannot proceed and there is nothing to
// drain, and the final wait for its producer) are timed with `Clock` and reported as wait_ticks,
// so that the caller can leave them out of the measured cycles: the consumer's slowness already
// shows in the consumer's own cycles.
//
// Void baseline: void's allocate returns the producer's own hot buffer; the hand-off carries it and
// the consumer reads it back and "frees" it (a no-op).  The baseline therefore includes picking,
// sizes, memset and read, the route draws, the queue and the cross-core transfer of the block's
// bytes, and net cycles are the allocator's own cost including the cache effects of its placement.
// (The void buffer is rewritten by its producer while a consumer may read it: its read checksum is
// not deterministic, and the transfer cost of one shared line set differs from distinct blocks'.)
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "allocators/allocator.hpp"
#include "workloads/alloc_test.hpp"
#include "workloads/cross_thread/handoff_queue.hpp"
#include "workloads/pareto_slot_picker.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {

// What one worker thread of xthread or larson did.  All counts are exact.
struct CrossThreadOutcome {
  // mallocs; frees = every free this thread made (local or remote); live bytes (see the models);
  // op_stream_hash over this thread's own stream; read checksum; allocation failure.
  AllocTestThreadOutcome base;
  std::uint64_t local_frees = 0;        // frees of blocks this thread allocated
  std::uint64_t remote_frees = 0;       // frees of blocks another thread allocated
  std::uint64_t handoffs = 0;           // xthread: blocks pushed to the next thread's queue
  std::uint64_t queue_full_waits = 0;   // xthread: pushes that found the queue full
  std::uint64_t max_queue_backlog = 0;  // xthread: the most entries one drain found
  std::uint64_t wait_ticks = 0;         // Clock ticks spent waiting for other threads
};

// The clock of the wait accounting: a type with `static std::uint64_t now()`.  NoClock does not
// time waits (wait_ticks stays 0): unit tests, and callers that measure nothing.  A clock may also
// have `static void pause()` and `static void resume()`: called as a wait spell opens and closes,
// so that whatever else measures the work (callgrind's collection in a counts cell) leaves the
// waits out as the cycles do.
struct NoClock {
  static constexpr std::uint64_t now() { return 0; }
};

// How often (iterations) a thread drains its incoming queue.
inline constexpr std::uint64_t kXThreadDrainEvery = 32;

// The stream that routes xthread's frees: independent of alloc-test's stream of the same thread.
inline WorkloadRng make_route_rng(std::uint64_t run_seed, unsigned thread_index) {
  constexpr std::uint64_t kRouteStream = 0x78746872'65616421ULL;  // "xthread!"
  return make_thread_rng(mix_seed(run_seed ^ kRouteStream), thread_index);
}

// The shared state of one xthread run: queue i carries blocks from thread i to thread (i+1) mod T.
// Built before the measured phase (its memory is harness memory, see MappedArray).
class HandoffRing {
 public:
  // pre: threads >= 1, capacity >= 1.
  HandoffRing(unsigned threads, std::uint64_t capacity) {
    for (unsigned i = 0; i < threads; ++i) queues_.push_back(std::make_unique<HandoffQueue>(capacity));
  }
  unsigned threads() const { return unsigned(queues_.size()); }
  HandoffQueue& outgoing(unsigned thread) { return *queues_[thread]; }
  HandoffQueue& incoming(unsigned thread) { return *queues_[(thread + threads() - 1) % threads()]; }
  // A worker that cannot run says so before any worker starts (measured_phase.hpp's set-up
  // barrier), and then every worker's run returns at once instead of waiting for it.
  void abandon() { abandoned_.store(true); }
  bool abandoned() const { return abandoned_.load(); }

 private:
  std::vector<std::unique_ptr<HandoffQueue>> queues_;
  std::atomic<bool> abandoned_{false};
};

namespace detail {

// Sums Clock ticks over spells of waiting: begin() opens a spell unless one is open, end() closes it.
template <class Clock>
class WaitMeter {
 public:
  void begin() {
    if (open_) return;
    if constexpr (requires { Clock::pause(); }) Clock::pause();
    since_ = Clock::now();
    open_ = true;
  }
  void end() {
    if (!open_) return;
    ticks_ += Clock::now() - since_;
    if constexpr (requires { Clock::resume(); }) Clock::resume();
    open_ = false;
  }
  std::uint64_t ticks() const { return ticks_; }

 private:
  bool open_ = false;
  std::uint64_t since_ = 0, ticks_ = 0;
};

// Decides, per full slot picked, whether its block is handed off (probability `share`).
class RemoteRoute {
 public:
  RemoteRoute(double share, std::uint64_t seed, unsigned thread)
      : always_(share >= 1.0),
        threshold_(share > 0.0 && share < 1.0 ? std::uint64_t(std::ldexp(share, 64)) : 0),
        rng_(make_route_rng(seed, thread)) {}
  bool operator()() {
    if (always_) return true;
    return threshold_ != 0 && rng_() < threshold_;  // share 0 draws nothing
  }

 private:
  bool always_;
  std::uint64_t threshold_;  // share * 2^64
  WorkloadRng rng_;
};

// One xthread worker's loop (the model: file comment).
template <MemoryAccess kAccess, class Clock, Allocator A, class Sizes>
class XThreadLoop {
 public:
  XThreadLoop(A& alloc, HandoffRing& ring, unsigned thread)
      : alloc_(alloc), from_(ring.incoming(thread)), to_(ring.outgoing(thread)), incoming_is_remote_(ring.threads() > 1) {}

  CrossThreadOutcome run(std::span<Slot> slots, const ParetoSlotPicker& picker, const Sizes& sizes, WorkloadRng& rng,
                         RemoteRoute& route, std::uint64_t iterations) {
    AllocTestThreadOutcome& o = out_.base;
    NoObserver observer;
    std::uint64_t live = 0;
    for (std::uint64_t i = 0; i < iterations; ++i) {
      if (i % kXThreadDrainEvery == 0) drain();
      const std::size_t s = picker.pick(rng());
      Slot& slot = slots[s];
      if (slot.size == 0) {
        slot = malloc_counted<kAccess>(alloc_, observer, sizes, rng, o, live, s);
        if (slot.size == 0) [[unlikely]]
          break;
      } else if (route()) {
        hand_off(slot, s, live);
        slot.size = 0;
      } else {
        free_counted<kAccess>(alloc_, observer, o, live, slot.block, slot.size, s);
        ++out_.local_frees;
        slot.size = 0;
      }
    }
    o.end_live_requested_bytes = live;
    finish();
    return out_;
  }

 private:
  // The consumer's side: read back, free with this thread's allocator, count.
  std::uint64_t drain() {
    const std::uint64_t n = from_.drain([this](const HandoffQueue::Entry& e) {
      if constexpr (kAccess == MemoryAccess::write_read) out_.base.read_checksum += read_block(e.block, e.size);
      alloc_.deallocate(e.block, e.size);
      ++out_.base.frees;
      ++(incoming_is_remote_ ? out_.remote_frees : out_.local_frees);
    });
    out_.max_queue_backlog = n > out_.max_queue_backlog ? n : out_.max_queue_backlog;
    return n;
  }

  void hand_off(const Slot& slot, std::size_t s, std::uint64_t& live) {
    constexpr std::uint64_t kHandoffTag = 0x68616e646f6666ULL;  // a hand-off hashes apart from a local free
    live -= slot.size;
    out_.base.op_stream_hash = hash_op(out_.base.op_stream_hash ^ kHandoffTag, s, false, slot.size);
    ++out_.handoffs;
    if (!to_.try_push({slot.block, slot.size})) [[unlikely]]
      push_waiting({slot.block, slot.size});
  }

  // The outgoing queue is full: consume while waiting for room.
  [[gnu::noinline]] void push_waiting(const HandoffQueue::Entry& e) {
    ++out_.queue_full_waits;
    Backoff backoff;
    for (;;) {
      if (drain() != 0) {
        waits_.end();
        backoff.reset();
      }
      if (to_.try_push(e)) break;
      waits_.begin();
      backoff.pause();
    }
    waits_.end();
  }

  // No more pushes from here; free everything the predecessor still hands over.
  void finish() {
    to_.end_pushes();
    Backoff backoff;
    for (;;) {
      const bool closed = from_.pushes_ended();  // read before the drain: a closed queue's pushes are all visible
      if (drain() != 0) {
        waits_.end();
        backoff.reset();
      }
      if (closed) break;
      waits_.begin();
      backoff.pause();
    }
    waits_.end();
    out_.wait_ticks = waits_.ticks();
  }

  A& alloc_;
  HandoffQueue& from_;
  HandoffQueue& to_;
  bool incoming_is_remote_;
  WaitMeter<Clock> waits_;
  CrossThreadOutcome out_;
};

}  // namespace detail

// Runs thread `thread`'s share of an xthread run (the model: file comment) on `slots` (all empty
// on entry; blocks still held at the end stay there: release them with release_all_slots).  Uses
// p.iterations_per_thread, p.access and p.seed; the ring gives T.  Every worker of the ring must
// run this (or the ring must be abandoned).  The caller times the call; Clock times the waits.
template <class Clock = NoClock, Allocator A, class Sizes>
CrossThreadOutcome run_xthread_thread(A& alloc, std::span<Slot> slots, const ParetoSlotPicker& picker, const Sizes& sizes,
                                      const AllocTestParams& p, double remote_share, HandoffRing& ring, unsigned thread) {
  if (ring.abandoned()) return {};
  WorkloadRng rng = make_thread_rng(p.seed, thread);
  detail::RemoteRoute route(remote_share, p.seed, thread);
  auto loop = [&]<MemoryAccess kAccess>() {
    return detail::XThreadLoop<kAccess, Clock, A, Sizes>(alloc, ring, thread).run(slots, picker, sizes, rng, route,
                                                                                  p.iterations_per_thread);
  };
  return with_memory_access(p.access, loop);
}

}  // namespace allocstress
