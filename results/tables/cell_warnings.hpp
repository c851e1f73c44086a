// The warnings records carry (results/README.md: a worker not pinned, a measured phase shorter
// than 20 ms, no void baseline, ...) grouped once for every renderer: per (workload, threads,
// mode, warning text) the allocators whose cells gave it, in how many of each cell's records, and
// whether every record of the (workload, mode) has it.  The Markdown summary ("Warnings of single
// cells", results_table.cpp) and the HTML report (_core.cell_warning_groups, reporting/html_parts.py)
// both render these groups; neither groups warnings itself.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace allocstress {

struct CellWarningGroup {
  // One cell (the group's workload, threads and mode, this allocator) that gave the warning.
  struct Cell {
    std::string allocator;
    std::size_t with = 0;   // its records carrying the warning (a record counts once)
    std::size_t of = 0;     // its records
    std::size_t first = 0;  // index in `benchmarks` of its first record carrying the warning
  };
  std::string workload;
  unsigned threads = 0;
  std::string mode;
  std::string text;
  std::vector<Cell> cells;  // in the order they first gave it
  bool everywhere = false;  // every record of every cell of (workload, mode), any thread count, has it
};

// The groups of the iteration records of `benchmarks` (a results file's "benchmarks"), in the
// order they first appear.  Records lacking a field count as workload alloc-test, mode timing,
// allocator "?", 0 threads (older files); warnings that are not strings are ignored.
std::vector<CellWarningGroup> cell_warning_groups(const nlohmann::json& benchmarks);

// The groups as JSON: [{workload, threads, mode, text, cells: [{allocator, with, of, first}], everywhere}].
nlohmann::json cell_warning_groups_json(const std::vector<CellWarningGroup>& groups);

}  // namespace allocstress
