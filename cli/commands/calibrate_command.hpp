// The `allocstress calibrate` command: measures how far another run's medians land on this
// machine, from results files of the same matrix run at different times, and writes the
// reproduction calibration that later matrix runs on this host use (results/reproduction.hpp).
//
//   allocstress calibrate RUN1.json RUN2.json [RUN3.json ...] [-o FILE] [--level 0.95]
//
// With --costs it measures this machine's costs instead (platform/profilers/cost_measurements.hpp) and
// writes the machine-costs file that the counts tier's estimated cycles use on this host
// (results/machine_costs.hpp):
//
//   allocstress calibrate --costs [-o FILE] [--repeats 21] [--if-missing]
//
// --if-missing measures only when the output holds no costs of this host (scripts/run-matrix.sh).
//
// Bad input (fewer than 2 files, an unreadable or foreign file, runs of different hosts, no cell
// in common, too few pairs for the level, an output that exists and is not a calibration): one
// error line, exit 2, nothing written.  The file is written whole or not at all.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace allocstress {

struct CalibrateCommand {
  CLI::App* cmd = nullptr;
  std::vector<std::string> runs;
  std::string out;
  double level = 0.95;
  bool costs = false, if_missing = false;
  unsigned repeats = 21;
  void add_to(CLI::App& app);
  int execute();
  int measure_costs();
};

}  // namespace allocstress
