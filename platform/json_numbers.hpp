// Counts read from JSON a person may have edited (a plan file, a cell file, a journal's plan):
// a whole number is an integer written without a fraction or an exponent, within a range.  A
// negative number, a fraction (2.5, 1e3) or a string is refused as what it is ("got -3"), never
// converted (nlohmann's get<unsigned>() turns -3 into 4294967293 and 2.5 into 2).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace allocstress {

// The count `value` holds.  Throws std::invalid_argument
//   "\"NAME\" must be a whole number ≥ MIN, got VALUE"            (VALUE as JSON: -3, 2.5, "x")
//   "\"NAME\" must be a whole number from MIN to MAX, got VALUE"  (a whole number above MAX)
std::uint64_t json_whole_number(const nlohmann::json& value, std::string_view name, std::uint64_t min = 0,
                                std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// The same for a count that must fit `unsigned`.
unsigned json_small_whole_number(const nlohmann::json& value, std::string_view name, unsigned min = 0);

}  // namespace allocstress
