// The preload check in a fresh process (see preflight.hpp).
#include "run/preflight.hpp"

#include <vector>

#include "allocators/drop_in/malloc_provider.hpp"
#include "platform/child_process.hpp"

namespace allocstress {

std::string preload_check(const std::string& exe, const AllocatorSpec& a, const std::string& manifest) {
  constexpr double kTimeoutS = 60;
  const std::vector<std::string> argv = {exe, "run", "--verify-only", "--manifest", manifest, "--allocator",
                                         a.origin == "command line" ? a.name + "=" + a.library_path : a.name};
  const ChildOutcome o = run_child(argv, preload_environment(a), kTimeoutS);
  return o.succeeded() ? "" : describe_failure(o, kTimeoutS);
}

}  // namespace allocstress
