// What this executable is: the project version, the source commit it was built from, and its
// build type.  `allocstress --version` prints them; results files record them (machine_context).
#pragma once

#include <string>

namespace allocstress {

// The CMake project version, e.g. "0.1.0".
std::string allocstress_version();

// `git rev-parse HEAD` of the source tree this executable was built from, with "-dirty" appended
// when tracked files differ from that commit; "unknown" when git cannot tell (no git, no
// repository).  Read when called (it runs git twice): the tree's state now, not at build time.
std::string source_commit();

// The CMake build type and any sanitizer, e.g. "Release", "Debug, ASan+UBSan", "RelWithDebInfo, TSan".
std::string build_description();

}  // namespace allocstress
