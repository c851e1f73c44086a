// One cell of a matrix: which allocator runs which workload with which parameters, threads and
// placement.  A cell always runs in a fresh process (`allocstress run`); these helpers turn a
// cell into that command line and into the `params` block of its result record.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "../workloads/alloc_test.hpp"
#include "topology.hpp"

namespace allocstress {

inline constexpr const char* kAllocTestWorkload = "alloc-test";

struct CellSpec {
  std::string allocator;     // a catalogue name
  std::string user_library;  // non-empty: the allocator came from --allocator NAME=PATH
  std::string workload = kAllocTestWorkload;
  AllocTestParams params;
  PlacementRequest placement;
};

// Arguments after `allocstress run` that reproduce this cell.
std::vector<std::string> run_arguments(const CellSpec& cell);

// {"slots_total":…, "slots_per_thread":…, "max_size_exp":…, "iterations_per_thread":…,
//  "memory_access":…, "seed":…}
nlohmann::json params_json(const AllocTestParams& params);

}  // namespace allocstress
