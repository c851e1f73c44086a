// The measured phase of xthread and larson cells (workloads/cross_thread.hpp, workloads/larson.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: pus.size() == cell.params.threads.
nlohmann::json run_xthread_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                    const std::vector<unsigned>& pus);

// pre: pus.size() == cell.params.threads.
nlohmann::json run_larson_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                    const std::vector<unsigned>& pus);

}  // namespace allocstress
