// Placement metrics on constructed node layouts with known answers.
#include "cells/placement/placement_metrics.hpp"

#include <gtest/gtest.h>

namespace allocstress {
namespace {

const CacheGeometry kL1{32768, 64, 8, "test"};  // 64 sets

TEST(PlacementMetrics, PackedNodesUseEveryLineAndSetEvenly) {
  std::vector<NodeExtent> nodes;
  for (std::uintptr_t i = 0; i < 128; ++i) nodes.push_back({0x100000 + i * 64, 64});  // two pages, back to back
  const auto m = placement_metrics(nodes, kL1, 4096);
  EXPECT_EQ(m["lines_touched"], 128);
  EXPECT_EQ(m["pages_touched"], 2);
  EXPECT_DOUBLE_EQ(m["cache_line_utilisation"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m["page_utilisation"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m["set_histogram_max_over_mean"].get<double>(), 1.0);
  EXPECT_EQ(m["set_histogram"][5], 2);
}

TEST(PlacementMetrics, HeadersAndStridesShowAsWaste) {
  std::vector<NodeExtent> nodes;
  for (std::uintptr_t i = 0; i < 64; ++i) nodes.push_back({0x200000 + i * 4096 + 16, 48});  // one node per page, set 0
  const auto m = placement_metrics(nodes, kL1, 4096);
  EXPECT_EQ(m["lines_touched"], 64);
  EXPECT_DOUBLE_EQ(m["cache_line_utilisation"].get<double>(), 48.0 / 64.0);
  EXPECT_DOUBLE_EQ(m["page_utilisation"].get<double>(), 48.0 / 4096.0);
  EXPECT_EQ(m["set_histogram"][0], 64);
  EXPECT_DOUBLE_EQ(m["set_histogram_max_over_mean"].get<double>(), 64.0);  // all on one set of 64
}

TEST(PlacementMetrics, NodesSharingALineCountItOnce) {
  const auto m = placement_metrics({{0x300000, 32}, {0x300020, 32}, {0x300040, 8}}, kL1, 4096);
  EXPECT_EQ(m["lines_touched"], 2);
  EXPECT_DOUBLE_EQ(m["cache_line_utilisation"].get<double>(), 72.0 / 128.0);
}

TEST(PlacementMetrics, NoNodesGivesNullRatios) {
  const auto m = placement_metrics({}, kL1, 4096);
  EXPECT_TRUE(m["cache_line_utilisation"].is_null());
  EXPECT_TRUE(m["set_histogram_max_over_mean"].is_null());
}

}  // namespace
}  // namespace allocstress
