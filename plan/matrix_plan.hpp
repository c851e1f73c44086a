// The plan of a matrix: which allocators (and which are skipped, and why), which thread counts,
// how many repetitions, and the workload parameters.  The plan expands into cells in the order
// they run: repetition-major, so every allocator's repetitions are interleaved in time with every
// other's (slow drift of the machine hits all allocators alike).  The plan is stored at the head
// of the journal so that `--resume` continues exactly the same matrix.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"

namespace allocstress {

struct MatrixCell {
  // "<workload>/<allocator>/threads:<n>/rep:<r>", ".../cache-sim" for a simulated-cache cell or
  // ".../profile" for a profile cell:
  // unique within a plan.
  std::string key;
  CellSpec spec;
  unsigned repetition = 0;
};

struct ExcludedAllocator {
  AllocatorSpec spec;
  std::string status;  // "skipped" (not installed) or "failed" (preload verification failed)
  std::string reason;
};

// A (workload, allocator) combination that does not run, and why (e.g. void cannot hold a tree).
struct SkippedPair {
  std::string workload, allocator, reason;
};

struct MatrixPlan {
  std::string preset;
  std::string manifest;        // the catalogue the cells are run against
  std::vector<std::string> workloads = {kAllocTestWorkload};
  AllocTestParams params;      // threads is set per cell; seed applies to every workload
  std::map<std::string, StructureParams> structure;  // per data-structure workload
  ReplaySpec replay;           // the replay workload; its program is built once, in a temporary folder
  std::string fit;             // the fitted workload's fit file
  CrossThreadSpec cross_thread;   // xthread, larson
  LifetimeModelSpec lifetime;     // lifetime
  PhaseSpec phases;               // phase-*
  FalseSharingSpec false_sharing;  // false-sharing-*
  PlacementRequest placement;  // threads is set per cell
  std::vector<unsigned> thread_counts;
  unsigned repetitions = 5;
  double cell_timeout_s = 120;
  std::vector<AllocatorSpec> allocators;  // the ones that run, void first
  std::vector<ExcludedAllocator> excluded;
  std::vector<SkippedPair> skipped;
  bool cache_sim = false;      // add one simulated-cache cell per structure workload x allocator x threads
  bool profile = false;        // add one profile cell per drop-in allocator x threads (alloc-test)
  std::uint64_t sample_every = 64;

  // The cells that run: repetition-major timing cells, then the simulated-cache cells, then the
  // profile cells.
  std::vector<MatrixCell> cells() const;
  // Timing cells of skipped pairs (recorded as "skipped" with the reason, never run).
  std::vector<MatrixCell> skipped_cells() const;
  const SkippedPair* skipped_pair(const std::string& workload, const std::string& allocator) const;
  nlohmann::json to_json() const;
  // Throws std::runtime_error when the JSON is not a plan written by to_json().
  static MatrixPlan from_json(const nlohmann::json& j);
};

// The command that would run one cell of the plan by hand (argv, executable first).
std::vector<std::string> cell_command(const std::string& executable, const MatrixPlan& plan, const MatrixCell& cell);

nlohmann::json to_json(const AllocatorSpec& spec);
AllocatorSpec allocator_spec_from_json(const nlohmann::json& j);

}  // namespace allocstress
