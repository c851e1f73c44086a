// The fleet size table and its sampler (see fleet_size_sampler.hpp).
#include "fleet_size_sampler.hpp"

#include <algorithm>
#include <cmath>

#include "alias_table.hpp"

namespace allocstress {

const std::vector<ValueRange>& fleet_size_table() {
  // Weights are probabilities (they sum to 1).  Cumulative: 50% <= 48 B, 67% <= 64 B,
  // 92% <= 256 B, 98% <= 1 KiB; mean 440 B, of which the 2% above 1 KiB carry ~350 B.
  static const std::vector<ValueRange> rows = {
      {1, 16, 0.16},          {17, 32, 0.20},         {33, 48, 0.14},           {49, 64, 0.17},
      {65, 128, 0.14},        {129, 256, 0.11},       {257, 512, 0.035},        {513, 1024, 0.025},
      {1025, 4096, 0.014988}, {4097, 32768, 0.0043},  {32769, 262144, 0.00065}, {262145, 4194304, 0.000062},
  };
  return rows;
}

FleetSizeSampler::FleetSizeSampler(const std::vector<ValueRange>& rows) : table_(rows) {
  std::vector<double> weights;
  for (const ValueRange& r : rows) {
    weights.push_back(r.weight);
    rows_.push_back({r.min, r.max - r.min});
    if (r.weight > 0) max_size_ = std::max(max_size_, std::size_t(r.max));
  }
  columns_ = build_alias_columns(weights);
}

const FleetSizeSampler& FleetSizeSampler::instance() {
  static const FleetSizeSampler sampler;
  return sampler;
}

namespace {
double total_weight(const std::vector<ValueRange>& rows) {
  double total = 0;
  for (const ValueRange& r : rows) total += r.weight;
  return total;
}
}  // namespace

double FleetSizeSampler::mean_size() const {
  double mean = 0;
  for (const ValueRange& r : table_) mean += r.weight * (double(r.min) + double(r.max)) / 2.0;
  return mean / total_weight(table_);
}

double FleetSizeSampler::cdf(std::uint64_t bytes) const {
  double below = 0;
  for (const ValueRange& r : table_) {
    if (bytes >= r.max) below += r.weight;
    else if (bytes >= r.min) below += r.weight * double(bytes - r.min + 1) / double(r.max - r.min + 1);
  }
  return below / total_weight(table_);
}

std::uint64_t FleetSizeSampler::quantile(double p) const {
  // Rows are sorted by size and do not overlap: walk to the row where the cumulative law reaches p.
  const double total = total_weight(table_);
  double below = 0;
  for (const ValueRange& r : table_) {
    const double share = r.weight / total;
    if (below + share >= p && share > 0) {
      const double span = double(r.max - r.min + 1);
      const auto k = std::uint64_t(std::ceil((p - below) / share * span - 1e-9));
      return r.min + std::max<std::uint64_t>(k, 1) - 1;
    }
    below += share;
  }
  return table_.back().max;
}

}  // namespace allocstress
