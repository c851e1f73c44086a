// The one rule and message for a workload parameter outside its range.  Contract: require_in_range
// throws std::invalid_argument "NAME out of range: V (accepted: LO..HI NOTE)" unless LO <= V <= HI
// (NOTE is appended as given: "", " blocks", ", 4 KiB..1 TiB").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace allocstress {

inline void require_in_range(std::string_view name, std::uint64_t value, std::uint64_t lo, std::uint64_t hi,
                             std::string_view note = "") {
  if (value < lo || value > hi)
    throw std::invalid_argument(std::string(name) + " out of range: " + std::to_string(value) + " (accepted: " + std::to_string(lo) +
                                ".." + std::to_string(hi) + std::string(note) + ")");
}

}  // namespace allocstress
