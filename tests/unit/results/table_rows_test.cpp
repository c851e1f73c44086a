// One row source for the workloads' tables (table_parts.hpp TableRow): the rows carry the figures
// the Markdown table prints beside the headline metric, and summary_rows() gives them as data.
#include <gtest/gtest.h>

#include <string>

#include "results/tables/results_table.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json median(const std::string& allocator, double net, Json extra = Json::object()) {
  Json e = {{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", allocator},
            {"threads", 1}, {"repetitions_ok", 5}, {"net_cycles_per_pair", net}, {"cycles_per_pair", net + 10},
            {"intervals", {{"net_cycles_per_pair", {{"low", net - 1}, {"high", net + 1}, {"level", 0.9375}, {"relative_half_width", 1 / net}}}}}};
  e.update(extra);
  return e;
}

Json cv(const std::string& allocator, double value) {
  return {{"run_type", "aggregate"}, {"aggregate_name", "cv"}, {"workload", "alloc-test"}, {"allocator", allocator},
          {"threads", 1}, {"net_cycles_per_pair", value}, {"cycles_per_pair", value / 2}};
}

Json results() {
  const Json speed = {{"speed_vs_system", 2.0}, {"vs_system", "faster"},
                      {"speed_vs_system_interval", {{"low", 1.5}, {"high", 2.5}, {"level_at_least", 0.875}, {"method", "x"}}}};
  return {{"benchmarks", Json::array({median("void", 0), cv("void", 0.25), median("system", 20), cv("system", 0.5),
                                      median("bump", 5, speed), cv("bump", 0.125)})}};
}

TEST(TableRows, CarryWhatTheMarkdownTablePrints) {
  const Json rows = summary_rows(results());
  ASSERT_EQ(rows.size(), 3u) << rows.dump();
  EXPECT_EQ(rows[0]["allocator"], "void");
  EXPECT_TRUE(rows[0]["baseline"]);
  EXPECT_EQ(rows[0]["median"], 0);
  EXPECT_EQ(rows[0]["cv"], 0.125);  // void's spread: of its raw cycles/pair
  EXPECT_EQ(rows[0]["interval_text"], "-");
  EXPECT_EQ(rows[0]["versus"], "-");
  EXPECT_TRUE(rows[1]["reference"]);
  EXPECT_EQ(rows[1]["versus"], "reference");
  EXPECT_FALSE(rows[1]["unstable"]);
  EXPECT_EQ(rows[2]["median"], 5.0);
  EXPECT_EQ(rows[2]["cv"], 0.125);
  EXPECT_TRUE(rows[2]["unstable"]);  // +-1 of 5: wider than the unstable mark
  EXPECT_EQ(rows[2]["interval"]["low"], 4.0);
  EXPECT_EQ(rows[2]["versus"], "2.00 [1.50, 2.50]");
  EXPECT_EQ(rows[2]["vs_system"], "faster");
  EXPECT_EQ(rows[2]["metric"], "net_cycles_per_pair");
  EXPECT_EQ(rows[2]["reps_ok"], 5);
}

TEST(TableRows, UnknownWorkloadsHaveNone) {
  Json doc = results();
  for (Json& e : doc["benchmarks"]) e["workload"] = "no-such-workload";
  EXPECT_TRUE(summary_rows(doc).empty());
}

}  // namespace
}  // namespace allocstress
