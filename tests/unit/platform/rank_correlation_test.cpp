// Spearman's rho (platform/rank_correlation.hpp): average ranks with ties, the exact value without
// ties, the Pearson correlation of mid-ranks with them, and NaN where no ranking exists.
#include "platform/rank_correlation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace allocstress {
namespace {

TEST(AverageRanks, TiesShareTheirMeanRank) {
  EXPECT_EQ(average_ranks({30, 10, 20, 10}), (std::vector<double>{4, 1.5, 3, 1.5}));
}

TEST(Spearman, SameAndReversedOrderAreExact) {
  EXPECT_EQ(spearman_correlation({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}), 1.0);
  EXPECT_EQ(spearman_correlation({1, 2, 3, 4, 5}, {50, 40, 30, 20, 10}), -1.0);
  EXPECT_EQ(spearman_correlation({1, 2}, {2, 1}), -1.0);  // two values rank already
}

TEST(Spearman, WithoutTiesIsOneMinusSixSumDSquared) {
  EXPECT_NEAR(spearman_correlation({1, 2, 3, 4, 5}, {1, 3, 2, 4, 5}), 0.9, 1e-15);  // 1 - 12 / 120
}

TEST(Spearman, WithTiesIsThePearsonCorrelationOfMidRanks) {
  // ranks {1, 2.5, 2.5, 4} against {1, 2, 3, 4}: sum of products 4.5 over sqrt(4.5 * 5)
  EXPECT_NEAR(spearman_correlation({1, 2, 2, 4}, {1, 2, 3, 4}), 4.5 / std::sqrt(4.5 * 5), 1e-15);
}

TEST(Spearman, UndefinedWithoutARanking) {
  EXPECT_TRUE(std::isnan(spearman_correlation({1, 1, 1}, {1, 2, 3})));  // one side constant
  EXPECT_TRUE(std::isnan(spearman_correlation({1}, {1})));              // fewer than 2
  EXPECT_TRUE(std::isnan(spearman_correlation({1, 2, 3}, {1, 2})));     // lengths differ
}

}  // namespace
}  // namespace allocstress
