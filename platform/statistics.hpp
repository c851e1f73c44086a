// Small pure statistics used to summarise repetitions: median, min, max, coefficient of variation,
// a distribution-free interval of the median, and one for the median of another sample.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace allocstress {

struct Summary {
  double median = 0, min = 0, max = 0;
  double cv = 0;  // sample standard deviation / |mean|; 0 for one value; NaN (undefined) when the mean is 0
  std::size_t count = 0;
};

// pre: !values.empty()
inline Summary summarise(std::vector<double> values) {
  Summary s;
  s.count = values.size();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  s.min = values.front();
  s.max = values.back();
  s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  if (n >= 2) {
    double mean = 0;
    for (double v : values) mean += v;
    mean /= double(n);
    double ss = 0;
    for (double v : values) ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / double(n - 1));
    s.cv = mean != 0 ? sd / std::fabs(mean) : std::nan("");
  }
  return s;
}

struct MedianInterval {
  double low = NAN, high = NAN;
  double level = NAN;  // the interval's real coverage, not a nominal one
};

// A distribution-free interval for the median of what `values` sample: the order statistics
// x(k) and x(n+1-k) with the largest k whose coverage 1 - 2 P(Bin(n, 1/2) < k) still reaches
// `level`; when none does (n <= 5 at 95%), [min, max] with its own lower coverage 1 - 2^(1-n).
// NaN for fewer than two values.  (The same rule as analysis/allocstress/statistics.py median_ci.)
inline MedianInterval median_interval(std::vector<double> values, double level = 0.95) {
  const std::size_t n = values.size();
  if (n < 2) return {};
  std::sort(values.begin(), values.end());
  // cdf[j] = P(Bin(n, 1/2) <= j), from the pmf computed in logs (n can be large).
  auto pmf = [n](std::size_t j) {
    return std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(j) + 1) - std::lgamma(double(n - j) + 1) - double(n) * std::log(2.0));
  };
  std::size_t best_k = 1;
  double below = pmf(0);  // P(Bin < best_k)
  double best_cover = 1 - 2 * below;
  for (std::size_t k = 2; k <= n / 2; ++k) {
    below += pmf(k - 1);
    const double cover = 1 - 2 * below;
    if (cover < level) break;
    best_k = k;
    best_cover = cover;
  }
  return {values[best_k - 1], values[n - best_k], best_cover};
}

// A distribution-free prediction interval for the median Y of another n values from the same
// distribution (results/reproduction.hpp uses it).  The number J of `values` below Y (the k-th
// smallest of the other n, k = (n + 1) / 2) has P(J = j) = C(j + k - 1, j) C(2n - j - k, n - j) /
// C(2n, n) whatever the distribution, so [x(r), x(n + 1 - r)] holds Y with probability
// P(r <= J <= n - r).  Returns the narrowest such interval whose probability reaches `level`
// (`level` holds that probability), or NaN bounds when none does (n < 8 at 95%).
inline MedianInterval median_prediction_interval(std::vector<double> values, double level = 0.95) {
  const std::size_t n = values.size();
  if (n < 2) return {};
  std::sort(values.begin(), values.end());
  auto log_choose = [](double a, double b) { return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1); };
  const double k = double((n + 1) / 2), m = double(n);
  std::vector<double> p(n + 1);
  for (std::size_t j = 0; j <= n; ++j)
    p[j] = std::exp(log_choose(double(j) + k - 1, double(j)) + log_choose(m - double(j) + m - k, m - double(j)) - log_choose(2 * m, m));
  MedianInterval best;
  for (std::size_t r = 1; r <= n / 2; ++r) {  // [x(r), x(n + 1 - r)], narrower as r grows
    double coverage = 0;
    for (std::size_t j = r; j <= n - r; ++j) coverage += p[j];
    if (coverage < level) break;
    best = {values[r - 1], values[n - r], coverage};
  }
  return best;
}

}  // namespace allocstress
