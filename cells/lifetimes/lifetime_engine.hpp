// The lifetime engine's measured phase (workloads/lifetimes/lifetime_workload.hpp), shared by the
// `fitted` cells (a fit file's tables) and the `lifetime` cells (a lifetime model's tables).
#pragma once

#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/measured_phase.hpp"
#include "platform/topology.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"

namespace allocstress {

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
