// The rows of the data-structure and workload-metrics tables (structure_rows.hpp, metric_rows.hpp)
// and the cells they read (timing_cells.hpp): the recorded aggregate figures where the file has
// them for the cell's repetitions, C++'s own aggregates of the records otherwise, the tables' row
// order, and the blowup with the reasons it is missing.  Constructed records (TEST INPUT).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "results/tables/metric_rows.hpp"
#include "results/tables/structure_rows.hpp"
#include "results/tables/timing_cells.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json record(const std::string& workload, const std::string& allocator, unsigned threads, double value, Json extra = Json::object()) {
  Json r = {{"run_type", "iteration"}, {"mode", "timing"}, {"status", "ok"}, {"workload", workload}, {"allocator", allocator},
            {"threads", threads}, {"name", workload + "/" + allocator + "/threads:" + std::to_string(threads)},
            {"search_cycles_per_visit", value}, {"build_cycles_per_node", 2 * value}, {"overhead_ratio", value / 10},
            {"placement_metrics", {{"cache_line_utilisation", 0.5}, {"page_utilisation", 0.25}, {"set_histogram_max_over_mean", 1.5}}}};
  r.update(extra);
  return r;
}

// Three repetitions of each (allocator, threads), allocators first by threads 1 then 2.
Json structure_doc() {
  Json b = Json::array();
  for (unsigned threads : {1u, 2u})
    for (const char* allocator : {"bump", "system"})
      for (double v : {10.0, 12.0, 11.0}) b.push_back(record("bintree", allocator, threads, std::string(allocator) == "system" ? 2 * v : v));
  return {{"benchmarks", b}};
}

TEST(TimingCells, OrderByWorkloadAndThreadsThenAllocator) {
  Json b = Json::array({record("bintree", "bump", 1, 1), record("bintree", "bump", 2, 1), record("bintree", "system", 1, 1),
                        record("bintree", "system", 1, 1, {{"status", "failed"}})});
  const table_parts::TimingCells cells = table_parts::timing_cells(b);
  ASSERT_EQ(cells.cells.size(), 3u);
  EXPECT_EQ(cells.cells[1].allocator, "system");  // (bintree, 1) first: bump, then system
  EXPECT_EQ(cells.cells[1].records.size(), 1u);    // the failed record is not in the cell
  EXPECT_EQ(cells.cells[2].threads, 2u);
  EXPECT_FALSE(cells.computed.empty());  // no aggregate entries: C++ aggregated the records
}

TEST(StructureRows, ComputedFromTheRecordsWhenTheFileHasNoAggregates) {
  const Json rows = structure_rows(structure_doc());
  ASSERT_EQ(rows.size(), 4u) << rows.dump();
  const Json& bump = rows[0];
  EXPECT_EQ(bump["allocator"], "bump");
  EXPECT_EQ(bump["reps_ok"], 3);
  EXPECT_EQ(bump["search_cycles_per_visit"], 11.0);
  EXPECT_EQ(bump["build_cycles_per_node"], 22.0);
  EXPECT_EQ(bump["search_ci_low"], 10.0);  // [min, max] at 3 values
  EXPECT_EQ(bump["search_ci_high"], 12.0);
  EXPECT_EQ(bump["search_vs_system"], 2.0);
  EXPECT_DOUBLE_EQ(bump["search_vs_system_ci_low"].get<double>(), 20.0 / 12.0);  // system's low / this high
  EXPECT_EQ(bump["page_utilisation"], 0.25);
  EXPECT_EQ(rows[1]["allocator"], "system");
  EXPECT_EQ(rows[1]["search_vs_system"], 1.0);
  EXPECT_DOUBLE_EQ(rows[1]["search_vs_system_ci_high"].get<double>(), 24.0 / 20.0);  // system over itself
}

TEST(StructureRows, ShowTheRecordedAggregatesOfTheSameRepetitions) {
  Json doc = structure_doc();
  const Json median = {{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"mode", "timing"}, {"workload", "bintree"},
                       {"allocator", "bump"}, {"threads", 1}, {"repetitions_ok", 3}, {"search_cycles_per_visit", 99.5},
                       {"speed_vs_system", 7.0}, {"speed_vs_system_interval", {{"low", 6.0}, {"high", nullptr}, {"level_at_least", 0.5}}},
                       {"intervals", {{"search_cycles_per_visit", {{"low", 50.0}, {"high", 150.0}, {"level", 0.75}, {"relative_half_width", 0.5}}}}}};
  doc["benchmarks"].push_back(median);
  Json rows = structure_rows(doc);
  EXPECT_EQ(rows[0]["search_cycles_per_visit"], 99.5);
  EXPECT_EQ(rows[0]["search_ci_low"], 50.0);
  EXPECT_TRUE(rows[0]["unstable"]);
  EXPECT_EQ(rows[0]["search_vs_system"], 7.0);
  EXPECT_TRUE(rows[0]["search_vs_system_ci_high"].is_null());  // unbounded
  EXPECT_EQ(rows[0]["build_cycles_per_node"], 22.0);  // not in the entry: from the records
  doc["benchmarks"].back()["repetitions_ok"] = 2;  // over other repetitions: not this cell's
  rows = structure_rows(doc);
  EXPECT_EQ(rows[0]["search_cycles_per_visit"], 11.0);
}

Json xthread_doc() {
  Json b = Json::array();
  for (const char* allocator : {"system", "bump"})
    for (double v : {2.0, 4.0, 3.0}) {
      b.push_back(record("alloc-test", allocator, 1, 10 * v, {{"net_cycles_per_pair", v}}));
      b.push_back(record("xthread", allocator, 1, 30 * v,
                         {{"net_cycles_per_pair", v}, {"workload_metrics", {{"remote_frees", v == 2.0 ? Json() : Json(v)}, {"odd", nullptr}}}}));
    }
  b.push_back(record("xthread", "pool", 1, 30, {{"workload_metrics", Json::object()}}));
  return {{"benchmarks", b}};
}

TEST(WorkloadMetricRows, MediansBlowupAndNotes) {
  const Json rows = workload_metric_rows(xthread_doc());
  Json xthread = Json::array();
  for (const Json& r : rows)
    if (r["workload"] == "xthread") xthread.push_back(r);
  ASSERT_EQ(xthread.size(), 3u) << rows.dump();
  const Json& system = xthread[0];
  EXPECT_EQ(system["reps_ok"], 3);
  EXPECT_EQ(system["overhead_ratio"], 9.0);
  EXPECT_EQ(system["metrics"]["remote_frees"], 3.5);  // the repetition whose value is null left out
  EXPECT_TRUE(system["metrics"]["odd"].is_null());
  EXPECT_EQ(system["companion"], "alloc-test");
  EXPECT_DOUBLE_EQ(system["blowup"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(system["blowup_ci_low"].get<double>(), 6.0 / 4.0);  // [min, max] intervals divided
  EXPECT_EQ(system["notes"], "");
  EXPECT_TRUE(xthread[2]["blowup"].is_null());
  EXPECT_EQ(xthread[2]["notes"], "no ok alloc-test cell at this allocator and threads: no blowup");
}

TEST(WorkloadMetricRows, InvalidOverheadHasNoBlowup) {
  Json doc = xthread_doc();
  doc["benchmarks"][1]["overhead_ratio_invalid"] = "RSS grew by less than was live";
  const Json rows = workload_metric_rows(doc);
  for (const Json& r : rows)
    if (r["workload"] == "xthread" && r["allocator"] == "system") {
      EXPECT_TRUE(r["overhead_ratio"].is_null());
      EXPECT_EQ(r["notes"],
                "overhead invalid (< 1, not ranked): RSS grew by less than was live; a median overhead ratio is missing or <= 0 "
                "(no RSS growth, e.g. void): no blowup");
    }
}

}  // namespace
}  // namespace allocstress
