// Runs a matrix plan locally, one fresh `allocstress run` process per cell, appending each
// finished cell to the journal at once; when every cell has a record, writes the results file and
// its Markdown table atomically next to each other, prints the table and removes the journal.
#pragma once

#include <filesystem>
#include <string>

#include "child_process.hpp"
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

// Runs one cell of the plan in a fresh process (its allocator's preload, the plan's timeout,
// TMPDIR = temp_folder) and returns its record: the cell's own, or `failed` with how the process
// ended; identity fields and the command that reproduces it are always set.
nlohmann::json run_one_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                            const std::filesystem::path& temp_folder, ChildOutcome& outcome);

// Assembles the results file from every cell's record, writes it and its Markdown table
// atomically, prints the table, and produces the HTML report (a note if it cannot).
void write_results(const MatrixPlan& plan, nlohmann::json context, std::vector<nlohmann::json> records, const MatrixOutputs& outputs);

// Returns 0 when every cell has a record (failed cells included: they are results too), 130 when
// interrupted (the journal keeps what finished; `--resume` continues).  `context_additions` are
// merged into the journal's context in the results (e.g. who resumed the run, and when).
int run_matrix(const MatrixPlan& plan, ResultsJournal& journal, const MatrixOutputs& outputs, const std::string& executable,
               const nlohmann::json& context_additions = nlohmann::json::object());

}  // namespace allocstress
