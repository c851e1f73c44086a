// trace/block_lifetimes.hpp on hand-built traces: every ending (freed, reallocated, live at end,
// lost) and every count once (the same trace as tests/python/constructed.py HAND, so C++ and
// Python check one rule on one input), and the steps a replay or a fit reads.
#include <gtest/gtest.h>

#include <vector>

#include "trace/block_lifetimes.hpp"

namespace {

using namespace allocstress::trace;

struct Row {
  std::uint64_t tsc;
  std::uint32_t thread;
  TraceOp op;
  std::uint64_t address, old_address, size;
};

// Two threads (indexes 0 and 1), each thread's events in the order given.
TraceContents contents(const std::vector<Row>& rows) {
  TraceContents t;
  t.threads.resize(2);
  t.threads[0].index = 0;
  t.threads[1].index = 1;
  for (const Row& r : rows) t.threads[r.thread].events.push_back(make_event(r.op, r.tsc, r.address, r.size, r.old_address));
  return t;
}

TEST(BlockLifetimes, EveryEndingAndEveryCountOfTheHandTrace) {
  const TraceContents t = contents({
      {10, 0, TraceOp::malloc, 0x1000, 0, 100},         // 0  b0
      {20, 0, TraceOp::malloc, 0x2000, 0, 200},         // 1  b1
      {30, 1, TraceOp::free, 0x1000, 0, 0},             // 2  b0 freed by the other thread
      {40, 0, TraceOp::realloc, 0x3000, 0x2000, 300},   // 3  b1 reallocated -> b2
      {50, 0, TraceOp::free, 0x9999, 0, 0},             // 4  unmatched free
      {60, 1, TraceOp::malloc, 0x1000, 0, 50},          // 5  b3 (b0's address reused), live at the end
      {70, 0, TraceOp::free, 0, 0, 0},                  // 6  free(NULL)
      {80, 1, TraceOp::malloc, 0, 0, 1ull << 40},       // 7  failed allocation
      {90, 0, TraceOp::realloc, 0, 0x3000, 0},          // 8  realloc(b2, 0): b2 ends
      {100, 1, TraceOp::malloc, 0x4000, 0, 8},          // 9  b4, lost at event 10
      {110, 0, TraceOp::malloc, 0x4000, 0, 16},         // 10 b5 at a live address, live at the end
      {120, 1, TraceOp::realloc, 0x5000, 0x7777, 64},   // 11 unmatched realloc -> b6
      {130, 0, TraceOp::realloc, 0, 0x1000, 10},        // 12 failed realloc: b3 stays live
      {140, 1, TraceOp::realloc, 0x5000, 0x5000, 128},  // 13 in place: b6 reallocated -> b7, live at the end
  });
  const BlockLifetimes b = block_lifetimes(t);
  using E = BlockEnd;
  EXPECT_EQ(b.events, 14u);
  EXPECT_EQ(b.start, (std::vector<std::uint64_t>{0, 1, 3, 5, 9, 10, 11, 13}));
  EXPECT_EQ(b.end, (std::vector<std::uint64_t>{2, 3, 8, 14, 10, 14, 13, 14}));
  EXPECT_EQ(b.how, (std::vector<E>{E::freed, E::reallocated, E::reallocated, E::live_at_end, E::lost, E::live_at_end, E::reallocated,
                                   E::live_at_end}));
  EXPECT_EQ(b.size, (std::vector<std::uint64_t>{100, 200, 300, 50, 8, 16, 64, 128}));
  EXPECT_EQ(b.address, (std::vector<std::uint64_t>{0x1000, 0x2000, 0x3000, 0x1000, 0x4000, 0x4000, 0x5000, 0x5000}));
  EXPECT_EQ(b.thread, (std::vector<std::uint32_t>{0, 0, 0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(b.end_thread, (std::vector<std::int64_t>{1, 0, 0, -1, 0, -1, 1, -1}));
  EXPECT_EQ(b.counts.unmatched_frees, 1u);
  EXPECT_EQ(b.counts.unmatched_reallocs, 1u);
  EXPECT_EQ(b.counts.null_frees, 1u);
  EXPECT_EQ(b.counts.failed_allocations, 1u);
  EXPECT_EQ(b.counts.failed_reallocs, 1u);
  EXPECT_EQ(b.counts.cross_thread_frees, 1u);  // b0; a lost block was not freed, so b4 is not one
}

TEST(BlockLifetimes, MergedOrderPutsTheLowerThreadFirstOnATie) {
  // Thread 1 frees at the TSC thread 0 allocates: the allocation comes first, so the free matches.
  const BlockLifetimes b = block_lifetimes(contents({{5, 1, TraceOp::free, 0x10, 0, 0}, {5, 0, TraceOp::malloc, 0x10, 0, 1}}));
  ASSERT_EQ(b.how.size(), 1u);
  EXPECT_EQ(b.how[0], BlockEnd::freed);
  EXPECT_EQ(b.end[0], 1u);
  EXPECT_EQ(b.counts.unmatched_frees, 0u);
}

TEST(BlockMatcher, AReallocOntoALiveAddressEndsItsOldBlockThenLosesTheOneThere) {
  BlockMatcher m;
  m.step(0, make_event(TraceOp::malloc, 1, 0xa0, 10));
  m.step(1, make_event(TraceOp::malloc, 2, 0xb0, 20));
  const BlockStep s = m.step(0, make_event(TraceOp::realloc, 3, 0xb0, 30, 0xa0));
  ASSERT_TRUE(s.ended && s.lost && s.started);
  EXPECT_EQ(s.ended->block, 0u);
  EXPECT_EQ(s.lost->block, 1u);
  EXPECT_EQ(s.lost->thread, 1u);
  EXPECT_EQ(s.started->block, 2u);
  EXPECT_EQ(s.started->start, 2u);
  EXPECT_EQ(m.live().size(), 1u);
  EXPECT_EQ(m.counts().cross_thread_frees, 0u);
}

TEST(BlockMatcher, AFailedReallocEndsNothingAndSaysWhetherItsOldBlockWasLive) {
  BlockMatcher m;
  m.step(0, make_event(TraceOp::malloc, 1, 0xa0, 10));
  const BlockStep kept = m.step(0, make_event(TraceOp::realloc, 2, 0, 5, 0xa0));
  EXPECT_TRUE(kept.failed);
  EXPECT_FALSE(kept.unknown_address);
  EXPECT_FALSE(kept.ended);
  const BlockStep unknown = m.step(0, make_event(TraceOp::realloc, 3, 0, 5, 0xf0));
  EXPECT_TRUE(unknown.failed);
  EXPECT_TRUE(unknown.unknown_address);
  EXPECT_EQ(m.counts().failed_reallocs, 2u);
  EXPECT_EQ(m.counts().unmatched_reallocs, 0u);  // a failed realloc ends nothing, so it is not unmatched
  const BlockStep nothing = m.step(0, make_event(TraceOp::realloc, 4, 0, 0, 0));  // realloc(NULL, 0) -> NULL
  EXPECT_FALSE(nothing.failed || nothing.unknown_address || nothing.ended || nothing.started);
  EXPECT_EQ(m.live().size(), 1u);
}

}  // namespace
