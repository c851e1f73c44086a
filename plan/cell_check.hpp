// Everything a cell must pass before it runs, in one place: `allocstress run --cell` checks the
// cell it is given with it, and `matrix --plan` checks every cell of a plan file with it before
// any cell runs (plan_file.hpp).
//
// A cell passes when
//  - its members are what cell_encoding.hpp says (counts whole numbers: "threads" ≥ 1, never
//    -3 read as 4294967293 or 2.5 as 2);
//  - its allocator is the one it carries, resolved by a matrix's planner and still installed, or
//    (a cell without one) is in the cell's catalogue (its manifest, plus its NAME=PATH library)
//    and installed;
//  - check_cell passes (the workload's parameters for its threads, its mode, its allocator);
//  - when it carries a "command" (a plan file's cells do), that command is the cell as flags:
//    cell_command() of the cell, with the command's own executable.  A field the command
//    contradicts is named: "\"iterations_per_thread\" is 5 but the cell's command says 100000".
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"

namespace allocstress {

struct CheckedCell {
  Cell cell;
  AllocatorSpec allocator;
};

class CellChecker {
 public:
  // run_here = false checks a cell's form only (its members and its command), not what running
  // it here needs (its allocator installed, check_cell): for plan files read where their cells
  // do not run (`slurm status` and `merge` on a login node).
  explicit CellChecker(bool run_here = true) : run_here_(run_here) {}

  // The cell `j` encodes, checked.  Throws UsageError "<where>: what is wrong" (one line).
  CheckedCell check(const nlohmann::json& j, const std::string& where);
  // A cell built from flags (`run --allocator ...`), checked the same way but for its members and
  // command.  Throws UsageError "what is wrong".
  CheckedCell check(Cell cell);

 private:
  CheckedCell check_built(Cell cell, const nlohmann::json* command);
  // The cell's allocator: the one it carries (Cell::resolved, checked still true here: a matrix's
  // cells), or else its name looked up in its catalogue (a cell by hand, `run`'s flags, or a cell
  // whose "allocator" was edited after planning: the name wins).
  AllocatorSpec resolve(const Cell& cell);
  bool run_here_;

  // Catalogues by (manifest, NAME=PATH text): loaded once however many cells name them.
  std::map<std::pair<std::string, std::string>, AllocatorCatalog> catalogs_;
};

// The first field in which cell `a` differs from cell `b`, which `b_source` made:
// "\"iterations_per_thread\" is 5 but the plan makes it 100000" (a parameter is named by its key;
// b_source = "the plan"), or "" when they are the same cell.
std::string cell_difference(const Cell& a, const Cell& b, const std::string& b_source);

// "jemalloc x alloc-test x 2 threads": a cell's name for messages, from its JSON members as they
// are (a member that is missing or not a string or number shows as "?").
std::string cell_label(const nlohmann::json& j);

}  // namespace allocstress
