// InverseSizeSampler: bucket law p ~ 2^-k, sizes in range, uniform inside a bucket, the mean
// and the share of small blocks the model states (E = 16: mean ~41.5 B, 93.75% below 64 B).
#include "workloads/inverse_size_sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "distribution_check.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {
namespace {

TEST(InverseSizeSampler, BucketLawSumsToOneAndHalvesPerBucket) {
  InverseSizeSampler s(16);
  double sum = 0;
  for (unsigned k = 0; k < 20; ++k) sum += s.bucket_probability(k);
  EXPECT_NEAR(sum, 1.0, 1e-12);
  for (unsigned k = 3; k < 16; ++k) EXPECT_NEAR(s.bucket_probability(k) / s.bucket_probability(k - 1), 0.5, 1e-12);
  EXPECT_EQ(s.bucket_probability(1), 0.0);
  EXPECT_EQ(s.bucket_probability(16), 0.0);
}

TEST(InverseSizeSampler, RejectsExponentsOutOfRange) {
  EXPECT_THROW(InverseSizeSampler(2), std::invalid_argument);
  EXPECT_THROW(InverseSizeSampler(29), std::invalid_argument);
  EXPECT_NO_THROW(InverseSizeSampler(3));
  EXPECT_NO_THROW(InverseSizeSampler(28));
}

class InverseSizeSamplerDraws : public ::testing::TestWithParam<unsigned> {};

TEST_P(InverseSizeSamplerDraws, BucketFrequenciesWithinOnePercentOverTenMillionDraws) {
  const unsigned e = GetParam();
  InverseSizeSampler s(e);
  WorkloadRng rng(99 + e);
  const int draws = 10'000'000;
  std::vector<double> hits(e + 1, 0.0);
  double sum = 0;
  for (int i = 0; i < draws; ++i) {
    const std::size_t size = s.sample(rng());
    ASSERT_GE(size, 4u);
    ASSERT_LE(size, s.max_size());
    hits[std::bit_width(size) - 1] += 1;
    sum += double(size);
  }
  for (unsigned k = InverseSizeSampler::kMinBucket; k < e; ++k) {
    const double p = s.bucket_probability(k);
    EXPECT_NEAR(hits[k] / draws, p, test::share_tolerance(p, draws)) << "bucket " << k;
  }
  // Mean within 1%, or within 5 standard errors where the heavy tail makes 1% unresolvable.
  double second_moment = 0;
  for (unsigned k = InverseSizeSampler::kMinBucket; k < e; ++k) {
    const double w = std::ldexp(1.0, int(k)), mid = 1.5 * w - 0.5;
    second_moment += s.bucket_probability(k) * ((w * w - 1) / 12 + mid * mid);
  }
  const double std_error = std::sqrt((second_moment - s.mean_size() * s.mean_size()) / draws);
  EXPECT_NEAR(sum / draws, s.mean_size(), std::max(0.01 * s.mean_size(), 5 * std_error));
}

INSTANTIATE_TEST_SUITE_P(Exponents, InverseSizeSamplerDraws, ::testing::Values(3u, 10u, 16u, 20u));

TEST(InverseSizeSampler, StudyFiguresForEIs16) {
  InverseSizeSampler s(16);
  EXPECT_NEAR(s.mean_size(), 41.5, 0.5);  // the study reports ~45 B with its in-bucket shapes
  WorkloadRng rng(3);
  const int draws = 2'000'000;
  int below_64 = 0;
  for (int i = 0; i < draws; ++i) below_64 += s.sample(rng()) < 64 ? 1 : 0;
  EXPECT_NEAR(double(below_64) / draws, 0.9375, test::share_tolerance(0.9375, draws));
}

TEST(InverseSizeSampler, SizesAreUniformInsideABucket) {
  InverseSizeSampler s(16);
  WorkloadRng rng(5);
  std::vector<double> hits(16, 0.0);  // bucket 3: sizes 8..15
  double total = 0;
  for (int i = 0; i < 4'000'000; ++i) {
    const std::size_t size = s.sample(rng());
    if (size >= 8 && size < 16) {
      hits[size] += 1;
      total += 1;
    }
  }
  for (std::size_t v = 8; v < 16; ++v) EXPECT_NEAR(hits[v] / total, 0.125, test::share_tolerance(0.125, total)) << v;
}

}  // namespace
}  // namespace allocstress
