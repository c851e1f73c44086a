// `allocstress workloads` and `allocstress metrics`: the workload registry and the metric catalogue
// as a person or a tool reads them (text, Markdown or JSON).
#pragma once

#include <CLI/CLI.hpp>

namespace allocstress {

struct WorkloadsCommand {
  CLI::App* cmd = nullptr;
  bool json = false;
  void add_to(CLI::App& app);
  int execute();
};

struct MetricsCommand {
  CLI::App* cmd = nullptr;
  bool json = false, markdown = false;
  void add_to(CLI::App& app);
  int execute();
};

}  // namespace allocstress
