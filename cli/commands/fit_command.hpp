// The `allocstress fit` command: fits the `fitted` workload (workloads/lifetimes/lifetime_workload.hpp) to a
// trace's size and lifetime distributions (workloads/lifetimes/trace_fit.hpp) and writes the fit file
// (format: workloads/lifetimes/lifetime_params.hpp) that `run --workload fitted --fit FILE` reads.
//
//   allocstress fit TRACE -o fit.json [--force] [--seed N] [--threads N] [--max-range-share X]
//
// Bad input (unreadable, corrupt or empty trace, bad option, existing output without --force):
// one error line, exit 2, no file written.  The file is written whole or not at all.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>

#include <cstdint>
#include <string>

#include "cli/common.hpp"

namespace allocstress {

// Where `fit --evaluate` writes, beside the fit file FIT.json.
struct EvaluationFiles {
  std::filesystem::path replay, fitted, comparison_md, comparison_json;  // FIT-replay.json ...
};
EvaluationFiles evaluation_files(const std::filesystem::path& fit_file);

struct FitCommand {
  CLI::App* cmd = nullptr;
  std::string trace_path;
  std::string out;
  bool force = false;
  std::uint64_t seed = 1;
  unsigned threads = 0;
  double max_range_share = 0.01;
  // --evaluate: replay the trace and run the fitted workload on the same allocators, then compare.
  bool evaluate = false;
  std::string allocators, manifest, access = "write_read";
  unsigned reps = 3;
  void add_to(CLI::App& app);
  int execute();

 private:
  int run_evaluation(const EvaluationFiles& files) const;
};

}  // namespace allocstress
