// The program table (see program_table.hpp).  Default work is sized for about 0.3-2 s per run on
// a 2-core VM (docs/workloads.md lists the measured times).
#include "workloads/programs/program_table.hpp"

#include <cstdlib>
#include <sstream>

#include "platform/program_run.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

const std::vector<ProgramDefinition>& program_table() {
  static const std::vector<ProgramDefinition> table = {
      {.workload = "prog-python3", .executable = "python3", .package = "python3-minimal",
       .summary = "python3 running a generated object-churn script (dicts, lists, tuples, strings, instances, bytearrays)",
       .behaviour = "pymalloc arenas for small objects, malloc for blocks over 512 B and arena growth; steady churn in a live window",
       .input_file = "churn.py", .make_input = python_churn_script},
      {.workload = "prog-cc1", .executable = "gcc", .package = "gcc",
       .summary = "gcc -O2 -c of a generated C file of many functions (the driver spawns cc1 and as)",
       .behaviour = "a compiler: obstacks and GC pages, many small long-lived nodes, bursts freed per function; three processes",
       .input_file = "big.c", .make_input = generated_c_source},
      {.workload = "prog-sqlite3", .executable = "sqlite3", .package = "sqlite3",
       .summary = "sqlite3 on an in-memory database: a generated SQL script of inserts, an index, grouped and joined queries",
       .behaviour = "page cache and parser allocations: many small short-lived blocks, a growing set of 4 KiB pages",
       .input_file = "script.sql", .make_input = generated_sql_script},
      {.workload = "prog-lua", .executable = "lua5.4", .package = "lua5.4",
       .summary = "lua5.4 running a generated table-churn script",
       .behaviour = "Lua's allocator is realloc: tables and strings grown, shrunk and collected incrementally",
       .input_file = "churn.lua", .make_input = lua_churn_script},
      {.workload = "prog-ghostscript", .executable = "gs", .package = "ghostscript",
       .summary = "gs rendering a generated PostScript document (paths, clipping, text) to a ppm device discarded to /dev/null",
       .behaviour = "an interpreter with its own chunk allocator over malloc, large band and path buffers, font caches",
       .input_file = "document.ps", .make_input = generated_postscript},
      {.workload = "prog-redis", .executable = "redis-server", .package = "redis-server",
       .summary = "redis-server measured from start to shutdown while redis-benchmark (not preloaded) sends a bounded load on loopback",
       .behaviour = "a single-threaded server: small keys and values allocated and freed per request, lists, sets and hashes",
       .drive = ProgramDrive::server, .throughput_unit = "requests/s",
       .also_needs = {"redis-benchmark=redis-tools", "redis-cli=redis-tools"}},
      {.workload = "prog-xz", .executable = "xz", .package = "xz-utils",
       .summary = "xz -T2 -3 compressing generated text-like data in 512 KiB blocks (output discarded)",
       .behaviour = "a few large buffers per thread (dictionaries, block buffers), threads allocating at once",
       .input_file = "data.txt", .make_input = compressible_data, .default_threads = 2, .takes_threads = true},
      {.workload = "prog-rocksdb", .executable = "db_bench", .package = "rocksdb-tools",
       .summary = "RocksDB's db_bench: fillrandom then readrandom of 100-byte values, no WAL, no compression",
       .behaviour = "memtable arenas, skiplist nodes, block cache and iterator allocations; background flush threads",
       .default_threads = 1, .takes_threads = true, .throughput_unit = "ops/s"},
  };
  return table;
}

const ProgramDefinition* find_program(std::string_view workload) {
  const std::string_view base = workload.substr(0, workload.find(':'));
  for (const ProgramDefinition& p : program_table())
    if (p.workload == base) return &p;
  return nullptr;
}

std::string program_search_path() {
  const char* given = std::getenv("ALLOCSTRESS_PROGRAM_PATH");
  return given != nullptr && *given != '\0' ? given : "/usr/bin:/bin:/usr/local/bin";
}

std::string program_binary(std::string_view binary) { return find_executable(std::string(binary), program_search_path()); }

namespace {

// redis-benchmark --csv: "test","rps",... then one line per test.
std::vector<double> csv_rates(const std::string& output) {
  std::vector<double> rates;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.rfind("\"test\"", 0) == 0) continue;
    const std::size_t comma = line.find("\",\"");
    if (comma == std::string::npos) continue;
    const double r = std::atof(line.c_str() + comma + 3);
    if (r > 0) rates.push_back(r);
  }
  return rates;
}

// db_bench: "fillrandom   :       5.2 micros/op 192300 ops/sec ...".
std::vector<double> ops_per_sec(const std::string& output) {
  std::vector<double> rates;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find(" ops/sec");
    if (at == std::string::npos || line.find("micros/op") == std::string::npos) continue;
    const std::size_t begin = line.rfind(' ', at - 1);
    const double r = std::atof(line.c_str() + (begin == std::string::npos ? 0 : begin + 1));
    if (r > 0) rates.push_back(r);
  }
  return rates;
}

}  // namespace

double program_throughput(const ProgramDefinition& program, const std::string& output) {
  if (program.throughput_unit.empty()) return -1;
  const std::vector<double> rates = program.drive == ProgramDrive::server ? csv_rates(output) : ops_per_sec(output);
  if (rates.empty()) return -1;
  double inverse = 0;
  for (double r : rates) inverse += 1 / r;
  return double(rates.size()) / inverse;
}

}  // namespace allocstress
