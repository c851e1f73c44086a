// The measured phase of a false-sharing-active or false-sharing-passive cell (workloads/false_sharing.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: pus.size() == cell.params.threads.
nlohmann::json run_false_sharing_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                    const std::vector<unsigned>& pus);

}  // namespace allocstress
