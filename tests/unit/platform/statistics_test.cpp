// summarise(): median, min, max and coefficient of variation; median_interval(): order statistics
// and their binomial coverage, on known data.
#include "platform/statistics.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace allocstress
