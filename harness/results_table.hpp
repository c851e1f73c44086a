// The Markdown summary of a results document: allocator x threads with the allocator's own cost
// (net of the void baseline), its spread, memory overhead and speed relative to the system
// allocator; failed and skipped cells are listed under the table with their reasons.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace allocstress {

// pre: `results` was produced by assemble_results().
std::string markdown_table(const nlohmann::json& results);

}  // namespace allocstress
