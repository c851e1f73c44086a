// Set histogram and line/page utilisation of live nodes (see placement_metrics.hpp).
#include "cells/placement/placement_metrics.hpp"

#include <algorithm>

namespace allocstress {

namespace {

// Distinct `unit`-sized blocks touched by the extents (sorted by start).
std::uint64_t distinct_units(const std::vector<NodeExtent>& nodes, std::size_t unit) {
  std::uint64_t count = 0;
  std::uintptr_t next_free = 0;  // first unit index not yet counted
  bool any = false;
  for (const auto& n : nodes) {
    std::uintptr_t first = n.start / unit;
    const std::uintptr_t last = (n.start + n.bytes - 1) / unit;
    if (any && first < next_free) first = next_free;
    if (first <= last) count += last - first + 1;
    next_free = std::max(next_free, last + 1);
    any = true;
  }
  return count;
}

}  // namespace

nlohmann::json placement_metrics(std::vector<NodeExtent> nodes, const CacheGeometry& l1, std::size_t page_bytes) {
  std::sort(nodes.begin(), nodes.end(), [](const NodeExtent& a, const NodeExtent& b) { return a.start < b.start; });
  std::vector<std::uint64_t> histogram(l1.sets(), 0);
  std::uint64_t requested = 0;
  for (const auto& n : nodes) {
    ++histogram[n.start / l1.line % l1.sets()];
    requested += n.bytes;
  }
  const std::uint64_t lines = distinct_units(nodes, l1.line), pages = distinct_units(nodes, page_bytes);
  const double mean = nodes.empty() ? 0.0 : double(nodes.size()) / double(histogram.size());
  const std::uint64_t max = nodes.empty() ? 0 : *std::max_element(histogram.begin(), histogram.end());
  auto ratio = [](double num, double den) { return den > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr); };
  return {{"nodes", nodes.size()},
          {"requested_bytes", requested},
          {"l1", {{"size", l1.size}, {"line", l1.line}, {"associativity", l1.associativity}, {"sets", l1.sets()}, {"source", l1.source}}},
          {"set_histogram", histogram},
          {"set_histogram_max_over_mean", ratio(double(max), mean)},
          {"lines_touched", lines},
          {"cache_line_utilisation", ratio(double(requested), double(lines * l1.line))},
          {"page_bytes", page_bytes},
          {"pages_touched", pages},
          {"page_utilisation", ratio(double(requested), double(pages * page_bytes))}};
}

}  // namespace allocstress
