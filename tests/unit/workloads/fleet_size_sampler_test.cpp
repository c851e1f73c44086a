// The fleet size preset (workloads/fleet_size_sampler.hpp) against the published fleet figures
// (BACKGROUND §6: ~67% of allocations <= 64 B, ~92% <= 256 B, ~98% <= 1 KiB, median ~48 B,
// mean ~440 B, a long tail to MiB sizes): first the table's exact law (cdf, quantile,
// mean_size), then 10M draws of sample(rng()).
// Tolerances.  Exact law vs the published figures: the shares are published to the percent, so
// +-0.5 percentage points; the median +-4 B (half an 8-byte alignment step); the mean +-2%.
// Draws vs the exact law: shares per distribution_check.hpp (1% or 5 binomial sigmas); the
// mean within 5 standard errors computed from the table's own variance (sd ~20 KB: the 4 MiB
// tail makes the error of a 10M-draw mean ~6 B, not a fraction of a byte).
#include "workloads/fleet_size_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "distribution_check.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

double table_total() {
  double total = 0;
  for (const ValueRange& r : fleet_size_table()) total += r.weight;
  return total;
}

// sd of one draw from the table (rows uniform inside, as drawn).
double table_sd(double mean) {
  double m2 = 0;
  for (const ValueRange& r : fleet_size_table()) {
    const double mid = (double(r.min) + double(r.max)) / 2, count = double(r.max - r.min + 1);
    m2 += r.weight * (mid * mid + (count * count - 1) / 12);
  }
  return std::sqrt(m2 / table_total() - mean * mean);
}

TEST(FleetSizeSampler, TableIsSortedDisjointAndNormalised) {
  const auto& rows = fleet_size_table();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().min, 1u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_LE(rows[i].min, rows[i].max) << i;
    EXPECT_GT(rows[i].weight, 0) << i;
    if (i > 0) {
      EXPECT_EQ(rows[i].min, rows[i - 1].max + 1) << i;  // contiguous: every size 1..max has a row
    }
  }
  EXPECT_NEAR(table_total(), 1.0, 1e-9);
}

TEST(FleetSizeSampler, ExactLawMatchesThePublishedFigures) {
  const FleetSizeSampler& s = FleetSizeSampler::instance();
  EXPECT_NEAR(s.cdf(64), 0.67, 0.005);
  EXPECT_NEAR(s.cdf(256), 0.92, 0.005);
  EXPECT_NEAR(s.cdf(KiB), 0.98, 0.005);
  EXPECT_NEAR(double(s.quantile(0.5)), 48, 4);
  EXPECT_NEAR(s.mean_size(), 440, 0.02 * 440);
  // The long tail: sizes reach the MiB range, and some mass lies there.
  EXPECT_GE(s.max_size(), 1 * MiB);
  EXPECT_LE(s.max_size(), 64 * MiB);
  EXPECT_LT(s.cdf(MiB), 1.0);
  EXPECT_EQ(s.cdf(s.max_size()), 1.0);
  EXPECT_EQ(s.cdf(0), 0.0);
  // quantile() is cdf's inverse: the smallest size whose cdf reaches p.
  for (double p : {0.01, 0.16, 0.3, 0.5, 0.67, 0.9, 0.92, 0.98, 0.999, 0.99999, 1.0}) {
    const std::uint64_t q = s.quantile(p);
    EXPECT_GE(s.cdf(q), p - 1e-12) << p;
    if (q > 1) {
      EXPECT_LT(s.cdf(q - 1), p) << p;
    }
  }
}

TEST(FleetSizeSampler, TenMillionDrawsFollowTheTable) {
  const FleetSizeSampler& s = FleetSizeSampler::instance();
  const auto& rows = fleet_size_table();
  WorkloadRng rng(2024);
  const std::uint64_t n = 10'000'000;
  std::vector<double> row_count(rows.size()), row_sum(rows.size());
  double at_most_47 = 0, at_most_48 = 0, at_most_49 = 0, at_most_64 = 0, at_most_256 = 0, at_most_1k = 0, sum = 0;
  std::uint64_t out_of_range = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::size_t size = s.sample(rng());
    out_of_range += size < 1 || size > s.max_size();
    std::size_t r = 0;
    while (r + 1 < rows.size() && size > rows[r].max) ++r;
    row_count[r] += 1;
    row_sum[r] += double(size);
    sum += double(size);
    at_most_47 += size <= 47;
    at_most_48 += size <= 48;
    at_most_49 += size <= 49;
    at_most_64 += size <= 64;
    at_most_256 += size <= 256;
    at_most_1k += size <= KiB;
  }
  const double draws = double(n);
  EXPECT_EQ(out_of_range, 0u);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double share = rows[r].weight / table_total();
    EXPECT_NEAR(row_count[r] / draws, share, test::share_tolerance(share, draws)) << "row " << r;
    // Uniform inside the row: its mean within 5 standard errors of the midpoint.
    const double span = double(rows[r].max - rows[r].min + 1);
    const double row_sd = std::sqrt((span * span - 1) / 12);
    EXPECT_NEAR(row_sum[r] / row_count[r], (double(rows[r].min) + double(rows[r].max)) / 2, 5 * row_sd / std::sqrt(row_count[r]) + 1e-9)
        << "row " << r;
  }
  for (auto [bytes, count] : {std::pair{64u, at_most_64}, {256u, at_most_256}, {unsigned(KiB), at_most_1k}}) {
    const double share = s.cdf(bytes);
    EXPECT_NEAR(count / draws, share, test::share_tolerance(share, draws)) << "<= " << bytes;
  }
  // The empirical median: the table puts exactly 50% at <= 48 B, so it is 48 or 49.
  EXPECT_LT(at_most_47 / draws, 0.5);
  EXPECT_GE(at_most_49 / draws, 0.5);
  EXPECT_NEAR(at_most_48 / draws, s.cdf(48), test::share_tolerance(s.cdf(48), draws));
  const double mean = s.mean_size();
  EXPECT_NEAR(sum / draws, mean, 5 * table_sd(mean) / std::sqrt(draws));
}

}  // namespace
}  // namespace allocstress
