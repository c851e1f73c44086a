// See kernel_events.hpp.
#include "run/kernel_events.hpp"

#include <cstdlib>
#include <string>

#include "platform/json_text.hpp"
#include "platform/process/program_run.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "run/child_command.hpp"

namespace allocstress {

namespace {

std::vector<std::string> with_prefix(std::vector<std::string> prefix, const std::vector<std::string>& command) {
  prefix.insert(prefix.end(), command.begin(), command.end());
  return prefix;
}

}  // namespace

bool kernel_events_run() {
  const char* v = std::getenv(kKernelEventsVariable);
  return v != nullptr && std::string(v) == "1";
}

nlohmann::json count_kernel_events(const std::string& executable, const std::filesystem::path& cell_file, EnvironmentChanges environment, const std::string& working_directory,
                                   double units, const char* unit, unsigned threads) {
  if (const std::string missing = syscall_trace_unavailable(); !missing.empty()) return {{"n/a", missing}};
  const std::string setarch = find_executable("setarch", "/usr/bin:/bin");
  if (setarch.empty()) return {{"n/a", "the kernel events need setarch (util-linux) to switch address randomisation off"}};
  const std::filesystem::path trace = cell_file.parent_path() / "kernel-events.strace";
  const std::vector<std::string> command =
      syscall_trace_command(with_prefix({setarch, "--addr-no-randomize"}, run_cell_command(executable, cell_file.string())), trace);
  environment[kKernelEventsVariable] = "1";
  const ChildOutcome outcome = run_child(command, environment, 0, working_directory);
  const nlohmann::json native = outcome.end == ChildOutcome::End::exited ? last_json_line(outcome.out) : nlohmann::json();
  if (!outcome.succeeded() || !native.is_object() || native.value("status", "") != "ok")
    return {{"n/a", "the native run of the cell failed: " +
                        (native.is_object() && native.contains("reason") && native["reason"].is_string() ? native["reason"].get<std::string>()
                                                                                                        : describe_failure(outcome, 0))}};
  nlohmann::json syscalls;
  try {
    syscalls = syscalls_in_phase(trace).at("counts");
  } catch (const std::runtime_error& e) {
    return {{"n/a", e.what()}};
  }
  const std::uint64_t minor = native.value("workers_minor_faults", std::uint64_t{0}), major = native.value("workers_major_faults", std::uint64_t{0});
  nlohmann::json events = kernel_event_figures(minor, major, syscalls, units, unit);
  events.update(nlohmann::json{
          {"reproducibility",
           threads == 1 ? "exact: one thread, address randomisation off, the counts world's clock and entropy; identical in every run seen"
                        : "varies: a native run of N threads interleaves them differently each time: faults within a few percent, "
                          "futex calls (lock contention, and the harness's barriers at the phase's ends) by much more"},
          {"provenance", "a native run of the same cell (not under valgrind; its working directory, environment and the counts "
                         "world's clock and entropy, address randomisation off): faults from the workers' getrusage over their run() (RUSAGE_THREAD, summed), "
                         "system calls counted by strace -f --seccomp-bpf between the phase markers"}});
  return events;
}

}  // namespace allocstress
