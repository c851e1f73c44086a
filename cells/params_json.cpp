// Typed reads of parameter fields (see params_json.hpp).
#include "cells/params_json.hpp"

#include <stdexcept>

#include "platform/json_numbers.hpp"

namespace allocstress {

namespace {

const nlohmann::json& field(const nlohmann::json& params, std::string_view key) {
  if (!params.is_object()) throw std::invalid_argument("params: not a JSON object (accepted: {\"field\": value, ...})");
  const auto it = params.find(std::string(key));
  if (it == params.end() || it->is_null()) throw std::invalid_argument("params: '" + std::string(key) + "' is missing");
  return *it;
}

[[noreturn]] void wrong(std::string_view key, const nlohmann::json& v, const char* accepted) {
  throw std::invalid_argument("params: '" + std::string(key) + "' is " + v.dump() + " (accepted: " + accepted + ")");
}

// A whole number read by platform/json_numbers.hpp's `read`, its message prefixed with "params: ".
template <class Read>
auto whole_field(const nlohmann::json& params, std::string_view key, Read read) {
  const nlohmann::json& v = field(params, key);
  try {
    return read(v, key);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("params: ") + e.what());
  }
}

}  // namespace

// A count: "params: \"key\" must be a whole number ≥ 0, got -3" (platform/json_numbers.hpp).
std::uint64_t count_field(const nlohmann::json& params, std::string_view key) {
  return whole_field(params, key, [](const nlohmann::json& v, std::string_view k) { return json_whole_number(v, k); });
}

unsigned small_count_field(const nlohmann::json& params, std::string_view key) {
  return whole_field(params, key, [](const nlohmann::json& v, std::string_view k) { return json_small_whole_number(v, k); });
}

double number_field(const nlohmann::json& params, std::string_view key) {
  const nlohmann::json& v = field(params, key);
  if (!v.is_number()) wrong(key, v, "a number");
  return v.get<double>();
}

std::string word_field(const nlohmann::json& params, std::string_view key) {
  const nlohmann::json& v = field(params, key);
  if (!v.is_string()) wrong(key, v, "a string");
  return v.get<std::string>();
}

bool flag_field(const nlohmann::json& params, std::string_view key) {
  const nlohmann::json& v = field(params, key);
  if (!v.is_boolean()) wrong(key, v, "true or false");
  return v.get<bool>();
}

}  // namespace allocstress
