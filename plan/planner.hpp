// The planner: what a user asked for (workloads, options, allocators, threads, repetitions) in,
// a checked MatrixPlan out.  `matrix`, `replay`, `fit --evaluate` and the Slurm submission call
// it; it writes nothing but the inputs its workloads prepare (the replay program), into the folder
// the caller names, and starts no process itself: the caller passes the preload check.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "allocators/safety/conformance.hpp"
#include "cells/workload_options.hpp"
#include "plan/matrix_plan.hpp"
#include "platform/topology.hpp"
#include "workloads/programs/program_definition.hpp"

namespace allocstress {

struct PlanRequest {
  std::string preset = "quick";
  std::string workloads = "alloc-test";     // --workload: one name or a comma-separated list
  OptionValues options;                      // the workload options given (cli/workload_flags.hpp)
  std::string allocators;                    // --allocators: comma-separated names or `all` ("" = the catalogue but its configurations)
  std::vector<std::string> added_libraries;  // --add-allocator NAME=PATH[,VAR=VALUE...]
  std::string manifest;                      // "" = the default catalogue
  std::string threads;                       // --threads ("" = 1..usable PUs, or the workload's inputs)
  std::optional<unsigned> repetitions;       // else the preset's
  std::optional<double> cell_timeout_s;      // else the preset's
  std::string placement = "compact";
  bool reserve_os_pu = false, oversubscribe = false;
  bool cache_sim = false, profile = false;
  std::optional<std::uint64_t> sample_every;  // --profile only
  std::optional<bool> counts;                 // --counts / --no-counts; else the preset's (if valgrind is there)
  std::optional<std::uint64_t> counts_iterations;
  std::optional<double> target_ci;      // --target-ci PCT / 100; else the preset's when --reps is not given
  std::optional<double> time_budget_s;  // --time-budget; likewise
  // Program workloads defined by the caller (a programs file, bench's command), found before the
  // shipped programs file's.
  std::vector<ProgramDefinition> programs;
  // Unmeasured runs per (program workload, allocator) first: MatrixPlan::warmup_runs; default 1
  // (the verification run) when the matrix has a program workload.
  std::optional<unsigned> warmup_runs;
  bool randomised_order = false;   // MatrixPlan::randomised_order
  std::string memory_limit;        // --memory-limit SPEC (plan/memory_limit_spec.hpp); "" = none
  std::string thp_mode;            // --thp MODE (MatrixPlan::thp_mode); "" = leave the system's
  std::string age;                 // --age SPEC (MatrixPlan::age); "" = fresh heaps only
  std::string soak;                // --soak SPEC (MatrixPlan::soak); "" = no soak cells
  bool misuse = false;             // --misuse (MatrixPlan::misuse)
};

struct PlanServices {
  const Topology& topology;
  // The drop-in's checks in fresh processes within timeout_s each: `failure` unless malloc resolves
  // into its library, `nonconforming` unless it keeps malloc's contract (run/preflight.hpp).
  std::function<DropInPreflight(const AllocatorSpec& allocator, double timeout_s)> preload_check;
  std::filesystem::path inputs_folder;        // where workloads prepare their inputs
  std::function<void(const std::string&)> note = [](const std::string&) {};  // one line for the user
};

// Throws UsageError (platform/errors.hpp) naming the first thing wrong; a plan it returns has at
// least one cell, and every cell passes check_cell.
MatrixPlan plan_matrix(const PlanRequest& request, const PlanServices& services);

// Prepares the inputs of every workload of `plan` that has some, into `folder` (a resumed plan's
// temporary inputs are gone).  Throws UsageError when they are bad or now give another thread
// count than the plan's (the trace changed).
void prepare_plan_inputs(MatrixPlan& plan, const std::filesystem::path& folder);

// The thread count of `cell` that its inputs fix (replay: the trace's), checked against the one
// asked for (0 = none asked).  Throws UsageError when they differ.
unsigned threads_from_inputs(const Cell& cell, unsigned asked);

}  // namespace allocstress
