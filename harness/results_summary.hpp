// From per-repetition records to what a reader compares: the allocator's own cost (net of the
// void baseline), and per-cell statistics over repetitions.  Pure functions over JSON records.
//
//   net_cycles_per_pair = cycles_per_pair(allocator) - cycles_per_pair(void), both from the same
//                         threads, repetition index, workload parameters and seed.
//   Aggregates per (allocator, threads), Google-Benchmark style: run_type "aggregate" entries
//   named median, min, max and cv (coefficient of variation, a fraction) over ok repetitions.
//   speed_vs_system (median entry only) = median net cycles/pair of `system` / of this allocator:
//                         > 1 means faster than the system allocator at the same thread count.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace allocstress {

inline constexpr const char* kBaselineAllocator = "void";
inline constexpr const char* kReferenceAllocator = "system";

// Adds net_cycles_per_pair and net_ns_per_pair (null when no ok baseline record matches) and
// baseline_cycles_per_pair to every ok record.
void attach_net_costs(std::vector<nlohmann::json>& records);

// Aggregate entries for every (allocator, threads) that has at least one ok record, in the order
// the pairs first appear in `records`.
std::vector<nlohmann::json> aggregate_entries(const std::vector<nlohmann::json>& records);

// One warning per (threads, repetition) whose ok records disagree on op_stream_hash: the
// operation stream must not depend on the allocator.
std::vector<std::string> op_stream_mismatches(const std::vector<nlohmann::json>& records);

}  // namespace allocstress
