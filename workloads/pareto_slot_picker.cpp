// Builds the ParetoSlotPicker tables; the per-pick code is inline in the header.
#include "pareto_slot_picker.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace allocstress {

namespace {
constexpr double kTwo32 = 4294967296.0;
}

ParetoSlotPicker::ParetoSlotPicker(std::size_t slot_count) : slot_count_(slot_count) {
  if (slot_count < kMinSlots)
    throw std::invalid_argument("slots per thread must be at least " + std::to_string(kMinSlots) +
                                ", got " + std::to_string(slot_count));
  // Group sizes: share * slot_count, at least 1; the coldest (largest) group absorbs rounding.
  std::size_t assigned = 0;
  for (int g = 0; g < kGroups - 1; ++g) {
    const double share = kGroupOpShare[kGroups - 1 - g];
    count_[g] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(share * double(slot_count))));
    assigned += count_[g];
  }
  count_[kGroups - 1] = slot_count - assigned;
  std::size_t begin = 0;
  for (int g = 0; g < kGroups; ++g) {
    base_[g] = begin;
    begin += count_[g];
  }
  double cumulative = 0.0;
  for (int g = 0; g < kGroups - 1; ++g) {
    cumulative += kGroupOpShare[g];
    threshold_[g] = static_cast<std::uint32_t>(std::llround(cumulative * kTwo32));
  }
}

double ParetoSlotPicker::group_probability(int g) const {
  const double lo = g == 0 ? 0.0 : double(threshold_[g - 1]);
  const double hi = g == kGroups - 1 ? kTwo32 : double(threshold_[g]);
  return (hi - lo) / kTwo32;
}

}  // namespace allocstress
