// Topology placement: invariants on whatever machine runs the tests, and exact worker orders on
// synthetic hwloc topologies (shapes this machine may not have: several packages, SMT, 4-way SMT).
#include "platform/topology.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

namespace allocstress {
namespace {

using Pus = std::vector<unsigned>;

// Position in summary()["pu_os_indexes_by_core"] of the core holding `pu`.
std::size_t core_of(const Topology& t, unsigned pu) {
  const auto by_core = t.summary()["pu_os_indexes_by_core"];
  for (std::size_t c = 0; c < by_core.size(); ++c)
    for (unsigned sibling : by_core[c])
      if (sibling == pu) return c;
  throw std::logic_error("PU " + std::to_string(pu) + " is in no core");
}

Pus iota(unsigned n) {
  Pus v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

std::string what_of(const Topology& t, const PlacementRequest& r) {
  try {
    t.choose_pus(r);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

// Every policy's contract on topology `t`, whatever its shape: the worker order is usable_worker_count
// distinct PUs, one more worker is refused unless oversubscribed (then it wraps), and the policy's
// own property holds (one-per-core: no core twice; smt-pairs: workers 2k and 2k+1 share a core).
void check_contracts(const Topology& t, const std::string& shape) {
  const unsigned os_pu = t.summary()["pu_os_indexes_logical_order"].back().get<unsigned>();
  for (Placement policy : kAllPlacements)
    for (bool reserve : {false, true}) {
      SCOPED_TRACE(shape + " " + std::string(to_string(policy)) + (reserve ? " reserve_os_pu" : ""));
      const unsigned n = t.usable_worker_count(policy, reserve);
      if (n == 0) {
        EXPECT_EQ(policy, Placement::smt_pairs);
        EXPECT_THROW(t.choose_pus({1, policy, reserve, true}), std::invalid_argument);
        continue;
      }
      const Pus pus = t.choose_pus({n, policy, reserve, false});
      EXPECT_EQ(std::set<unsigned>(pus.begin(), pus.end()).size(), n);
      EXPECT_NE(what_of(t, {n + 1, policy, reserve, false}).find("--oversubscribe"), std::string::npos);
      const Pus wrapped = t.choose_pus({n + 1, policy, reserve, true});
      EXPECT_EQ(wrapped.back(), pus.front());
      std::set<std::size_t> cores;
      for (unsigned pu : pus) cores.insert(core_of(t, pu));
      if (policy == Placement::one_per_core) {
        EXPECT_EQ(cores.size(), n);
        EXPECT_LE(n, t.core_count());
      }
      if (policy == Placement::smt_pairs) {
        ASSERT_EQ(n % 2, 0u);
        for (unsigned k = 0; k < n; k += 2) EXPECT_EQ(core_of(t, pus[k]), core_of(t, pus[k + 1])) << "pair " << k / 2;
      }
      if (reserve && n < t.usable_worker_count(policy, false)) {  // reserved (exact orders: tests below)
        const bool whole_core = policy == Placement::one_per_core || policy == Placement::smt_pairs;
        for (unsigned pu : pus) {
          EXPECT_NE(pu, os_pu);
          if (whole_core) {
            EXPECT_NE(core_of(t, pu), core_of(t, os_pu)) << "worker shares a core with the OS PU";
          }
        }
      }
    }
}

TEST(Placement, NamesRoundTripAndAnUnknownNameListsThemAll) {
  for (Placement p : kAllPlacements) EXPECT_EQ(parse_placement(to_string(p)), p);
  EXPECT_EQ(placement_names(), "compact, scatter, one-per-core, smt-pairs");
  try {
    parse_placement("smt");
    FAIL() << "'smt' accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown placement 'smt' (accepted: compact, scatter, one-per-core, smt-pairs)");
  }
}

TEST(Topology, SyntheticTopologyHasTheDescribedShapeAndCannotPin) {
  const Topology t = Topology::synthetic("package:2 core:4 pu:2");
  EXPECT_EQ(t.package_count(), 2u);
  EXPECT_EQ(t.core_count(), 8u);
  EXPECT_EQ(t.pu_count(), 16u);
  EXPECT_EQ(t.summary()["pu_os_indexes_logical_order"].get<Pus>(), iota(16));
  EXPECT_NE(t.pin_current_thread(0).find("synthetic"), std::string::npos);
  try {
    Topology::synthetic("package:2 bogus:4");
    FAIL() << "bad description accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'package:2 bogus:4'"), std::string::npos) << e.what();
  }
}

// 2 packages x 4 cores x 2 PUs: core c holds PUs 2c and 2c+1, package 1 holds cores 4..7 (PUs 8..15).
TEST(Topology, WorkerOrdersOnTwoPackagesOfFourSmtCores) {
  const Topology t = Topology::synthetic("package:2 core:4 pu:2");
  const struct {
    Placement policy;
    bool reserve;
    Pus order;
  } cases[] = {
      {Placement::compact, false, iota(16)},
      {Placement::scatter, false, {0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15}},
      {Placement::one_per_core, false, {0, 2, 4, 6, 8, 10, 12, 14}},
      {Placement::smt_pairs, false, iota(16)},
      // The OS keeps PU 15; one-per-core and smt-pairs also leave its core (PUs 14, 15) out.
      {Placement::compact, true, iota(15)},
      {Placement::scatter, true, {0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7}},
      {Placement::one_per_core, true, {0, 2, 4, 6, 8, 10, 12}},
      {Placement::smt_pairs, true, iota(14)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(to_string(c.policy)) + (c.reserve ? " reserve_os_pu" : ""));
    EXPECT_EQ(t.usable_worker_count(c.policy, c.reserve), c.order.size());
    EXPECT_EQ(t.choose_pus({unsigned(c.order.size()), c.policy, c.reserve, false}), c.order);
  }
}

TEST(Topology, OnePerCoreRefusesMoreWorkersThanCoresNamingTheCoreCount) {
  const Topology t = Topology::synthetic("package:2 core:4 pu:2");
  EXPECT_EQ(what_of(t, {9, Placement::one_per_core, false, false}),
            "threads 9 exceeds the 8 usable PUs for one-per-core (one per core on 8 of the machine's 8 cores) "
            "(accepted: 1..8, or pass --oversubscribe)");
  EXPECT_EQ(what_of(t, {8, Placement::one_per_core, true, false}),
            "threads 8 exceeds the 7 usable PUs for one-per-core (one per core on 7 of the machine's 8 cores, "
            "the OS's core left out) (accepted: 1..7, or pass --oversubscribe)");
  // Oversubscribed, workers wrap around the same first-PU-of-each-core list; no SMT sibling is used.
  EXPECT_EQ(t.choose_pus({10, Placement::one_per_core, false, true}), (Pus{0, 2, 4, 6, 8, 10, 12, 14, 0, 2}));
}

TEST(Topology, SmtPairsTakeTwoSiblingsOfEachCoreEvenWithFourWaySmt) {
  const Topology t = Topology::synthetic("package:1 core:2 pu:4");  // core 0: PUs 0..3, core 1: PUs 4..7
  EXPECT_EQ(t.choose_pus({4, Placement::smt_pairs, false, false}), (Pus{0, 1, 4, 5}));
  EXPECT_EQ(t.choose_pus({3, Placement::smt_pairs, false, false}), (Pus{0, 1, 4}));  // odd: last worker alone
  EXPECT_EQ(t.choose_pus({8, Placement::compact, false, false}), iota(8));
  EXPECT_EQ(what_of(t, {5, Placement::smt_pairs, false, false}),
            "threads 5 exceeds the 4 usable PUs for smt-pairs (two SMT siblings on each of 2 cores) "
            "(accepted: 1..4, or pass --oversubscribe)");
}

TEST(Topology, SmtPairsAreRefusedWithoutSmtEvenWhenOversubscribing) {
  const Topology t = Topology::synthetic("package:1 core:4 pu:1");
  EXPECT_EQ(t.usable_worker_count(Placement::smt_pairs, false), 0u);
  const std::string expected =
      "placement smt-pairs needs SMT siblings, but there are no SMT siblings on this machine (1 PU per core) "
      "(accepted here: compact, scatter, one-per-core)";
  EXPECT_EQ(what_of(t, {1, Placement::smt_pairs, false, false}), expected);
  EXPECT_EQ(what_of(t, {2, Placement::smt_pairs, true, true}), expected);
  // Without SMT, one-per-core is compact: the same PUs, and the same reservation (study: 1..PUs-1).
  for (bool reserve : {false, true})
    EXPECT_EQ(t.choose_pus({t.usable_worker_count(Placement::one_per_core, reserve), Placement::one_per_core, reserve, false}),
              t.choose_pus({t.usable_pu_count(reserve), Placement::compact, reserve, false}));
  EXPECT_EQ(t.usable_worker_count(Placement::one_per_core, true), 3u);
}

TEST(Topology, AReservationThatWouldLeaveNoPuIsNotMade) {
  const Topology t = Topology::synthetic("package:1 core:1 pu:2");
  EXPECT_EQ(t.choose_pus({1, Placement::one_per_core, true, false}), (Pus{0}));
  EXPECT_EQ(t.choose_pus({2, Placement::smt_pairs, true, false}), (Pus{0, 1}));
  EXPECT_EQ(t.choose_pus({1, Placement::compact, true, false}), (Pus{0}));  // only the OS PU is left out
}

TEST(Topology, EveryPolicyKeepsItsContractOnSyntheticShapes) {
  for (const char* shape : {"package:2 core:4 pu:2", "package:1 core:2 pu:4", "package:1 core:4 pu:1", "pu:3",
                            "package:3 core:3 pu:2", "package:1 core:1 pu:1"})
    check_contracts(Topology::synthetic(shape), shape);
}

TEST(Topology, EveryPolicyKeepsItsContractOnThisMachine) {
  const Topology t;
  ASSERT_GE(t.pu_count(), 1u);
  check_contracts(t, "this machine");
}

TEST(Topology, ScatterUsesOnePuPerCoreBeforeAnySibling) {
  Topology t;
  PlacementRequest r{t.core_count(), Placement::scatter, false, false};
  const auto pus = t.choose_pus(r);
  std::set<std::size_t> cores_used;
  for (unsigned pu : pus) cores_used.insert(core_of(t, pu));
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

TEST(Topology, PinningToEveryPuWorks) {
  Topology t;
  const nlohmann::json summary = t.summary();  // keep it alive for the loop
  for (unsigned pu : summary["pu_os_indexes_logical_order"]) EXPECT_EQ(t.pin_current_thread(pu), "") << pu;
  EXPECT_NE(t.pin_current_thread(1u << 30), "");
}

// Not the function's word for it: the kernel's.  A thread pinned to a PU has that PU alone in its
// affinity mask and runs on it (sched_getcpu; the kernel moves a thread off a PU it may no longer
// use before sched_setaffinity returns).  On threads of their own: this one's mask stays whole.
TEST(Topology, APinnedThreadRunsOnItsPuAlone) {
  Topology t;
  const nlohmann::json summary = t.summary();
  for (unsigned pu : summary["pu_os_indexes_logical_order"]) {
    std::string error;
    int mask_count = -1, in_mask = 0, ran_on = -1;
    std::thread([&] {
      error = t.pin_current_thread(pu);
      cpu_set_t mask;
      CPU_ZERO(&mask);
      if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        mask_count = CPU_COUNT(&mask);
        in_mask = CPU_ISSET(pu, &mask);
      }
      ran_on = sched_getcpu();
    }).join();
    EXPECT_EQ(error, "") << pu;
    EXPECT_EQ(mask_count, 1) << "pinned to PU " << pu;
    EXPECT_TRUE(in_mask) << "pinned to PU " << pu;
    EXPECT_EQ(ran_on, int(pu)) << "pinned to PU " << pu;
  }
}

}  // namespace
}  // namespace allocstress
