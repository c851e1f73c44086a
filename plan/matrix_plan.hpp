// The plan of a matrix: which workloads with which parameters, which allocators (and which are
// skipped, and why), which thread counts, how many repetitions.  The plan expands into cells in
// the order they run: repetition-major, so every allocator's repetitions are interleaved in time
// with every other's (slow drift of the machine hits all allocators alike).  The plan is stored
// at the head of the journal so that `--resume` continues exactly the same matrix, in the plan
// file (plan_file.hpp), and in the results' `context.plan`.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"

namespace allocstress {

// The default of `--counts-iterations`: 1e6 alloc-test iterations take about 3 s under callgrind
// per allocator on a 2-core VM (bench/README.md), so the quick preset can afford the counts tier.
inline constexpr std::uint64_t kDefaultCountsIterations = 1'000'000;

struct MatrixCell {
  // "<workload>/<allocator>/threads:<n>/rep:<r>", ".../cache-sim" for a simulated-cache cell,
  // ".../profile" for a profile cell or ".../counts" for a counts cell: unique within a plan.
  std::string key;
  Cell cell;
  unsigned repetition = 0;
};

struct ExcludedAllocator {
  AllocatorSpec spec;
  std::string status;  // "skipped" (not installed) or "failed" (preload verification failed)
  std::string reason;
};

// A (workload, allocator) combination that does not run, and why (e.g. void cannot hold a tree).
struct SkippedPair {
  std::string workload, allocator, reason;
};

struct MatrixPlan {
  std::string preset;
  std::string manifest;  // the catalogue the cells are run against
  std::vector<std::string> workloads = {"alloc-test"};
  std::map<std::string, nlohmann::json> params;  // per workload: its parameters (every cell of it gets them)
  std::map<std::string, nlohmann::json> inputs;  // per workload: the inputs prepared from them, if any
  nlohmann::json preset_params = nlohmann::json::object();  // the preset's sizes with the options given (context.plan.params)
  PlacementPolicy placement;
  std::vector<unsigned> thread_counts;
  unsigned repetitions = 5;
  double cell_timeout_s = 120;
  std::vector<AllocatorSpec> allocators;  // the ones that run, void first
  std::vector<ExcludedAllocator> excluded;
  std::vector<SkippedPair> skipped;
  bool cache_sim = false;  // add one simulated-cache cell per workload that simulates caches x allocator x threads
  bool profile = false;    // add one profile cell per workload that profiles x drop-in allocator x threads
  std::uint64_t sample_every = 64;
  // The counts tier: one counts cell per workload that counts x allocator at 1 thread (if the
  // matrix has 1 thread; at every thread count for the workloads that count per worker, see
  // WorkloadEntry::counts_threads), at most counts_iterations iterations (workload_params.hpp);
  // workloads that simulate caches get their 1-thread simulated-cache cell instead.
  bool counts = false;
  std::uint64_t counts_iterations = kDefaultCountsIterations;
  // ... for real programs (not servers) only when --counts asked for it: the whole program runs
  // under callgrind, some 50 times its run time.
  bool program_counts = false;
  // Adaptive repetitions (local backend, run/adaptive_repetitions.hpp): after the planned cells,
  // more interleaved repetitions of the timing cells whose interval's half-width is still above
  // target_ci (a fraction of the median; 0 = off) until time_budget_s of the whole run (0 = no
  // budget; the rounds then stop at kMaxAdaptiveRepetitions).
  double target_ci = 0;
  double time_budget_s = 0;
  // Program workloads (the local backend): this many unmeasured runs of every (program workload,
  // allocator) before the measured ones, interleaved; the first is the verification run
  // (cells/programs/program_cell.cpp: the counting probe, the reference output of system first).
  unsigned warmup_runs = 0;
  // Each repetition's cells in a shuffled order (seeded by the repetition: the same plan shuffles
  // alike), not allocator by allocator: what ran just before a process is noise, not a bias.
  bool randomised_order = false;
  // --memory-limit (plan/memory_limit_spec.hpp): "" = none; else one limited cell per workload x
  // allocator (void aside) x thread count, after the timing cells and before the counts tier.
  std::string memory_limit;
  // --thp MODE[,MODE...] (platform/memory/thp_mode.hpp): "" = the system's mode as it is; else the
  // runner sets the system's THP mode (root) for each cell and restores it when the run ends, or,
  // for `never` without root, each cell process switches THP off for itself (prctl).  The timing
  // cells run under the first mode; thp_variants are the other modes: a thp cell under each
  // (CellMode::thp, key ".../thp:MODE/rep:R") beside every timing cell, in every repetition.
  // Every record says the mode it ran under.
  std::string thp_mode;
  std::vector<std::string> thp_variants;
  // The THP mode `cell` runs under ("" = the system's as it is).
  const std::string& thp_mode_of(const Cell& cell) const { return cell.mode == CellMode::thp ? cell.thp_mode : thp_mode; }
  // --age SPEC (workloads/heap_ageing.hpp): "" = none; else beside each timing cell of the
  // workloads that age (WorkloadEntry::ages), void aside, in every repetition and shuffled with
  // them: an aged cell (key ".../aged/rep:R") and its control, the same ageing with every block
  // freed (".../aged:warmed/rep:R").
  std::string age;
  // --soak SPEC (cells/modes/soak.hpp): "" = none; else a soak cell per allocator (void aside), workload
  // that soaks (WorkloadEntry::soaks) and thread count, once, after the limited cells (key
  // ".../soak"); its process may run cell_timeout_s beyond the soak's duration.
  std::string soak;
  // --misuse: after the cells, the misuse battery under every drop-in of the plan (run/misuse_battery.hpp),
  // its results in the results file's `safety` section.
  bool misuse = false;

  // The cells that run: repetition-major timing cells (with the aged cells), then the limited cells, then the counts
  // tier, then the simulated-cache cells, then the profile cells.
  std::vector<MatrixCell> cells() const;
  // The warm-up runs, round by round (see warmup_runs): keys ".../warmup:R"; system first in round 0.
  std::vector<MatrixCell> warmup_cells() const;
  // The timing cell of repetition `repetition` (which may lie beyond `repetitions`: adaptive rounds).
  MatrixCell timing_cell(const std::string& workload, const AllocatorSpec& allocator, unsigned threads, unsigned repetition) const;
  // Timing cells of skipped pairs (recorded as "skipped" with the reason, never run).
  std::vector<MatrixCell> skipped_cells() const;
  const SkippedPair* skipped_pair(const std::string& workload, const std::string& allocator) const;
  nlohmann::json to_json() const;
  // Throws std::runtime_error when the JSON is not a plan written by to_json().
  static MatrixPlan from_json(const nlohmann::json& j);
};

}  // namespace allocstress
