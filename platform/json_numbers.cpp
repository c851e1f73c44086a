// Counts read from JSON (see json_numbers.hpp).
#include "platform/json_numbers.hpp"

#include <stdexcept>

namespace allocstress {

std::uint64_t json_whole_number(const nlohmann::json& value, std::string_view name, std::uint64_t min, std::uint64_t max) {
  const bool whole = value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
  const std::uint64_t n = whole ? value.get<std::uint64_t>() : 0;
  if (whole && n >= min && n <= max) return n;
  const std::string range = whole && n > max ? "from " + std::to_string(min) + " to " + std::to_string(max) : "≥ " + std::to_string(min);
  throw std::invalid_argument("\"" + std::string(name) + "\" must be a whole number " + range + ", got " + value.dump());
}

unsigned json_small_whole_number(const nlohmann::json& value, std::string_view name, unsigned min) {
  return unsigned(json_whole_number(value, name, min, std::numeric_limits<unsigned>::max()));
}

}  // namespace allocstress
