// Two-level variance components of the alloc-test segments (see variance_components.hpp).
#include "results/variance_components.hpp"

#include <algorithm>
#include <cmath>

#include "platform/statistics.hpp"

namespace allocstress {

nlohmann::json variance_components(const std::vector<const nlohmann::json*>& records) {
  std::vector<std::vector<double>> y;  // per process, segments 1 .. K-1
  std::vector<double> warmup_ratio;    // per process, segment 0 / mean of the others
  std::size_t k = 0;
  for (const nlohmann::json* r : records) {
    if (!r->contains("segments")) return nullptr;
    const auto all = r->at("segments").at("cycles_per_pair").get<std::vector<double>>();
    if (all.size() < 4) return nullptr;
    y.emplace_back(all.begin() + 1, all.end());
    k = k == 0 ? y.back().size() : std::min(k, y.back().size());
  }
  const std::size_t n = y.size();
  if (n == 0) return nullptr;
  for (auto& row : y) row.resize(k);
  std::vector<double> row_mean(n, 0), col_mean(k, 0);
  double grand = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      row_mean[i] += y[i][j] / double(k);
      col_mean[j] += y[i][j] / double(n);
      grand += y[i][j] / double(n * k);
    }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& all = records[i]->at("segments").at("cycles_per_pair");
    if (row_mean[i] > 0) warmup_ratio.push_back(all.at(0).get<double>() / row_mean[i]);
  }
  double within = 0;
  if (n >= 2) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < k; ++j) {
        const double e = y[i][j] - row_mean[i] - col_mean[j] + grand;
        within += e * e;
      }
    within /= double((n - 1) * (k - 1));
  } else {
    for (std::size_t j = 0; j < k; ++j) within += (y[0][j] - row_mean[0]) * (y[0][j] - row_mean[0]);
    within /= double(k - 1);
  }
  nlohmann::json between = nullptr, between_cv = nullptr, dominant = nullptr;
  if (n >= 2) {
    double var_means = 0;
    for (double m : row_mean) var_means += (m - grand) * (m - grand);
    var_means /= double(n - 1);
    const double b = std::max(0.0, var_means - within / double(k));
    between = b;
    between_cv = grand > 0 ? nlohmann::json(std::sqrt(b) / grand) : nlohmann::json(nullptr);
    dominant = b * double(k) >= within ? "between processes" : "within a process";
  }
  std::vector<double> segment_medians;  // the median over processes of every segment, segment 0 included
  const std::size_t all_k = records.front()->at("segments").at("cycles_per_pair").size();
  for (std::size_t j = 0; j < all_k; ++j) {
    std::vector<double> column;
    for (const nlohmann::json* r : records) {
      const auto& c = r->at("segments").at("cycles_per_pair");
      if (j < c.size()) column.push_back(c.at(j).get<double>());
    }
    segment_medians.push_back(summarise(column).median);
  }
  return {{"processes", n},
          {"segments_used", k},
          {"within_variance", within},
          {"between_variance", between},
          {"within_cv", grand > 0 ? nlohmann::json(std::sqrt(within) / grand) : nlohmann::json(nullptr)},
          {"between_cv", between_cv},
          {"dominant", dominant},
          {"warmup_ratio", warmup_ratio.empty() ? nlohmann::json(nullptr) : nlohmann::json(summarise(warmup_ratio).median)},
          {"segment_median_cycles_per_pair", segment_medians},
          {"means", "raw cycles/pair of the segments after the first (the first holds the heap's growth); within = two-way residual "
                    "variance (process and segment levels removed), between = variance of process means - within / segments, floored at 0; "
                    "cv = sqrt(variance) / grand mean; warmup_ratio = median over processes of segment 0 / the mean of the others"}};
}

}  // namespace allocstress
