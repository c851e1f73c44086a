// The preload check in a fresh process (see preflight.hpp).
#include "run/preflight.hpp"

#include <cstdio>
#include <vector>

#include "allocators/drop_in/malloc_provider.hpp"
#include "platform/child_process.hpp"

namespace allocstress {

std::string preload_check(const std::string& exe, const AllocatorSpec& a, const std::string& manifest, double timeout_s) {
  const std::vector<std::string> argv = {exe, "run", "--verify-only", "--manifest", manifest, "--allocator",
                                         a.origin == "command line" ? a.name + "=" + added_allocator_value(a) : a.name};
  const ChildOutcome o = run_child(argv, preload_environment(a), timeout_s);
  if (o.end == ChildOutcome::End::timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
    return std::string("did not finish within the timeout of ") + seconds + " s (--timeout) and was killed";
  }
  return o.succeeded() ? "" : describe_failure(o, timeout_s);
}

}  // namespace allocstress
