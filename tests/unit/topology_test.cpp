// Topology placement on whatever machine runs the tests: invariants that hold for any topology.
#include "harness/topology.hpp"

#include <gtest/gtest.h>

#include <set>

namespace allocstress {
namespace {

TEST(Topology, PoliciesGiveDistinctPusUpToTheUsableCount) {
  Topology t;
  ASSERT_GE(t.pu_count(), 1u);
  for (Placement policy : {Placement::compact, Placement::scatter}) {
    PlacementRequest r{t.pu_count(), policy, false, false};
    const auto pus = t.choose_pus(r);
    EXPECT_EQ(std::set<unsigned>(pus.begin(), pus.end()).size(), t.pu_count()) << to_string(policy);
  }
}

TEST(Topology, ScatterUsesOnePuPerCoreBeforeAnySibling) {
  Topology t;
  PlacementRequest r{t.core_count(), Placement::scatter, false, false};
  const auto pus = t.choose_pus(r);
  std::set<std::size_t> cores_used;
  const auto by_core = t.summary()["pu_os_indexes_by_core"];
  for (unsigned pu : pus)
    for (std::size_t c = 0; c < by_core.size(); ++c)
      for (unsigned sibling : by_core[c])
        if (sibling == pu) cores_used.insert(c);
  EXPECT_EQ(cores_used.size(), t.core_count());  // every core once, no SMT sibling doubled up
}

TEST(Topology, ReservingAPuForTheOsLeavesItOut) {
  Topology t;
  if (t.pu_count() < 2) GTEST_SKIP() << "needs 2 PUs";
  EXPECT_EQ(t.usable_pu_count(true), t.pu_count() - 1);
  PlacementRequest r{t.pu_count() - 1, Placement::compact, true, false};
  const auto pus = t.choose_pus(r);
  const unsigned reserved = t.summary()["pu_os_indexes_logical_order"].back().get<unsigned>();
  for (unsigned pu : pus) EXPECT_NE(pu, reserved);
  r.threads = t.pu_count();
  EXPECT_THROW(t.choose_pus(r), std::invalid_argument);
}

TEST(Topology, OversubscriptionIsRefusedUnlessAsked) {
  Topology t;
  PlacementRequest r{t.pu_count() + 1, Placement::compact, false, false};
  try {
    t.choose_pus(r);
    FAIL() << "more threads than PUs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--oversubscribe"), std::string::npos) << e.what();
  }
  r.oversubscribe = true;
  const auto pus = t.choose_pus(r);
  EXPECT_EQ(pus.size(), t.pu_count() + 1);
  EXPECT_EQ(pus.back(), pus.front());  // wraps around
}

TEST(Topology, PinningToEveryPuWorks) {
  Topology t;
  const nlohmann::json summary = t.summary();  // keep it alive for the loop
  for (unsigned pu : summary["pu_os_indexes_logical_order"]) EXPECT_EQ(t.pin_current_thread(pu), "") << pu;
  EXPECT_NE(t.pin_current_thread(1u << 30), "");
}

}  // namespace
}  // namespace allocstress
