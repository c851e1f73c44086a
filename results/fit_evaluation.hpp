// How close a fitted synthetic workload comes to the replay of its trace: for every allocator
// measured in both results files, the median net cost per operation and the median overhead
// ratio of each, each allocator's rank under both, and the agreement of the two rankings
// (Spearman's rho and Kendall's tau-b, ties counted as ties).  The void baseline is left out (its
// net cost is 0 by definition).  Costs are compared per operation: a replay "pair" is two trace
// operations and a fitted pair is one malloc and one free, so both divide by two.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace allocstress {

struct FitComparisonRow {
  std::string allocator;
  std::optional<double> replay_net_cycles_per_op, fitted_net_cycles_per_op;
  std::optional<double> replay_overhead_ratio, fitted_overhead_ratio;
  std::optional<unsigned> replay_speed_rank, fitted_speed_rank;        // 1 = fastest
  std::optional<unsigned> replay_memory_rank, fitted_memory_rank;      // 1 = leanest
};

struct FitComparison {
  std::vector<FitComparisonRow> rows;     // allocators in both files, replay's speed order
  std::optional<double> speed_spearman, speed_kendall, memory_spearman, memory_kendall;  // n/a below 3 allocators
  std::optional<double> overhead_median_abs_difference;  // median |fitted - replay| overhead ratio
  std::vector<std::string> notes;  // "ALLOCATOR: n/a, WORKLOAD: no ok, undisturbed repetition (...)"
};

// Throws std::runtime_error when a file has no record of its workload ("replay" and "fitted"); an
// allocator whose processes all failed or were disturbed gets n/a figures and a note saying so.
FitComparison compare_fit(const nlohmann::json& replay_results, const nlohmann::json& fitted_results);

// Markdown: the table, then the agreement figures and how to read them.
std::string fit_comparison_markdown(const FitComparison& c);
nlohmann::json to_json(const FitComparison& c);

// Spearman's rho and Kendall's tau-b of paired values (nullopt with fewer than 3 pairs or a
// constant side).  Exposed for the tests.
std::optional<double> spearman_rho(const std::vector<double>& a, const std::vector<double>& b);
std::optional<double> kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace allocstress
