// The false-sharing kernels (workloads/false_sharing/false_sharing.hpp): the shared-line count on constructed
// layouts, and kernel runs on test allocators whose placement makes the count exact whatever the
// scheduling.  Counts only, never timing.
#include "workloads/false_sharing/false_sharing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "allocators/pool_allocator.hpp"

namespace allocstress {
namespace {

constexpr std::size_t kLine = 64;

void* at(std::uintptr_t address) { return reinterpret_cast<void*>(address); }

// ---- count_shared_lines ----

TEST(CountSharedLines, SeparateLinesShareNothing) {
  const auto s = count_shared_lines({{at(0x1000), at(0x1008)}, {at(0x1040), at(0x1078)}}, 8, kLine);
  EXPECT_EQ(s.lines, 0u);
  EXPECT_EQ(s.objects_on_shared_lines, 0u);
  EXPECT_EQ(s.objects, 4u);
}

TEST(CountSharedLines, TwoThreadsInOneLineShareIt) {
  const auto s = count_shared_lines({{at(0x1000)}, {at(0x1038)}, {at(0x2000)}}, 8, kLine);
  EXPECT_EQ(s.lines, 1u);
  EXPECT_EQ(s.objects_on_shared_lines, 2u);
  EXPECT_EQ(s.objects, 3u);
}

TEST(CountSharedLines, AnObjectSpanningLinesCountsInEach) {
  // Thread 0's 16-byte object covers the end of line 0x1000 and the start of line 0x1040; thread
  // 1 has one object in each of those lines: both lines are shared.
  const auto s = count_shared_lines({{at(0x1038)}, {at(0x1000), at(0x1070)}}, 16, kLine);
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.objects_on_shared_lines, 3u);
  // One byte short of the next line: only the first line.
  EXPECT_EQ(count_shared_lines({{at(0x1030)}, {at(0x1040)}}, 16, kLine).lines, 0u);
  EXPECT_EQ(count_shared_lines({{at(0x1031)}, {at(0x1040)}}, 16, kLine).lines, 1u);
}

TEST(CountSharedLines, ThreeThreadsInALineCountItOnce) {
  const auto s = count_shared_lines({{at(0x1000)}, {at(0x1010)}, {at(0x1020)}}, 8, kLine);
  EXPECT_EQ(s.lines, 1u);
  EXPECT_EQ(s.objects_on_shared_lines, 3u);
}

TEST(CountSharedLines, DuplicatesWithinAThreadDoNotShare) {
  EXPECT_EQ(count_shared_lines({{at(0x1000), at(0x1000), at(0x1008)}, {at(0x2000)}}, 8, kLine).lines, 0u);
  // The same address listed by two threads does.
  EXPECT_EQ(count_shared_lines({{at(0x1000)}, {at(0x1000)}}, 8, kLine).lines, 1u);
  EXPECT_EQ(count_shared_lines({}, 8, kLine).objects, 0u);
}

TEST(CountSharedLines, ScratchBoundCoversEveryStart) {
  EXPECT_EQ(max_lines_per_object(1, 64), 1u);
  EXPECT_EQ(max_lines_per_object(64, 64), 2u);
  EXPECT_EQ(max_lines_per_object(65, 64), 2u);
  EXPECT_EQ(max_lines_per_object(66, 64), 3u);
  // A 66-byte object reaches a third line (0x1080, where the other thread's object starts) only
  // from the last byte of its first line.
  for (std::uintptr_t start = 0x1000; start < 0x1040; ++start)
    EXPECT_EQ(count_shared_lines({{at(start)}, {at(0x1080)}}, 66, kLine).lines, start == 0x103f ? 1u : 0u);
}

// ---- place_write_list ----

TEST(PlaceWriteList, AvoidsTheObjectsPageOffsets) {
  MappedArray<std::byte> buffer(kPageBytes + 64 * sizeof(void*));
  ASSERT_FALSE(buffer.empty());
  auto offset = [&](std::span<void* const> list) { return reinterpret_cast<const std::byte*>(list.data()) - buffer.span().data(); };
  // Objects on the first 5 lines of some page (offsets 0..319): the list goes to line 5.
  std::vector<void*> objects;
  for (std::uintptr_t k = 0; k < 20; ++k) objects.push_back(at(0x7000 + k * 16));
  auto list = place_write_list(objects, 16, buffer.span());
  EXPECT_EQ(offset(list), 5 * 64);
  EXPECT_TRUE(std::equal(list.begin(), list.end(), objects.begin(), objects.end()));
  // A 16-byte object across lines 1 and 2 of its page, and 64 entries (8 lines) to place: line 3.
  objects = {at(0x9078)};
  objects.resize(64, at(0x9078));
  list = place_write_list(objects, 16, buffer.span());
  EXPECT_EQ(offset(list), 3 * 64);
  // Objects on every line of a page: no gap, offset 0.
  objects.clear();
  for (std::uintptr_t k = 0; k < 64; ++k) objects.push_back(at(0x10000 + k * 64));
  list = place_write_list(objects, 8, buffer.span());
  EXPECT_EQ(offset(list), 0);
  EXPECT_EQ(list.size(), 64u);
}

// ---- validate ----

TEST(FalseSharingSpec, ValidateRejectsOutOfRangeFields) {
  EXPECT_NO_THROW(validate(FalseSharingSpec{}));
  auto message = [](FalseSharingSpec s) {
    try {
      validate(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({.object_size = 0}), "--object-size out of range: 0 (accepted: 1..4096)");
  EXPECT_EQ(message({.object_size = 4097}), "--object-size out of range: 4097 (accepted: 1..4096)");
  EXPECT_EQ(message({.objects = 0}), "--objects out of range: 0 (accepted: 1..1000000)");
  EXPECT_EQ(message({.objects = 1'000'001}), "--objects out of range: 1000001 (accepted: 1..1000000)");
  EXPECT_EQ(message({.writes = 0}), "--writes out of range: 0 (accepted: 1..1000000000)");
  EXPECT_EQ(message({.rounds = 0}), "--fs-rounds out of range: 0 (accepted: 1..10000000)");
  EXPECT_EQ(message({.object_size = 4096, .objects = 16385}),
            "--objects x --object-size out of range: 67112960 bytes per thread (accepted: 1..67108864)");
  EXPECT_TRUE(is_false_sharing_workload("false-sharing-active"));
  EXPECT_TRUE(is_false_sharing_workload("false-sharing-passive"));
  EXPECT_FALSE(is_false_sharing_workload("alloc-test"));
}

// ---- kernel runs ----

// Instance i of T hands out 8-byte slot j*T + i of one shared line-aligned buffer for its j-th live
// block (back to slot 0 once all its blocks are freed): the threads' objects alternate slot by
// slot, so with n objects per thread every line of the first T*n slots is shared, whatever the
// scheduling.  Instances touch only their own counters and slots: thread-safe.
class InterleavingAllocator {
 public:
  static constexpr std::size_t kSlots = 512;
  InterleavingAllocator(std::byte* buffer, unsigned index, unsigned threads) : buffer_(buffer), index_(index), threads_(threads) {}
  void* allocate(std::size_t n) {
    const std::size_t slot = next_ * threads_ + index_;
    if (n > 8 || slot >= kSlots) return nullptr;
    ++next_, ++live_;
    return buffer_ + slot * 8;
  }
  void deallocate(void*, std::size_t) {
    if (--live_ == 0) next_ = 0;
  }
  static constexpr std::string_view name() { return "interleaving"; }

 private:
  std::byte* buffer_;
  std::size_t index_, threads_, next_ = 0, live_ = 0;
};

// A process-wide heap in the way of glibc's arenas and thread caches: a thread carves fresh
// 8-byte blocks from an area of its own (line-aligned); with Reuse, a freed block goes to the
// freeing thread's LIFO cache, which that thread's next allocations take first.  Instances are
// handles; the state is the calling thread's.
template <bool Reuse>
class ThreadCachingAllocator {
 public:
  explicit ThreadCachingAllocator(std::size_t) {}
  void* allocate(std::size_t n) {
    State& s = state();
    if (n > 8) return nullptr;
    if (Reuse && s.cached > 0) return s.cache[--s.cached];
    return s.carved < s.area.size() / 8 ? &s.area[8 * s.carved++] : nullptr;
  }
  void deallocate(void* p, std::size_t) {
    State& s = state();
    if (Reuse) s.cache[s.cached++] = p;
  }
  static constexpr std::string_view name() { return "thread-caching"; }

 private:
  struct State {
    alignas(64) std::array<std::byte, 8192> area;
    std::array<void*, 1024> cache;
    std::size_t carved = 0, cached = 0;
  };
  static State& state() {
    thread_local State s;
    return s;
  }
};

struct RunResult {
  std::vector<FalseSharingTally> tallies;
  SharedLineTally shared;
};

// Runs the kernel on `threads` threads, thread i allocating through an A constructed (on that
// thread) from the arguments in the tuple args(i).
template <Allocator A, class Args>
RunResult run_kernel(FalseSharingKind kind, const FalseSharingSpec& spec, unsigned threads, Args args) {
  FalseSharingRun<A> run(spec, kind, threads, kLine);
  RunResult r{std::vector<FalseSharingTally>(threads), {}};
  std::vector<std::optional<A>> instances(threads);
  std::vector<std::thread> workers;
  for (unsigned i = 0; i < threads; ++i)
    workers.emplace_back([&, i] {
      std::apply([&](auto... a) { instances[i].emplace(a...); }, args(i));
      r.tallies[i] = run.run_thread(i, *instances[i]);
    });
  for (auto& w : workers) w.join();
  r.shared = run.shared_lines();
  return r;
}

const FalseSharingSpec kSmall{.object_size = 8, .objects = 16, .writes = 20, .rounds = 30};

alignas(64) std::array<std::byte, InterleavingAllocator::kSlots * 8> interleaved_buffer;

RunResult run_interleaved(FalseSharingKind kind, unsigned threads) {
  return run_kernel<InterleavingAllocator>(kind, kSmall, threads,
                                           [&](unsigned i) { return std::tuple(interleaved_buffer.data(), i, threads); });
}

TEST(FalseSharingKernel, InterleavedObjectsShareEveryLine) {
  for (FalseSharingKind kind : {FalseSharingKind::active, FalseSharingKind::passive}) {
    const RunResult r = run_interleaved(kind, 2);
    // 2 threads x 16 objects x 8 bytes = 256 bytes = 4 lines, each holding 4 objects of each thread.
    EXPECT_EQ(r.shared.rounds, kSmall.rounds);
    EXPECT_EQ(r.shared.lines_sum, 4 * kSmall.rounds);
    EXPECT_EQ(r.shared.lines_max, 4u);
    EXPECT_EQ(r.shared.objects_on_shared_lines, r.shared.objects);
    EXPECT_EQ(r.shared.objects, 32 * kSmall.rounds);
    const std::uint64_t per_round = kind == FalseSharingKind::passive ? 2 * 16 + 16 : 16;  // + the hand-off, on thread 0
    for (unsigned i = 0; i < 2; ++i) {
      const FalseSharingTally& t = r.tallies[i];
      EXPECT_EQ(t.rounds, kSmall.rounds);
      EXPECT_EQ(t.writes, kSmall.rounds * kSmall.writes * 16);
      EXPECT_EQ(t.private_writes, t.writes);
      EXPECT_EQ(t.round_write_cycles.size(), kSmall.rounds);
      EXPECT_EQ(t.round_private_cycles.size(), kSmall.rounds);
      EXPECT_EQ(t.failed_allocation_bytes, 0u);
      EXPECT_EQ(t.mallocs, kSmall.rounds * (i == 0 ? per_round : 16));
      EXPECT_EQ(t.frees, kSmall.rounds * (kind == FalseSharingKind::passive ? 32 : 16));
    }
  }
}

TEST(FalseSharingKernel, OneThreadSharesNothing) {
  const RunResult r = run_interleaved(FalseSharingKind::active, 1);
  EXPECT_EQ(r.shared.lines_sum, 0u);
  EXPECT_EQ(r.shared.objects_on_shared_lines, 0u);
  EXPECT_EQ(r.tallies[0].rounds, kSmall.rounds);
}

TEST(FalseSharingKernel, PerThreadHeapsShareNothing) {
  for (FalseSharingKind kind : {FalseSharingKind::active, FalseSharingKind::passive}) {
    const auto pool = run_kernel<PoolAllocator>(kind, kSmall, 2, [](unsigned) { return std::tuple(8); });
    EXPECT_EQ(pool.shared.rounds, kSmall.rounds);
    EXPECT_EQ(pool.shared.lines_sum, 0u);
    EXPECT_EQ(pool.shared.objects, 32 * kSmall.rounds);
  }
  // Each thread carving its own line-aligned area: active never shares.
  const auto own = run_kernel<ThreadCachingAllocator<true>>(FalseSharingKind::active, kSmall, 2,
                                                            [](unsigned) { return std::tuple(8); });
  EXPECT_EQ(own.shared.lines_sum, 0u);
}

TEST(FalseSharingKernel, PassiveReuseOfHandedBlocksSharesLines) {
  // One round: thread 0 carves 32 consecutive blocks from its area, alternately for threads 0 and
  // 1 (4 lines, each with both threads' blocks).  With reuse, each thread frees its 16 into its
  // cache and takes exactly them back: all 4 lines stay shared.  Without, thread 1's new blocks
  // come from its own area and thread 0's from fresh lines of its own: nothing is shared.
  const FalseSharingSpec one_round{.object_size = 8, .objects = 16, .writes = 20, .rounds = 1};
  const auto reuse = run_kernel<ThreadCachingAllocator<true>>(FalseSharingKind::passive, one_round, 2,
                                                              [](unsigned) { return std::tuple(8); });
  EXPECT_EQ(reuse.shared.lines_sum, 4u);
  EXPECT_EQ(reuse.shared.objects_on_shared_lines, 32u);
  const auto fresh = run_kernel<ThreadCachingAllocator<false>>(FalseSharingKind::passive, one_round, 2,
                                                               [](unsigned) { return std::tuple(8); });
  EXPECT_EQ(fresh.shared.lines_sum, 0u);
  EXPECT_EQ(fresh.shared.objects, 32u);
  // Over many rounds the reusing heap keeps sharing lines (4 a round on average at least).
  const auto many = run_kernel<ThreadCachingAllocator<true>>(FalseSharingKind::passive, kSmall, 2,
                                                             [](unsigned) { return std::tuple(8); });
  EXPECT_GE(many.shared.lines_sum, 4 * kSmall.rounds);
}

TEST(FalseSharingKernel, AFailedAllocationStopsEveryThreadAndFreesAll) {
  // 300 objects per thread, 512 slots: each thread gets 256, then nullptr in the first round.
  const FalseSharingSpec big{.object_size = 8, .objects = 300, .writes = 1, .rounds = 5};
  const RunResult f = run_kernel<InterleavingAllocator>(FalseSharingKind::active, big, 2, [&](unsigned i) {
    return std::tuple(interleaved_buffer.data(), i, 2u);
  });
  // Nobody deadlocks, every block obtained is freed, no round counts.
  for (const FalseSharingTally& t : f.tallies) {
    EXPECT_EQ(t.failed_allocation_bytes, 8u);
    EXPECT_EQ(t.rounds, 0u);
    EXPECT_EQ(t.mallocs, 300u);
    EXPECT_EQ(t.frees, 256u);
  }
  EXPECT_EQ(f.shared.rounds, 0u);
}

}  // namespace
}  // namespace allocstress
