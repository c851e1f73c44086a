// Runs one cell inside the current process and returns its result record.  The caller (the
// `run` command) has already made sure this process is fresh and that malloc resolves into the
// right library; this file only measures.
//
// The measured phase (measured_phase.hpp): per worker thread, pinned, its memory and allocator
// set up, then all workers start together and each times its own work with the cycle counter;
// around it the main thread reads RSS before, resets the peak (VmHWM), and reads peak RSS, RSS at
// the end, getrusage deltas and wall time; after it the workers inspect and free what they still
// hold (untimed) and RSS is read once more.  alloc-test is measured here, the data-structure
// workloads in structure_cell.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// pre: validate(cell.params) passed; pus.size() == cell.params.threads.
// The record has status "ok", or "failed" with a reason (e.g. an allocation returned nullptr).
nlohmann::json run_cell_here(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                             const std::vector<unsigned>& pus);

}  // namespace allocstress
