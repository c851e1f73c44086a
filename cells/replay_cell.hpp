// The measured phase of a replay cell and its record: cycles per operation (and per "pair" of
// two operations, the unit the tables and the void-baseline subtraction use), peak RSS and
// overhead against the theoretical peak of the trace (peak live requested bytes in recorded
// order), and the allocstats series: one row every K operations of each thread, with the
// recorded live bytes, the RSS growth, the RSS-based overhead, the RSS maximum so far and the
// mean cycles per operation since the thread's previous row.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "workloads/replay/replay_program.hpp"
#include "platform/topology.hpp"

namespace allocstress {

// The cell's program: spec.program when it names an existing file, else built from spec.trace
// in a forked child (so that decoding the trace never allocates through the allocator under
// test) into a temporary file that is mapped and removed.  Throws std::invalid_argument with the
// reader's message ("FILE: offset N: ...") when the trace is bad.
std::unique_ptr<MappedReplayProgram> obtain_replay_program(const ReplaySpec& spec);

// Builds the program of `trace` into `program_path` in this process (the matrix does it once,
// before any cell).  Throws std::invalid_argument on a bad trace.
void build_replay_program_file(const std::filesystem::path& trace, std::uint64_t allocstats_every,
                               const std::filesystem::path& program_path);

// pre: pus.size() == program.threads().size().
nlohmann::json run_replay_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                               const std::vector<unsigned>& pus, const MappedReplayProgram& program);

}  // namespace allocstress
