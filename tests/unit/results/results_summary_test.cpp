// Baseline subtraction, aggregates and the op-stream check on hand-made records.
#include "results/results_summary.hpp"

#include <gtest/gtest.h>

#include <map>

namespace allocstress {
namespace {

using Json = nlohmann::json;

Json rec(const std::string& allocator, unsigned threads, unsigned rep, double cycles, const std::string& hash = "0x1") {
  return {{"name", "alloc-test/" + allocator + "/threads:" + std::to_string(threads)},
          {"workload", "alloc-test"}, {"allocator", allocator}, {"threads", threads}, {"repetition_index", rep},
          {"status", "ok"}, {"cycles_per_pair", cycles}, {"ns_per_pair", cycles / 2}, {"op_stream_hash", hash},
          {"warnings", Json::array()}};
}

TEST(ResultsSummary, NetCostSubtractsTheMatchingBaselineRepetition) {
  std::vector<Json> r = {rec("void", 1, 0, 100), rec("void", 1, 1, 110), rec("system", 1, 0, 150), rec("system", 1, 1, 170)};
  attach_net_costs(r);
  EXPECT_DOUBLE_EQ(r[2]["net_cycles_per_pair"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(r[3]["net_cycles_per_pair"].get<double>(), 60);
  EXPECT_DOUBLE_EQ(r[3]["net_ns_per_pair"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(r[0]["net_cycles_per_pair"].get<double>(), 0);
}

// An aged record's baseline is void's timing record; a thp record's is void's thp record of the
// same THP mode (void under that mode too).
TEST(ResultsSummary, AgedAndThpRecordsSubtractTheirOwnBaselines) {
  auto variant = [](Json r, const std::string& mode, const std::string& thp) {
    r["mode"] = mode;
    if (!thp.empty()) r["thp_mode"] = thp;
    return r;
  };
  std::vector<Json> r = {rec("void", 1, 0, 100), variant(rec("void", 1, 0, 130), "thp", "always"), variant(rec("system", 1, 0, 150), "aged", ""),
                         variant(rec("system", 1, 0, 200), "thp", "always"), variant(rec("system", 1, 0, 220), "thp", "madvise")};
  attach_net_costs(r);
  EXPECT_DOUBLE_EQ(r[2]["net_cycles_per_pair"].get<double>(), 50);  // aged - void's timing record
  EXPECT_DOUBLE_EQ(r[3]["net_cycles_per_pair"].get<double>(), 70);  // thp always - void's thp always record
  EXPECT_TRUE(r[4]["net_cycles_per_pair"].is_null());               // no void under madvise
  EXPECT_EQ(r[4]["warnings"].size(), 1u);
}

TEST(ResultsSummary, MissingBaselineGivesNullAndAWarning) {
  std::vector<Json> r = {rec("void", 1, 0, 100), rec("system", 2, 0, 150)};
  r[0]["status"] = "failed";
  attach_net_costs(r);
  EXPECT_TRUE(r[1]["net_cycles_per_pair"].is_null());
  EXPECT_EQ(r[1]["warnings"].size(), 1u);
}

TEST(ResultsSummary, AggregatesAndSpeedVsSystem) {
  std::vector<Json> r;
  const double sys[] = {150, 160, 170}, je[] = {120, 125, 140};
  for (unsigned i = 0; i < 3; ++i) {
    r.push_back(rec("void", 1, i, 100));
    r.push_back(rec("system", 1, i, sys[i]));
    r.push_back(rec("jemalloc", 1, i, je[i]));
  }
  r.push_back(rec("jemalloc", 1, 3, 0));
  r.back()["status"] = "failed";  // failed repetitions are not aggregated
  attach_net_costs(r);
  const auto agg = aggregate_entries(r);
  ASSERT_EQ(agg.size(), 12u);  // 3 allocators x median/min/max/cv
  const Json* je_median = nullptr;
  for (const auto& e : agg)
    if (e["allocator"] == "jemalloc" && e["aggregate_name"] == "median") je_median = &e;
  ASSERT_NE(je_median, nullptr);
  EXPECT_EQ((*je_median)["repetitions"], 3);
  EXPECT_DOUBLE_EQ((*je_median)["net_cycles_per_pair"].get<double>(), 25);
  EXPECT_DOUBLE_EQ((*je_median)["speed_vs_system"].get<double>(), 60.0 / 25.0);
  for (const auto& e : agg)
    if (e["allocator"] == "void" && e["aggregate_name"] == "median") {
      EXPECT_TRUE(e["speed_vs_system"].is_null());
    }
}

// One repetition whose overhead is invalid (RSS grew by less than was live) makes the cell's
// aggregate overhead null, with the reason: it is never ranked.
TEST(ResultsSummary, OneInvalidOverheadMakesTheCellsOverheadInvalid) {
  std::vector<Json> r;
  for (unsigned i = 0; i < 3; ++i) {
    r.push_back(rec("void", 1, i, 100));
    r.push_back(rec("system", 1, i, 150));
    r.back()["overhead_ratio"] = 1.4;
    r.push_back(rec("jemalloc", 1, i, 130));
    r.back()["overhead_ratio"] = 1.2;
  }
  r[2]["overhead_ratio"] = nullptr;
  r[2]["overhead_ratio_measured"] = 0.4;
  r[2]["overhead_ratio_invalid"] = "RSS grew by less than was live";
  attach_net_costs(r);
  for (const auto& e : aggregate_entries(r)) {
    if (e["aggregate_name"] != "median") continue;
    if (e["allocator"] == "jemalloc") {
      EXPECT_TRUE(e["overhead_ratio"].is_null());
      EXPECT_EQ(e.value("overhead_ratio_invalid", ""), "RSS grew by less than was live");
    } else if (e["allocator"] == "system") {
      EXPECT_DOUBLE_EQ(e["overhead_ratio"].get<double>(), 1.4);
      EXPECT_FALSE(e.contains("overhead_ratio_invalid"));
    }
  }
}

// Counts records are net of void's counts record of the same workload and threads, on the same op stream.
TEST(ResultsSummary, NetCountsSubtractVoidsCountsRecord) {
  auto counts = [](const std::string& allocator, double instructions, const std::string& hash) {
    Json r = rec(allocator, 1, 0, 0, hash);
    r["mode"] = "counts";
    r["counts"] = {{"instructions_per_unit", instructions}, {"estimated_cycles_per_unit", 2 * instructions},
                   {"d1_misses_per_unit", 1.5}, {"ll_misses_per_unit", 0.25}};
    return r;
  };
  std::vector<Json> r = {counts("void", 100, "0x1"), counts("jemalloc", 180, "0x1"), counts("system", 250, "0x2")};
  r.push_back(rec("system", 1, 0, 150));  // a timing record: untouched
  attach_net_counts(r);
  EXPECT_DOUBLE_EQ(r[0]["counts"]["net_instructions_per_unit"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(r[1]["counts"]["net_instructions_per_unit"].get<double>(), 80);
  EXPECT_DOUBLE_EQ(r[1]["counts"]["net_estimated_cycles_per_unit"].get<double>(), 160);
  EXPECT_DOUBLE_EQ(r[1]["counts"]["net_ll_misses_per_unit"].get<double>(), 0);
  EXPECT_TRUE(r[2]["counts"]["net_instructions_per_unit"].is_null());  // another op stream than void's
  EXPECT_EQ(r[2]["warnings"].size(), 1u);
  EXPECT_FALSE(r[3].contains("counts"));
}

TEST(ResultsSummary, DetectsAllocatorDependentOperationStreams) {
  std::vector<Json> same = {rec("void", 1, 0, 1, "0xa"), rec("system", 1, 0, 2, "0xa")};
  EXPECT_TRUE(op_stream_mismatches(same).empty());
  std::vector<Json> differ = {rec("void", 1, 0, 1, "0xa"), rec("system", 1, 0, 2, "0xb")};
  ASSERT_EQ(op_stream_mismatches(differ).size(), 1u);
  EXPECT_NE(op_stream_mismatches(differ)[0].find("system=0xb"), std::string::npos);
}

TEST(ResultsSummary, IntervalsSayIndistinguishableWhereTheyOverlap) {
  std::vector<Json> r;
  for (unsigned i = 0; i < 6; ++i) {
    r.push_back(rec("void", 1, i, 100));
    r.push_back(rec("system", 1, i, 150 + i));     // net 50..55
    r.push_back(rec("jemalloc", 1, i, 120 + i));   // net 20..25: apart from system
    r.push_back(rec("mimalloc", 1, i, 146 + 2 * i));  // net 46..56: overlaps system
  }
  attach_net_costs(r);
  std::map<std::string, Json> median;
  for (const auto& e : aggregate_entries(r))
    if (e["aggregate_name"] == "median") median[e["allocator"].get<std::string>()] = e;
  const Json& iv = median["jemalloc"]["intervals"]["net_cycles_per_pair"];
  EXPECT_EQ(iv["low"], 20);  // n = 6: [min, max] at 1 - 2^-5
  EXPECT_EQ(iv["high"], 25);
  EXPECT_NEAR(iv["level"].get<double>(), 1 - 1.0 / 32, 1e-12);
  EXPECT_EQ(median["jemalloc"]["vs_system"], "faster");
  EXPECT_EQ(median["mimalloc"]["vs_system"], "indistinguishable");
  EXPECT_TRUE(median["system"]["vs_system"].is_null());
  EXPECT_TRUE(median["jemalloc"]["intervals"].contains("net_ns_per_pair"));
  // system's [50, 55] over jemalloc's [20, 25], at least 2 (1 - 2^-5) - 1 when both hold
  const Json& ratio = median["jemalloc"]["speed_vs_system_interval"];
  EXPECT_DOUBLE_EQ(ratio["low"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(ratio["high"].get<double>(), 2.75);
  EXPECT_NEAR(ratio["level_at_least"].get<double>(), 1 - 2.0 / 32, 1e-12);
  EXPECT_TRUE(median["system"]["speed_vs_system_interval"].is_null());
}

TEST(ResultsSummary, DisturbedRecordsAreLeftOutAndSoAreTheirPairs) {
  auto calm = [](Json r, bool disturbed = false) {
    r["interference"] = {{"disturbed", disturbed}, {"disturbed_by", Json::array()}};
    return r;
  };
  std::vector<Json> r = {calm(rec("void", 1, 0, 100)),       calm(rec("system", 1, 0, 150)),
                         calm(rec("void", 1, 1, 100)),       calm(rec("system", 1, 1, 300), true),  // disturbed itself
                         calm(rec("void", 1, 2, 100), true), calm(rec("system", 1, 2, 400))};       // its void was disturbed
  attach_net_costs(r);
  EXPECT_TRUE(r[5]["interference"]["disturbed"].get<bool>());
  EXPECT_EQ(r[5]["interference"]["disturbed_by"].size(), 1u);
  bool seen = false;
  for (const auto& e : aggregate_entries(r))
    if (e["allocator"] == "system" && e["aggregate_name"] == "median") {
      seen = true;
      EXPECT_EQ(e["repetitions_ok"], 1);
      EXPECT_EQ(e["repetitions_disturbed"], 2);
      EXPECT_DOUBLE_EQ(e["net_cycles_per_pair"].get<double>(), 50);
    }
  EXPECT_TRUE(seen);
}

TEST(ResultsSummary, VarianceComponentsSeparateProcessesFromSegments) {
  // Three processes at levels 100, 110, 120 whose segments 1..4 add the same +-1 pattern: all the
  // variance is between processes (the segment pattern is removed as a segment effect).
  std::vector<Json> r;
  for (unsigned i = 0; i < 3; ++i) {
    const double level = 100 + 10.0 * i;
    r.push_back(rec("system", 1, i, level));
    r.back()["segments"] = {{"count", 5}, {"cycles_per_pair", {2 * level, level - 1, level + 1, level - 1, level + 1}}};
  }
  const auto agg = aggregate_entries(r);
  const Json& vc = agg.front()["variance_components"];
  EXPECT_EQ(agg.front()["aggregate_name"], "median");
  EXPECT_NEAR(vc["within_variance"].get<double>(), 0, 1e-9);
  EXPECT_NEAR(vc["between_variance"].get<double>(), 100, 1e-9);  // var(100, 110, 120)
  EXPECT_EQ(vc["dominant"], "between processes");
  EXPECT_NEAR(vc["warmup_ratio"].get<double>(), 2, 1e-9);
  EXPECT_EQ(vc["segments_used"], 4);
}

}  // namespace
}  // namespace allocstress
