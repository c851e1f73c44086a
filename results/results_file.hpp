// The results file (schema in results/schema.json, every field explained in results/README.md):
// {"schema": "allocstress-results", "schema_version": N, "context": {...}, "benchmarks": [...]},
// laid out like Google Benchmark's JSON so its tools and pandas read it directly.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "plan/matrix_plan.hpp"

namespace allocstress {

inline constexpr const char* kResultsSchemaName = "allocstress-results";
inline constexpr int kResultsSchemaVersion = 4;
// Oldest version the readers still accept: version 1 lacked modes and data-structure workloads,
// which readers treat as timing records of alloc-test.
inline constexpr int kOldestReadableSchemaVersion = 1;

// Fields every entry of a cell carries, whatever its status: name, allocator identity, threads,
// placement, params, repetition_index, repetitions.
nlohmann::json cell_identity(const MatrixCell& cell, const AllocatorSpec& allocator, unsigned repetitions);

// An entry for a cell that produced no measurement (status "failed" or "skipped").
nlohmann::json unmeasured_cell(const MatrixCell& cell, const AllocatorSpec& allocator, unsigned repetitions,
                               const std::string& status, const std::string& reason);

// The entries of the excluded allocators: one per thread count and repetition of the plan.
std::vector<nlohmann::json> excluded_cells(const MatrixPlan& plan);

// The complete results document from the context and every cell's entry (in plan order):
// baseline subtraction, aggregates and consistency warnings are added here, and every entry of a
// non-conforming allocator gets `nonconforming` (the reason).  `safety`: the misuse battery's
// section (run/misuse_battery.hpp), or null for none.
nlohmann::json assemble_results(nlohmann::json context, const MatrixPlan& plan, std::vector<nlohmann::json> cells,
                                nlohmann::json safety = nullptr);

}  // namespace allocstress
