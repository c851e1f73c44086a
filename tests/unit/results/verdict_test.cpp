// The verdict (results/verdict.cpp) on hand-made records: tied groups, ratios against system with
// their intervals, the memory ranking and the unstable mark.
#include <gtest/gtest.h>

#include "results/results_summary.hpp"
#include "results/tables/results_table.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json rec(const std::string& allocator, unsigned rep, double cycles, double overhead) {
  Json r = {{"name", "alloc-test/" + allocator + "/threads:1"}, {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1},
            {"repetition_index", rep}, {"run_type", "iteration"}, {"status", "ok"}, {"cycles_per_pair", cycles}, {"ns_per_pair", cycles / 2},
            {"op_stream_hash", "0x1"}, {"warnings", Json::array()}};
  if (allocator != "void") r["overhead_ratio"] = overhead;
  return r;
}

std::string verdict_of(std::vector<Json> records) {
  attach_net_costs(records);
  for (Json& a : aggregate_entries(records)) records.push_back(std::move(a));
  Json doc = {{"context", {{"plan", {{"workloads", {"alloc-test"}}}}}}, {"benchmarks", records}};
  return verdict_markdown(doc);
}

TEST(Verdict, GroupsOverlappingIntervalsAndGivesRatiosWithIntervals) {
  std::vector<Json> r;
  for (unsigned i = 0; i < 6; ++i) {
    r.push_back(rec("void", i, 100, 0));
    r.push_back(rec("system", i, 150 + i, 1.50 + 0.01 * i));     // net 50..55
    r.push_back(rec("jemalloc", i, 120 + i, 1.30 + 0.01 * i));   // net 20..25: apart from system
    r.push_back(rec("tcmalloc", i, 121 + i, 1.70 + 0.01 * i));   // net 21..26: tied with jemalloc
    r.push_back(rec("mimalloc", i, 146 + 2 * i, 1.31 + 0.01 * i));  // net 46..56: tied with system
  }
  const std::string v = verdict_of(r);
  // cost: jemalloc and tcmalloc tied first (both intervals wider than ±10%: unstable), each with
  // system's interval over its own
  EXPECT_NE(v.find("- 1: **jemalloc** 22.5† [20.0, 25.0] and **tcmalloc** 23.5† [21.0, 26.0]: indistinguishable from each other; "
                   "2.33× [2.00, 2.75] and 2.23× [1.92, 2.62] cheaper than system"),
            std::string::npos)
      << v;
  EXPECT_NE(v.find("- 2: **mimalloc** 51.0 [46.0, 56.0] and **system** 52.5 [50.0, 55.0] (reference): indistinguishable from each other\n"),
            std::string::npos)
      << v;
  EXPECT_NE(v.find("level 96.9% or more]; ratios against system, level 93.8% or more"), std::string::npos) << v;
  // memory: jemalloc and mimalloc overlap, system apart, tcmalloc last
  EXPECT_NE(v.find("- 1: **jemalloc** 1.33 [1.30, 1.35] and **mimalloc** 1.33 [1.31, 1.36]: indistinguishable from each other\n"
                   "- 2: **system** 1.52 [1.50, 1.55]\n- 3: **tcmalloc** 1.73 [1.70, 1.75]\n"),
            std::string::npos)
      << v;
  EXPECT_NE(v.find("**mimalloc** 51.0 [46.0"), std::string::npos) << v;  // ±9.8%: not unstable
}

TEST(Verdict, SaysMoreExpensiveAndMarksUnstableFigures) {
  std::vector<Json> r;
  for (unsigned i = 0; i < 6; ++i) {
    r.push_back(rec("void", i, 100, 0));
    r.push_back(rec("system", i, 150 + i, 1.5));   // net 50..55
    r.push_back(rec("bump", i, 200 + 8 * i, 40));  // net 100..140: ±17% of its median
  }
  const std::string v = verdict_of(r);
  EXPECT_NE(v.find("- 2: **bump** 120.0† [100.0, 140.0]: 2.29× [1.82, 2.80] more expensive than system"), std::string::npos) << v;
}

Json counts_rec(const std::string& allocator, unsigned threads, double net_estimated_cycles) {
  return {{"name", "alloc-test/" + allocator + "/threads:" + std::to_string(threads) + "/counts"}, {"workload", "alloc-test"},
          {"allocator", allocator}, {"threads", threads}, {"mode", "counts"}, {"run_type", "iteration"}, {"status", "ok"},
          {"counts", {{"net_estimated_cycles_per_unit", net_estimated_cycles}}}};
}

TEST(Verdict, CountsLinePerThreadCountSaysHowExactItIs) {
  std::vector<Json> r;
  for (unsigned i = 0; i < 3; ++i) {
    r.push_back(rec("void", i, 100, 0));
    r.push_back(rec("system", i, 150, 1.5));
  }
  r.push_back(counts_rec("system", 1, 90.0));
  r.push_back(counts_rec("pool", 1, 40.0));
  r.push_back(counts_rec("system", 2, 120.0));
  r.push_back(counts_rec("pool", 2, 45.0));
  const std::string v = verdict_of(r);
  const std::size_t one = v.find("**alloc-test, counts tier** (net estimated cycles/pair, 1 thread; exact, the same on every run): "
                                 "**pool** 40.0 < **system** 90.0\n");
  const std::size_t two = v.find("**alloc-test, counts tier** (net estimated cycles/pair, 2 threads; near-exact, valgrind's interleaving "
                                 "of the workers can move a figure by a few percent): **pool** 45.0 < **system** 120.0\n");
  EXPECT_NE(one, std::string::npos) << v;
  EXPECT_NE(two, std::string::npos) << v;
  EXPECT_LT(one, two) << v;
}

}  // namespace
}  // namespace allocstress
