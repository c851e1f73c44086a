// The in-tree backends bump, pool and eqclass: every block is writable, aligned and disjoint
// from every other live block through a randomized alloc/free stress with content checks (the
// debug preset runs this under ASan + UBSan); pool's size classes; bump's budget; and eqclass's
// placement policy (blocks land on the sets the policy names).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "allocators/bump_allocator.hpp"
#include "allocators/eqclass_allocator.hpp"
#include "allocators/pool_allocator.hpp"

namespace allocstress {
namespace {

struct Live {
  unsigned char* p;
  std::size_t n;
  unsigned char tag;
};

// Random sizes (mostly small, up to 128 KiB so that pool's and eqclass's large paths are hit),
// random frees; every block is filled with its tag and checked before it is freed; live blocks
// must never overlap.
template <class A>
void stress(A& a, std::uint64_t seed, int steps) {
  std::mt19937_64 rng(seed);
  std::vector<Live> live;
  for (int i = 0; i < steps; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      const unsigned shift = unsigned(rng() % 17);
      const std::size_t n = 1 + rng() % (std::size_t{1} << shift);
      auto* p = static_cast<unsigned char*>(a.allocate(n));
      ASSERT_NE(p, nullptr) << "size " << n;
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u) << "size " << n;
      const auto tag = static_cast<unsigned char>(i);
      std::memset(p, tag, n);
      live.push_back({p, n, tag});
    } else {
      const std::size_t k = rng() % live.size();
      const Live b = live[k];
      for (std::size_t j = 0; j < b.n; ++j) ASSERT_EQ(b.p[j], b.tag) << "block of " << b.n << " B overwritten at byte " << j;
      a.deallocate(b.p, b.n);
      live[k] = live.back();
      live.pop_back();
    }
  }
  std::sort(live.begin(), live.end(), [](const Live& x, const Live& y) { return x.p < y.p; });
  for (std::size_t i = 1; i < live.size(); ++i) ASSERT_LE(live[i - 1].p + live[i - 1].n, live[i].p) << "live blocks overlap";
  for (const Live& b : live) {
    for (std::size_t j = 0; j < b.n; ++j) ASSERT_EQ(b.p[j], b.tag);
    a.deallocate(b.p, b.n);
  }
}

TEST(InTreeAllocators, PoolSurvivesRandomStress) {
  PoolAllocator a(1 << 17);
  stress(a, 1, 20000);
}

TEST(InTreeAllocators, EqClassSurvivesRandomStress) {
  EqClassAllocator a(1 << 17);
  stress(a, 2, 20000);
}

TEST(InTreeAllocators, BumpSurvivesRandomStress) {
  BumpAllocator a(1 << 17);
  stress(a, 3, 5000);
}

TEST(InTreeAllocators, PoolReusesFreedBlocksOfTheSameClass) {
  PoolAllocator a(4096);
  void* p = a.allocate(40);
  a.deallocate(p, 40);
  EXPECT_EQ(a.allocate(48), p);  // 40 and 48 share the 48-byte class; LIFO free list
}

TEST(InTreeAllocators, PoolClassesAreTightAndCoverEverySize) {
  for (std::size_t n = 1; n <= PoolAllocator::kMaxPooledBytes; n += (n < 4096 ? 1 : 61)) {
    const unsigned c = PoolAllocator::class_of(n);
    ASSERT_LT(c, PoolAllocator::kClasses) << n;
    ASSERT_GE(PoolAllocator::class_size(c), n) << n;
    if (c > 0) {
      ASSERT_LT(PoolAllocator::class_size(c - 1), n) << n;  // the smallest class that fits
    }
    ASSERT_LE(PoolAllocator::class_size(c), n + n / 4 + 16) << n;    // waste at most a quarter (or 16 B)
  }
}

TEST(InTreeAllocators, BumpLaysBlocksOutInOrderAndFailsPastTheBudget) {
  const std::size_t saved = ChunkSource::process_budget();
  ChunkSource::set_process_budget(BumpAllocator::kChunkBytes);  // exactly one chunk
  {
    BumpAllocator a(64);
    auto* p = static_cast<char*>(a.allocate(24));
    EXPECT_EQ(static_cast<char*>(a.allocate(8)), p + 32);  // 24 rounded up to 16-byte alignment
    EXPECT_NE(a.allocate(BumpAllocator::kChunkBytes / 2), nullptr);
    EXPECT_EQ(a.allocate(BumpAllocator::kChunkBytes / 2), nullptr);  // a second chunk is over budget
  }
  ChunkSource::set_process_budget(saved);
}

// eqclass with the Gleipnir geometry, independent of this machine's L1.
const CacheGeometry kGleipnirL1{32768, 64, 8, "test"};

TEST(EqClassPlacement, FirstBlocksWalkAllSetsThenOnlyTheUpperHalf) {
  EqClassAllocator a(4096, kGleipnirL1);
  ASSERT_EQ(a.sets(), 64u);
  for (std::size_t i = 0; i < EqClassAllocator::kWalkAllSetsBlocks; ++i)
    ASSERT_EQ(a.set_of(a.allocate(64)), i % 64) << "block " << i;
  std::map<std::size_t, int> later;
  for (int i = 0; i < 640; ++i) ++later[a.set_of(a.allocate(64))];
  EXPECT_EQ(later.size(), 32u);  // every upper-half set ...
  EXPECT_EQ(later.begin()->first, 32u);
  for (const auto& [set, count] : later) EXPECT_EQ(count, 20) << "set " << set;  // ... equally often
}

TEST(EqClassPlacement, MultiLineBlocksAdvanceTheCursorByTheirLength) {
  EqClassAllocator a(4096, kGleipnirL1);
  for (std::size_t i = 0; i < 200; ++i) ASSERT_EQ(a.set_of(a.allocate(100)), (2 * i) % 64) << "block " << i;  // 2 lines
}

TEST(EqClassPlacement, HintsOverrideTheCounter) {
  EqClassAllocator a(4096, kGleipnirL1);
  for (int i = 0; i < 100; ++i) ASSERT_GE(a.set_of(a.allocate(64, PlacementHint::cold)), 32u);  // early, but cold
  for (std::size_t i = 0; i < 2000; ++i) a.allocate(64);  // exhaust the counter
  std::map<std::size_t, int> hot;
  for (int i = 0; i < 128; ++i) ++hot[a.set_of(a.allocate(64, PlacementHint::hot))];
  EXPECT_EQ(hot.size(), 64u);  // late, but hot: all sets
}

TEST(EqClassPlacement, TheEnvironmentSetsHowManyBlocksWalkAllSets) {
  ASSERT_EQ(setenv(EqClassAllocator::kHotBlocksVariable, "10", 1), 0);
  {
    EqClassAllocator a(4096, kGleipnirL1);
    for (std::size_t i = 0; i < 10; ++i) ASSERT_EQ(a.set_of(a.allocate(64)), i);
    EXPECT_EQ(a.set_of(a.allocate(64)), 32u);  // the 11th block already goes to the upper half
  }
  ASSERT_EQ(setenv(EqClassAllocator::kHotBlocksVariable, "ten", 1), 0);
  EXPECT_THROW(EqClassAllocator(4096, kGleipnirL1), std::invalid_argument);
  unsetenv(EqClassAllocator::kHotBlocksVariable);
  EXPECT_EQ(EqClassAllocator::hot_blocks_from_environment(), EqClassAllocator::kWalkAllSetsBlocks);
}

TEST(EqClassPlacement, FreedBlocksAreReusedOnTheirOwnSet) {
  EqClassAllocator a(4096, kGleipnirL1);
  void* first = a.allocate(64);  // set 0
  a.deallocate(first, 64);
  for (int i = 1; i < 64; ++i) a.allocate(64);  // sets 1..63
  EXPECT_EQ(a.allocate(64), first);               // the cursor is back at set 0: the freed block
}

}  // namespace
}  // namespace allocstress
