// JSON as text between processes and in files: dumping without throwing on raw bytes, and
// finding the one record a child process printed.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace allocstress {

// JSON text with invalid UTF-8 replaced rather than thrown (paths and stderr are raw bytes).
std::string json_text(const nlohmann::json& j, int indent = -1);

// The JSON object on the last stdout line of a child that starts with '{' (a preloaded library
// may print too); a discarded (non-object) value when there is none or it does not parse.
nlohmann::json last_json_line(const std::string& out);

// A whole file parsed as JSON; throws std::runtime_error "WHAT PATH cannot be read" or "WHAT PATH
// is not JSON" (a parse error, or a number beyond double).  The caller checks what it holds.
nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what);

}  // namespace allocstress
