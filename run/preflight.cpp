// The checks of a drop-in in fresh processes (see preflight.hpp).
#include "run/preflight.hpp"

#include <cstdio>
#include <vector>

#include "allocators/drop_in/malloc_provider.hpp"
#include "plan/cell_encoding.hpp"
#include "platform/process/child_process.hpp"
#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"
#include "run/child_command.hpp"
#include "run/misuse_battery.hpp"

namespace allocstress {

namespace {

std::string verify_only_failure(const std::string& exe, const AllocatorSpec& a, double timeout_s) {
  const TemporaryFolder dir(make_temporary_folder("allocstress-preflight-"));
  const std::string cell_file = (dir.dir / "cell.json").string();
  write_file_atomically(cell_file, json_text(cell_to_json(verify_only_cell(a))) + "\n");
  const ChildOutcome o = run_child(run_cell_command(exe, cell_file, true), preload_environment(a), timeout_s);
  if (o.end == ChildOutcome::End::timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
    return std::string("did not finish within the timeout of ") + seconds + " s (--timeout) and was killed";
  }
  return o.succeeded() ? "" : describe_failure(o, timeout_s);
}

}  // namespace

DropInPreflight preload_check(const std::string& exe, const AllocatorSpec& a, double timeout_s) {
  // The conformance check runs a small C program that survives allocators the C++ executable may
  // crash under, so a misaligning library is named for what it does, whatever the preload check
  // says.  One that crashes or hangs in both checks is a failure, not a breach of the contract:
  // the preload check's words say it.
  const ConformanceCheck conformance = run_conformance_check(a, timeout_s);
  std::string failure = verify_only_failure(exe, a, timeout_s);
  if (!failure.empty() && conformance.ended_early) return {std::move(failure), ""};
  return {std::move(failure), conformance.failure};
}

}  // namespace allocstress
