// The comparison table's columns of a C++ row (table_parts.hpp summary_columns, given by
// summary_rows() as `columns`): the recorded entries' figures, the overhead quotient and verdict
// from the two overhead intervals, the baseline's precision from its raw records, and figures
// recomputed from the records where the entries do not describe them.
#include <gtest/gtest.h>

#include <string>

#include "results/tables/results_table.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json iv(double low, double high, double level = 0.5) {
  return {{"low", low}, {"high", high}, {"level", level}, {"method", "m"}, {"relative_half_width", (high - low) / (high + low)}};
}

Json median(const std::string& allocator, double net, double overhead, Json extra = Json::object()) {
  Json e = {{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", allocator},
            {"threads", 1}, {"repetitions_ok", 2}, {"net_cycles_per_pair", net}, {"cycles_per_pair", net + 10},
            {"net_ns_per_pair", net / 2}, {"overhead_ratio", overhead},
            {"intervals", {{"net_cycles_per_pair", iv(net - 1, net + 1)}, {"overhead_ratio", iv(overhead - 0.1, overhead + 0.1)}}}};
  e.update(extra);
  return e;
}

Json cv(const std::string& allocator) {
  return {{"run_type", "aggregate"}, {"aggregate_name", "cv"}, {"workload", "alloc-test"}, {"allocator", allocator},
          {"threads", 1}, {"net_cycles_per_pair", 0.25}, {"cycles_per_pair", 0.5}};
}

Json record(const std::string& allocator, double raw) {
  return {{"run_type", "iteration"}, {"status", "ok"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1},
          {"name", "alloc-test/" + allocator + "/threads:1"}, {"op_stream_hash", "h"},
          {"cycles_per_pair", raw}, {"net_cycles_per_pair", raw - 10}};
}

Json results() {
  const Json speed = {{"speed_vs_system", 2.0}, {"vs_system", "faster"},
                      {"speed_vs_system_interval", {{"low", 1.5}, {"high", nullptr}, {"level_at_least", 0.875}, {"method", "x"}}}};
  Json b = Json::array({median("void", 0, 1), cv("void"), median("system", 20, 2), cv("system"), median("bump", 10, 4, speed), cv("bump")});
  for (const char* a : {"void", "system", "bump"})
    for (double raw : {10.0, 12.0}) b.push_back(record(a, raw + (std::string(a) == "system" ? 20 : std::string(a) == "bump" ? 10 : 0)));
  return {{"benchmarks", b}};
}

TEST(SummaryColumns, CarryTheRecordedFiguresAndTheQuotientsOfTheirIntervals) {
  const Json rows = summary_rows(results());
  ASSERT_EQ(rows.size(), 3u) << rows.dump();
  const Json& bump = rows[2]["columns"];
  EXPECT_EQ(bump["reps_ok"], 2);
  EXPECT_EQ(bump["net_cycles_per_pair"], 10.0);
  EXPECT_EQ(bump["net_cycles_ci_low"], 9.0);
  EXPECT_EQ(bump["net_cycles_ci_method"], "m");
  EXPECT_EQ(bump["net_cycles_cv"], 0.25);
  EXPECT_EQ(bump["speed_vs_system"], 2.0);
  EXPECT_EQ(bump["speed_ci_low"], 1.5);
  EXPECT_TRUE(bump["speed_ci_high"].is_null());  // unbounded
  EXPECT_EQ(bump["speed_vs_system_verdict"], "faster");
  EXPECT_EQ(bump["overhead_vs_system"], 2.0);
  EXPECT_NEAR(bump["overhead_ci_low"].get<double>(), 3.9 / 2.1, 1e-12);
  EXPECT_EQ(bump["overhead_vs_system_verdict"], "larger");
  EXPECT_EQ(bump["notes"], "");
  EXPECT_EQ(rows[1]["columns"]["speed_vs_system_verdict"], "reference");
  const Json& base = rows[0]["columns"];
  EXPECT_EQ(base["net_cycles_per_pair"], 0.0);
  EXPECT_TRUE(base["net_cycles_ci_low"].is_null());
  EXPECT_DOUBLE_EQ(base["net_cycles_rel_half_width"].get<double>(), 1.0 / 11);  // [10, 12] of its raw cycles
  EXPECT_EQ(base["net_cycles_cv"], 0.5);  // of its raw cycles
  EXPECT_TRUE(base["overhead_ratio"].is_null());
  EXPECT_EQ(base["notes"].get<std::string>().rfind("void baseline:", 0), 0u);
}

TEST(SummaryColumns, RecomputedWhereTheEntriesDoNotDescribeTheRecords) {
  Json doc = results();
  doc["benchmarks"].push_back(record("bump", 30));  // 3 records (nets 10, 12, 20), an entry over 2
  const Json rows = summary_rows(doc);
  EXPECT_EQ(rows[2]["columns"]["reps_ok"], 3);
  EXPECT_EQ(rows[2]["columns"]["net_cycles_per_pair"], 12.0);  // their median, not the entry's 10
  EXPECT_EQ(rows[2]["columns"]["net_cycles_ci_method"], "order statistics (distribution-free interval of the median)");
  EXPECT_EQ(rows[1]["columns"]["net_cycles_per_pair"], 20.0);  // system's entry describes its 2 records
}

TEST(SummaryColumns, WithoutSystemNothingIsRelative) {
  Json doc = results();
  Json kept = Json::array();
  for (const Json& e : doc["benchmarks"])
    if (e["allocator"] != "system") kept.push_back(e);
  doc["benchmarks"] = kept;
  const Json rows = summary_rows(doc);
  const Json& bump = rows[1]["columns"];
  EXPECT_TRUE(bump["speed_vs_system"].is_null());
  EXPECT_EQ(bump["notes"], "no ok system cell at these threads: nothing to compare with");
}

}  // namespace
}  // namespace allocstress
