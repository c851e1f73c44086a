// `allocstress misuse`: the misuse battery (run/misuse_battery.hpp) under drop-in allocators: a
// table of cases x allocators with an outcome per cell, each allocator's detection score,
// conformance and safety properties; written as a results file (its `safety` section, no
// benchmarks) with the Markdown beside it.  docs/safety.md describes the cases and the outcomes.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/common.hpp"

namespace allocstress {

struct MisuseCommand {
  CLI::App* cmd = nullptr;
  std::string allocators, manifest, cases, out;
  std::vector<std::string> added;
  unsigned processes = 30;
  double timeout_s = 5;
  bool force = false;
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);
};

}  // namespace allocstress
