// The ageing penalty table (results/ageing_tables.cpp) from made-up records: a penalty only where
// the interval of the cost ratio excludes 1, the ratios' intervals from both sides' intervals.
#include <gtest/gtest.h>

#include <string>

#include "results/results_table.hpp"

namespace allocstress {
namespace {

nlohmann::json record(const std::string& allocator, const std::string& mode, double net_ns, double peak, double before, bool disturbed = false) {
  nlohmann::json r = {{"run_type", "iteration"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1}, {"mode", mode},
                      {"status", "ok"}, {"net_ns_per_pair", net_ns}, {"peak_rss_bytes", peak}, {"rss_before_bytes", before},
                      {"interference", {{"disturbed", disturbed}}}};
  if (mode == "aged")
    r["ageing"] = {{"spec", {{"text", "64M"}}}, {"survivor_bytes", 16 << 20}, {"corrupted_survivors", 0}};
  return r;
}

// The row of `allocator` in the table.
std::string row_of(const std::string& table, const std::string& allocator) {
  const auto at = table.find("| alloc-test | " + allocator + " |");
  return at == std::string::npos ? "" : table.substr(at, table.find('\n', at) - at);
}

TEST(AgeingTable, ShowsAPenaltyOnlyWhereTheCostRatioIntervalExcludesOne) {
  nlohmann::json benchmarks = nlohmann::json::array();
  const double mib = 1 << 20;
  for (int i = 0; i < 5; ++i) {
    // slow: aged costs 20.x ns against 10.x fresh; same: both 10.x, interleaved
    benchmarks.push_back(record("slow", "timing", 10 + 0.1 * i, 40 * mib, 10 * mib));
    benchmarks.push_back(record("slow", "aged", 20 + 0.1 * i, 80 * mib, 70 * mib));
    benchmarks.push_back(record("same", "timing", 10 + 0.2 * i, 40 * mib, 10 * mib));
    benchmarks.push_back(record("same", "aged", 10.1 + 0.2 * i, 60 * mib, 30 * mib));
  }
  benchmarks.push_back(record("same", "aged", 1000, 60 * mib, 30 * mib, true));  // disturbed: left out
  const std::string table = memory_markdown({{"benchmarks", benchmarks}});
  ASSERT_NE(table.find("### Ageing penalty (--age 64M"), std::string::npos) << table;
  const std::string slow = row_of(table, "slow"), same = row_of(table, "same");
  // cost 20.2 / 10.2; its interval [20.0 / 10.4, 20.4 / 10.0] (n = 5: min..max)
  EXPECT_NE(slow.find("| 5 / 5 |"), std::string::npos) << slow;
  EXPECT_NE(slow.find("1.98 [1.92, 2.04]"), std::string::npos) << slow;
  EXPECT_NE(slow.find("**slower aged**"), std::string::npos) << slow;
  // peak 80 / 40 MiB; growth 10 / 30 MiB
  EXPECT_NE(slow.find("2.00 [2.00, 2.00]"), std::string::npos) << slow;
  EXPECT_NE(slow.find("0.33 [0.33, 0.33]"), std::string::npos) << slow;
  EXPECT_NE(same.find("none shown"), std::string::npos) << same;
  EXPECT_NE(table.find("1 process(es) of these cells left out as disturbed"), std::string::npos) << table;
  EXPECT_NE(table.find("level 87.5% or more"), std::string::npos) << table;  // 2 x 93.75% - 1
}

TEST(AgeingTable, SaysWhyAFailedAgedCellIsMissingAndIsAbsentWithoutAgedCells) {
  nlohmann::json failed = record("system", "aged", 0, 0, 0);
  failed["status"] = "failed";
  failed["reason"] = "the allocator ran out of memory while ageing";
  const std::string table = memory_markdown({{"benchmarks", {failed}}});
  EXPECT_NE(table.find("- aged cell not measured: system x alloc-test at 1 thread(s): the allocator ran out of memory while ageing"), std::string::npos)
      << table;
  EXPECT_EQ(memory_markdown({{"benchmarks", {record("system", "timing", 10, 1, 1)}}}), "");
}

}  // namespace
}  // namespace allocstress
