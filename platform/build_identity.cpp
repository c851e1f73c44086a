// The version, source commit and build type of this executable (see build_identity.hpp).
#include "platform/build_identity.hpp"

#include "platform/machine_context.hpp"
#include "platform/sanitizer_build.hpp"

namespace allocstress {

std::string allocstress_version() { return ALLOCSTRESS_VERSION; }

std::string source_commit() {
  std::string commit = first_line_of_command("git -C '" ALLOCSTRESS_SOURCE_DIR "' rev-parse HEAD");
  if (commit.empty()) return "unknown";
  if (!first_line_of_command("git -C '" ALLOCSTRESS_SOURCE_DIR "' status --porcelain --untracked-files=no").empty())
    commit += "-dirty";
  return commit;
}

std::string build_description() {
  std::string out = std::string(ALLOCSTRESS_BUILD_TYPE).empty() ? "no CMake build type" : ALLOCSTRESS_BUILD_TYPE;
#if defined(__SANITIZE_THREAD__)
  out += ", TSan";
#elif defined(__SANITIZE_ADDRESS__)
  out += ", ASan+UBSan";
#elif defined(ALLOCSTRESS_SANITIZED)
  out += ", sanitizer";
#endif
  return out;
}

}  // namespace allocstress
