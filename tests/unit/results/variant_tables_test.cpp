// The variant tables (results/tables/variant_tables.cpp) from made-up records: the ageing penalty (aged
// against warmed and fresh) and the THP modes; a verdict only where the interval of the cost ratio
// excludes 1, each ratio's interval from both sides' intervals.
#include <gtest/gtest.h>

#include <string>

#include "results/tables/results_table.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress {
namespace {

constexpr double kMiB = 1 << 20;

nlohmann::json record(const std::string& allocator, const std::string& mode, double net_ns, double peak, double before, bool disturbed = false) {
  return {{"run_type", "iteration"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1}, {"mode", mode},
          {"status", "ok"}, {"net_ns_per_pair", net_ns}, {"peak_rss_bytes", peak}, {"rss_before_bytes", before},
          {"interference", {{"disturbed", disturbed}}}};
}

nlohmann::json aged(const std::string& allocator, double keep, double net_ns, double peak, double before, bool disturbed = false) {
  nlohmann::json r = record(allocator, "aged", net_ns, peak, before, disturbed);
  r["ageing"] = {{"spec", {{"text", keep > 0 ? "64M" : "64M,keep=0"}, {"keep", keep}}}, {"survivor_bytes", keep > 0 ? 16 << 20 : 0}, {"corrupted_survivors", 0}};
  return r;
}

// The row of `allocator` in the table.
std::string row_of(const std::string& table, const std::string& allocator) {
  const auto at = table.find("| alloc-test | " + allocator + " |");
  return at == std::string::npos ? "" : table.substr(at, table.find('\n', at) - at);
}

// slow: aged 20.x ns against 10.x warmed; same: aged and warmed both 10.x, interleaved; fresh 30.x
// (a cold heap); one disturbed aged process of `same`.
nlohmann::json ageing_records() {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (int i = 0; i < 5; ++i) {
    for (const char* a : {"slow", "same"}) benchmarks.push_back(record(a, "timing", 30 + 0.1 * i, 40 * kMiB, 10 * kMiB));
    benchmarks.push_back(aged("slow", 0.25, 20 + 0.1 * i, 80 * kMiB, 70 * kMiB));
    benchmarks.push_back(aged("slow", 0, 10 + 0.1 * i, 75 * kMiB, 55 * kMiB));
    benchmarks.push_back(aged("same", 0.25, 10.1 + 0.2 * i, 60 * kMiB, 30 * kMiB));
    benchmarks.push_back(aged("same", 0, 10 + 0.2 * i, 60 * kMiB, 30 * kMiB));
  }
  benchmarks.push_back(aged("same", 0.25, 1000, 60 * kMiB, 30 * kMiB, true));  // disturbed: left out
  return benchmarks;
}

// jemalloc's timing cells under never (coverage 0, 20.x ns), its thp cells under always (coverage
// 0.8x, 10.x ns, 10% more peak RSS).
nlohmann::json thp_records() {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (int i = 0; i < 5; ++i) {
    nlohmann::json main = record("jemalloc", "timing", 20 + 0.1 * i, 40 * kMiB, 10 * kMiB), always = record("jemalloc", "thp", 10 + 0.1 * i, 44 * kMiB, 10 * kMiB);
    main["thp_mode"] = "never";
    main["thp_coverage"] = 0.0;
    always["thp_mode"] = "always";
    always["thp_coverage"] = 0.8 + 0.01 * i;
    benchmarks.push_back(main);
    benchmarks.push_back(always);
  }
  return benchmarks;
}

TEST(VariantTables, AgeingShowsAPenaltyOnlyWhereAgedOverWarmedExcludesOne) {
  const nlohmann::json benchmarks = ageing_records();
  const std::string table = memory_markdown({{"benchmarks", benchmarks}});
  ASSERT_NE(table.find("### Ageing penalty (--age 64M;"), std::string::npos) << table;
  const std::string slow = row_of(table, "slow"), same = row_of(table, "same");
  EXPECT_NE(slow.find("| 5 / 5 / 5 |"), std::string::npos) << slow;
  EXPECT_NE(slow.find("| 30.2 / 10.2 / 20.2 |"), std::string::npos) << slow;
  // aged / warmed: 20.2 / 10.2, interval [20.0 / 10.4, 20.4 / 10.0] (n = 5: min..max); aged / fresh: 20.2 / 30.2
  EXPECT_NE(slow.find("| 1.98 [1.92, 2.04] | 0.67 [0.66, 0.68] |"), std::string::npos) << slow;
  EXPECT_NE(slow.find("**slower aged**"), std::string::npos) << slow;
  EXPECT_NE(slow.find("| 0.50 [0.50, 0.50] |"), std::string::npos) << slow;  // growth 10 / 20 MiB
  EXPECT_NE(same.find("none shown"), std::string::npos) << same;
  EXPECT_NE(table.find("1 process(es) of these cells left out as disturbed"), std::string::npos) << table;
  EXPECT_NE(table.find("level 87.5% or more"), std::string::npos) << table;  // 2 x 93.75% - 1
}

TEST(VariantTables, AgeingSaysWhyAFailedAgedCellIsMissingAndIsAbsentWithoutAgedCells) {
  nlohmann::json failed = aged("system", 0.25, 0, 0, 0);
  failed["status"] = "failed";
  failed["reason"] = "the allocator ran out of memory while ageing";
  const std::string table = memory_markdown({{"benchmarks", {failed}}});
  EXPECT_NE(table.find("- aged cell not measured: system x alloc-test at 1 thread(s): the allocator ran out of memory while ageing"), std::string::npos)
      << table;
  EXPECT_EQ(memory_markdown({{"benchmarks", {record("system", "timing", 10, 1, 1)}}}), "");
}

TEST(VariantTables, ThpModesCompareEachModeWithTheTimingCells) {
  const nlohmann::json benchmarks = thp_records();
  const std::string table = memory_markdown({{"benchmarks", benchmarks}});
  ASSERT_NE(table.find("### THP modes (timing cells under never; mode thp under the others)"), std::string::npos) << table;
  const std::string row = row_of(table, "jemalloc");
  EXPECT_NE(row.find("| always | 5 / 5 | 0.00 / 0.82 | 20.2 / 10.2 | 0.50 [0.49, 0.52] | 1.10 [1.10, 1.10] | **faster** |"), std::string::npos) << row;
}

// The verdict's memory part names the allocators whose cost ratio's interval excludes 1.
TEST(VariantTables, VerdictLinesNameEachVerdict) {
  std::ostringstream aged_md, thp_md, other_md;
  table_parts::variant_verdict_lines(aged_md, "alloc-test", 1, ageing_records());
  EXPECT_EQ(aged_md.str(), "- on an aged heap (--age 64M), cost aged / warmed; slower aged: slow 1.98 [1.92, 2.04]; none shown for 1 other(s) (ageing penalty table)\n");
  table_parts::variant_verdict_lines(thp_md, "alloc-test", 1, thp_records());
  EXPECT_EQ(thp_md.str(), "- THP always against never: hugepage coverage 0.82 (under never: 0.00), cost always / never; faster: jemalloc 0.50 [0.49, 0.52] (THP modes table)\n");
  table_parts::variant_verdict_lines(other_md, "alloc-test", 2, thp_records());  // another thread count: nothing
  EXPECT_EQ(other_md.str(), "");
}

}  // namespace
}  // namespace allocstress
