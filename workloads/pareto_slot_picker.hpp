// Slot choice of the alloc-test model (BACKGROUND §1): the Pareto 80/20 rule applied six times.
// Group g (0..6) receives operations with probability C(6,g) 0.8^(6-g) 0.2^g and holds a share of
// the slots equal to the same numbers in reverse order: group 0 = 0.0064% of slots, 26% of ops.
// Within a group the slot is uniform.  One 64-bit draw per pick, no data-dependent branches:
// the high 32 bits choose the group by six compares, the low 32 bits the slot by multiply-shift.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace allocstress {

class ParetoSlotPicker {
 public:
  static constexpr int kGroups = 7;
  // Operation share of group g; slot share of group g is kGroupOpShare[6 - g].
  static constexpr std::array<double, kGroups> kGroupOpShare = {
      0.262144, 0.393216, 0.24576, 0.08192, 0.01536, 0.001536, 0.000064};

  // pre: slot_count >= kMinSlots.  Group sizes are the model's shares rounded to whole slots with
  // at least one slot per group; groups are laid out hottest first from slot 0.
  explicit ParetoSlotPicker(std::size_t slot_count);

  static constexpr std::size_t kMinSlots = 64;

  std::size_t pick(std::uint64_t random_bits) const {
    const auto hi = static_cast<std::uint32_t>(random_bits >> 32);
    const auto lo = static_cast<std::uint32_t>(random_bits);
    unsigned g = 0;
    for (int i = 0; i < kGroups - 1; ++i) g += (hi >= threshold_[i]) ? 1u : 0u;  // setcc, no branch
    return base_[g] + static_cast<std::size_t>((std::uint64_t{lo} * count_[g]) >> 32);
  }

  std::size_t slot_count() const { return slot_count_; }
  std::size_t group_begin(int g) const { return base_[g]; }
  std::size_t group_size(int g) const { return count_[g]; }
  // The probability that pick() lands in group g, as realised by the 32-bit thresholds.
  double group_probability(int g) const;

 private:
  std::size_t slot_count_;
  std::array<std::uint32_t, kGroups - 1> threshold_{};  // cumulative op share, scaled to 2^32
  std::array<std::size_t, kGroups> base_{};
  std::array<std::uint64_t, kGroups> count_{};
};

}  // namespace allocstress
