// One cell of a matrix: which allocator runs which workload with which parameters, threads and
// placement.  A cell always runs in a fresh process (`allocstress run`); these helpers turn a
// cell into that command line and into the `params` block of its result record.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "workloads/alloc_test.hpp"
#include "workloads/cross_thread/cross_thread_params.hpp"
#include "workloads/false_sharing/false_sharing_params.hpp"
#include "workloads/lifetimes/lifetime_models.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/phases/phase_params.hpp"
#include "workloads/structures/structure_params.hpp"
#include "platform/topology.hpp"

namespace allocstress {

inline constexpr const char* kAllocTestWorkload = "alloc-test";
inline constexpr const char* kReplayWorkload = "replay";
// (kFittedWorkload = "fitted" is in workloads/lifetime_params.hpp.)

// Workloads whose cost is net of the void baseline (the others cannot run on void).
bool has_void_baseline(const std::string& workload);
// Workloads that draw block sizes from `--sizes` (AllocTestParams.sizes, max_size_exp), with
// iterations per thread and a memory access mode: alloc-test, xthread, larson, lifetime, phase-*.
bool draws_sizes(const std::string& workload);
// Workloads with alloc-test's slot arrays (`--slots`): alloc-test, xthread, larson.
bool uses_slots(const std::string& workload);

// A replay cell (workloads/replay_loop.hpp): which trace, and how.
struct ReplaySpec {
  std::string trace;                        // the trace file
  std::string program;                      // (internal) a replay program built from it beforehand; "" = build here
  MemoryAccess access = MemoryAccess::none;  // the trace does not say what the program touched
  std::uint64_t allocstats_every = 0;       // allocstats row every K ops of a thread; 0 = about 200 rows
};

// A profile run of an alloc-test cell (profile_run.hpp): the outer `run --profile` process
// fingerprints the allocator, then runs the cell twice: pass "sample" (latency histograms,
// counters, memory breakdown) and pass "syscalls" (under strace).  The passes get the bounds.
struct ProfileSpec {
  std::uint64_t sample_every = 64;     // 1 in N operations is timed
  std::string pass;                    // "" (outer), "sample" or "syscalls"
  std::uint64_t small_limit = 1024;    // sizes below are "small" (from the fingerprint)
  std::uint64_t large_from = 0;        // sizes from here are "large"; 0 = none
};

// params.threads and params.seed apply to every workload; the rest of `params` to the workloads
// that draw sizes (alloc-test, xthread, larson, lifetime, phase-*), `structure` only to bintree,
// linkedlist and multilist, `replay` only to replay (whose thread count is the trace's),
// `cross_thread` to xthread and larson, `lifetime` to lifetime, `phases` to phase-*,
// `false_sharing` to false-sharing-*.
struct CellSpec {
  std::string allocator;     // a catalogue name
  std::string user_library;  // non-empty: the allocator came from --allocator NAME=PATH
  std::string workload = kAllocTestWorkload;
  AllocTestParams params;
  PlacementRequest placement;
  StructureParams structure;
  ReplaySpec replay;
  std::string fit;           // fitted: the fit file (allocstress fit); params.access and params.seed apply
  CrossThreadSpec cross_thread;
  LifetimeModelSpec lifetime;
  PhaseSpec phases;
  FalseSharingSpec false_sharing;
  bool cache_sim = false;    // a simulated-cache run under callgrind instead of a timing run
  bool profile = false;      // a profile run (alloc-test) instead of a timing run
  ProfileSpec profile_spec;

  std::string mode() const { return cache_sim ? "simulate" : profile ? "profile" : "timing"; }
};

// The workloads `run` and `matrix` accept, in the order the CLI lists them.
const std::vector<std::string>& workload_names();

// Arguments after `allocstress run` that reproduce this cell.
std::vector<std::string> run_arguments(const CellSpec& cell);

// {"slots_total":…, "slots_per_thread":…, "max_size_exp":…, "iterations_per_thread":…,
//  "memory_access":…, "seed":…}
nlohmann::json params_json(const AllocTestParams& params);

// {"nodes":…, "node_size":…, "searches":…, "interleave":…, "churn_percent":…, "hints":…}
// plus "heads" and "zipf" for multilist.
nlohmann::json structure_params_json(const std::string& workload, const StructureParams& params);

// The `params` block of a cell's record: the workload's own parameters, with seed.
nlohmann::json cell_params_json(const CellSpec& cell);

}  // namespace allocstress
