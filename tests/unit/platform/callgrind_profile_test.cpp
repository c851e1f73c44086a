// Reading a callgrind profile (self costs, calls, name compression) and the counts tier's figures.
#include "platform/profilers/callgrind_profile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "platform/profilers/instruction_counts.hpp"

namespace allocstress {
namespace {

std::filesystem::path write_profile(const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("allocstress-cgp-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  std::ofstream(p) << text;
  return p;
}

// A workload (object /bin/w) whose loop calls malloc and memset in libc and an allocator's free in
// /lib/a.so; the call costs are inclusive, so they are nobody's self cost.
const char* const kProfile =
    "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npositions: line\n"
    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
    "ob=(1) /bin/w\nfl=(1) w.c\nfn=(1) loop\n"
    "10 100 20 10 1 2 1\n"
    "+2 50\n"
    "cob=(2) /lib/libc.so.6\ncfi=(2) ???\ncfn=(2) malloc\ncalls=5 0\n"
    "* 300 60 30 0 10 5 0 1 1\n"
    "cob=(2)\ncfi=(2)\ncfn=(3) __memset_avx2_unaligned_erms\ncalls=5 0\n"
    "-1 40 0 40\n"
    "cob=(3) /lib/a.so\ncfn=(4) free\ncalls=5 0\n"
    "* 200 50 20 0 4\n"
    "ob=(2)\nfl=(2)\nfn=(2)\n"
    "0 300 60 30 0 10 5 0 1 1\n"
    "fn=(3)\n0 40 0 40\n"
    "ob=(3)\nfn=(4)\n0 200 50 20 0 4\n"
    "totals: 690 130 100 1 16 6 0 1 1\n";

TEST(CallgrindProfile, SelfCostsByObjectAndFunctionSumToTheTotals) {
  const auto path = write_profile(kProfile);
  const CallgrindProfile p = read_callgrind_profile(path);
  EXPECT_EQ(p.creator, "callgrind-3.19.0");
  ASSERT_EQ(p.events.size(), 9u);
  EXPECT_EQ(p.total("Ir"), 690u);
  EXPECT_EQ(p.total("DLmw"), 1u);
  EXPECT_EQ(p.total("nosuch"), 0u);
  const auto loop = p.self.at({"/bin/w", "loop"});
  EXPECT_EQ(loop[0], 150u);  // 100 + 50: the call lines' costs are not the loop's own
  EXPECT_EQ(loop[1], 20u);
  EXPECT_EQ(loop[8], 0u);  // trailing zeros left out
  EXPECT_EQ(p.self.at({"/lib/libc.so.6", "malloc"})[0], 300u);
  EXPECT_EQ(p.self.at({"/lib/a.so", "free"})[4], 4u);
  std::vector<std::uint64_t> sum(p.events.size(), 0);
  for (const auto& [where, cost] : p.self)
    for (std::size_t i = 0; i < cost.size(); ++i) sum[i] += cost[i];
  EXPECT_EQ(sum, p.totals);
  std::filesystem::remove(path);
}

TEST(CallgrindProfile, CallsKeepTheirCalleeObjectAndFunction) {
  const auto path = write_profile(kProfile);
  const CallgrindProfile p = read_callgrind_profile(path);
  ASSERT_EQ(p.calls.size(), 3u);
  EXPECT_EQ((p.calls.at({"/bin/w", "/lib/libc.so.6", "malloc"})[0]), 300u);
  EXPECT_EQ((p.calls.at({"/bin/w", "/lib/libc.so.6", "__memset_avx2_unaligned_erms"})[2]), 40u);
  EXPECT_EQ((p.calls.at({"/bin/w", "/lib/a.so", "free"})[0]), 200u);
  std::filesystem::remove(path);
}

TEST(CallgrindProfile, BadFilesAreErrorsNamingTheFile) {
  const auto none = write_profile("events: Ir Dr\n");
  EXPECT_THROW(read_callgrind_profile(none), std::runtime_error);
  const auto bad = write_profile("events: Ir\nfn=(1) f\n3 x\ntotals: 1\n");
  try {
    read_callgrind_profile(bad);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string() + " line 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_callgrind_profile("/nonexistent/callgrind.out"), std::runtime_error);
  std::filesystem::remove(none);
  std::filesystem::remove(bad);
}

// L1 hits + 5 x LL hits + 35 x RAM hits, from the totals.
TEST(InstructionCounts, EstimatedCyclesWeighTheSimulatedHits) {
  const auto path = write_profile(kProfile);
  const CallgrindProfile p = read_callgrind_profile(path);
  const std::uint64_t accesses = 690 + 130 + 100, l1_misses = 1 + 16 + 6, ram = 0 + 1 + 1;
  EXPECT_EQ(estimated_cycles(p), (accesses - l1_misses) + 5 * (l1_misses - ram) + 35 * ram);
  std::filesystem::remove(path);
}

// The allocator's share: the workload's calls out of its own object, except memset and friends.
TEST(InstructionCounts, AllocatorCallsLeaveOutTheWorkloadsOwnMemset) {
  const auto path = write_profile(kProfile);
  const CallgrindProfile p = read_callgrind_profile(path);
  const nlohmann::json f = instruction_count_figures(p, 5, "pair", OutsideCalls{.workload_object = "/bin/w"}, "");
  EXPECT_EQ(f["provenance"], "simulated (callgrind-3.19.0)");
  EXPECT_EQ(f["instructions"], 690);
  EXPECT_DOUBLE_EQ(f["instructions_per_unit"].get<double>(), 138.0);
  EXPECT_EQ(f["allocator_calls"]["instructions"], 500);  // malloc 300 + free 200, not memset's 40
  EXPECT_DOUBLE_EQ(f["allocator_calls"]["instructions_per_unit"].get<double>(), 100.0);
  EXPECT_EQ(f["allocator_calls"]["instructions_by_function"]["free"], 200);
  EXPECT_FALSE(f["allocator_calls"]["instructions_by_function"].contains("__memset_avx2_unaligned_erms"));
  EXPECT_EQ(f["d1_misses"], 22);
  const nlohmann::json none = instruction_count_figures(p, 5, "pair", std::nullopt, "in-tree backend");
  EXPECT_TRUE(none["allocator_calls"]["instructions"].is_null());
  EXPECT_EQ(none["allocator_calls"]["provenance"], "n/a(in-tree backend)");
  std::filesystem::remove(path);
}

TEST(CallgrindProfile, SummedProfilesAddTotalsSelfAndCallCosts) {
  const auto path = write_profile(kProfile);
  const CallgrindProfile one = read_callgrind_profile(path);
  const CallgrindProfile two = summed_profiles({one, one});
  EXPECT_EQ(two.events, one.events);
  EXPECT_EQ(two.creator, "callgrind-3.19.0");
  EXPECT_EQ(two.total("Ir"), 2 * 690u);
  EXPECT_EQ(two.self.at({"/bin/w", "loop"})[0], 300u);
  const OutsideCalls rule{.workload_object = "/bin/w"};
  EXPECT_EQ(outside_calls_cost(two, rule).total[0], 2 * outside_calls_cost(one, rule).total[0]);
  CallgrindProfile other = one;
  other.events.pop_back();
  EXPECT_THROW(summed_profiles({one, other}), std::runtime_error);
  EXPECT_THROW(summed_profiles({}), std::runtime_error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace allocstress
