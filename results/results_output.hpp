// Where a matrix's results go and how they are written: the results file, its Markdown table
// beside it, the journal and the lock while the run is under way.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

#include "plan/matrix_plan.hpp"

namespace allocstress {

struct MatrixOutputs {
  std::filesystem::path results_json;  // the results file
  std::filesystem::path table_md;      // the Markdown table beside it
};

std::filesystem::path journal_path_for(const std::filesystem::path& results_json);
std::filesystem::path table_path_for(const std::filesystem::path& results_json);
// The lock a run holds for its whole life (platform/process/process_lock.hpp): "<results>.lock".
std::filesystem::path lock_path_for(const std::filesystem::path& results_json);

// Assembles the results file from every cell's record, writes it and its Markdown table
// atomically, and prints the table and both paths.
void write_results(const MatrixPlan& plan, nlohmann::json context, std::vector<nlohmann::json> records, const MatrixOutputs& outputs,
                   nlohmann::json safety = nullptr);

}  // namespace allocstress
