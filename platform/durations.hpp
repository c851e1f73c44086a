// Durations as people type them on the command line: seconds, or a number with a unit s, m or h
// ("150", "90s", "2.5m", "1h").  Shared by every option that takes one (--timeout, --soak, ...).
#pragma once

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace allocstress {

inline constexpr const char* kDurationAccepted = "seconds, or a number with s, m or h: 150, 90s, 2.5m, 1h";

// The duration in seconds, or nullopt when `text` is not one (negative, not finite, unknown unit).
inline std::optional<double> duration_seconds(std::string_view text) {
  const std::string s(text);
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = s.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (used == 0 || scale < 0 || !(value >= 0) || !std::isfinite(value)) return std::nullopt;
  return value * scale;
}

}  // namespace allocstress
