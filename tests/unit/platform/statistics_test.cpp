// summarise(): median, min, max and coefficient of variation on known data.
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

}  // namespace
}  // namespace allocstress
