// The warnings of single cells are grouped once (results/tables/cell_warnings.hpp): per (workload,
// threads, mode, text) the allocators in first-appearance order with their counts, and whether every
// record of the (workload, mode) has it; the Markdown summary prints those groups.
#include "results/tables/cell_warnings.hpp"

#include <gtest/gtest.h>

#include <string>

#include "results/tables/results_table.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json record(const std::string& allocator, unsigned threads, Json warnings, const std::string& mode = "timing") {
  Json r = {{"run_type", "iteration"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", threads},
            {"status", "failed"}, {"reason", "constructed"}, {"warnings", warnings}};
  if (mode != "timing") r["mode"] = mode;
  return r;
}

Json records() {
  return Json::array({record("a", 1, {"W"}), record("b", 2, {"W"}), record("a", 1, Json::array()), record("c", 1, {"W", "X"}),
                      record("b", 2, {"X"})});
}

TEST(CellWarnings, GroupsPerWorkloadThreadsModeAndText) {
  const auto groups = cell_warning_groups(records());
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].threads, 1u);
  EXPECT_EQ(groups[0].text, "W");
  ASSERT_EQ(groups[0].cells.size(), 2u);
  EXPECT_EQ(groups[0].cells[0].allocator, "a");
  EXPECT_EQ(groups[0].cells[0].with, 1u);
  EXPECT_EQ(groups[0].cells[0].of, 2u);
  EXPECT_EQ(groups[0].cells[0].first, 0u);
  EXPECT_EQ(groups[0].cells[1].allocator, "c");
  EXPECT_EQ(groups[0].cells[1].first, 3u);
  EXPECT_EQ(groups[1].threads, 2u);
  EXPECT_EQ(groups[1].cells[0].allocator, "b");
  EXPECT_EQ(groups[2].text, "X");
  for (const auto& g : groups) EXPECT_FALSE(g.everywhere) << g.text;
  const Json j = cell_warning_groups_json(groups);
  EXPECT_EQ(j[0]["cells"][1], (Json{{"allocator", "c"}, {"with", 1}, {"of", 1}, {"first", 3}}));
}

// "everywhere" spans the thread counts of the (workload, mode); other modes are their own groups;
// a warning a record carries twice counts once; non-string warnings and aggregate entries are ignored.
TEST(CellWarnings, EverywhereModesAndDuplicates) {
  Json benchmarks = Json::array({record("a", 1, {"W", "W", 3}), record("b", 2, {"W"}), record("a", 1, {"W"}, "counts"),
                                 record("a", 1, Json::array(), "counts")});
  benchmarks.push_back({{"run_type", "aggregate"}, {"workload", "alloc-test"}, {"allocator", "a"}, {"threads", 1}, {"warnings", {"W"}}});
  const auto groups = cell_warning_groups(benchmarks);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[0].everywhere);
  EXPECT_EQ(groups[0].cells[0].with, 1u);
  EXPECT_TRUE(groups[1].everywhere);
  EXPECT_EQ(groups[2].mode, "counts");
  EXPECT_FALSE(groups[2].everywhere);
  EXPECT_EQ(groups[2].cells[0].of, 2u);
}

TEST(CellWarnings, TheMarkdownSummaryListsTheGroups) {
  const Json doc = {{"context", {{"plan", {{"workloads", {"alloc-test"}}, {"preset", "quick"}, {"repetitions", 1}, {"placement", "compact"}}},
                                 {"warnings", Json::array()}}},
                    {"benchmarks", records()}};
  const std::string md = markdown_table(doc);
  const std::string expected =
      "\nWarnings of single cells:\n"
      "- alloc-test at 1 thread: W: a (1 of 2), c (1 of 1) process(es)\n"
      "- alloc-test at 2 threads: W: b (1 of 2) process(es)\n"
      "- alloc-test at 1 thread: X: c (1 of 1) process(es)\n"
      "- alloc-test at 2 threads: X: b (1 of 2) process(es)\n";
  ASSERT_GE(md.size(), expected.size()) << md;
  EXPECT_EQ(md.substr(md.size() - expected.size()), expected) << md;
}

}  // namespace
}  // namespace allocstress
