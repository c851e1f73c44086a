// Spearman's rank correlation of two equally long series, the one rule for every caller: the
// fit comparison and the counts-versus-timing check (results/), and the fidelity study through
// _core (analysis/core_statistics.cpp: spearman_rows).  The rule: the Pearson correlation of the
// two series' average ranks (ties share their mean rank), computed as 1 - 6 sum d^2 / (n (n^2 - 1))
// where neither series has ties (the same number, exact: 1 for the same order, -1 for the
// reversed one), clamped to [-1, 1].  Undefined (NaN) for fewer than 2 values, series of different
// lengths, or a series whose values are all equal (no ranking).  How many values a caller needs
// before it reads rho (the fit comparison: 3 allocators) is the caller's rule, not this one's.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace allocstress {

// Average ranks (1 = smallest; ties share the mean rank).
inline std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = double(i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

inline double spearman_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size();
  if (n != b.size() || n < 2) return NAN;
  const std::vector<double> ra = average_ranks(a), rb = average_ranks(b);
  auto tied = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) != v.end();
  };
  double rho;
  if (!tied(a) && !tied(b)) {
    double d2 = 0;
    for (std::size_t i = 0; i < n; ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
    rho = 1 - 6 * d2 / (double(n) * (double(n) * double(n) - 1));
  } else {
    const double mean = (double(n) + 1) / 2;
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sab += (ra[i] - mean) * (rb[i] - mean);
      saa += (ra[i] - mean) * (ra[i] - mean);
      sbb += (rb[i] - mean) * (rb[i] - mean);
    }
    if (saa == 0 || sbb == 0) return NAN;
    rho = sab / std::sqrt(saa * sbb);
  }
  return std::clamp(rho, -1.0, 1.0);
}

}  // namespace allocstress
