// The commands of the Slurm backend (slurm_backend.hpp): `run-cell DIR INDEX` (what each array
// task runs), `status DIR` and `merge DIR -o results.json`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/common.hpp"

namespace allocstress {

struct RunCellCommand {
  CLI::App* cmd = nullptr;
  std::string dir;
  std::size_t index = 0;
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);
};

struct StatusCommand {
  CLI::App* cmd = nullptr;
  std::string dir;
  void add_to(CLI::App& app);
  int execute();
};

struct MergeCommand {
  CLI::App* cmd = nullptr;
  std::string dir, out;
  bool force = false;
  void add_to(CLI::App& app);
  int execute();
};

}  // namespace allocstress
