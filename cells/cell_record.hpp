// The part of a cell's result record that every workload shares: identity, process readings of
// the measured phase (RSS, rusage, wall time, TSC rate), pinning and failure, warnings.
// Each workload's cell file (alloc_test_cell.cpp, structure_cell.cpp, ...) adds its own counts and
// costs on top.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"
#include "workloads/alloc_test.hpp"
#include "cells/measured_phase.hpp"

namespace allocstress {

// The warning of a record whose measured phase is too short for its timing to mean much (a
// simulated record drops it: its timing is valgrind's, not the machine's).
inline constexpr const char* kShortPhaseWarning = "measured phase shorter than 20 ms: TSC calibration and timing are coarse";

// The first worker set-up failure, or "".
std::string setup_failure(const PhaseMeasurement& m);

// TSC ticks per second over the measured phase (0 when the phase took no time).
double measured_tsc_hz(const PhaseMeasurement& m);

// status is "ok" when `failure` is empty, else "failed" with it as the reason.
nlohmann::json base_record(const Cell& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                           const PhaseMeasurement& m, const std::string& failure);

// The timing fields of a workload counted in operations (alloc-test, fitted, replay): cycles and
// ns per operation and per "pair" of two operations, and the Google-Benchmark-compatible
// iterations (pairs), real_time and cpu_time (ns per pair).
nlohmann::json per_operation_timing(const PhaseMeasurement& m, std::uint64_t cycles_total, std::uint64_t ops);

// The record of an alloc-test-family cell (alloc-test, fitted) from its workers' outcomes: the
// base record, per_operation_timing, counts, peak live bytes, overhead, op-stream hash and read
// checksum; failed when a worker could not set up or an allocation returned nullptr.
nlohmann::json alloc_family_record(const Cell& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                                   const PhaseMeasurement& m, const std::vector<AllocTestThreadOutcome>& outcomes);

// The memory-overhead fields of a record: overhead_ratio = RSS growth over the measured phase
// (peak RSS - RSS before) / the workload's peak live requested bytes.  Below 1 the RSS did not
// grow by what was live: the blocks were not resident (pages never written, `--access none`) or
// reused memory the process held before the phase.  That is no memory overhead, so overhead_ratio
// is then null (never ranked), with the quotient in overhead_ratio_measured and the reason in
// overhead_ratio_invalid.  The void baseline holds one buffer for every block: null, no reason
// needed (tables show it as the baseline).
nlohmann::json memory_overhead(const PhaseMeasurement& m, std::uint64_t peak_live_requested_bytes, const AllocatorSpec& allocator);

std::string hex64(std::uint64_t v);
nlohmann::json nullable_ratio(double num, double den);

}  // namespace allocstress
