// Pieces shared by the CLI commands: the options that describe a workload, catalogue loading
// and output-file checks.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell_spec.hpp"
#include "plan/thread_list.hpp"
#include "platform/errors.hpp"
#include "results/record_printing.hpp"

namespace allocstress {

// Accepts only unsigned decimal numbers (no sign, no exponent).
extern const CLI::Validator kWholeNumber;

// Options shared by `run` and `matrix`.  Fields hold the values given on the command line;
// `given()` tells which were given, so presets can fill the rest.
struct WorkloadOptions {
  std::string workload = kAllocTestWorkload;  // `matrix` accepts a comma-separated list
  std::uint64_t slots = 0, iterations = 0, seed = 0;
  unsigned max_size_exp = 0;
  std::string access, placement = "compact";
  std::uint64_t nodes = 0, node_size = 0, searches = 0, heads = 0;
  unsigned interleave = 0, churn = 0;
  double zipf = 0;
  bool hints = false;
  std::string trace, replay_program, fit;
  std::uint64_t allocstats_every = 0;
  std::string sizes, lifetime, drop_order;
  double remote_share = 0, drop_share = 0;  // percent
  std::uint64_t queue_capacity = 0, rounds = 0, live_bytes = 0, peaks = 0, pause_ms = 0, object_size = 0, objects = 0, writes = 0;
  bool reserve_os_pu = false, oversubscribe = false;
  std::string manifest;
  std::vector<CLI::Option*> tracked;

  void add_to(CLI::App& app);
  bool given(const std::string& long_name) const;
};

// The workloads named by --workload, checked against workload_names(); a list only when
// `allow_list`.  Also rejects options that apply to none of them.  Throws UsageError.
std::vector<std::string> selected_workloads(const WorkloadOptions& options, bool allow_list);

// The structure parameters of `workload`: its defaults, overridden by the options given; validated.
StructureParams structure_params_for(const WorkloadOptions& options, const std::string& workload);

// The catalogue from --manifest (or the default), plus NAME=PATH user allocators.
// Errors from either become UsageError.
AllocatorCatalog load_catalog(const std::string& manifest_option, const std::vector<std::string>& user_libraries);

// A profile request is for alloc-test on a drop-in allocator, with a sampling rate >= 1, a known
// pass, and strace installed; throws UsageError naming what is wrong.
void check_profile_request(const CellSpec& cell, const AllocatorSpec& allocator, bool cache_sim);

// A file a command is about to write: it must end in .json, its folder must exist and be
// writable, and it must not exist unless `force`.  Throws UsageError.
void check_new_output_file(const std::filesystem::path& path, bool force);

// Overrides params fields with the options that were given; validates; throws UsageError.
void apply_workload_options(const WorkloadOptions& options, AllocTestParams& params, PlacementRequest& placement);

// The options of the workloads beyond the 2018 model (--remote-share, --queue-capacity, --rounds,
// --lifetime, --live-bytes, --drop-share, --peaks, --drop-pause-ms, --object-size, --objects,
// --writes) over the specs' defaults, validated; throws UsageError.
void apply_model_options(const WorkloadOptions& options, CrossThreadSpec& cross_thread, LifetimeModelSpec& lifetime, PhaseSpec& phases,
                         FalseSharingSpec& false_sharing);

// Checks a cell of a workload that draws sizes: its AllocTestParams (at params.threads), larson's
// rounds against its iterations, the lifetime model against the run's length, a phase workload's
// operation budget; throws UsageError.
void validate_sized_workload(const CellSpec& cell);

// The replay options (--trace, --access, --allocstats-every): the trace must be a readable file
// (made absolute); throws UsageError.
ReplaySpec replay_spec_for(const WorkloadOptions& options);

// The fit file of --fit (made absolute in `path`), loaded and validated; throws UsageError.
FitConfig load_fit_option(const WorkloadOptions& options, std::string& path);

}  // namespace allocstress
