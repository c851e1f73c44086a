// The subcommands of the `allocstress` executable.  Each registers its options on the app and
// executes after parsing; bad input is thrown as UsageError (one line, exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/common.hpp"
#include "plan/matrix_plan.hpp"

namespace allocstress {

struct ListCommand {
  CLI::App* cmd = nullptr;
  std::string manifest;
  std::vector<std::string> user_libraries;
  void add_to(CLI::App& app);
  int execute();
};

struct RunCommand {
  CLI::App* cmd = nullptr;
  std::string allocator;
  std::string threads = "1";
  bool verify_only = false;
  bool cache_sim = false;
  bool profile = false;
  ProfileSpec profile_spec;
  WorkloadOptions workload;
  void add_to(CLI::App& app);
  int execute(char** argv);
};

struct ProbeCommand {
  CLI::App* cmd = nullptr;
  std::vector<std::string> names;
  std::vector<std::string> user_libraries;
  std::string out, manifest, one;
  bool force = false;
  void add_to(CLI::App& app);
  int execute();
};

// `matrix`, and `replay TRACE` (the same command with the replay workload and the trace as its
// positional argument).
struct MatrixCommand {
  explicit MatrixCommand(std::string subcommand_ = "matrix") : subcommand(std::move(subcommand_)) {}
  std::string subcommand;
  std::string trace_argument;  // replay: the positional TRACE
  CLI::App* cmd = nullptr;
  std::string preset = "quick";
  std::string out;
  std::string allocators;
  std::vector<std::string> user_libraries;
  std::string threads;
  unsigned reps = 0;
  double timeout_s = 0;
  bool resume = false;
  bool force = false;
  // Backends (plan_file.hpp, slurm_backend.hpp): write the plan only, run a plan file, or submit to Slurm.
  bool plan_only = false;
  std::string plan_file;
  std::string backend = "local";
  std::string partition, time_limit, results_dir;
  bool allow_local_results_dir = false;
  bool cache_sim = false;
  bool profile = false;
  std::uint64_t sample_every = 64;
  WorkloadOptions workload;
  void add_to(CLI::App& app);
  int execute(const std::string& command_line);

 private:
  int run_locally(const MatrixPlan& plan, const nlohmann::json& context, const std::string& exe) const;
  int submit_to_slurm(MatrixPlan plan, const nlohmann::json& context, const std::string& exe, const std::string& command_line) const;
};

}  // namespace allocstress
