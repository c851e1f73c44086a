// The rules read off intervals of medians (platform/statistics.hpp): a median's relative
// half-width and the unstable mark, the quotient of two medians' intervals (Bonferroni level, an
// open end where the denominator reaches 0, nothing where a quotient of costs means nothing), and
// the order of two intervals (below / above / overlap), on values with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "platform/statistics.hpp"

namespace allocstress {
namespace {

TEST(RelativeHalfWidth, IsHalfTheWidthOverTheMedian) {
  EXPECT_DOUBLE_EQ(relative_half_width(90, 110, 100), 0.1);
  EXPECT_DOUBLE_EQ(relative_half_width(-110, -90, -100), 0.1);  // |median|
}

TEST(RelativeHalfWidth, IsUndefinedAtZeroOrWithoutAnInterval) {
  EXPECT_TRUE(std::isnan(relative_half_width(-1, 1, 0)));
  EXPECT_TRUE(std::isnan(relative_half_width(NAN, 1, 1)));
  EXPECT_TRUE(std::isnan(relative_half_width(0, std::numeric_limits<double>::infinity(), 1)));
}

TEST(UnstableMark, IsStrictlyWiderThanTenPercent) {
  EXPECT_DOUBLE_EQ(kUnstableRelativeHalfWidth, 0.10);
  EXPECT_FALSE(is_unstable_half_width(0.10));
  EXPECT_TRUE(is_unstable_half_width(0.1000001));
  EXPECT_FALSE(is_unstable_half_width(NAN));
}

TEST(QuotientInterval, DividesTheIntervalsCrosswiseAtTheBonferroniLevel) {
  const auto q = quotient_of_intervals({10, 20, 0.96}, {4, 5, 0.97});
  ASSERT_TRUE(q.has_value());
  EXPECT_DOUBLE_EQ(q->low, 2.0);   // 10 / 5
  EXPECT_DOUBLE_EQ(q->high, 5.0);  // 20 / 4
  EXPECT_NEAR(q->level_at_least, 0.93, 1e-12);
}

TEST(QuotientInterval, LevelNeverBelowZero) { EXPECT_EQ(quotient_of_intervals({1, 2, 0.5}, {1, 2, 0.25})->level_at_least, 0.0); }

TEST(QuotientInterval, IsOpenWhereTheDenominatorReachesZero) {
  const auto q = quotient_of_intervals({10, 20, 0.95}, {0, 5, 0.95});
  ASSERT_TRUE(q.has_value());
  EXPECT_DOUBLE_EQ(q->low, 2.0);
  EXPECT_TRUE(std::isinf(q->high));
}

TEST(QuotientInterval, NothingWhereAQuotientOfCostsMeansNothing) {
  EXPECT_FALSE(quotient_of_intervals({0, 20, 0.95}, {4, 5, 0.95}).has_value());    // numerator's low not above 0
  EXPECT_FALSE(quotient_of_intervals({10, 20, 0.95}, {-5, 0, 0.95}).has_value());  // denominator's high not above 0
  EXPECT_FALSE(quotient_of_intervals({NAN, 20, 0.95}, {4, 5, 0.95}).has_value());  // no interval
}

TEST(IntervalOrder, BelowAboveOrOverlapping) {
  EXPECT_EQ(interval_order(1, 2, 3, 4), IntervalOrder::below);
  EXPECT_EQ(interval_order(5, 6, 3, 4), IntervalOrder::above);
  EXPECT_EQ(interval_order(1, 3, 3, 4), IntervalOrder::overlap);  // touching ends overlap
  EXPECT_EQ(interval_order(3.5, 3.6, 3, 4), IntervalOrder::overlap);
  EXPECT_FALSE(interval_order(NAN, 2, 3, 4).has_value());
}

}  // namespace
}  // namespace allocstress
