// summarise(): median, min, max and coefficient of variation; median_interval(): order statistics
// and their binomial coverage, on known data; theil_sen_slope(): the trend and its interval, on
// known data and by its coverage over seeded series.
#include "platform/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace allocstress {
namespace {

TEST(Statistics, OddCount) {
  const Summary s = summarise({5, 1, 3});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_NEAR(s.cv, 2.0 / 3.0, 1e-12);  // sd 2, mean 3
}

TEST(Statistics, EvenCountAveragesTheMiddle) { EXPECT_EQ(summarise({4, 1, 3, 2}).median, 2.5); }

TEST(Statistics, SingleValueHasNoSpread) {
  const Summary s = summarise({7});
  EXPECT_EQ(s.median, 7);
  EXPECT_EQ(s.cv, 0);
}

TEST(Statistics, CvOfZeroMeanIsUndefined) { EXPECT_TRUE(std::isnan(summarise({-1, 1}).cv)); }

TEST(Statistics, CvUsesAbsoluteMean) { EXPECT_NEAR(summarise({-1, -3}).cv, std::sqrt(2.0) / 2.0, 1e-12); }

TEST(Statistics, MedianIntervalOfFiveIsMinToMaxAtItsOwnLevel) {
  const MedianInterval ci = median_interval({5, 1, 4, 2, 3});
  EXPECT_EQ(ci.low, 1);
  EXPECT_EQ(ci.high, 5);
  EXPECT_NEAR(ci.level, 1 - 2.0 / 32, 1e-12);  // 1 - 2^(1-n): below 95%, and said so
}

TEST(Statistics, MedianIntervalOfTwentyUsesTheSixthValues) {
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  const MedianInterval ci = median_interval(v);
  // k = 6: 1 - 2 P(Bin(20, 1/2) <= 5) = 0.9586 >= 95%; k = 7 would give 0.8847
  EXPECT_EQ(ci.low, 6);
  EXPECT_EQ(ci.high, 15);
  EXPECT_NEAR(ci.level, 0.958610, 1e-6);
}

TEST(Statistics, MedianIntervalNeedsTwoValues) { EXPECT_TRUE(std::isnan(median_interval({3}).low)); }

TEST(TrendSlope, ALineGivesItsSlopeExactly) {
  const TrendSlope t = theil_sen_slope({0, 1, 2, 3, 4, 5, 6, 7}, {2, 5, 8, 11, 14, 17, 20, 23});
  EXPECT_EQ(t.slope, 3);
  EXPECT_EQ(t.interval.low, 3);
  EXPECT_EQ(t.interval.high, 3);
  EXPECT_EQ(t.points, 8u);
}

TEST(TrendSlope, FivePointsGiveTheMedianPairwiseSlopeAndTheWholeRange) {
  // Pairwise slopes, sorted: -1, -1, 0.5, 2/3, 1, 1.5, 1.5, 5/3, 2, 4.  [d(1), d(10)] covers with
  // 1 - 2 P(I = 0) = 1 - 2/5!; [d(2), d(9)] only with 1 - 2 (1 + 4)/5! = 0.917.
  const TrendSlope t = theil_sen_slope({0, 1, 2, 3, 4}, {0, 2, 1, 5, 4});
  EXPECT_DOUBLE_EQ(t.slope, 1.25);
  EXPECT_EQ(t.interval.low, -1);
  EXPECT_EQ(t.interval.high, 4);
  EXPECT_NEAR(t.interval.level, 1 - 2.0 / 120, 1e-12);
}

TEST(TrendSlope, SevenPointsUseTheFourthSlopeFromEachEnd) {
  // The exact law of inversions of 7 (enumerated over the 5040 permutations in Python): the
  // largest k with 1 - 2 P(I < k) >= 95% is 4, at 0.969841.
  std::vector<double> x, y;
  for (int i = 0; i < 7; ++i) x.push_back(i), y.push_back(i * i % 5);  // 0 1 4 4 1 0 1
  std::vector<double> d;
  for (int i = 0; i < 7; ++i)
    for (int j = i + 1; j < 7; ++j) d.push_back((y[j] - y[i]) / (x[j] - x[i]));
  std::sort(d.begin(), d.end());
  const TrendSlope t = theil_sen_slope(x, y);
  EXPECT_EQ(t.interval.low, d[3]);
  EXPECT_EQ(t.interval.high, d[d.size() - 4]);
  EXPECT_NEAR(t.interval.level, 0.9698412698, 1e-9);
}

TEST(TrendSlope, FourPointsHaveNoIntervalAtNinetyFivePercent) {
  const TrendSlope t = theil_sen_slope({0, 1, 2, 3}, {1, 3, 2, 4});
  EXPECT_FALSE(std::isnan(t.slope));
  EXPECT_TRUE(std::isnan(t.interval.low));
  EXPECT_TRUE(std::isnan(theil_sen_slope({1}, {1}).slope));
}

TEST(TrendSlope, IntervalsCoverTheTrueSlopeAtLeastAtTheirLevel) {
  // 2,000 series of 12 points around y = 0.5 x with independent noise (exact law) and of 240
  // (normal law), from fixed seeds: the share of intervals holding 0.5 is the coverage.
  for (const int n : {12, 240}) {
    std::mt19937_64 rng(42 + n);
    std::normal_distribution<double> noise(0, 3);
    int covered = 0, trials = n == 12 ? 2000 : 300;
    double level = 0;
    for (int k = 0; k < trials; ++k) {
      std::vector<double> x, y;
      for (int i = 0; i < n; ++i) x.push_back(i), y.push_back(0.5 * i + noise(rng));
      const TrendSlope t = theil_sen_slope(x, y);
      covered += t.interval.low <= 0.5 && 0.5 <= t.interval.high;
      level = t.interval.level;
    }
    EXPECT_GE(level, 0.95);
    // binomial standard error of the share: 0.005 (n = 12), 0.013 (n = 240)
    EXPECT_GE(double(covered) / trials, level - (n == 12 ? 0.02 : 0.045)) << n << " points";
  }
}

}  // namespace
}  // namespace allocstress
