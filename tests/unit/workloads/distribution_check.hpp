// Shared tolerance rule for the distribution tests: an observed share must lie within 1% of the
// model's share, or within 5 standard deviations of binomial sampling noise where 1% of a small
// share is below what the number of draws can resolve.  Draws use fixed seeds: no flakes.
#pragma once

#include <algorithm>
#include <cmath>

namespace allocstress::test {

inline double share_tolerance(double expected_share, double draws) {
  const double noise = std::sqrt(expected_share * (1.0 - expected_share) / draws);
  return std::max(0.01 * expected_share, 5.0 * noise);
}

}  // namespace allocstress::test
