// The xthread workload (workloads/cross_thread/cross_thread.hpp) and its queue (workloads/cross_thread/handoff_queue.hpp),
// run on real threads: every block is freed exactly once, the achieved remote share is the
// requested one, remote share 0 is alloc-test's stream, tiny queues terminate without loss, and
// bad parameters are rejected with the field and the range.  Behaviour only, never timing.
#include "workloads/cross_thread/cross_thread.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocators/pool_allocator.hpp"
#include "allocators/process_malloc_allocator.hpp"
#include "allocators/void_allocator.hpp"
#include "cross_thread_checked_heap.hpp"
#include "workloads/cross_thread/cross_thread_params.hpp"

namespace allocstress {
namespace {

using namespace testing;  // CheckedHeap, CheckedAllocator, on_threads, small_params

// Runs an xthread ring of p.threads threads; make(i) gives thread i's allocator.  Blocks still
// in the slots stay there until release() (so that tests can look at the heap first).
template <class A>
class Ring {
 public:
  Ring(const AllocTestParams& p, double share, std::uint64_t capacity) : p_(p), share_(share), ring_(p.threads, capacity), picker_(p.slots_per_thread()), sizes_(p.max_size_exp) {
    for (unsigned i = 0; i < p.threads; ++i) slots_.emplace_back(p.slots_per_thread(), Slot{nullptr, 0});
  }
  template <class Make>
  std::vector<CrossThreadOutcome> run(Make make) {
    for (unsigned i = 0; i < p_.threads; ++i) allocs_.push_back(make(i));
    std::vector<CrossThreadOutcome> out(p_.threads);
    on_threads(p_.threads, [&](unsigned i) {
      out[i] = run_xthread_thread(*allocs_[i], std::span<Slot>(slots_[i]), picker_, sizes_, p_, share_, ring_, i);
    });
    return out;
  }
  void release() {
    for (unsigned i = 0; i < p_.threads; ++i) release_all_slots(*allocs_[i], std::span<Slot>(slots_[i]));
  }

 private:
  AllocTestParams p_;
  double share_;
  HandoffRing ring_;
  ParetoSlotPicker picker_;
  InverseSizeSampler sizes_;
  std::vector<std::vector<Slot>> slots_;
  std::vector<std::unique_ptr<A>> allocs_;
};

CheckedRun run_checked(CheckedHeap& heap, const AllocTestParams& p, double share, std::uint64_t capacity) {
  Ring<CheckedAllocator> ring(p, share, capacity);
  return run_checked_on(heap, ring);
}

CrossThreadOutcome sum(const std::vector<CrossThreadOutcome>& outcomes) {
  CrossThreadOutcome t;
  for (const auto& o : outcomes) {
    t.base.mallocs += o.base.mallocs;
    t.base.frees += o.base.frees;
    t.base.end_live_requested_bytes += o.base.end_live_requested_bytes;
    t.local_frees += o.local_frees;
    t.remote_frees += o.remote_frees;
    t.handoffs += o.handoffs;
    t.queue_full_waits += o.queue_full_waits;
  }
  return t;
}

void expect_every_block_freed_once(const CheckedHeap& heap) {
  EXPECT_EQ(heap.errors(), 0u) << heap.first_error();
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_EQ(heap.mallocs(), heap.frees());
}

TEST(CrossThreadQueue, KeepsOrderRefusesWhenFullAndWrapsAround) {
  HandoffQueue q(3);
  int x[5];
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(q.try_push({&x[i], std::uint64_t(i)}));
  EXPECT_FALSE(q.try_push({&x[3], 3}));
  std::vector<std::uint64_t> seen;
  EXPECT_EQ(q.drain([&](const HandoffQueue::Entry& e) { seen.push_back(e.size); }), 3u);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(q.drain([](const HandoffQueue::Entry&) { FAIL(); }), 0u);
  std::uint64_t next_in = 0, next_out = 0;
  for (int round = 0; round < 100; ++round) {  // many wrap-arounds, with 1..3 entries in flight
    for (int k = 0; k <= round % 3; ++k) ASSERT_TRUE(q.try_push({&x[0], next_in++}));
    q.drain([&](const HandoffQueue::Entry& e) { EXPECT_EQ(e.size, next_out++); });
  }
  EXPECT_EQ(next_in, next_out);
  EXPECT_FALSE(q.pushes_ended());
  q.end_pushes();
  EXPECT_TRUE(q.pushes_ended());
}

TEST(CrossThreadQueue, TwoThreadsPassEveryEntryOnceInOrder) {
  HandoffQueue q(16);
  constexpr std::uint64_t kEntries = 300'000;
  std::uint64_t received = 0;
  bool in_order = true;
  on_threads(2, [&](unsigned i) {
    Backoff backoff;
    if (i == 0) {
      for (std::uint64_t k = 0; k < kEntries; ++k)
        while (!q.try_push({nullptr, k})) backoff.pause();
      q.end_pushes();
      return;
    }
    for (;;) {
      const bool closed = q.pushes_ended();
      q.drain([&](const HandoffQueue::Entry& e) { in_order = in_order && e.size == received++; });
      if (closed) break;
      backoff.pause();
    }
  });
  EXPECT_EQ(received, kEntries);
  EXPECT_TRUE(in_order);
}

TEST(CrossThread, EveryBlockIsFreedExactlyOnceAndCountsAreExact) {
  CheckedHeap heap;
  const AllocTestParams p = small_params(2);
  const CheckedRun r = run_checked(heap, p, 0.5, 64);
  expect_every_block_freed_once(heap);
  const CrossThreadOutcome t = sum(r.outcomes);
  EXPECT_EQ(t.base.mallocs, heap.mallocs());
  EXPECT_EQ(t.remote_frees, r.heap_remote_frees);  // the heap saw exactly the frees counted as remote
  EXPECT_EQ(t.remote_frees, t.handoffs);            // every block handed off was freed in the run
  EXPECT_EQ(t.base.frees, t.local_frees + t.remote_frees);
  EXPECT_EQ(t.base.end_live_requested_bytes, r.heap_live_bytes_after_run);  // queues empty at the end
  for (const auto& o : r.outcomes) EXPECT_EQ(o.base.mallocs + o.local_frees + o.handoffs, p.iterations_per_thread);
}

TEST(CrossThread, AchievedRemoteShareIsTheRequestedShare) {
  for (const double share : {0.0, 0.25, 1.0}) {
    SCOPED_TRACE(share);
    CheckedHeap heap;
    const CheckedRun r = run_checked(heap, small_params(2), share, 1024);
    expect_every_block_freed_once(heap);
    const CrossThreadOutcome t = sum(r.outcomes);
    const double frees = double(t.local_frees + t.remote_frees);
    ASSERT_GT(frees, 10'000);
    const double achieved = double(t.remote_frees) / frees;
    // Each free is a Bernoulli(share) draw: 6 standard deviations of the binomial share.
    EXPECT_NEAR(achieved, share, 6 * std::sqrt(share * (1 - share) / frees) + 1e-12);
    EXPECT_EQ(t.remote_frees, r.heap_remote_frees);
  }
}

TEST(CrossThread, ShareZeroIsAllocTestsStream) {
  const AllocTestParams p = small_params(2, 60'000, 11);
  Ring<ProcessMallocAllocator> ring(p, 0.0, 1024);
  const auto outcomes = ring.run([&](unsigned) { return std::make_unique<ProcessMallocAllocator>(std::size_t{1} << 12); });
  ring.release();
  for (unsigned i = 0; i < p.threads; ++i) {
    ProcessMallocAllocator m(std::size_t{1} << 12);
    std::vector<Slot> slots(p.slots_per_thread(), Slot{nullptr, 0});
    WorkloadRng rng = make_thread_rng(p.seed, i);
    const auto ref = run_alloc_test_thread(m, std::span<Slot>(slots), ParetoSlotPicker(p.slots_per_thread()),
                                           InverseSizeSampler(p.max_size_exp), rng, p.iterations_per_thread, p.access);
    release_all_slots(m, std::span<Slot>(slots));
    const CrossThreadOutcome& o = outcomes[i];
    EXPECT_EQ(o.base.op_stream_hash, ref.op_stream_hash);
    EXPECT_EQ(o.base.mallocs, ref.mallocs);
    EXPECT_EQ(o.base.frees, ref.frees);
    EXPECT_EQ(o.base.peak_live_requested_bytes, ref.peak_live_requested_bytes);
    EXPECT_EQ(o.base.end_live_requested_bytes, ref.end_live_requested_bytes);
    EXPECT_EQ(o.base.read_checksum, ref.read_checksum);
    EXPECT_EQ(o.remote_frees + o.handoffs + o.queue_full_waits, 0u);
  }
}

TEST(CrossThread, StreamIsAPureFunctionOfTheSeedAndLiveBytesDoNotDependOnTheShare) {
  const AllocTestParams p = small_params(2, 60'000, 3);
  auto run = [&](double share) {
    CheckedHeap heap;
    return run_checked(heap, p, share, 256).outcomes;
  };
  const auto a = run(0.5), b = run(0.5), zero = run(0.0);
  for (unsigned i = 0; i < p.threads; ++i) {
    EXPECT_EQ(a[i].base.op_stream_hash, b[i].base.op_stream_hash);
    EXPECT_EQ(a[i].handoffs, b[i].handoffs);
    EXPECT_EQ(a[i].remote_frees, b[i].remote_frees);
    EXPECT_EQ(a[i].local_frees, b[i].local_frees);
    EXPECT_NE(a[i].base.op_stream_hash, zero[i].base.op_stream_hash);  // hand-offs are part of the stream
    EXPECT_EQ(a[i].base.mallocs, zero[i].base.mallocs);                // the slot/size stream is not changed
    EXPECT_EQ(a[i].base.peak_live_requested_bytes, zero[i].base.peak_live_requested_bytes);
    EXPECT_EQ(a[i].base.end_live_requested_bytes, zero[i].base.end_live_requested_bytes);
  }
}

TEST(CrossThread, TinyQueuesTerminateWithoutLoss) {
  for (const std::uint64_t capacity : {std::uint64_t{1}, std::uint64_t{16}}) {
    for (const unsigned threads : {2u, 3u}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, capacity " + std::to_string(capacity));
      CheckedHeap heap;
      const CheckedRun r = run_checked(heap, small_params(threads, 20'000), 1.0, capacity);
      expect_every_block_freed_once(heap);
      const CrossThreadOutcome t = sum(r.outcomes);
      EXPECT_EQ(t.remote_frees, t.handoffs);
      EXPECT_EQ(t.local_frees, 0u);
    }
  }
}

TEST(CrossThread, OneThreadHandsOffToItselfAsDelayedLocalFrees) {
  CheckedHeap heap;
  const CheckedRun r = run_checked(heap, small_params(1, 50'000), 0.5, 1);
  expect_every_block_freed_once(heap);
  const CrossThreadOutcome& o = r.outcomes[0];
  EXPECT_EQ(o.remote_frees, 0u);
  EXPECT_EQ(r.heap_remote_frees, 0u);
  EXPECT_GT(o.handoffs, 0u);
  EXPECT_EQ(o.base.frees, o.local_frees);
  EXPECT_GT(o.queue_full_waits, 0u);  // capacity 1: the second hand-off before a drain finds it full
  EXPECT_EQ(o.base.mallocs + o.local_frees, 50'000u);  // every hand-off came back within the run
}

TEST(CrossThread, InTreeBackendsAndVoidTakeRemoteFrees) {
  const AllocTestParams p = small_params(2, 50'000);
  auto check = [&](const std::vector<CrossThreadOutcome>& outcomes) {
    const CrossThreadOutcome t = sum(outcomes);
    EXPECT_EQ(t.remote_frees, t.handoffs);
    EXPECT_EQ(t.local_frees, 0u);
    EXPECT_GT(t.remote_frees, 10'000u);
    for (const auto& o : outcomes) EXPECT_EQ(o.base.failed_allocation_bytes, 0u);
  };
  {  // pool: blocks freed into the other thread's instance are reused from its free lists
    Ring<PoolAllocator> ring(p, 1.0, 64);
    check(ring.run([](unsigned) { return std::make_unique<PoolAllocator>(std::size_t{1} << 12); }));
    ring.release();
  }
  {  // void hands over its own buffer; no read-back here (its producer keeps rewriting it: a data race by design)
    AllocTestParams write_only = p;
    write_only.access = MemoryAccess::write;
    Ring<VoidAllocator> ring(write_only, 1.0, 64);
    check(ring.run([](unsigned) { return std::make_unique<VoidAllocator>(std::size_t{1} << 12); }));
    ring.release();
  }
}

TEST(CrossThread, AbandonedRingRunsNothing) {
  CheckedHeap heap;
  const AllocTestParams p = small_params(2, 1000);
  HandoffRing ring(2, 16);
  ring.abandon();
  CheckedAllocator a(heap, 0);
  std::vector<Slot> slots(p.slots_per_thread(), Slot{nullptr, 0});
  const auto o = run_xthread_thread(a, std::span<Slot>(slots), ParetoSlotPicker(p.slots_per_thread()), InverseSizeSampler(12), p, 0.5, ring, 0);
  EXPECT_EQ(o.base.mallocs, 0u);  // and it returned although thread 1 never ran
}

TEST(CrossThread, ValidationNamesTheFieldAndTheRange) {
  auto message = [](CrossThreadSpec s) -> std::string {
    try {
      validate(s);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message({}), "");
  EXPECT_EQ(message({.remote_share = 1.5}), "remote share out of range: 150% (accepted: 0..100 percent)");
  EXPECT_NE(message({.remote_share = -0.01}).find("0..100 percent"), std::string::npos);
  EXPECT_NE(message({.remote_share = std::numeric_limits<double>::quiet_NaN()}).find("remote share"), std::string::npos);
  EXPECT_EQ(message({.queue_capacity = 0}), "queue capacity out of range: 0 (accepted: 1..1048576 blocks)");
  EXPECT_NE(message({.queue_capacity = kMaxQueueCapacity + 1}).find("queue capacity"), std::string::npos);
  EXPECT_EQ(message({.rounds = 0}), "rounds out of range: 0 (accepted: 1..1000000)");
  EXPECT_EQ(message({.remote_share = 0.0, .queue_capacity = 1, .rounds = 1}), "");
  EXPECT_EQ(message({.remote_share = 1.0, .queue_capacity = kMaxQueueCapacity, .rounds = kMaxRounds}), "");
  EXPECT_NO_THROW(validate_larson_rounds(10, 10));
  try {
    validate_larson_rounds(11, 10);
    FAIL() << "11 rounds of 10 iterations accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rounds out of range: 11 (accepted: 1..iterations per thread = 10)");
  }
}

// A clock that records the pause/resume calls a WaitMeter makes around its spells.
struct PausingClock {
  static inline std::uint64_t ticks = 0;
  static inline std::vector<char> calls;
  static std::uint64_t now() { return ticks; }
  static void pause() { calls.push_back('p'); }
  static void resume() { calls.push_back('r'); }
};

TEST(WaitMeter, PausesAndResumesOncePerSpell) {
  PausingClock::calls.clear();
  detail::WaitMeter<PausingClock> meter;
  meter.end();  // no spell open: nothing
  PausingClock::ticks = 10;
  meter.begin();
  meter.begin();  // already open: nothing
  PausingClock::ticks = 25;
  meter.end();
  meter.end();
  EXPECT_EQ(meter.ticks(), 15u);
  EXPECT_EQ(std::string(PausingClock::calls.begin(), PausingClock::calls.end()), "pr");
}

}  // namespace
}  // namespace allocstress
