// From per-repetition records to what a reader compares: the allocator's own cost (net of the
// void baseline), and per-cell statistics over repetitions.  Pure functions over JSON records.
//
//   net_cycles_per_pair = cycles_per_pair(allocator) - cycles_per_pair(void), both from the same
//                         workload, threads, repetition index, parameters and seed (alloc-test
//                         only: the data-structure workloads cannot run on void, their figures
//                         are raw and carry no net fields).
//   Aggregates per (workload, allocator, threads), Google-Benchmark style: run_type "aggregate"
//   entries named median, min, max and cv (coefficient of variation, a fraction) over ok timing
//   repetitions; simulated-cache records (mode "simulate") are not aggregated.
//   speed_vs_system (median entry only) = median net cycles/pair of `system` / of this allocator
//                         (alloc-test), or median search cycles/visit of `system` / of this
//                         allocator (structure workloads): > 1 means faster than the system
//                         allocator at the same workload and thread count.
//   intervals (median entry) = per metric (the speed metric, net ns/pair where net, and
//                         overhead_ratio where every process has a valid one), a distribution-free
//                         interval of the median over the processes with its real level and method
//                         (platform/statistics.hpp median_interval); a net figure's values are
//                         per-process differences, so the baseline's spread is inside.
//   vs_system (median entry) = "faster", "slower" or "indistinguishable" (the two intervals of the
//                         speed metric overlap: the ratio is not a ranking).
//   speed_vs_system_interval (median entry) = {low, high, level_at_least, method}: system's interval
//                         over this cell's, which holds speed_vs_system whenever both intervals hold
//                         their medians (level >= the sum of both levels - 1); high null = unbounded.
//   variance_components (median entry of alloc-test) = within- and between-process variance
//                         from the records' segments (variance_components.hpp).
//   Disturbed records (interference.disturbed: another task ran on a worker's CPU) are left out
//                         and counted in repetitions_disturbed.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cells/record_identity.hpp"

namespace allocstress {

// kBaselineAllocator and kReferenceAllocator: cells/record_identity.hpp.

// Adds net_cycles_per_pair and net_ns_per_pair (null when no ok baseline record matches) and
// baseline_cycles_per_pair to every ok timing, aged and thp record (mode aged: its baseline is
// void's timing record of the same repetition; mode thp: void's thp record of the same repetition
// and THP mode).
void attach_net_costs(std::vector<nlohmann::json>& records);

// Adds counts.net_instructions_per_unit, net_estimated_cycles_per_unit, net_d1_misses_per_unit
// and net_ll_misses_per_unit to every ok counts record (mode "counts"): its figure minus the void
// baseline's counts record of the same workload, threads and parameters (void: 0); null with a
// warning when there is none.  The op streams are the same (op_stream_hash), so the difference is
// what the allocator executed and the misses its placement caused, exactly.
void attach_net_counts(std::vector<nlohmann::json>& records);

// Adds profile.blowup to every ok profile record: its RSS growth per live byte at N threads
// divided by the same allocator's at 1 thread (Berger's blowup: memory a multi-threaded run needs
// beyond the single-threaded run for the same kind of live data); n/a without a 1-thread profile.
void attach_blowup(std::vector<nlohmann::json>& records);

// A distribution-free interval of the median over the records' values at `where` ({low, high,
// level, n, method, relative_half_width}); null unless every record has a number there and there
// are at least two.
nlohmann::json median_interval_entry(const std::vector<const nlohmann::json*>& group, const nlohmann::json::json_pointer& where);

// The interval of numerator's median / denominator's median from their two intervals of the
// median: [numerator low / denominator high, numerator high / denominator low].  It holds the true
// ratio whenever both intervals hold their medians, so its level is at least the sum of both
// levels - 1 (Bonferroni): {low, high, level_at_least, method}.  high is null (unbounded) where the
// denominator's interval reaches 0 or below; the whole entry is null where a ratio means nothing
// (the denominator's high or the numerator's low is not above 0) or an interval is missing.
nlohmann::json quotient_interval(const nlohmann::json& numerator, const nlohmann::json& denominator, const std::string& method);

// The figure speed_vs_system compares: the workload's headline metric where it is a record field
// (net cycles/pair, search cycles/visit) or a program's (wall_s, in workload_metrics); "" where
// it has none (false sharing; unknown workloads).
std::string speed_metric(const std::string& workload);
// The figure the verdict's memory line ranks by: the workload's memory_headline metric (a
// program's peak_rss_mib), else overhead_ratio.
std::string memory_metric(const std::string& workload);
// Where a workload's metric is in its records and aggregate entries: "/NAME", or
// "/workload_metrics/NAME" for a metric of that place.
nlohmann::json::json_pointer metric_pointer(const std::string& workload, const std::string& name);
// The value at `where` in a record or aggregate entry, or null.
const nlohmann::json& metric_value(const nlohmann::json& entry, const nlohmann::json::json_pointer& where);

// True for records of timing runs (mode "timing", or no mode: files from before modes existed).
bool is_timing_record(const nlohmann::json& record);
// True for ok iteration records of counts cells that carry their `counts` block.
bool is_ok_counts_record(const nlohmann::json& record);
// True when another task ran on a worker's CPU while the record was timed (cells/modes/interference.hpp).
bool is_disturbed_record(const nlohmann::json& record);

// Aggregate entries for every (workload, allocator, threads) that has at least one ok record, in the order
// the pairs first appear in `records`.
std::vector<nlohmann::json> aggregate_entries(const std::vector<nlohmann::json>& records);
// The metrics a program's definition reads from its output (params.program.metrics of `record`,
// each a field of workload_metrics with an interval in the median entry); none for other workloads.
std::vector<std::string> program_metric_names(const nlohmann::json& record);

// One warning per (workload, threads, repetition) whose ok timing records disagree on op_stream_hash: the
// operation stream must not depend on the allocator.
std::vector<std::string> op_stream_mismatches(const std::vector<nlohmann::json>& records);

}  // namespace allocstress
