// Runs a matrix plan locally, one fresh `allocstress run` process per cell, appending each
// finished cell to the journal at once; when every cell has a record, writes the results file and
// its Markdown table atomically next to each other, prints the table and removes the journal.
#pragma once

#include <filesystem>
#include <string>

#include "matrix_plan.hpp"
#include "results_journal.hpp"

namespace allocstress {

struct MatrixOutputs {
  std::filesystem::path results_json;  // the results file
  std::filesystem::path table_md;      // the Markdown table beside it
};

std::filesystem::path journal_path_for(const std::filesystem::path& results_json);
std::filesystem::path table_path_for(const std::filesystem::path& results_json);

// The command that would run one cell of the plan by hand (argv, executable first).
std::vector<std::string> cell_command(const std::string& executable, const MatrixPlan& plan, const MatrixCell& cell);

// Returns 0 when every cell has a record (failed cells included: they are results too), 130 when
// interrupted (the journal keeps what finished; `--resume` continues).  `context_additions` are
// merged into the journal's context in the results (e.g. who resumed the run, and when).
int run_matrix(const MatrixPlan& plan, ResultsJournal& journal, const MatrixOutputs& outputs, const std::string& executable,
               const nlohmann::json& context_additions = nlohmann::json::object());

}  // namespace allocstress
