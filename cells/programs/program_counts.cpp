// The counts tier of a real program (see program_runs.hpp): the program once under callgrind with
// its whole tree followed, address randomisation off; the instructions, simulated misses and
// estimated cycles of every process, summed, and the allocator's share: the inclusive cost of the
// calls into it (platform/profilers/instruction_counts.hpp, the program rule).  The environment the program
// gets is the user's (no per-run paths), so a single-threaded program counts the same on every run.
// Then the kernel's part: two native runs in the same world (program_kernel_events below).
#include <fstream>

#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/programs/program_runs.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/profilers/callgrind_profile.hpp"
#include "platform/profilers/counts_world.hpp"
#include "platform/process/child_process.hpp"
#include "platform/profilers/instruction_counts.hpp"
#include "platform/profilers/syscall_trace.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// The profiled command of one process (callgrind's `cmd:` line), or "".
std::string profiled_command(const fs::path& profile) {
  std::ifstream in(profile);
  std::string line;
  for (int n = 0; n < 40 && std::getline(in, line); ++n)
    if (line.rfind("cmd:", 0) == 0) return line.substr(line.find_first_not_of(' ', 4));
  return "";
}

// The object name the profile gives the allocator's library (its canonical path may differ from
// the path the loader mapped), or `library` itself when no object of the profile is it.
std::string object_name_of(const CallgrindProfile& p, const std::string& library) {
  std::error_code ec;
  const fs::path want = fs::canonical(library, ec);
  for (const auto& [where, cost] : p.self) {
    if (where.first == library) return library;
    if (!ec && fs::canonical(where.first, ec) == want && !ec) return where.first;
  }
  return library;
}

// Runs the prepare command, if there is one; "" or why it failed.
std::string prepare(const std::vector<std::string>& command, const std::string& working_directory, double timeout_s) {
  if (command.empty()) return "";
  const ProgramOutcome done = run_program({command, working_directory, unpreloaded_environment()}, timeout_s);
  return done.succeeded() ? "" : "the prepare command failed: " + done.failure();
}

// The `kernel_events` block of a program's whole run, in the world of its run under callgrind
// (`spec`: the same command, environment -- allocator and counts world -- and folder, address
// randomisation off), the prepare command before each run.  Two native runs: the faults from
// wait4's rusage of the whole tree (the program and every descendant it waited for), and the
// system calls from strace -f -c, whose own faults would otherwise be counted with the program's.
// {"n/a": why} when strace is missing or a run fails.
nlohmann::json program_kernel_events(ProgramSpec spec, const std::vector<std::string>& prepare_command, double timeout_s, bool single) {
  if (const std::string missing = syscall_trace_unavailable(); !missing.empty()) return {{"n/a", missing}};
  TemporaryFolder scratch{make_temporary_folder("allocstress-program-kernel-")};
  spec.fixed_addresses = true;
  std::string failure = prepare(prepare_command, spec.working_directory, timeout_s);
  const ProgramOutcome native = failure.empty() ? run_program(spec, timeout_s) : ProgramOutcome{};
  if (failure.empty() && !native.succeeded()) failure = "the native run " + native.failure().substr(std::string("the program ").size());
  if (failure.empty()) failure = prepare(prepare_command, spec.working_directory, timeout_s);
  const std::filesystem::path summary = scratch.dir / "syscalls.txt";
  if (failure.empty()) {
    ProgramSpec traced = spec;
    traced.argv = syscall_count_command(spec.argv, summary);
    const ProgramOutcome o = run_program(traced, timeout_s);
    if (!o.succeeded()) failure = "the run under strace " + o.failure().substr(std::string("the program ").size());
  }
  nlohmann::json calls;
  try {
    if (failure.empty()) calls = syscalls_in_summary(summary);
  } catch (const std::runtime_error& e) {
    failure = e.what();
  }
  if (!failure.empty()) return {{"n/a", "kernel events not counted: " + failure}};
  nlohmann::json events = kernel_event_figures(native.minor_faults, native.major_faults, calls.at("counts"), 1, "run");
  events["other_calls"] = calls.at("other_calls");  // what `other` holds, by name
  events["reproducibility"] =
      single ? "near-exact: system calls identical from run to run; the faults of a whole process vary by up to 6 whatever its size "
               "(/bin/true 141-147 over 50 runs, a lua script 965-970 over 20, 2026-11-27), held to 8 or 0.5%, whichever is larger, by "
               "the tests"
             : "varies: processes or threads that race move the faults and the futex calls between runs";
  events["provenance"] = "two native runs of the program as under callgrind (its environment and allocator, the counts world's virtual clock "
                         "and fixed entropy, address randomisation off; not under valgrind): faults from wait4's rusage of the whole tree (the process from fork "
                         "on, and every descendant it waited for), system calls of every process and thread counted by strace -f -c in "
                         "the second run; the memory calls by kind, the rest as `other`";
  return events;
}

}  // namespace

nlohmann::json count_program(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                             const AllocatorSpec& allocator, double timeout_s, std::string& failure) {
  if (p.drive == ProgramDrive::server)
    throw std::runtime_error("a server is not counted: under callgrind it answers its client some 50 times slower, so the client's "
                             "load (its timeouts, its pacing) would not be the one the timing runs measured");
  TemporaryFolder scratch{make_temporary_folder("allocstress-program-counts-")};
  const ProgramInvocation how = program_invocation(p, params, inputs);
  const std::vector<std::string> prepare_command = prepare_invocation(p, params, inputs);
  if (failure = prepare(prepare_command, how.working_directory, timeout_s); !failure.empty()) return nullptr;
  const std::vector<std::string> argv = program_counts_command(how.argv, scratch.dir);
  // glibc first for the system row (program_cell.cpp), and the counts world before everything: a
  // clock after libc was never read (platform/profilers/counts_world.hpp).
  const EnvironmentChanges env =
      in_counts_world(program_environment(how, required_preload(allocator).empty() ? malloc_provider_path() : ""));
  const ProgramOutcome o = run_program({argv, how.working_directory, env}, timeout_s);
  if (!o.succeeded()) {
    failure = "the program under callgrind " + o.failure().substr(std::string("the program ").size());
    return nullptr;
  }
  OutsideCalls rule;
  const std::string library = allocator.kind == AllocatorKind::drop_in && !required_preload(allocator).empty() ? required_preload(allocator)
                                                                                                               : malloc_provider_path();
  if (required_preload(allocator).empty()) rule.allocator_functions = glibc_malloc_functions();
  std::vector<CallgrindProfile> profiles;
  nlohmann::json processes = nlohmann::json::array();
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(scratch.dir))
    if (f.path().filename().string().rfind("callgrind.", 0) == 0) files.push_back(f.path());
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return std::stol(a.extension().string().substr(1)) < std::stol(b.extension().string().substr(1));
  });
  if (files.empty()) throw std::runtime_error("callgrind wrote no profile in " + scratch.dir.string());
  for (const fs::path& f : files) {
    CallgrindProfile prof = read_callgrind_profile(f);
    rule.allocator_object = object_name_of(prof, library);
    const nlohmann::json figures = instruction_count_figures(prof, 1, "run", rule, "");
    processes.push_back({{"command", profiled_command(f)},
                         {"instructions", figures.at("instructions")},
                         {"d1_misses", figures.at("d1_misses")},
                         {"ll_misses", figures.at("ll_misses")},
                         {"estimated_cycles", figures.at("estimated_cycles")},
                         {"allocator_instructions", figures.at("allocator_calls").at("instructions")}});
    profiles.push_back(std::move(prof));
  }
  const CallgrindProfile total = summed_profiles(profiles);
  rule.allocator_object = object_name_of(total, library);
  nlohmann::json counts = instruction_count_figures(total, 1, "run", rule, "");
  counts["processes"] = std::move(processes);
  counts["allocator_library"] = library;
  counts["command"] = shell_command_line(argv);
  const bool single = files.size() == 1 && params.value("program_threads", 1u) == 1;
  counts["kernel_events"] = program_kernel_events({how.argv, how.working_directory, env}, prepare_command, timeout_s, single);
  counts["reproducibility"] =
      single
          ? std::string("near-exact: one process, address randomisation off, the user's environment, the counts world's clock and "
                        "entropy; four studies of prog-lua gave identical instructions and simulated misses under glibc, jemalloc, "
                        "mimalloc and tcmalloc_minimal, and the whole run moved only with its native faults, by up to 0.04% "
                        "(2026-11-28)")
          : "near-exact: " + std::to_string(files.size()) + " process(es), " + std::to_string(params.value("program_threads", 1u)) +
                " thread(s) of its own; processes or threads that race can move the figures a little between runs";
  return counts;
}

}  // namespace allocstress
