// How a cell process reports its record: one JSON line on stdout (the parent reads the last
// line that starts with '{'), and, when the cell failed, one error line on stderr.
#pragma once

#include <nlohmann/json.hpp>

namespace allocstress {

// Prints `record` as one JSON line on stdout; when its status is not ok, also one error line on
// stderr.  Returns the exit code of `run`: 0, or kExitCellFailed (platform/errors.hpp).
int print_cell_record(const nlohmann::json& record);

}  // namespace allocstress
