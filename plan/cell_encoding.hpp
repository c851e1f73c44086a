// The one encoding of a cell: a JSON object, which `allocstress run --cell FILE|-` reads, a plan
// file lists and every backend hands to a cell process:
//
//   {"allocator": "jemalloc", "allocator_library": "/opt/x/lib.so" (only for NAME=PATH allocators: the
//    text after NAME=, with the configuration's settings: "/opt/x/lib.so,MALLOC_CONF=background_thread:true"),
//    "manifest": "/path/allocators/manifest.tsv", "workload": "alloc-test", "threads": 2,
//    "placement": "compact", "reserve_os_pu": false, "oversubscribe": false, "mode": "timing",
//    "params": {the workload's parameters, seed included: workload_registry.hpp},
//    "inputs": {"program": "/tmp/.../replay-program.bin"} (only when prepared),
//    "profile": {"sample_every": 64, "pass": "", "small_limit": 1024, "large_from": 0} (mode profile),
//    "resolved_allocator": {"name": "jemalloc", "kind": "drop_in", "library_path": "/usr/lib/...",
//    "environment": {...}, ...} (a matrix's cells: the allocator as the planner resolved it, once
//    per matrix; the cell process runs it without loading the catalogue.  A cell without it --
//    written by hand, or built from `run`'s flags -- is looked up in its manifest: cell_check.hpp)}
//
// Other members (a plan file's "index", "key", "repetition", "command") are ignored on reading.
// `run` with flags builds the same Cell through the registry; cell_command() is the flags form
// a person can type to reproduce a cell.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cells/cell.hpp"

namespace allocstress {

nlohmann::json cell_to_json(const Cell& cell);

// An allocator as a plan and a cell carry it.  allocator_spec_from_json throws
// std::invalid_argument naming the member that is missing or wrong.
nlohmann::json to_json(const AllocatorSpec& spec);
AllocatorSpec allocator_spec_from_json(const nlohmann::json& j);

// Throws UsageError "<where>: <member>: what is wrong (accepted: ...)", a count that is not a
// whole number in its range as "<where>: \"threads\" must be a whole number ≥ 1, got -3"; the
// workload's parameters are checked later, with the allocator (cell_check.hpp).
Cell cell_from_json(const nlohmann::json& j, const std::string& where = "cell");

// A cell file's JSON, or standard input's when `path` is "-", and what messages call it ("cell
// file PATH").  Throws UsageError when it cannot be read or is not JSON.
struct CellJson {
  nlohmann::json json;
  std::string where;
};
CellJson read_cell_json(const std::string& path);

// Reads a cell from a file, or from standard input when `path` is "-" (its members only:
// cell_check.hpp checks it as it will run).  Throws UsageError.
Cell read_cell_file(const std::string& path);

// The `allocstress run` command (argv, `executable` first) that measures this cell by hand: the
// allocator, workload, threads, every workload option, placement, mode and manifest as flags.
// Prepared inputs are left out (run prepares them again).
std::vector<std::string> cell_command(const std::string& executable, const Cell& cell);

}  // namespace allocstress
