// The measured phase of a phase-ramp, phase-plateau or phase-peak cell (workloads/memory_phases.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: pus.size() == cell.params.threads.
nlohmann::json run_phase_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                    const std::vector<unsigned>& pus);

}  // namespace allocstress
