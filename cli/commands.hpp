// The subcommands of the `allocstress` executable.  Each registers its options on the app and
// executes after parsing; bad input is thrown as UsageError (one line, exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "cli/workload_flags.hpp"
#include "plan/matrix_plan.hpp"

namespace allocstress {

struct ListCommand {
  CLI::App* cmd = nullptr;
  std::string manifest;
  std::vector<std::string> added, added_old;
  void add_to(CLI::App& app);
  int execute();
};

// `run`: one cell, from flags or from a cell file (--cell).
struct RunCommand {
  CLI::App* cmd = nullptr;
  std::string allocator, manifest, cell_file;
  std::string threads;
  std::string age;       // --age SPEC: mode aged
  std::string thp_mode;  // --thp MODE: mode thp
  std::string soak;      // --soak SPEC: mode soak
  bool verify_only = false, cache_sim = false, profile = false, counts = false;
  std::uint64_t sample_every = 64;
  std::uint64_t counts_iterations = kDefaultCountsIterations;
  WorkloadFlags workload;
  void add_to(CLI::App& app);
  int execute();
};

struct ProbeCommand {
  CLI::App* cmd = nullptr;
  std::vector<std::string> names;
  std::vector<std::string> added, added_old;
  std::string out, manifest, one;
  bool force = false;
  void add_to(CLI::App& app);
  int execute();
};

// `matrix`; `replay TRACE` (the replay workload, the trace as its argument); and `slurm submit`
// (the Slurm backend).  Options are grouped by workload in --help.
struct MatrixCommand {
  enum class Kind { matrix, replay, slurm_submit };
  explicit MatrixCommand(Kind kind_ = Kind::matrix) : kind(kind_) {}
  Kind kind;
  std::string trace_argument;  // replay: the positional TRACE
  CLI::App* cmd = nullptr;
  std::string preset = "quick";
  std::string out;
  std::string allocators, manifest;
  std::vector<std::string> added, added_old;
  std::string threads;
  unsigned reps = 0;
  unsigned warmup = 1;
  double timeout_s = 0;
  bool resume = false;
  bool force = false;
  // Backends (plan_file.hpp, slurm_backend.hpp): write the plan only, run a plan file, or submit to Slurm.
  bool plan_only = false;
  std::string plan_file;
  std::string backend = "local";
  std::string partition, time_limit, time_limit_old, results_dir;
  bool allow_local_results_dir = false;
  bool cache_sim = false;
  bool profile = false;
  std::uint64_t sample_every = 64;
  bool counts = false, no_counts = false;
  std::uint64_t counts_iterations = kDefaultCountsIterations;
  std::string memory_limit;  // --memory-limit SPEC
  std::string thp_mode;      // --thp MODE
  std::string age;           // --age SPEC
  std::string soak;          // --soak SPEC
  bool misuse = false;       // --misuse: the misuse battery after the cells
  double target_ci_pct = 0;
  std::string time_budget;
  WorkloadFlags workload;
  // `app` holds the subcommand (the top level, or `slurm`).
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);

 private:
  int run_locally(MatrixPlan plan, const nlohmann::json& context, const std::string& exe) const;
  int submit_to_slurm(MatrixPlan plan, const nlohmann::json& context, const std::string& exe, const std::string& command_line) const;
  int resume_locally(const std::string& exe, const std::string& command_line) const;
  // Slurm: the client commands, the controller, and a results directory that can hold this plan.
  void check_slurm_target() const;
};

// Runs a planned matrix here, one fresh process per cell, into `results` (a journal beside it),
// then writes the table and the HTML report.  Throws UsageError when `results` cannot be written
// or an interrupted run left a journal there.  Returns 0, or 130 when interrupted.
// Without `report` it writes the results and table only (a part of `allocstress programs`).
int run_matrix_locally(const MatrixPlan& plan, const nlohmann::json& context, const std::string& exe,
                       const std::filesystem::path& results, bool force, bool report = true);

}  // namespace allocstress
