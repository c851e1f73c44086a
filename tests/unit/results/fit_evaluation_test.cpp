// Replay-versus-fitted comparison: rank correlations on values with known answers, and the
// comparison of two constructed results files (ranks, per-op units, void left out, n/a cases).
#include <gtest/gtest.h>

#include "results/fit_evaluation.hpp"

namespace allocstress {
namespace {

TEST(FitEvaluation, RankCorrelationsOnKnownValues) {
  EXPECT_DOUBLE_EQ(*spearman_rho({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*spearman_rho({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(*kendall_tau_b({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*kendall_tau_b({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // One swapped pair out of 6: tau = (5 - 1) / 6; rho = 1 - 6 * 2 / (4 * 15) = 0.8.
  EXPECT_NEAR(*kendall_tau_b({1, 2, 3, 4}, {1, 2, 4, 3}), 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(*spearman_rho({1, 2, 3, 4}, {1, 2, 4, 3}), 0.8, 1e-12);
  EXPECT_FALSE(spearman_rho({1, 2}, {1, 2}).has_value());       // too few
  EXPECT_FALSE(kendall_tau_b({1, 1, 1}, {1, 2, 3}).has_value());  // one side constant
}

nlohmann::json results(const std::string& workload, const std::vector<std::tuple<std::string, double, double>>& cells) {
  nlohmann::json b = nlohmann::json::array();
  for (const auto& [allocator, net_per_pair, overhead] : cells) {
    b.push_back({{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"workload", workload}, {"mode", "timing"},
                 {"allocator", allocator}, {"net_cycles_per_pair", net_per_pair}, {"overhead_ratio", overhead}});
    b.push_back({{"run_type", "aggregate"}, {"aggregate_name", "cv"}, {"workload", workload}, {"allocator", allocator},
                 {"net_cycles_per_pair", 0.5}});
  }
  return {{"benchmarks", b}};
}

TEST(FitEvaluation, ComparesTwoResultsFiles) {
  const auto replay = results("replay", {{"void", 0, 0}, {"system", 100, 1.5}, {"jemalloc", 60, 1.2}, {"pool", 80, 1.1}, {"extra", 1, 1}});
  const auto fitted = results("fitted", {{"void", 0, 0}, {"system", 90, 1.4}, {"jemalloc", 40, 1.3}, {"pool", 50, 1.0}});
  const FitComparison c = compare_fit(replay, fitted);
  ASSERT_EQ(c.rows.size(), 3u);  // void and the allocator missing from one file are left out
  EXPECT_EQ(c.rows[0].allocator, "jemalloc");  // replay's speed order
  EXPECT_DOUBLE_EQ(*c.rows[0].replay_net_cycles_per_op, 30.0);  // per op = per pair / 2
  EXPECT_EQ(*c.rows[0].replay_speed_rank, 1u);
  EXPECT_EQ(*c.rows[0].fitted_speed_rank, 1u);
  EXPECT_EQ(*c.rows[0].replay_memory_rank, 2u);
  EXPECT_EQ(*c.rows[0].fitted_memory_rank, 2u);
  EXPECT_DOUBLE_EQ(*c.speed_spearman, 1.0);
  EXPECT_DOUBLE_EQ(*c.memory_kendall, 1.0);
  EXPECT_NEAR(*c.overhead_median_abs_difference, 0.1, 1e-12);
  const std::string md = fit_comparison_markdown(c);
  EXPECT_NE(md.find("| jemalloc | 30.0 | 1 | 20.0 | 1 |"), std::string::npos) << md;
  EXPECT_THROW(compare_fit(fitted, fitted), std::runtime_error);  // no replay entries
}

// An allocator whose every process was disturbed (or failed) has no median: n/a with the reason,
// and the others are still ranked (it once threw "no median entry" for the whole comparison).
TEST(FitEvaluation, AnAllocatorWithoutAMedianIsNotApplicableNotAnError) {
  auto replay = results("replay", {{"void", 0, 0}, {"system", 100, 1.5}, {"jemalloc", 60, 1.2}, {"pool", 80, 1.1}});
  const auto fitted = results("fitted", {{"void", 0, 0}, {"system", 90, 1.4}, {"jemalloc", 40, 1.3}, {"pool", 50, 1.0}, {"bump", 20, 2}});
  replay["benchmarks"].push_back({{"run_type", "iteration"}, {"workload", "replay"}, {"mode", "timing"}, {"allocator", "bump"},
                                  {"status", "ok"}, {"interference", {{"disturbed", true}}}});
  const FitComparison c = compare_fit(replay, fitted);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows.back().allocator, "bump");
  EXPECT_FALSE(c.rows.back().replay_net_cycles_per_op.has_value());
  EXPECT_FALSE(c.rows.back().replay_speed_rank.has_value());
  EXPECT_DOUBLE_EQ(*c.speed_spearman, 1.0);  // over the three with both figures
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("bump: n/a, replay: no ok, undisturbed repetition (e.g. disturbed)"), std::string::npos) << c.notes[0];
  const std::string md = fit_comparison_markdown(c);
  EXPECT_NE(md.find("| bump | n/a | n/a | 10.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("- bump: n/a, replay"), std::string::npos) << md;
}

}  // namespace
}  // namespace allocstress
