// The checks of a drop-in in fresh processes (see preflight.hpp).
#include "run/preflight.hpp"

#include <cstdio>
#include <vector>

#include "allocators/drop_in/malloc_provider.hpp"
#include "platform/child_process.hpp"
#include "run/misuse_battery.hpp"

namespace allocstress {

namespace {

std::string verify_only_failure(const std::string& exe, const AllocatorSpec& a, const std::string& manifest, double timeout_s) {
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

}  // namespace

DropInPreflight preload_check(const std::string& exe, const AllocatorSpec& a, const std::string& manifest, double timeout_s) {
  // The conformance check runs a small C program that survives allocators the C++ executable may
  // crash under, so a misaligning library is named for what it does, whatever the preload check
  // says.  One that crashes or hangs in both checks is a failure, not a breach of the contract:
  // the preload check's words say it.
  const ConformanceCheck conformance = run_conformance_check(a, timeout_s);
  std::string failure = verify_only_failure(exe, a, manifest, timeout_s);
  if (!failure.empty() && conformance.ended_early) return {std::move(failure), ""};
  return {std::move(failure), conformance.failure};
}

}  // namespace allocstress
