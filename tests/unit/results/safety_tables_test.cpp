// The misuse battery in the Markdown summary (results/tables/safety_tables.cpp) and the verdict's rules
// for it: a non-conforming allocator is left out of every ranking with its reason, and each
// allocator's detection score stands beside its cost against system.
#include <gtest/gtest.h>

#include "results/results_summary.hpp"
#include "results/tables/results_table.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json rec(const std::string& allocator, unsigned rep, double cycles) {
  return {{"name", "alloc-test/" + allocator + "/threads:1"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1},
          {"repetition_index", rep}, {"run_type", "iteration"}, {"status", "ok"}, {"cycles_per_pair", cycles}, {"ns_per_pair", cycles / 2},
          {"op_stream_hash", "0x1"}, {"overhead_ratio", 1.5}, {"warnings", Json::array()}};
}

Json safety_section() {
  const Json outcome_classes = Json::array({{{"name", "detected"}, {"symbol", "✓"}, {"meaning", "stopped"}},
                                            {{"name", "error returned"}, {"symbol", "E"}, {"meaning", "failed cleanly"}},
                                            {{"name", "silent"}, {"symbol", "·"}, {"meaning", "nothing seen"}},
                                            {{"name", "corrupted"}, {"symbol", "✗"}, {"meaning", "harm"}}});
  const Json cases = Json::array({{{"name", "double-free"}, {"group", "double free"}, {"description", "d"}, {"scored", true}},
                                  {{"name", "malloc-zero"}, {"group", "edge"}, {"description", "z"}, {"scored", false}}});
  const auto entry = [](const std::string& name, const std::string& first, unsigned caught) {
    return Json{{"allocator", name},
                {"outcomes", Json::array({{{"case", "double-free"}, {"outcome", first}, {"detail", ""}, {"message", ""}},
                                          {{"case", "malloc-zero"}, {"outcome", "silent"}, {"detail", ""}, {"message", ""}}})},
                {"conforming", true},
                {"caught", caught},
                {"scored", 1},
                {"properties", {{"n/a", "not sampled (--processes 0)"}}}};
  };
  Json bad = entry("bad", "corrupted", 0);
  bad["conforming"] = false;
  bad["nonconforming"] = "alignment: malloc(24) returned 0x8, not aligned to 16";
  return {{"probe", "allocstress-safety-probe"}, {"timeout_s", 5}, {"property_processes", 0}, {"elapsed_s", 1.0},
          {"outcome_classes", outcome_classes}, {"cases", cases},
          {"allocators", Json::array({entry("system", "detected", 1), entry("jemalloc", "silent", 0), bad})}};
}

Json document() {
  std::vector<Json> records;
  for (unsigned i = 0; i < 6; ++i) {
    records.push_back(rec("void", i, 100));
    records.push_back(rec("system", i, 200 + i));    // net 100..105
    records.push_back(rec("jemalloc", i, 150 + i));  // net 50..55: median 52.5, system's 102.5
    Json bad = rec("bad", i, 110 + i);               // the cheapest, but non-conforming
    bad["nonconforming"] = "alignment: malloc(24) returned 0x8, not aligned to 16";
    records.push_back(bad);
  }
  attach_net_costs(records);
  for (Json& a : aggregate_entries(records)) records.push_back(std::move(a));
  return {{"context", {{"plan", {{"workloads", {"alloc-test"}}}}}}, {"benchmarks", records}, {"safety", safety_section()}};
}

TEST(SafetyTables, ANonConformingAllocatorIsLeftOutOfTheRankingWithItsReason) {
  const std::string v = verdict_markdown(document());
  EXPECT_EQ(v.find("**bad** "), std::string::npos) << v;  // ranked nowhere
  EXPECT_NE(v.find("- 1: **jemalloc**"), std::string::npos) << v;
  EXPECT_NE(v.find("Left out of the rankings"), std::string::npos) << v;
  EXPECT_NE(v.find("- **bad**: alignment: malloc(24) returned 0x8, not aligned to 16"), std::string::npos) << v;
}

TEST(SafetyTables, TheVerdictPutsEachScoreBesideItsCost) {
  const std::string v = verdict_markdown(document());
  EXPECT_NE(v.find("- **jemalloc**: detects 0 of 1; 0.51× system's cost"), std::string::npos) << v;
  EXPECT_NE(v.find("- **system**: detects 1 of 1\n"), std::string::npos) << v;
  EXPECT_NE(v.find("- **bad**: detects 0 of 1; NON-CONFORMING, not ranked\n"), std::string::npos) << v;  // no cost: not comparable
}

TEST(SafetyTables, TheTableHasASymbolPerCaseAndAllocatorAndTheScores) {
  Json doc = document();
  doc["benchmarks"] = Json::array();
  const std::string md = safety_markdown(doc);
  EXPECT_NE(md.find("| case | scored | system | jemalloc | bad |"), std::string::npos) << md;
  EXPECT_NE(md.find("| double-free | yes | ✓ | · | ✗ |"), std::string::npos) << md;
  EXPECT_NE(md.find("| malloc-zero | no | · | · | · |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **caught** | | **1 of 1** | **0 of 1** | **0 of 1** |"), std::string::npos) << md;
  EXPECT_NE(md.find("✗ corrupted: harm."), std::string::npos) << md;  // the legend, from the section
  EXPECT_NE(md.find("- bad: NON-CONFORMING: alignment"), std::string::npos) << md;
  EXPECT_NE(md.find("| system | n/a: not sampled (--processes 0)"), std::string::npos) << md;
  EXPECT_EQ(safety_markdown(Json{{"benchmarks", Json::array()}}), "");
}

}  // namespace
}  // namespace allocstress
