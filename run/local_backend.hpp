// Runs a matrix plan locally, one fresh `allocstress run` process per cell, appending each
// finished cell to the journal at once; when every cell has a record, writes the results file and
// its Markdown table atomically next to each other, prints the table and removes the journal
// (the caller then produces the HTML report).
#pragma once

#include <filesystem>
#include <string>

#include "platform/process/child_process.hpp"
#include "plan/matrix_plan.hpp"
#include "results/results_journal.hpp"
#include "results/results_output.hpp"

namespace allocstress {

// A real program's counts cell (callgrind around the program) gets this many times the cell timeout.
inline constexpr double kProgramCountsTimeoutFactor = 100;

// Runs one cell of the plan in a fresh process (its allocator's preload, the plan's timeout,
// TMPDIR = temp_folder) and returns its record: the cell's own, or `failed` with how the process
// ended; identity fields and the command that reproduces it are always set.  cgroup_procs_fd:
// the process joins that cgroup before exec (run_child; limited cells, memory_limit_cell.hpp).
nlohmann::json run_one_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                            const std::filesystem::path& temp_folder, ChildOutcome& outcome, int cgroup_procs_fd = -1);

// Returns 0 when every cell has a record (failed cells included: they are results too), 130 when
// interrupted (the journal keeps what finished; `--resume` continues).  `context_additions` are
// merged into the journal's context in the results (e.g. who resumed the run, and when).
int run_matrix(const MatrixPlan& plan, ResultsJournal& journal, const MatrixOutputs& outputs, const std::string& executable,
               const nlohmann::json& context_additions = nlohmann::json::object());

}  // namespace allocstress
