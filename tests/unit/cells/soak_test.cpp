// Soak cells (cells/modes/soak.hpp): the spec's parsing and bounds, the sampler's pace, and the soak
// block reduced from a known timeline: per-bin medians and the drift of a steady rise.
#include "cells/modes/soak.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace allocstress {
namespace {

TEST(SoakSpec, ParsesDurationsAndTheBin) {
  EXPECT_EQ(parse_soak_spec("10m").duration_s, 600);
  EXPECT_EQ(parse_soak_spec("10m").bin_s, 60);
  EXPECT_EQ(parse_soak_spec("1.5h").duration_s, 5400);
  EXPECT_EQ(parse_soak_spec("30s").bin_s, 30);  // a bin never outlasts the soak
  const SoakSpec s = parse_soak_spec("2m,every=10s");
  EXPECT_EQ(s.duration_s, 120);
  EXPECT_EQ(s.bin_s, 10);
}

TEST(SoakSpec, RefusesWhatItCannotRead) {
  for (const char* bad : {"", "60", "ten", "0s", "0.5s", "8d", "169h", "1m,every=2m", "1m,every=0s", "1m,bin=5s", "1m,every=5"}) {
    try {
      parse_soak_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("accepted: DURATION[,every=DURATION]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("--soak '") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(SoakSpec, SamplesEveryThirtiethOfABinWithRoomForAllReadings) {
  const HugepageSamplerOptions minute = soak_sampling(parse_soak_spec("1h"));
  EXPECT_EQ(minute.interval.count(), 2000);
  EXPECT_GE(minute.max_samples, 3600u / 2 + 1);
  EXPECT_EQ(minute.max_samples % 2, 0u);
  EXPECT_EQ(minute.longest_interval.count(), 7500);  // slow readings: 8 a bin at least
  const HugepageSamplerOptions second = soak_sampling(parse_soak_spec("10s,every=1s"));
  EXPECT_EQ(second.interval.count(), 50);  // never faster than 20 a second
  EXPECT_EQ(second.longest_interval.count(), 125);  // 50, 100, then no further
  const HugepageSamplerOptions week = soak_sampling(parse_soak_spec("168h"));
  EXPECT_LE(168 * 3600.0 / (double(week.interval.count()) / 1000), 20000.5);  // at most 20,000 readings
  EXPECT_EQ(week.longest_interval, week.interval);  // already slower than 8 a bin: never slower still
}

// A record whose timeline is read every `every` s for `seconds`: RSS growth rss(t), coverage cov(t).
template <class Rss, class Cov>
nlohmann::json record_with(double seconds, double every, Rss rss, Cov cov) {
  nlohmann::json t = nlohmann::json::array(), r = nlohmann::json::array(), a = nlohmann::json::array(), h = nlohmann::json::array();
  for (double s = 0; s <= seconds + 1e-9; s += every) {
    const double anon = 1e8;
    t.push_back(s);
    r.push_back(1e9 + rss(s));
    a.push_back(anon);
    h.push_back(cov(s) * anon);
  }
  return {{"rss_before_bytes", 1e9},
          {"hugepages", {{"unavailable", nullptr}, {"samples", {{"t_s", t}, {"rss_bytes", r}, {"anon_bytes", a}, {"anon_huge_bytes", h}}}}}};
}

TEST(SoakBlock, BinsHoldTheMediansAndTheDriftIsTheRiseAfterTheFirstBin) {
  // 10 bins of 60 s; the first fills to 100 MiB, then RSS grows 1 MiB a minute; coverage 0.5.
  const double mib = 1048576;
  const nlohmann::json rec = record_with(600, 2, [&](double s) { return s < 60 ? 100 * mib * s / 60 : 100 * mib + (s - 60) / 60 * mib; },
                                         [](double) { return 0.5; });
  const nlohmann::json b = soak_block("10m", rec, 7);
  EXPECT_EQ(b.at("rounds"), 7);
  ASSERT_EQ(b.at("bins").size(), 10u);
  EXPECT_EQ(b.at("bins")[0].at("samples"), 30);
  EXPECT_NEAR(b.at("bins")[3].at("rss_growth_bytes").get<double>(), 100 * mib + 2.5 * mib, 0.05 * mib);  // median of 180..238 s
  EXPECT_DOUBLE_EQ(b.at("bins")[3].at("coverage").get<double>(), 0.5);
  const nlohmann::json& d = b.at("drift");
  EXPECT_EQ(d.at("fitted_bins"), 9);
  EXPECT_NEAR(d.at("rss_growth_bytes").at("per_hour").get<double>(), 60 * mib, 0.01 * mib);
  EXPECT_NEAR(d.at("rss_growth_bytes").at("low").get<double>(), 60 * mib, 0.01 * mib);  // no noise: the interval is the slope
  EXPECT_NEAR(d.at("rss_growth_share").at("per_hour").get<double>(), 60.0 / 104.5, 0.01);
  EXPECT_DOUBLE_EQ(d.at("coverage").at("per_hour").get<double>(), 0);
}

TEST(SoakBlock, FewBinsHaveADriftButNoInterval) {
  const nlohmann::json rec = record_with(40, 1, [](double s) { return 1000 * s; }, [](double) { return 0.0; });
  const nlohmann::json d = soak_block("40s,every=10s", rec, 1).at("drift");
  EXPECT_EQ(d.at("fitted_bins"), 3);
  EXPECT_NEAR(d.at("rss_growth_bytes").at("per_hour").get<double>(), 3.6e6, 1);
  EXPECT_TRUE(d.at("rss_growth_bytes").at("low").is_null());
}

TEST(SoakBlock, WithoutATimelineSaysWhy) {
  const nlohmann::json b = soak_block("1m", {{"hugepages", {{"unavailable", "smaps_rollup: no such file"}}}}, 0);
  EXPECT_EQ(b.at("unavailable"), "smaps_rollup: no such file");
  EXPECT_TRUE(b.at("bins").empty());
  EXPECT_TRUE(b.at("drift").is_null());
  EXPECT_EQ(soak_block("1m", nlohmann::json::object(), 0).at("unavailable"), "no memory timeline was sampled in this cell");
}

}  // namespace
}  // namespace allocstress
