// The measured phase of a `fitted` cell (workloads/lifetime_workload.hpp): the fit file's model,
// one worker per thread, the alloc-test-family record (cell_record.hpp) plus a `fitted` block
// naming the model (rows, allocations per thread, immortal share, the trace it came from).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "../allocators/allocator_catalog.hpp"
#include "../workloads/lifetime_params.hpp"
#include "cell_spec.hpp"
#include "topology.hpp"

namespace allocstress {

// pre: pus.size() == cell.params.threads; `fit` is the cell's fit file, loaded.  The model runs
// with the cell's threads and seed.
nlohmann::json run_fitted_cell(const CellSpec& cell, const FitConfig& fit, const AllocatorSpec& allocator, const Topology& topology,
                               const std::vector<unsigned>& pus);

}  // namespace allocstress
