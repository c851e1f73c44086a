// ParetoSlotPicker: group sizes, group frequencies and in-group uniformity against the model.
#include "workloads/pareto_slot_picker.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "distribution_check.hpp"
#include "workloads/workload_rng.hpp"

namespace allocstress {
namespace {

constexpr double kModelOpShare[7] = {0.262144, 0.393216, 0.24576, 0.08192, 0.01536, 0.001536, 0.000064};

TEST(ParetoSlotPicker, ModelSharesSumToOne) {
  double sum = 0;
  for (double p : kModelOpShare) sum += p;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(ParetoSlotPicker, GroupSizesFollowReversedSharesAndCoverAllSlots) {
  const std::size_t n = 1u << 20;
  ParetoSlotPicker picker(n);
  std::size_t covered = 0;
  for (int g = 0; g < 7; ++g) {
    EXPECT_EQ(picker.group_begin(g), covered);
    EXPECT_NEAR(double(picker.group_size(g)) / double(n), kModelOpShare[6 - g], 2.0 / double(n)) << "group " << g;
    covered += picker.group_size(g);
  }
  EXPECT_EQ(covered, n);
}

TEST(ParetoSlotPicker, TinyArraysKeepOneSlotPerGroup) {
  ParetoSlotPicker picker(ParetoSlotPicker::kMinSlots);
  for (int g = 0; g < 7; ++g) EXPECT_GE(picker.group_size(g), 1u);
  EXPECT_THROW(ParetoSlotPicker(ParetoSlotPicker::kMinSlots - 1), std::invalid_argument);
}

TEST(ParetoSlotPicker, ThresholdProbabilitiesMatchModel) {
  ParetoSlotPicker picker(1u << 16);
  for (int g = 0; g < 7; ++g) EXPECT_NEAR(picker.group_probability(g), kModelOpShare[g], 1e-9) << "group " << g;
}

TEST(ParetoSlotPicker, GroupFrequenciesWithinOnePercentOverTenMillionDraws) {
  const std::size_t n = 1u << 20;
  ParetoSlotPicker picker(n);
  WorkloadRng rng(12345);
  const int draws = 10'000'000;
  std::vector<double> hits(7, 0.0);
  for (int i = 0; i < draws; ++i) {
    const std::size_t s = picker.pick(rng());
    ASSERT_LT(s, n);
    int g = 6;
    while (s < picker.group_begin(g)) --g;
    hits[g] += 1;
  }
  for (int g = 0; g < 7; ++g) {
    const double share = hits[g] / draws;
    EXPECT_NEAR(share, kModelOpShare[g], test::share_tolerance(kModelOpShare[g], draws)) << "group " << g;
  }
}

TEST(ParetoSlotPicker, SlotsAreUniformWithinTheHottestGroup) {
  ParetoSlotPicker picker(1u << 20);
  const std::size_t size = picker.group_size(0);  // 67 slots
  WorkloadRng rng(7);
  std::vector<double> hits(size, 0.0);
  const int draws = 4'000'000;
  for (int i = 0; i < draws; ++i) {
    const std::size_t s = picker.pick(rng());
    if (s < size) hits[s] += 1;
  }
  double total = 0;
  for (double h : hits) total += h;
  for (std::size_t s = 0; s < size; ++s)
    EXPECT_NEAR(hits[s] / total, 1.0 / double(size), test::share_tolerance(1.0 / double(size), total)) << "slot " << s;
}

}  // namespace
}  // namespace allocstress
