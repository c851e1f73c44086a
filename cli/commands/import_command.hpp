// The `allocstress import` command: converts a trace from another format (Steve's ops text,
// heaptrack data) into an allocstress trace.  See trace/import_steve.hpp and
// trace/import_heaptrack.hpp for the formats, the pairing policies and the errors.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/common.hpp"

namespace allocstress {

struct ImportCommand {
  CLI::App* cmd = nullptr;
  std::string format, input, out;
  bool force = false;
  void add_to(CLI::App& app);
  int execute();
};

}  // namespace allocstress
