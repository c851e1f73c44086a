// The larson workload (workloads/cross_thread/larson.hpp) on real threads: the slot arrays rotate so that each
// thread frees blocks the previous holders left, every block is freed exactly once, remote frees
// are counted exactly, the run is a pure function of the seed, and one thread (or one round) is
// alloc-test's stream.  Behaviour only, never timing.
#include "workloads/cross_thread/larson.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "allocators/pool_allocator.hpp"
#include "allocators/process_malloc_allocator.hpp"
#include "cross_thread_checked_heap.hpp"

namespace allocstress {
namespace {

using namespace testing;  // CheckedHeap, CheckedAllocator, on_threads, small_params

// A larson run of p.threads threads; make(t) gives thread t's allocator.  Blocks still in the
// arrays stay there until release().
template <class A>
class Larson {
 public:
  Larson(const AllocTestParams& p, std::uint64_t rounds) : p_(p), rounds_(rounds), board_(p.threads, p.slots_per_thread()), picker_(p.slots_per_thread()), sizes_(p.max_size_exp) {}
  template <class Make>
  std::vector<CrossThreadOutcome> run(Make make) {
    for (unsigned t = 0; t < p_.threads; ++t) allocs_.push_back(make(t));
    std::vector<CrossThreadOutcome> out(p_.threads);
    on_threads(p_.threads, [&](unsigned t) { out[t] = run_larson_thread(*allocs_[t], board_, picker_, sizes_, p_, rounds_, t); });
    return out;
  }
  void release() {
    for (unsigned t = 0; t < p_.threads; ++t) release_all_slots(*allocs_[t], board_.array(board_.array_of(t, rounds_ - 1)));
  }

 private:
  AllocTestParams p_;
  std::uint64_t rounds_;
  LarsonBoard board_;
  ParetoSlotPicker picker_;
  InverseSizeSampler sizes_;
  std::vector<std::unique_ptr<A>> allocs_;
};

CheckedRun run_checked(CheckedHeap& heap, const AllocTestParams& p, std::uint64_t rounds) {
  Larson<CheckedAllocator> larson(p, rounds);
  return run_checked_on(heap, larson);
}

AllocTestThreadOutcome alloc_test_reference(const AllocTestParams& p, unsigned thread) {
  ProcessMallocAllocator m(std::size_t{1} << p.max_size_exp);
  std::vector<Slot> slots(p.slots_per_thread(), Slot{nullptr, 0});
  WorkloadRng rng = make_thread_rng(p.seed, thread);
  const auto out = run_alloc_test_thread(m, std::span<Slot>(slots), ParetoSlotPicker(p.slots_per_thread()), InverseSizeSampler(p.max_size_exp),
                                         rng, p.iterations_per_thread, p.access);
  release_all_slots(m, std::span<Slot>(slots));
  return out;
}

TEST(Larson, ArrayAGoesToThreadAPlusRound) {
  LarsonBoard board(3, 64);
  for (std::uint64_t r = 0; r < 7; ++r)
    for (unsigned a = 0; a < 3; ++a) EXPECT_EQ(board.array_of(unsigned((a + r) % 3), r), a);
}

TEST(Larson, RoundsSplitTheIterationsEvenly) {
  for (const std::uint64_t iterations : {1u, 7u, 100u, 100'003u})
    for (const std::uint64_t rounds : {1u, 3u, 7u}) {
      if (rounds > iterations) continue;
      std::uint64_t total = 0;
      for (std::uint64_t r = 0; r < rounds; ++r) {
        const std::uint64_t n = larson_round_iterations(iterations, rounds, r);
        EXPECT_LE(n, iterations / rounds + 1);
        EXPECT_GE(n, iterations / rounds);
        total += n;
      }
      EXPECT_EQ(total, iterations);
    }
}

TEST(Larson, EveryBlockIsFreedOnceAndRotationFreesThePreviousOwnersBlocks) {
  CheckedHeap heap;
  const AllocTestParams p = small_params(2, 100'000, 5);
  const CheckedRun r = run_checked(heap, p, 8);
  EXPECT_EQ(heap.errors(), 0u) << heap.first_error();
  EXPECT_EQ(heap.live_blocks(), 0u);
  std::uint64_t mallocs = 0, frees = 0, local = 0, remote = 0, end_live = 0;
  for (const auto& o : r.outcomes) {
    mallocs += o.base.mallocs;
    frees += o.base.frees;
    local += o.local_frees;
    remote += o.remote_frees;
    end_live += o.base.end_live_requested_bytes;
    EXPECT_EQ(o.base.mallocs + o.base.frees, p.iterations_per_thread);
    EXPECT_EQ(o.base.frees, o.local_frees + o.remote_frees);
    EXPECT_GT(o.remote_frees, 0u);  // each thread freed blocks its predecessor left
  }
  EXPECT_EQ(mallocs, heap.mallocs());
  EXPECT_EQ(remote, r.heap_remote_frees);  // the heap saw exactly the frees counted as remote
  EXPECT_EQ(end_live, r.heap_live_bytes_after_run);
  const double share = double(remote) / double(local + remote);
  EXPECT_GT(share, 0.0);
  EXPECT_LT(share, 1.0);
}

TEST(Larson, RunIsAPureFunctionOfTheSeed) {
  const AllocTestParams p = small_params(2, 60'000, 9);
  CheckedHeap h1, h2;
  const auto a = run_checked(h1, p, 6).outcomes, b = run_checked(h2, p, 6).outcomes;
  for (unsigned t = 0; t < p.threads; ++t) {
    EXPECT_EQ(a[t].base.op_stream_hash, b[t].base.op_stream_hash);
    EXPECT_EQ(a[t].base.read_checksum, b[t].base.read_checksum);
    EXPECT_EQ(a[t].base.peak_live_requested_bytes, b[t].base.peak_live_requested_bytes);
    EXPECT_EQ(a[t].remote_frees, b[t].remote_frees);
    EXPECT_EQ(a[t].local_frees, b[t].local_frees);
  }
}

TEST(Larson, OneThreadIsAllocTestsStream) {
  const AllocTestParams p = small_params(1, 100'003, 4);
  CheckedHeap heap;
  const CrossThreadOutcome o = run_checked(heap, p, 7).outcomes[0];
  const AllocTestThreadOutcome ref = alloc_test_reference(p, 0);
  EXPECT_EQ(o.base.op_stream_hash, ref.op_stream_hash);
  EXPECT_EQ(o.base.mallocs, ref.mallocs);
  EXPECT_EQ(o.base.peak_live_requested_bytes, ref.peak_live_requested_bytes);
  EXPECT_EQ(o.base.end_live_requested_bytes, ref.end_live_requested_bytes);
  EXPECT_EQ(o.base.read_checksum, ref.read_checksum);
  EXPECT_EQ(o.remote_frees, 0u);
}

TEST(Larson, OneRoundNeverRotates) {
  const AllocTestParams p = small_params(2, 40'000, 5);
  CheckedHeap heap;
  const CheckedRun r = run_checked(heap, p, 1);
  for (unsigned t = 0; t < p.threads; ++t) {
    EXPECT_EQ(r.outcomes[t].remote_frees, 0u);
    EXPECT_EQ(r.outcomes[t].base.op_stream_hash, alloc_test_reference(p, t).op_stream_hash);
  }
}

TEST(Larson, PoolTakesBlocksOfAnotherInstance) {
  const AllocTestParams p = small_params(2, 60'000, 5);
  Larson<PoolAllocator> larson(p, 10);
  const auto outcomes = larson.run([](unsigned) { return std::make_unique<PoolAllocator>(std::size_t{1} << 12); });
  larson.release();
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.base.failed_allocation_bytes, 0u);
    EXPECT_GT(o.remote_frees, 0u);
  }
}

TEST(Larson, AbandonedBoardRunsNothing) {
  const AllocTestParams p = small_params(2, 1000, 5);
  LarsonBoard board(2, p.slots_per_thread());
  board.abandon();
  ProcessMallocAllocator m(4096);
  const auto o = run_larson_thread(m, board, ParetoSlotPicker(p.slots_per_thread()), InverseSizeSampler(12), p, 4, 0);
  EXPECT_EQ(o.base.mallocs, 0u);  // and it did not wait at a barrier for thread 1
}

}  // namespace
}  // namespace allocstress
