// The `allocstress programs` command: the real-program study.  For each program workload
// (`prog-*`, the "programs" family of cells/workload_registry.hpp) it measures the real program
// under every drop-in allocator, captures the program's allocation trace with `allocstress trace`,
// fits the synthetic model to it with `allocstress fit`, and runs the models of that program on
// every allocator (in-tree ones included): its replay (`replay:PROG`), its fitted workload
// (`fitted:PROG`) and alloc-test and lifetime at its measured size mix (`alloc-test:PROG`,
// `lifetime:PROG`).  The parts are merged into one results file (results/results_merge.hpp),
// whose table shows the real, replay and fitted rows of each program and whose report holds the
// fidelity table: do the models rank the allocators as the programs do?
//
//   allocstress programs [--programs LIST] [--allocators LIST] [--prog-work PCT] [--reps N] [--timeout S]
//                        [--models LIST] [-o OUT.json] [--force]
//
// Writes OUT.json, OUT.md and OUT-report/ (like matrix), and keeps in OUT-programs/ the parts
// (parts/*.json), the traces (traces/PROG.<pid>.ast, one per process the program ran), the fit
// files and the logs of the trace and fit steps.  A program that is not installed is skipped
// with the reason (in the table's "Not measured" list and on stderr); a program whose trace or
// fit fails keeps its real row, and the reason is printed and kept in context.programs.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace allocstress {

struct ProgramsCommand {
  CLI::App* cmd = nullptr;
  std::string programs;  // comma-separated prog-* names; "" = every program workload
  std::string allocators, manifest;
  std::vector<std::string> added;
  std::string models = "replay,fitted,alloc-test,lifetime";
  std::string work;  // --prog-work PCT for every program ("" = each program's default work)
  unsigned reps = 5;
  double timeout_s = 300;
  std::string out;
  bool force = false;
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);
};

}  // namespace allocstress
