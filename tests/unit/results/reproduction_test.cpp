// Reproduction intervals (results/reproduction.hpp): the distribution-free prediction interval of
// another run's median, the scores and the conformal factor, the calibration file and the
// widened intervals in the median entries.
#include "results/reproduction.hpp"
#include "results/results_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <unistd.h>

#include "platform/statistics.hpp"
#include "results/results_summary.hpp"

namespace allocstress {
namespace {

using Json = nlohmann::json;

std::vector<double> one_to(unsigned n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

TEST(Reproduction, PredictionIntervalHasItsExactCoverage) {
  // n = 10, k = 5: from the formula, [x(1), x(10)] holds another 10-sample's median with
  // probability 0.9783 and [x(2), x(9)] with 0.9009, so at 95% it is the whole range and at 90%
  // one value in from each end.
  const MedianInterval pi = median_prediction_interval({7, 3, 9, 1, 5, 10, 2, 8, 4, 6}, 0.95);
  EXPECT_DOUBLE_EQ(pi.low, 1);
  EXPECT_DOUBLE_EQ(pi.high, 10);
  EXPECT_NEAR(pi.level, 0.9783, 1e-4);
  const MedianInterval narrower = median_prediction_interval(one_to(10), 0.90);
  EXPECT_DOUBLE_EQ(narrower.low, 2);
  EXPECT_DOUBLE_EQ(narrower.high, 9);
  EXPECT_NEAR(narrower.level, 0.9009, 1e-4);
  EXPECT_TRUE(std::isnan(median_prediction_interval(one_to(5), 0.95).low));  // even [x(1), x(5)] holds it only 83%
  EXPECT_TRUE(std::isnan(median_prediction_interval({1}, 0.5).low));
  EXPECT_FALSE(std::isnan(median_prediction_interval(one_to(200), 0.95).low));  // large n: no overflow
}

TEST(Reproduction, CoverageHoldsForExchangeableSamples) {
  // Simulated: two samples from one distribution; the 95% interval of the first holds the second's
  // median in about 95% of trials (at least 95% by construction, discreteness makes it more).
  std::uint64_t state = 12345;
  auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / double(1ULL << 53);
  };
  unsigned held = 0, trials = 2000;
  for (unsigned t = 0; t < trials; ++t) {
    std::vector<double> a(15), b(15);
    for (auto& x : a) x = -std::log(uniform());
    for (auto& x : b) x = -std::log(uniform());
    std::sort(b.begin(), b.end());
    const MedianInterval pi = median_prediction_interval(a, 0.95);
    held += pi.low <= b[7] && b[7] <= pi.high;  // false for NaN bounds
  }
  EXPECT_GE(held, unsigned(0.93 * trials));  // binomial sd about 0.5% of trials at p = 0.95
  EXPECT_LE(held, unsigned(0.995 * trials));
}

TEST(Reproduction, ConformalFactorIsTheRankedScore) {
  std::vector<double> scores;
  for (int i = 1; i <= 19; ++i) scores.push_back(i / 10.0);
  EXPECT_DOUBLE_EQ(conformal_factor(scores, 0.95), 1.9);  // ceil(20 x 0.95) = 19th smallest
  scores.push_back(5.0);
  EXPECT_DOUBLE_EQ(conformal_factor(scores, 0.90), 1.9);  // ceil(21 x 0.9) = 19th of 20
  EXPECT_THROW(conformal_factor({1, 2, 3}, 0.95), std::invalid_argument);
}

TEST(Reproduction, ScoresMeasureOtherMediansInUnitsOfTheIntervalSide) {
  // Two runs of one cell, 10 processes each: run A 1..10 (median 5.5, interval [1, 10]), run B
  // shifted by +2 (median 7.5, interval [3, 12]).  A -> B: (7.5 - 5.5) / (10 - 5.5); B -> A:
  // (7.5 - 5.5) / (7.5 - 3).
  CellValues a, b;
  a[{"alloc-test", "system", 1}] = one_to(10);
  std::vector<double> shifted = one_to(10);
  for (double& x : shifted) x += 2;
  b[{"alloc-test", "system", 1}] = shifted;
  b[{"alloc-test", "jemalloc", 1}] = one_to(10);  // only in one run: left out
  const auto scores = reproduction_scores({a, b}, 0.95);
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_NEAR(scores[0], 2 / 4.5, 1e-12);
  EXPECT_NEAR(scores[1], 2 / 4.5, 1e-12);
}

Json timing(const std::string& allocator, unsigned rep, double net, bool disturbed = false) {
  return {{"workload", "alloc-test"}, {"allocator", allocator}, {"threads", 1}, {"run_type", "iteration"}, {"status", "ok"},
          {"repetition_index", rep}, {"net_ns_per_pair", net}, {"interference", {{"disturbed", disturbed}}}};
}

TEST(Reproduction, HeadlineValuesAreUndisturbedNetFigures) {
  std::vector<Json> b = {timing("system", 0, 30), timing("system", 1, 31), timing("system", 2, 99, true), timing("void", 0, 0)};
  b.push_back({{"workload", "alloc-test"}, {"allocator", "system"}, {"threads", 1}, {"run_type", "iteration"}, {"status", "failed"}});
  const CellValues v = headline_values(b);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v.at({"alloc-test", "system", 1}), (std::vector<double>{30, 31}));
}

std::filesystem::path write_calibration(const Json& doc) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("allocstress-calibration-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
  std::ofstream(p) << doc.dump();
  return p;
}

Json calibration(double factor) {
  return {{"schema", kCalibrationSchemaName}, {"schema_version", kCalibrationSchemaVersion}, {"host_name", "here"}, {"level", 0.95},
          {"factor", factor}, {"pairs", 108}, {"created", "2026-11-23T00:00:00Z"}, {"runs", Json::array({"a", "b", "c"})}};
}

TEST(Reproduction, CalibrationAppliesOnlyOnItsHost) {
  const auto path = write_calibration(calibration(1.5));
  std::string why;
  EXPECT_TRUE(calibration_for_host(path, "here", why).is_object());
  EXPECT_EQ(why, "");
  EXPECT_TRUE(calibration_for_host(path, "there", why).is_null());
  EXPECT_NE(why.find("is host here's, not there's"), std::string::npos) << why;
  EXPECT_TRUE(calibration_for_host("/nonexistent/calibration.json", "here", why).is_null());
  EXPECT_NE(why.find("no calibration at /nonexistent/calibration.json"), std::string::npos) << why;
  Json bad = calibration(1.5);
  bad["factor"] = -1;
  const auto bad_path = write_calibration(bad);
  EXPECT_THROW(read_calibration(bad_path), std::runtime_error);
  EXPECT_TRUE(calibration_for_host(bad_path, "here", why).is_null());
  EXPECT_NE(why.find("lacks a positive factor"), std::string::npos) << why;
  std::filesystem::remove(path);
  std::filesystem::remove(bad_path);
}

// Found by fuzzing (tests/fuzz/calibration_fuzz.cpp): a number beyond double's range is JSON that
// nlohmann refuses with out_of_range, not parse_error, and it escaped the readers' contracts.
// `calibrate` reads both files: the calibration and the results files it is made from.
TEST(Reproduction, ANumberBeyondDoubleIsRefusedAsNotJson) {
  const auto path = std::filesystem::temp_directory_path() / ("allocstress-calibration-huge-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"schema": "allocstress-reproduction-calibration", "schema_version": 1, "factor": 8842.154e96875})";
  EXPECT_THROW(read_calibration(path), std::runtime_error);
  std::string why;
  EXPECT_TRUE(calibration_for_host(path, "here", why).is_null());
  EXPECT_NE(why.find("is not JSON"), std::string::npos) << why;
  EXPECT_THROW(read_results_file(path), ResultsFileError);
  std::filesystem::remove(path);
}

// Found with the fuzz harness (tests/fuzz/calibration_fuzz.cpp): a calibration whose descriptive
// members are of another type widens the intervals all the same (it threw type_error at the end of
// a matrix run).
TEST(Reproduction, ACalibrationsDescriptiveMembersAreCopiedAsTheyAre) {
  Json odd = calibration(2);
  odd["created"] = 5;
  odd["pairs"] = "many";
  std::vector<Json> records;
  for (unsigned i = 0; i < 10; ++i) records.push_back(timing("system", i, 21 + i));
  std::vector<Json> aggregates = {{{"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", "system"}, {"threads", 1}}};
  attach_reproduction(aggregates, records, odd);
  ASSERT_TRUE(aggregates[0].contains("reproduction"));
  EXPECT_EQ(aggregates[0]["reproduction"]["calibration"]["created"], 5);
}

TEST(Reproduction, DefaultPathFollowsTheEnvironment) {
  const char* home_was = std::getenv("HOME");
  const std::string home = home_was != nullptr ? home_was : "";
  ::setenv("ALLOCSTRESS_CALIBRATION", "/x/c.json", 1);
  EXPECT_EQ(default_calibration_path(), "/x/c.json");
  ::unsetenv("ALLOCSTRESS_CALIBRATION");
  ::setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(default_calibration_path(), "/data/allocstress/calibration.json");
  ::unsetenv("XDG_DATA_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_calibration_path(), "/home/u/.local/share/allocstress/calibration.json");
  if (home_was != nullptr) ::setenv("HOME", home.c_str(), 1);
  else ::unsetenv("HOME");
}

TEST(Reproduction, MedianEntriesGetTheWidenedInterval) {
  std::vector<Json> records;
  for (unsigned i = 0; i < 10; ++i) {
    records.push_back(timing("system", i, 21 + i));    // 21..30: median 25.5, base interval [21, 30]
    records.push_back(timing("jemalloc", i, i < 5 ? 10 : 11));
  }
  for (unsigned i = 0; i < 5; ++i) records.push_back(timing("mimalloc", i, 5 + i));  // too few for 95%
  std::vector<Json> aggregates = {
      {{"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", "system"}, {"threads", 1}},
      {{"aggregate_name", "cv"}, {"workload", "alloc-test"}, {"allocator", "system"}, {"threads", 1}},
      {{"aggregate_name", "median"}, {"workload", "alloc-test"}, {"allocator", "mimalloc"}, {"threads", 1}}};
  Json cal = calibration(2.0);
  cal["file"] = "/c.json";
  attach_reproduction(aggregates, records, cal);
  const Json& r = aggregates[0].at("reproduction");
  EXPECT_EQ(r.at("metric"), "net_ns_per_pair");
  EXPECT_DOUBLE_EQ(r.at("low").get<double>(), 25.5 - 2 * 4.5);
  EXPECT_DOUBLE_EQ(r.at("high").get<double>(), 25.5 + 2 * 4.5);
  EXPECT_EQ(r.at("calibration").at("file"), "/c.json");
  EXPECT_EQ(r.at("n"), 10);
  EXPECT_FALSE(aggregates[1].contains("reproduction"));
  EXPECT_TRUE(aggregates[2].at("reproduction").at("low").is_null());
  EXPECT_NE(aggregates[2].at("reproduction").at("reason").get<std::string>().find("too few processes (5)"), std::string::npos);
  std::vector<Json> untouched = aggregates;
  attach_reproduction(untouched, records, Json());  // no calibration: nothing changes
  EXPECT_EQ(untouched, aggregates);
}

}  // namespace
}  // namespace allocstress
