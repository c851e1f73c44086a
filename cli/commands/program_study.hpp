// The study of real programs beside the models of their allocations, shared by `allocstress
// programs` and `allocstress bench --trace`: the programs measured under every drop-in (the
// "real" part), then per program its allocation trace (`allocstress trace`, the busiest process),
// the fit to it (`allocstress fit`) and its models run on every allocator, in-tree ones included:
// its replay (`replay:PROG`), its fitted workload (`fitted:PROG`), alloc-test and lifetime at its
// measured size mix (`alloc-test:PROG`, `lifetime:PROG`).  The parts are merged into one results
// file (results/results_merge.hpp), whose table shows the real, replay and fitted rows of each
// program and whose report holds the fidelity table: do the models rank the allocators as the
// programs do?
//
// Beside OUT.json it keeps OUT-programs/: the parts (parts/*.json), the traces (traces/PROG.<pid>.ast,
// one per process), the fit files and the logs of the trace and fit steps.  A program whose
// trace or fit fails keeps its real row; the reason is printed and kept in context.programs.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "plan/planner.hpp"
#include "results/results_merge.hpp"

namespace allocstress {

// The models a program can be compared with.
const std::vector<std::string>& study_models();

struct StudyFolders {
  std::filesystem::path root, parts, traces, fits, inputs, logs;
  explicit StudyFolders(const std::filesystem::path& results);  // OUT-programs/ beside OUT.json
};

class ProgramStudy {
 public:
  // `base`: the allocators, repetitions and timeout every part shares.  Creates the folders
  // (throws UsageError when they exist and not `force`).
  ProgramStudy(const std::string& exe, const std::string& command_line, const std::filesystem::path& results, const PlanRequest& base,
               bool force);
  // Plans and runs one part into parts/LABEL.json; false when it could not run (the reason kept).
  bool run_part(const std::string& label, const PlanRequest& request);
  // Runs an already planned part (bench: the plan it made).
  bool run_planned_part(const std::string& label, const MatrixPlan& plan);
  // Traces program workload `name` (its definition among `programs` or shipped), fits the trace
  // and runs `models` on it.  Returns false when interrupted.
  bool study_program(const std::string& name, const std::vector<ProgramDefinition>& programs, const OptionValues& options,
                     const std::vector<std::string>& models);
  // Merges the parts into the results file, its table and its report; prints the table.
  // Returns the exit code (UsageError when nothing was measured; the study folder is then removed
  // unless a step left a log in it, which the error names).
  int finish();
  const StudyFolders& folders() const { return dirs_; }

 private:
  std::string exe_, command_line_;
  std::filesystem::path results_;
  PlanRequest base_;
  StudyFolders dirs_;
  std::vector<ResultsPart> parts_;
  nlohmann::json info_ = nlohmann::json::object();
};

// Throws UsageError when the tools of a study are missing (the tracer library beside this executable).
void find_study_tools();

// Whether no allocator ran the results file's program workloads to the end (every timing record failed or skipped).
bool every_allocator_failed(const std::filesystem::path& results);

// `bench --trace`: the planned real part, then the study of its one program (replay and fitted
// models); prints the fidelity line of the program.
int run_bench_study(const MatrixPlan& plan, const nlohmann::json& context, const std::string& exe, const std::filesystem::path& results,
                    bool force, const ProgramDefinition& program, const PlanRequest& request);

}  // namespace allocstress
