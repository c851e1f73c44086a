// The `allocstress trace-info` command: summarises a trace file (process, threads, op counts,
// bytes requested, peak live requested bytes, bytes per event on disk, TSC rate, truncation;
// the totals are trace/trace_totals.hpp's).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/common.hpp"
#include "trace/trace_totals.hpp"

namespace allocstress {

struct TraceInfoCommand {
  CLI::App* cmd = nullptr;
  std::string trace;
  bool json = false;
  void add_to(CLI::App& app);
  int execute();
};

}  // namespace allocstress
