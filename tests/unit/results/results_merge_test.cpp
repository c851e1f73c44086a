// merge_results (results/results_merge.hpp): records copied unchanged, the plan's lists and maps
// the union of the parts', context.parts one per part; a workload in two parts is refused.
#include <gtest/gtest.h>

#include <stdexcept>

#include "results/results_merge.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json part(const std::string& workload, unsigned threads, const std::string& allocator, const std::string& warning) {
  return {{"schema", "allocstress-results"},
          {"context",
           {{"command_line", "allocstress matrix --workload " + workload},
            {"date", "2026-11-24T00:00:00Z"},
            {"warnings", {"shared warning", warning}},
            {"plan",
             {{"workloads", {workload}},
              {"workload_params", {{workload, {{"seed", 1}}}}},
              {"thread_counts", {threads}},
              {"repetitions", threads + 1},
              {"allocators", {{{"name", "void"}}, {{"name", allocator}}}},
              {"skipped", Json::array()},
              {"excluded", Json::array()}}}}},
          {"benchmarks", {{{"run_type", "iteration"}, {"workload", workload}, {"allocator", allocator}, {"threads", threads}}}}};
}

TEST(ResultsMerge, UnitesPlansAndKeepsRecords) {
  const Json merged = merge_results({{"a.json", part("prog-x", 2, "jemalloc", "only a")}, {"b.json", part("replay:prog-x", 1, "pool", "only b")}});
  const Json& plan = merged.at("context").at("plan");
  EXPECT_EQ(plan.at("workloads"), Json({"prog-x", "replay:prog-x"}));
  EXPECT_EQ(plan.at("thread_counts"), Json({1, 2}));
  EXPECT_EQ(plan.at("repetitions"), 3);
  EXPECT_EQ(plan.at("allocators").size(), 3u);  // void once, jemalloc, pool
  EXPECT_TRUE(plan.at("workload_params").contains("replay:prog-x"));
  EXPECT_EQ(merged.at("context").at("warnings"), Json({"shared warning", "only a", "only b"}));
  ASSERT_EQ(merged.at("benchmarks").size(), 2u);
  EXPECT_EQ(merged.at("benchmarks")[1].at("workload"), "replay:prog-x");
  const Json& parts = merged.at("context").at("parts");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].at("file"), "b.json");
  EXPECT_EQ(parts[1].at("workloads"), Json({"replay:prog-x"}));
}

TEST(ResultsMerge, RefusesAWorkloadInTwoParts) {
  EXPECT_THROW(merge_results({{"a.json", part("replay", 1, "pool", "")}, {"b.json", part("replay", 1, "pool", "")}}), std::invalid_argument);
  EXPECT_THROW(merge_results({{"a.json", Json::object()}}), std::invalid_argument);
  EXPECT_THROW(merge_results({}), std::invalid_argument);
}

}  // namespace
}  // namespace allocstress
