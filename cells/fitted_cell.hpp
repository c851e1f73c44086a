// The measured phase of a `fitted` cell (workloads/lifetime_workload.hpp): the fit file's model,
// one worker per thread, the alloc-test-family record (cell_record.hpp) plus a `fitted` block
// naming the model (rows, allocations per thread, immortal share, the trace it came from).
// The lifetime engine's measured phase (run_lifetime_engine) is shared with the `lifetime`
// cells (lifetime_model_cell.hpp), which run the same engine on a model's tables.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"
#include "cells/cell_spec.hpp"
#include "cells/measured_phase.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: pus.size() == cell.params.threads; `fit` is the cell's fit file, loaded.  The model runs
// with the cell's threads and seed.
nlohmann::json run_fitted_cell(const CellSpec& cell, const FitConfig& fit, const AllocatorSpec& allocator, const Topology& topology,
                               const std::vector<unsigned>& pus);

// One worker per PU runs `model` (pre: model.params().threads == pus.size()) against a fresh
// instance of `allocator`: set-up makes the workspace (the dry run) and the allocator, the
// measured phase is the loop, release frees what is still live.  outcomes[i] is worker i's.
struct LifetimeEngineRun {
  PhaseMeasurement phase;
  std::vector<LifetimeThreadOutcome> outcomes;
};
LifetimeEngineRun run_lifetime_engine(const LifetimeModel& model, MemoryAccess access, const AllocatorSpec& allocator,
                                      const Topology& topology, const std::vector<unsigned>& pus);

}  // namespace allocstress
