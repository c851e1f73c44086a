// How allocstress fails: bad input is a UsageError (printed as one line "allocstress: error: <what>"
// and exit code 2); a cell that could not be measured exits 3.  Every layer may throw UsageError;
// only cli/main.cpp turns it into the line and the exit code.
#pragma once

#include <stdexcept>

namespace allocstress {

// Bad input: what was wrong and what is accepted, in one line.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitUsage = 2;       // bad input
inline constexpr int kExitCellFailed = 3;  // the cell ran but failed (preload check, crash, bad record)

}  // namespace allocstress
