// The shared record fields: the memory overhead and its validity.
#include "cells/cell_record.hpp"

#include <gtest/gtest.h>

namespace allocstress {
namespace {

PhaseMeasurement grew_by(std::uint64_t bytes) {
  PhaseMeasurement m;
  m.rss_before = 100 << 20;
  m.peak_rss = m.rss_before + bytes;
  return m;
}

AllocatorSpec named(const char* name) {
  AllocatorSpec a;
  a.name = name;
  return a;
}

TEST(MemoryOverhead, RssGrowthOverPeakLiveBytes) {
  const auto o = memory_overhead(grew_by(3 << 20), 2 << 20, named("system"));
  EXPECT_DOUBLE_EQ(o.at("overhead_ratio").get<double>(), 1.5);
  EXPECT_FALSE(o.contains("overhead_ratio_invalid"));
}

// RSS that grew by less than was live is no overhead: null, never ranked, with the quotient and why.
TEST(MemoryOverhead, BelowOneIsInvalid) {
  const auto o = memory_overhead(grew_by(1 << 20), 4 << 20, named("jemalloc"));
  EXPECT_TRUE(o.at("overhead_ratio").is_null());
  EXPECT_DOUBLE_EQ(o.at("overhead_ratio_measured").get<double>(), 0.25);
  EXPECT_NE(o.at("overhead_ratio_invalid").get<std::string>().find("less than the 4.0 MiB live"), std::string::npos) << o.dump();
}

TEST(MemoryOverhead, NoneForTheVoidBaselineOrWithoutLiveBytes) {
  EXPECT_TRUE(memory_overhead(grew_by(0), 4 << 20, named("void")).at("overhead_ratio").is_null());
  EXPECT_FALSE(memory_overhead(grew_by(0), 4 << 20, named("void")).contains("overhead_ratio_invalid"));
  EXPECT_TRUE(memory_overhead(grew_by(1 << 20), 0, named("system")).at("overhead_ratio").is_null());
}

}  // namespace
}  // namespace allocstress
