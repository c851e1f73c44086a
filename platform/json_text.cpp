// JSON text helpers (see json_text.hpp).
#include "platform/json_text.hpp"

#include <fstream>
#include <stdexcept>

namespace allocstress {

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json last_json_line(const std::string& out) {
  const auto start = out.rfind("\n{");
  return nlohmann::json::parse(start == std::string::npos ? out : out.substr(start + 1), nullptr, false);
}

nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string(what) + " " + path.string() + " cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {  // parse_error, or out_of_range for a number beyond double (found by fuzzing)
    throw std::runtime_error(std::string(what) + " " + path.string() + " is not JSON");
  }
}

}  // namespace allocstress
