// The estimates a fit is made of (trace_fit.hpp states them): the histogram of observed values,
// the Kaplan-Meier lifetime estimate with censoring, the range table a law is drawn from and the
// KS distance of a table from its histogram.  Pure functions; the trace walk is trace_fit.cpp's.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "workloads/lifetimes/trace_fit.hpp"

namespace allocstress {

ValueHistogram histogram_of(std::vector<std::uint64_t>& values) {
  std::sort(values.begin(), values.end());
  ValueHistogram h;
  for (std::uint64_t v : values) {
    if (!h.empty() && h.back().first == v) ++h.back().second;
    else h.emplace_back(v, 1);
  }
  return h;
}

LifetimeEstimate kaplan_meier(const ValueHistogram& observed, std::vector<std::uint64_t> censored_bounds) {
  // At lifetime t the blocks at risk are those observed to live >= t and those censored with a
  // bound c > t (bound c says L >= c, i.e. it outlived c - 1: standard right-censoring at c - 1).
  std::sort(censored_bounds.begin(), censored_bounds.end());
  double observed_at_or_after = 0;
  for (const auto& [t, n] : observed) observed_at_or_after += n;
  std::size_t censored_at_most = 0;  // censored_bounds[0, censored_at_most) are <= t
  LifetimeEstimate e;
  double survival = 1;
  for (const auto& [t, n] : observed) {
    while (censored_at_most < censored_bounds.size() && censored_bounds[censored_at_most] <= t) ++censored_at_most;
    const double at_risk = observed_at_or_after + double(censored_bounds.size() - censored_at_most);
    const double mass = survival * n / at_risk;
    e.mass.emplace_back(t, mass);
    survival -= mass;
    observed_at_or_after -= n;
  }
  e.tail = survival;
  return e;
}

std::vector<ValueRange> range_table(const ValueHistogram& h, double max_range_share) {
  std::vector<double> prefix(h.size() + 1, 0);  // prefix[i] = Σ weights of h[0..i)
  for (std::size_t i = 0; i < h.size(); ++i) prefix[i + 1] = prefix[i] + h[i].second;
  const double total = prefix.back();
  const double limit = max_range_share * total;
  std::vector<ValueRange> rows;
  // Emits h[begin, end) as one row, or splits it at the midpoint of its value range.
  std::function<void(std::size_t, std::size_t)> split = [&](std::size_t begin, std::size_t end) {
    const double weight = prefix[end] - prefix[begin];
    const std::uint64_t lo = h[begin].first, hi = h[end - 1].first;
    if (end - begin == 1 || weight <= limit) {
      rows.push_back({lo, hi, weight / total});
      return;
    }
    const std::uint64_t mid = lo + (hi - lo) / 2;  // lo <= mid < hi: both halves non-empty
    const auto m = std::size_t(std::upper_bound(h.begin() + std::ptrdiff_t(begin), h.begin() + std::ptrdiff_t(end), mid,
                                                [](std::uint64_t v, const auto& e) { return v < e.first; }) -
                               h.begin());
    split(begin, m);
    split(m, end);
  };
  for (std::size_t begin = 0; begin < h.size();) {  // one log2 octave at a time
    const auto octave = std::bit_width(h[begin].first);
    std::size_t end = begin;
    while (end < h.size() && std::bit_width(h[end].first) == octave) ++end;
    split(begin, end);
    begin = end;
  }
  return rows;
}

double ks_distance(const ValueHistogram& h, const std::vector<ValueRange>& table) {
  double total_count = 0, total_weight = 0;
  for (const auto& [value, count] : h) total_count += count;
  for (const ValueRange& r : table) total_weight += r.weight;
  // The model's CDF at increasing x: rows wholly <= x, plus the covered part of the row holding x.
  std::size_t row = 0;
  double below = 0;
  auto model_cdf = [&](std::uint64_t x) {
    while (row < table.size() && table[row].max <= x) below += table[row++].weight;
    double partial = 0;
    if (row < table.size() && table[row].min <= x)
      partial = table[row].weight * double(x - table[row].min + 1) / (double(table[row].max - table[row].min) + 1);
    return (below + partial) / total_weight;
  };
  // Both CDFs are steps on the integers; between two observed values the empirical one is flat
  // and the model's rises, so the largest gap is at an observed value v or at v - 1.
  double cumulative = 0, distance = 0;
  for (const auto& [value, count] : h) {
    distance = std::max(distance, std::abs(model_cdf(value - 1) - cumulative / total_count));
    cumulative += count;
    distance = std::max(distance, std::abs(model_cdf(value) - cumulative / total_count));
  }
  return distance;
}

}  // namespace allocstress
