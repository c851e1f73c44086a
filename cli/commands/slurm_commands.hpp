// The commands of the Slurm backend (run/slurm_backend.hpp), under `allocstress slurm`: `submit`
// (matrix_command.cpp), `run-cell DIR INDEX` (what each array task runs), `status DIR` and
// `merge DIR -o results.json`.  The top-level `run-cell`, `status` and `merge` of earlier
// versions are kept as deprecated aliases (`alias`: warn, then do the same).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/common.hpp"

namespace allocstress {

struct RunCellCommand {
  CLI::App* cmd = nullptr;
  std::string dir;
  std::size_t index = 0;
  bool alias = false;
  void add_to(CLI::App& app, bool alias);
  int execute(const std::string& command_line);
};

struct StatusCommand {
  CLI::App* cmd = nullptr;
  std::string dir;
  bool alias = false;
  void add_to(CLI::App& app, bool alias);
  int execute();
};

struct MergeCommand {
  CLI::App* cmd = nullptr;
  std::string dir, out;
  bool force = false;
  bool alias = false;
  void add_to(CLI::App& app, bool alias);
  int execute();
};

}  // namespace allocstress
