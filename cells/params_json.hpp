// Reading a workload's parameters (the JSON a cell carries) into the models' typed structs, one
// field at a time: a missing field or one of the wrong type is a std::invalid_argument naming the
// field and what it should be (a cell file written by hand gets the same one-line errors as a
// command line).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace allocstress {

std::uint64_t count_field(const nlohmann::json& params, std::string_view key);   // a whole number >= 0
double number_field(const nlohmann::json& params, std::string_view key);         // a number
std::string word_field(const nlohmann::json& params, std::string_view key);      // a string
bool flag_field(const nlohmann::json& params, std::string_view key);             // true or false
// A count that must fit `unsigned`.
unsigned small_count_field(const nlohmann::json& params, std::string_view key);

}  // namespace allocstress
