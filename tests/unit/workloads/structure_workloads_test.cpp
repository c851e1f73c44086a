// The data-structure workloads: every phase runs and verifies under every kind of backend; the
// operation stream does not depend on the allocator; verification catches a broken allocator;
// parameters are validated with clear messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "allocators/bump_allocator.hpp"
#include "allocators/eqclass_allocator.hpp"
#include "allocators/pool_allocator.hpp"
#include "allocators/process_malloc_allocator.hpp"
#include "workloads/structures/bintree.hpp"
#include "workloads/structures/linked_list.hpp"
#include "workloads/structures/multilist.hpp"

namespace allocstress {
namespace {

StructureParams small(bool churn_and_interleave) {
  StructureParams p;
  p.nodes = 3000;
  p.node_size = 48;
  p.searches = 4000;
  p.heads = 30;
  if (churn_and_interleave) {
    p.interleave = 2;
    p.churn_percent = 30;
    p.hints = true;
  }
  return p;
}

template <template <class> class S, class A>
StructureOutcome run_all_phases(const StructureParams& p, std::uint64_t seed) {
  A alloc(1024);
  WorkloadRng rng = make_thread_rng(seed, 0);
  S<A> s(alloc, p, rng);
  EXPECT_TRUE(s.build());
  s.prepare_churn();
  EXPECT_TRUE(s.churn());
  s.prepare_searches();
  s.search();
  s.verify();
  std::size_t nodes = 0;
  s.for_each_node([&](const void*, std::size_t bytes) {
    ++nodes;
    EXPECT_EQ(bytes, p.node_size);
  });
  EXPECT_EQ(nodes, s.outcome().live_nodes);
  const StructureOutcome out = s.outcome();
  s.release();
  return out;
}

template <template <class> class S>
void check_structure(const char* name, std::uint64_t expected_live) {
  for (bool busy : {false, true}) {
    const StructureParams p = small(busy);
    const StructureOutcome ref = run_all_phases<S, ProcessMallocAllocator>(p, 7);
    EXPECT_EQ(ref.verify_error, "") << name;
    EXPECT_EQ(ref.live_nodes, expected_live) << name;
    EXPECT_EQ(ref.searches, p.searches);
    // 7 in 8 queries look for a live key: found is near 7/8 of them.
    EXPECT_NEAR(double(ref.found) / double(ref.searches), 7.0 / 8.0, 0.03) << name;
    EXPECT_EQ(ref.nodes_churned, busy ? p.nodes * p.churn_percent / 100 : 0) << name;
    EXPECT_EQ(ref.interleaved_blocks, busy ? (expected_live) * p.interleave : 0) << name;
    for (const StructureOutcome& o : {run_all_phases<S, BumpAllocator>(p, 7), run_all_phases<S, PoolAllocator>(p, 7),
                                      run_all_phases<S, EqClassAllocator>(p, 7)}) {
      EXPECT_EQ(o.verify_error, "") << name;
      EXPECT_EQ(o.op_stream_hash, ref.op_stream_hash) << name << ": the stream depends on the allocator";
      EXPECT_EQ(o.visits, ref.visits) << name;
      EXPECT_EQ(o.found, ref.found) << name;
    }
    const std::uint64_t other_seed = run_all_phases<S, PoolAllocator>(p, 8).op_stream_hash;
    EXPECT_NE(other_seed, ref.op_stream_hash) << name << ": seed ignored";
  }
}

TEST(StructureWorkloads, BinTreeVerifiesUnderEveryBackend) { check_structure<BinTreeWorkload>("bintree", 3000); }
TEST(StructureWorkloads, LinkedListVerifiesUnderEveryBackend) { check_structure<LinkedListWorkload>("linkedlist", 3000); }
TEST(StructureWorkloads, MultiListVerifiesUnderEveryBackend) { check_structure<MultiListWorkload>("multilist", 3030); }

TEST(StructureWorkloads, LinkedListVisitsAboutHalfTheListPerHit) {
  StructureParams p = small(false);
  const StructureOutcome o = run_all_phases<LinkedListWorkload, PoolAllocator>(p, 3);
  // hits visit position+1 (mean N/2), misses visit all N: (7/8 * N/2 + 1/8 * N) per query
  const double expected = double(p.searches) * double(p.nodes) * (7.0 / 16.0 + 1.0 / 8.0);
  EXPECT_NEAR(double(o.visits) / expected, 1.0, 0.05);
}

// A broken allocator: every 50th allocation scribbles over the last byte of the block it handed
// out before (as a metadata write into a live block would).  Links stay intact, so no walk loops.
class ScribblingAllocator {
 public:
  explicit ScribblingAllocator(std::size_t) {}
  void* allocate(std::size_t n) {
    if (++count_ % 50 == 0 && last_ != nullptr) last_[last_size_ - 1] ^= 0xff;
    last_ = static_cast<unsigned char*>(pool_.allocate(n));
    last_size_ = n;
    return last_;
  }
  void deallocate(void* p, std::size_t n) { pool_.deallocate(p, n); }
  static constexpr std::string_view name() { return "scribbling"; }

 private:
  PoolAllocator pool_{1024};
  unsigned char* last_ = nullptr;
  std::size_t last_size_ = 0;
  std::uint64_t count_ = 0;
};

TEST(StructureWorkloads, VerificationCatchesAnAllocatorThatOverwritesLiveBlocks) {
  StructureParams p = small(false);
  for (int which = 0; which < 3; ++which) {
    ScribblingAllocator alloc(1024);
    WorkloadRng rng = make_thread_rng(1, 0);
    std::string error;
    auto exercise = [&](auto& s) {
      s.build();
      s.prepare_churn();
      s.churn();
      s.prepare_searches();
      s.search();
      s.verify();
      error = s.outcome().verify_error;
    };
    if (which == 0) {
      BinTreeWorkload<ScribblingAllocator> s(alloc, p, rng);
      exercise(s);
    } else if (which == 1) {
      LinkedListWorkload<ScribblingAllocator> s(alloc, p, rng);
      exercise(s);
    } else {
      MultiListWorkload<ScribblingAllocator> s(alloc, p, rng);
      exercise(s);
    }
    EXPECT_NE(error, "") << "structure " << which << " did not notice the overwritten payload";
  }
}

TEST(StructureWorkloads, BadParametersNameTheParameterAndTheRange) {
  auto message = [](const char* workload, StructureParams p) {
    try {
      validate(workload, p);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  StructureParams p;
  p.node_size = 24;
  EXPECT_EQ(message("bintree", p), "bintree: --node-size out of range: 24 (accepted: 32..65536)");
  p.node_size = 36;
  EXPECT_EQ(message("linkedlist", p), "linkedlist: --node-size 36 is not a multiple of 8 (accepted: multiples of 8)");
  p = StructureParams{};
  p.churn_percent = 101;
  EXPECT_EQ(message("bintree", p), "bintree: --churn out of range: 101 (accepted: 0..100)");
  p = StructureParams{};
  p.heads = p.nodes + 1;
  EXPECT_NE(message("multilist", p).find("--heads out of range"), std::string::npos);
  p = StructureParams{};
  p.zipf = -1;
  EXPECT_NE(message("multilist", p).find("--zipf out of range: -1"), std::string::npos);
  EXPECT_NE(message("hashmap", StructureParams{}).find("accepted: bintree, linkedlist, multilist"), std::string::npos);
  EXPECT_EQ(message("linkedlist", StructureParams{}), "(accepted)");
}

}  // namespace
}  // namespace allocstress
