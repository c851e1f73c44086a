// `allocstress bench -- CMD [ARGS...]`: the user's own program under every allocator.  The command
// becomes a program definition (workloads/programs/program_definition.hpp) named after it, and
// runs as a one-workload matrix: one fresh process tree per run, a verification run per allocator
// first (the allocator reached the program and the program called it), the measured runs
// interleaved in a shuffled order, then adaptive repetitions to --target-ci within --time-budget;
// the results file, the table with its verdict and the HTML report as `matrix` writes them.
//
//   allocstress bench [--allocators LIST] [--reps N] [--warmup N] [--target-ci PCT] [--time-budget D]
//                     [--timeout S] [--check-output] [--prepare CMD] [--cwd DIR] [--env VAR=VALUE]...
//                     [--metric NAME=REGEX[,higher|lower]]... [--counts] [--trace] [--name NAME]
//                     [-o OUT.json] [--force] -- CMD [ARGS...]
//   allocstress bench --server CMD (--ready-port P | --ready-regex R) --client CMD [--stop SIGNAL|send:TEXT] ...
//
// Bad input -- no command, a program not on PATH, a statically linked one, a bad regex -- is one
// line and exit 2 before anything runs.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace allocstress {

struct BenchCommand {
  CLI::App* cmd = nullptr;
  std::vector<std::string> command;  // after --
  std::string name;
  std::string allocators, manifest;
  std::vector<std::string> added;
  unsigned reps = 0, warmup = 1;
  double target_ci_pct = 5;
  std::string time_budget = "120s";
  double timeout_s = 300;
  bool check_output = false, counts = false, trace = false, force = false;
  std::string prepare, cwd;
  std::vector<std::string> env, metrics;
  std::string server, client, ready_port, ready_regex, stop = "SIGTERM";
  std::string out;
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);
};

}  // namespace allocstress
