// Small pure statistics used to summarise repetitions: median, min, max, coefficient of variation,
// a distribution-free interval of the median, and one for the median of another sample; the rules
// read off those intervals (a median's precision and the unstable mark, the interval of a quotient
// of two medians, whether two intervals can be told apart); and the trend of a series over time (a
// soak's drift).  These are the only definitions: the Python package calls them through _core
// (analysis/core_statistics.cpp) and the results tables and the verdict call them here.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
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
// NaN for fewer than two values.  (Python's stats/statistics.py median_ci calls this one.)
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

// A median is unstable when its interval is wider than +-10% of it: this run cannot place it to
// better than that (the tables mark it with a dagger).
inline constexpr double kUnstableRelativeHalfWidth = 0.10;

// The precision of a median's interval: (high - low) / 2 / |median|; NaN when a figure is not
// finite or the median is 0.
inline double relative_half_width(double low, double high, double median) {
  if (!std::isfinite(low) || !std::isfinite(high) || !std::isfinite(median) || median == 0) return NAN;
  return (high - low) / 2 / std::fabs(median);
}

inline bool is_unstable_half_width(double relative) { return relative > kUnstableRelativeHalfWidth; }

// The interval of median(num) / median(den) from the two medians' intervals: [num.low / den.high,
// num.high / den.low].  It holds the quotient whenever both intervals hold their medians, so its
// level is at least num.level + den.level - 1 (Bonferroni), never below 0.  high is +inf where
// den's interval reaches 0 (den.low <= 0); nothing where a quotient of costs means nothing
// (num.low <= 0 or den.high <= 0) or a bound is not finite.
struct QuotientInterval {
  double low = NAN, high = NAN;
  double level_at_least = NAN;
};

inline std::optional<QuotientInterval> quotient_of_intervals(const MedianInterval& num, const MedianInterval& den) {
  if (!std::isfinite(num.low) || !std::isfinite(num.high) || !std::isfinite(den.low) || !std::isfinite(den.high)) return std::nullopt;
  if (num.low <= 0 || den.high <= 0) return std::nullopt;
  return QuotientInterval{num.low / den.high, den.low > 0 ? num.high / den.low : std::numeric_limits<double>::infinity(),
                          std::max(0.0, num.level + den.level - 1)};
}

// Where interval `mine` lies against `ref`: wholly below, wholly above, or overlapping (the two
// medians cannot be told apart: "indistinguishable"); nothing when a bound is NaN (no interval).
enum class IntervalOrder { below, above, overlap };

inline std::optional<IntervalOrder> interval_order(double mine_low, double mine_high, double ref_low, double ref_high) {
  if (std::isnan(mine_low) || std::isnan(mine_high) || std::isnan(ref_low) || std::isnan(ref_high)) return std::nullopt;
  if (mine_high < ref_low) return IntervalOrder::below;
  if (mine_low > ref_high) return IntervalOrder::above;
  return IntervalOrder::overlap;
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

// The trend of y over x (x distinct): the Theil-Sen slope, the median of the n(n-1)/2 pairwise
// slopes (y_j - y_i) / (x_j - x_i), robust to outliers (up to 29% of the points), and a
// distribution-free interval for it (Sen 1968): with the pairwise slopes sorted d(1) <= ... <= d(N),
// [d(k), d(N + 1 - k)] covers the true slope with probability 1 - 2 P(I < k), where I is the number
// of discordant pairs of n exchangeable points (Kendall's statistic; its exact law counts the
// permutations of n by inversions).  k is the largest whose coverage reaches `level`, as in
// median_interval.  The law is exact up to n = 200 points and normal beyond (mean N/2, variance
// n(n-1)(2n+5)/72).  The points are assumed independent around the line: a series whose noise is
// correlated over time (bins of one process) gets an interval that is too narrow by the
// correlation's effect.  NaN slope for fewer than two points; NaN bounds when no k reaches
// `level` (n <= 4 at 95%).
struct TrendSlope {
  double slope = NAN;
  MedianInterval interval;  // bounds of the slope; level = the real coverage
  std::size_t points = 0;
};

inline TrendSlope theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y, double level = 0.95) {
  TrendSlope t;
  const std::size_t n = std::min(x.size(), y.size());
  t.points = n;
  if (n < 2) return t;
  std::vector<double> d;
  d.reserve(n * (n - 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (x[j] != x[i]) d.push_back((y[j] - y[i]) / (x[j] - x[i]));
  if (d.empty()) return t;
  std::sort(d.begin(), d.end());
  const std::size_t m = d.size();
  t.slope = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2.0;
  // below[r] = P(I <= r) = P(I < r + 1), for r up to N/2.
  const std::size_t pairs = n * (n - 1) / 2;
  std::vector<double> below;
  if (n <= 200) {
    std::vector<double> law{1.0};  // P(I = i) for permutations of 1..k, built up k by k
    for (std::size_t k = 2; k <= n; ++k) {  // adding the k-th element adds 0..k-1 inversions, each with probability 1/k
      std::vector<double> next(law.size() + k - 1, 0.0);
      double window = 0;
      for (std::size_t i = 0; i < next.size(); ++i) {  // next[i] = (law[i-k+1] + ... + law[i]) / k
        if (i < law.size()) window += law[i];
        if (i >= k && i - k < law.size()) window -= law[i - k];
        next[i] = window / double(k);
      }
      law.swap(next);
    }
    double cumulative = 0;
    for (std::size_t r = 0; r <= pairs / 2; ++r) below.push_back(cumulative += law[r]);
  } else {
    const double mean = double(pairs) / 2, sd = std::sqrt(double(n) * double(n - 1) * double(2 * n + 5) / 72.0);
    for (std::size_t r = 0; r <= pairs / 2; ++r) below.push_back(0.5 * std::erfc(-(double(r) + 0.5 - mean) / (sd * std::sqrt(2.0))));
  }
  std::size_t best_k = 0;
  double best_cover = NAN;
  for (std::size_t k = 1; k <= m / 2 && k - 1 < below.size(); ++k) {  // coverage of [d(k), d(m + 1 - k)]
    const double cover = 1 - 2 * below[k - 1];
    if (cover < level) break;
    best_k = k;
    best_cover = cover;
  }
  if (best_k > 0) t.interval = {d[best_k - 1], d[m - best_k], best_cover};
  return t;
}

}  // namespace allocstress
