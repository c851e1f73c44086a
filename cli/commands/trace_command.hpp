// The `allocstress trace` command: runs a program under the allocation tracer
// (liballocstress_trace.so, trace/tracer/), optionally on top of a drop-in allocator, and lists
// the trace files it wrote (one per process: forked children and exec'd images write their own).
//   allocstress trace [--out-prefix PREFIX] [--allocator NAME] [--call-sites] [--level N] -- PROGRAM ARGS...
// Contract: bad input (no program, program not found, unknown or in-tree allocator, output folder
// missing or not writable, level out of range) is one error line, exit 2, and nothing is run.
// Otherwise the exit code is the program's (128 + signal when a signal ended it), except that a
// program exiting 0 whose trace was cut short (a file without its end record, cut inside a block,
// with lost events, or unreadable) gives kExitTraceCutShort; stderr gets one line per trace file
// written (path, event and thread counts, pid, how its tracing ended) and a warning line for
// each file cut short.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/common.hpp"

namespace allocstress {

// `trace`: the program exited 0 but a trace file was cut short.
inline constexpr int kExitTraceCutShort = 5;

struct TraceCommand {
  CLI::App* cmd = nullptr;
  std::string out = "allocstress-trace", out_old;
  std::string allocator;
  std::string manifest;
  bool call_sites = false;
  int level = 0;
  std::vector<std::string> program;
  void add_to(CLI::App& app);
  int execute();
};

// The tracer library beside this executable (build tree) or in ../lib (install); throws
// std::runtime_error naming both places when neither has it.
std::filesystem::path find_tracer_library();

}  // namespace allocstress
