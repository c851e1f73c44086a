// The `allocstress programs` command: the real-program study (cli/commands/program_study.hpp) of the
// programs of a programs file -- the shipped one (the prog-* workloads), or --programs-file FILE.
//
//   allocstress programs [--programs-file FILE] [--programs LIST] [--allocators LIST] [--prog-work PCT]
//                        [--reps N] [--timeout S] [--models LIST] [-o OUT.json] [--force]
//
// Writes OUT.json, OUT.md and OUT-report/ (like matrix), and keeps the parts, traces, fits and
// logs in OUT-programs/.  A program that is not installed is skipped with the reason (in the
// table's "Not measured" list and on stderr).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace allocstress {

struct ProgramsCommand {
  CLI::App* cmd = nullptr;
  std::string programs;  // comma-separated program names; "" = every program of the file
  std::string programs_file;  // "" = the shipped file
  std::string allocators, manifest;
  std::vector<std::string> added;
  std::string models = "replay,fitted,alloc-test,lifetime";
  std::string work;  // --prog-work PCT for every program ("" = each program's default work)
  unsigned reps = 5;
  double timeout_s = 300;
  std::string out;
  bool force = false;
  bool counts = false;  // --counts: a counts cell per program and model and allocator (the fidelity table's counts rows)
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);
};

}  // namespace allocstress
