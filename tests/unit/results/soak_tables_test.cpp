// The soak table and verdict line (results/tables/soak_tables.cpp) from made-up soak records: a drifting
// allocator named in the verdict, a flat one not, one whose drift is n/a (too few bins); soak
// records kept out of the timing aggregates, net costs and the not-measured list; and a record
// whose soak block comes from cells/modes/soak.cpp itself, so the two sides agree on its shape.
#include <gtest/gtest.h>

#include <string>

#include "cells/modes/soak.hpp"
#include "results/results_summary.hpp"
#include "results/tables/results_table.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;
constexpr double kMiB = 1 << 20;

Json trend(double per_hour, Json low, Json high, Json level = 0.978) {
  return {{"per_hour", per_hour}, {"low", low}, {"high", high}, {"level", level}};
}

// A soak record of 10-minute run with 1-minute bins: RSS growth 10 MiB + `slope` MiB per bin,
// coverage 0.40 + 0.01 per bin; `bins` complete bins and the drift given.
Json soak_record(const std::string& allocator, std::size_t bins, double slope, const Json& rss, const Json& share, const Json& coverage) {
  Json block = {{"spec", "10m"}, {"duration_s", 600}, {"bin_s", 60}, {"rounds", 1234}, {"bins", Json::array()}, {"unavailable", nullptr}};
  for (std::size_t b = 0; b < bins; ++b)
    block["bins"].push_back({{"start_s", 60.0 * double(b)}, {"samples", 30}, {"rss_growth_bytes", (10 + slope * double(b)) * kMiB},
                             {"coverage", 0.40 + 0.01 * double(b)}});
  block["drift"] = {{"first_bin", 1}, {"fitted_bins", bins > 0 ? bins - 1 : 0}, {"rss_growth_bytes", rss}, {"rss_growth_share", share},
                    {"coverage", coverage}, {"means", "..."}};
  return {{"name", "alloc-test/" + allocator + "/threads:1/soak"}, {"cell_key", "alloc-test/" + allocator + "/threads:1/soak"},
          {"run_type", "iteration"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1}, {"mode", "soak"},
          {"status", "ok"}, {"repetition_index", 0}, {"wall_time_ns", 601.5e9}, {"cycles_per_pair", 80.0}, {"ns_per_pair", 40.0},
          {"peak_rss_bytes", 40 * kMiB}, {"rss_before_bytes", 5 * kMiB}, {"op_stream_hash", "0x1"}, {"warnings", Json::array()},
          {"soak", block}};
}

// growing: +1 MiB per minute, 60 MiB/hour [55, 65]; flat: [-2, 3] MiB/hour around 0.5; short: 3
// bins fitted, no interval.
Json soak_records() {
  return Json::array(
      {soak_record("growing", 11, 1, trend(60 * kMiB, 55 * kMiB, 65 * kMiB), trend(3.5, 3.2, 3.8), trend(0.6, 0.5, 0.7)),
       soak_record("flat", 11, 0, trend(0.5 * kMiB, -2 * kMiB, 3 * kMiB), trend(0.05, -0.2, 0.3), trend(0, -0.1, 0.1)),
       soak_record("short", 4, 0, trend(1 * kMiB, nullptr, nullptr, nullptr), trend(0.1, nullptr, nullptr, nullptr), trend(0, nullptr, nullptr, nullptr))});
}

std::string row_of(const std::string& table, const std::string& allocator) {
  const auto at = table.find("| alloc-test | " + allocator + " |");
  return at == std::string::npos ? "" : table.substr(at, table.find('\n', at) - at);
}

TEST(SoakTables, OneRowPerSoakRecordWithItsBinsAndDrifts) {
  const std::string table = memory_markdown({{"benchmarks", soak_records()}});
  ASSERT_NE(table.find("### Soak (--soak 10m; mode soak"), std::string::npos) << table;
  // ran 601.5 s; 11 bins; growth in bin 1 (11 MiB) and bin 10 (20 MiB); drift in MiB/hour and in
  // % of the median per hour; coverage median of 0.40..0.50 in %, its drift in points per hour.
  EXPECT_EQ(row_of(table, "growing"),
            "| alloc-test | growing | 1 | 10.0 min | 11 | 11.0 / 20.0 | 60.00 [55.00, 65.00] | 350.0 [320.0, 380.0] | 45.0 | "
            "60.00 [50.00, 70.00] | 1234 |");
  EXPECT_NE(row_of(table, "flat").find("| 10.0 / 10.0 | 0.50 [-2.00, 3.00] |"), std::string::npos) << table;
  EXPECT_NE(row_of(table, "short").find("| 4 | 10.0 / 10.0 | n/a (3 bin(s) fitted, fewer than 5) | n/a (3 bin(s) fitted, fewer than 5) | 41.5 | "
                                        "n/a (fewer than 5 fitted bins with anonymous memory) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("Sen's distribution-free interval (level 97.8% or more"), std::string::npos) << table;
  EXPECT_NE(table.find("the interval is optimistic"), std::string::npos) << table;
}

TEST(SoakTables, VerdictNamesOnlyTheAllocatorWhoseDriftExcludesZero) {
  std::ostringstream md;
  table_parts::soak_verdict_lines(md, "alloc-test", 1, soak_records());
  EXPECT_EQ(md.str(),
            "- over a soak (--soak 10m, 10.0 min), RSS drift per hour where Sen's interval excludes 0 (level 97.8% or more); growing: growing "
            "60.00 [55.00, 65.00] MiB/hour; none shown for 1 other(s); n/a for short (3 bin(s) fitted, fewer than 5) (soak table; bins of "
            "one process may be correlated: the intervals are optimistic)\n");
  // Without the drifting one: none drifted; only the n/a one: n/a with why; another thread count: nothing.
  std::ostringstream flat, short_only, other;
  table_parts::soak_verdict_lines(flat, "alloc-test", 1, Json::array({soak_records()[1], soak_records()[2]}));
  EXPECT_NE(flat.str().find("no allocator's RSS drifted detectably over 10.0 min (1 allocator(s), every drift interval includes 0); n/a for short"),
            std::string::npos)
      << flat.str();
  table_parts::soak_verdict_lines(short_only, "alloc-test", 1, Json::array({soak_records()[2]}));
  EXPECT_NE(short_only.str().find("RSS drift n/a: short (3 bin(s) fitted, fewer than 5)"), std::string::npos) << short_only.str();
  table_parts::soak_verdict_lines(other, "alloc-test", 2, soak_records());
  EXPECT_EQ(other.str(), "");
}

// Soak records are no timing runs: no aggregate, no net cost, no cost ranking; a failed one is listed
// under the soak table, not under "Not measured".  The verdict shows the soak line without timing cells.
TEST(SoakTables, SoakRecordsStayOutOfTheTimingFigures) {
  std::vector<Json> records;
  for (const Json& r : soak_records()) records.push_back(r);
  Json base = soak_records()[0];
  base["allocator"] = "void";
  records.push_back(base);
  Json failed = soak_records()[1];
  failed["allocator"] = "tcmalloc";
  failed["status"] = "failed";
  failed["reason"] = "the cell timed out";
  failed.erase("soak");
  records.push_back(failed);
  attach_net_costs(records);
  for (const Json& r : records) EXPECT_TRUE(r.value("net_ns_per_pair", Json()).is_null()) << r.dump();
  EXPECT_TRUE(aggregate_entries(records).empty());
  const Json doc = {{"context", {{"plan", {{"workloads", {"alloc-test"}}, {"preset", "quick"}, {"repetitions", 1}, {"placement", "compact"}}},
                                 {"warnings", Json::array()}}},
                    {"benchmarks", records}};
  const std::string md = markdown_table(doc);
  EXPECT_EQ(md.find("Not measured"), std::string::npos) << md;
  EXPECT_NE(md.find("- soak cell not measured: tcmalloc x alloc-test at 1 thread(s): the cell timed out"), std::string::npos) << md;
  const std::string verdict = verdict_markdown(doc);
  // no ranking at 1 thread: the soak line gets the heading it would otherwise sit under
  EXPECT_NE(verdict.find("**alloc-test, 1 thread**: memory over a soak\n- over a soak (--soak 10m, 10.0 min), RSS drift per hour"), std::string::npos)
      << verdict;
  EXPECT_EQ(verdict.find("cost in"), std::string::npos) << verdict;
  EXPECT_EQ(verdict.find("void"), std::string::npos) << verdict;
}

// The block cells/modes/soak.cpp writes reads as this table expects: a timeline rising 1 MiB a minute
// drifts 60 MiB/hour (exactly: a straight line), one that stays flat does not drift.
TEST(SoakTables, ReadsTheBlockTheSoakCellWrites) {
  const auto timeline = [](double mib_per_minute) {
    Json t = Json::array(), rss = Json::array(), anon = Json::array(), huge = Json::array();
    for (int i = 0; i <= 600; i += 2) {
      const double bytes = (5 + 10 + mib_per_minute * i / 60.0) * kMiB;
      t.push_back(double(i));
      rss.push_back(bytes);
      anon.push_back(bytes);
      huge.push_back(bytes / 2);
    }
    return Json{{"samples", {{"t_s", t}, {"rss_bytes", rss}, {"anon_bytes", anon}, {"anon_huge_bytes", huge}}}};
  };
  Json benchmarks = Json::array();
  for (const auto& [allocator, slope] : {std::pair{"rising", 1.0}, std::pair{"steady", 0.0}}) {
    Json r = soak_records()[0];
    r["allocator"] = allocator;
    r["hugepages"] = timeline(slope);
    r["soak"] = soak_block("10m", r, 99);
    benchmarks.push_back(r);
  }
  std::ostringstream md;
  table_parts::soak_verdict_lines(md, "alloc-test", 1, benchmarks);
  EXPECT_NE(md.str().find("growing: rising 60.00 [60.00, 60.00] MiB/hour; none shown for 1 other(s) (soak table"), std::string::npos) << md.str();
  const std::string table = memory_markdown({{"benchmarks", benchmarks}});
  EXPECT_NE(row_of(table, "steady").find("| 10 | 10.0 / 10.0 | 0.00 [0.00, 0.00] |"), std::string::npos) << table;
  EXPECT_NE(row_of(table, "steady").find("| 50.0 | 0.00 [0.00, 0.00] | 99 |"), std::string::npos) << table;
}

}  // namespace
}  // namespace allocstress
