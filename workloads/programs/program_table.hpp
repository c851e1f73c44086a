// The real programs of the `programs` workload family, as data: which Debian package and binary,
// which generated input, how much work, and what allocation behaviour each one exercises.  The
// registry entries (cells/program_cell.cpp), `allocstress workloads`, the invocation
// (program_invocation.hpp) and docs/workloads.md all follow from this table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// How a cell drives the program.
enum class ProgramDrive {
  run,     // one command: the program is measured from start to exit
  server,  // a server measured from start to shutdown while a client (not preloaded) sends it a bounded load
};

struct ProgramDefinition {
  std::string_view workload = {};     // "prog-lua": the workload name
  std::string_view executable = {};   // "lua5.4": looked up in program_search_path()
  std::string_view package = {};      // "lua5.4": the Debian package that ships it
  std::string_view summary = {};      // one line: the program, its input and its work
  std::string_view behaviour = {};    // the allocation behaviour it exercises
  std::string_view input_file = {};   // the generated input's file name in the inputs folder ("" = none)
  std::string (*make_input)(std::uint64_t seed, unsigned work_percent) = nullptr;  // nullptr without input
  unsigned default_threads = 1;  // the program's own threads (xz -T2)
  bool takes_threads = false;    // --prog-threads sets them
  ProgramDrive drive = ProgramDrive::run;
  std::string_view throughput_unit = {};  // the figure it prints ("requests/s"), "" = none
  // Other binaries it needs (server drive: the client), each "binary=package".
  std::vector<std::string_view> also_needs = {};
};

const std::vector<ProgramDefinition>& program_table();
// The definition of a prog-* workload name (its label, if any, ignored), or nullptr.
const ProgramDefinition* find_program(std::string_view workload);

// Where programs are looked up: $ALLOCSTRESS_PROGRAM_PATH (a colon list) or /usr/bin:/bin:/usr/local/bin.
std::string program_search_path();
// The absolute path of `binary` on program_search_path(), or "".
std::string program_binary(std::string_view binary);

// The program's own throughput figure from its standard output (redis-benchmark's requests/s,
// db_bench's ops/s: the harmonic mean over its tests, which all do the same number of operations),
// or a negative number when it prints none or it cannot be read.
double program_throughput(const ProgramDefinition& program, const std::string& output);

}  // namespace allocstress
