// JSON text helpers (see json_text.hpp).
#include "platform/json_text.hpp"

namespace allocstress {

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json last_json_line(const std::string& out) {
  const auto start = out.rfind("\n{");
  return nlohmann::json::parse(start == std::string::npos ? out : out.substr(start + 1), nullptr, false);
}

}  // namespace allocstress
