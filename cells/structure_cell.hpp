// The measured phase of a data-structure cell (bintree, linkedlist, multilist) and its record:
// cycles per node built, per node churned and per node visited; peak RSS and overhead as in
// alloc-test; placement metrics of the live nodes; hardware cache misses of the search phase
// where perf_event_open provides them (n/a with the reason otherwise).  Under callgrind
// (`run --cache-sim`), data collection is switched on for the search phase only.
#pragma once

#include <nlohmann/json.hpp>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: validate(cell.workload, cell.structure) passed; pus.size() == cell.params.threads.
nlohmann::json run_structure_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                                  const std::vector<unsigned>& pus);

}  // namespace allocstress
