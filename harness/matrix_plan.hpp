// The plan of a matrix: which allocators (and which are skipped, and why), which thread counts,
// how many repetitions, and the workload parameters.  The plan expands into cells in the order
// they run: repetition-major, so every allocator's repetitions are interleaved in time with every
// other's (slow drift of the machine hits all allocators alike).  The plan is stored at the head
// of the journal so that `--resume` continues exactly the same matrix.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "../allocators/allocator_catalog.hpp"
#include "cell_spec.hpp"

namespace allocstress {

struct MatrixCell {
  std::string key;  // "<allocator>/threads:<n>/rep:<r>": unique within a plan
  CellSpec spec;
  unsigned repetition = 0;
};

struct ExcludedAllocator {
  AllocatorSpec spec;
  std::string status;  // "skipped" (not installed) or "failed" (preload verification failed)
  std::string reason;
};

struct MatrixPlan {
  std::string preset;
  std::string manifest;        // the catalogue the cells are run against
  AllocTestParams params;      // threads is set per cell
  PlacementRequest placement;  // threads is set per cell
  std::vector<unsigned> thread_counts;
  unsigned repetitions = 5;
  double cell_timeout_s = 120;
  std::vector<AllocatorSpec> allocators;  // the ones that run, void first
  std::vector<ExcludedAllocator> excluded;

  std::vector<MatrixCell> cells() const;
  nlohmann::json to_json() const;
  // Throws std::runtime_error when the JSON is not a plan written by to_json().
  static MatrixPlan from_json(const nlohmann::json& j);
};

nlohmann::json to_json(const AllocatorSpec& spec);
AllocatorSpec allocator_spec_from_json(const nlohmann::json& j);

}  // namespace allocstress
