// The parts of a real-program cell (program_cell.cpp): one run of the program as its definition
// says (plain or server drive), the probe's account of which processes ran under which malloc,
// and the counts tier's run under callgrind.  Internal to cells/: program_cell.cpp turns what
// these return into the record.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "platform/process/program_probe.hpp"
#include "platform/process/program_run.hpp"
#include "workloads/programs/program_definition.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {

// One run: the measured program's outcome, and (server drive) its client's.
struct ProgramRunResult {
  ProgramOutcome program;                // the program (a server: from start to stop)
  std::optional<ProgramOutcome> client;  // server drive: the load
  std::string failure;                   // "" = ran to the end and exited 0
  std::string measured;                  // what wall_s and the rusage figures cover, in words
  std::string command, client_command, working_directory;
  // The output the metrics and the output check read: the program's, a server's client's.
  const ProgramOutcome& output() const { return client ? *client : program; }
};

// The environment of the program's processes: the definition's variables; every ALLOCSTRESS_*
// variable of the cell process removed and TMPDIR given back as the matrix found it (the program
// sees the user's environment, the same on every run); LD_PRELOAD as the cell inherited it,
// with `extra_preload` in front ("" = none).
EnvironmentChanges program_environment(const ProgramInvocation& how, const std::string& extra_preload);
// The environment of what must not run under the allocator (the client, the prepare command).
EnvironmentChanges unpreloaded_environment();

// Runs the prepare command (if any) and the program once.  pre: program_unavailable(p) == "".
ProgramRunResult run_program_once(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                                  const EnvironmentChanges& environment, double timeout_s);

// What the probe saw: the processes and whether the allocator reached them.
struct PreloadVerdict {
  std::vector<ProbedProcess> processes;
  std::string failure;                // "" = the allocator reached the program
  std::vector<std::string> warnings;  // processes it did not reach, ...
  nlohmann::json block;               // the record's program.preload
};
// `watch`: the allocator's canonical library ("" = glibc's own malloc, `system`).  `counted`:
// the run used the counting probe (a verification run): a tree that made no allocation call fails.
PreloadVerdict judge_preload(const std::filesystem::path& probe_log, const std::string& watch, bool counted);

// The counts tier of a program (mode counts): the program once under callgrind, every process
// of its tree profiled, address randomisation off.  Returns the record's `counts` block, or
// throws std::runtime_error saying why it could not be counted.
nlohmann::json count_program(const ProgramDefinition& p, const nlohmann::json& params, const nlohmann::json& inputs,
                             const AllocatorSpec& allocator, double timeout_s, std::string& failure);

}  // namespace allocstress
