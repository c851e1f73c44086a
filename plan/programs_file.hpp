// A programs file: real programs to measure, written by hand in TOML, one `[[program]]` table per
// program (docs/programs-file.md lists every key).  allocstress ships one for its prog-*
// workloads (workloads/programs/programs.toml); `programs --programs-file FILE`,
// `matrix --programs-file FILE` and `slurm submit --programs-file FILE` run a user's.
//
//   [[program]]
//   name = "jq-sort"                      # the workload name in every record and table
//   command = ["jq", "-c", "sort_by(.id)", "{input}"]   # or one string, split like a shell
//   input = { file = "data/big.json" }   # or { generator = "lua-churn" }; relative to this file
//   check_output = true
//   [[program.metric]]                    # a figure read from the output
//   name = "score"
//   regex = 'score: ([0-9.]+)'
//   better = "higher"
//
// Relative paths (input.file, cwd, a command with a '/') are taken from the file's folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "workloads/programs/program_definition.hpp"

namespace allocstress {

struct ProgramsFile {
  std::filesystem::path path;  // absolute
  std::vector<ProgramDefinition> programs;
  const ProgramDefinition* find(const std::string& name) const;  // nullptr when it has none of that name
  std::string names() const;  // "prog-python3, prog-cc1, ..." for messages
};

// Reads and checks the file: TOML syntax, every key known and of its type, every definition
// valid (check_program_definition), names unique and none a built-in workload's.  Throws
// UsageError "programs file PATH:LINE: what is wrong (accepted: ...)".
ProgramsFile read_programs_file(const std::filesystem::path& path);

// The shipped file: $ALLOCSTRESS_PROGRAMS_FILE when set, else workloads/programs/programs.toml of
// the source tree this build was configured from, else (an installed allocstress)
// share/allocstress/programs.toml beside its bin/.
std::filesystem::path shipped_programs_path();
// The shipped file, read once (its programs declared as workloads: cells/programs/program_workloads.hpp).
// Throws UsageError when it cannot be read.
const ProgramsFile& shipped_programs();

// The definition of program workload `name`: among `given` (a user's programs file, bench's
// command) first, else in the shipped file; nullptr when neither has it.
const ProgramDefinition* find_program_definition(const std::string& name, const std::vector<ProgramDefinition>& given);

// Declares the shipped file's programs (so `--workload prog-lua` resolves) unless it cannot be
// read; returns why not, or "".  The CLI and the Python extension call it once at start.
std::string declare_shipped_programs();

}  // namespace allocstress
