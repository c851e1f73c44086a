// JSON as text between processes and in files: dumping without throwing on raw bytes, and
// finding the one record a child process printed.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace allocstress {

// JSON text with invalid UTF-8 replaced rather than thrown (paths and stderr are raw bytes).
std::string json_text(const nlohmann::json& j, int indent = -1);

// The JSON object on the last stdout line of a child that starts with '{' (a preloaded library
// may print too); a discarded (non-object) value when there is none or it does not parse.
nlohmann::json last_json_line(const std::string& out);

}  // namespace allocstress
