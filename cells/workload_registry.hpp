// The workload registry: one entry per workload, the twin of allocators/in_tree_registry.hpp.
// An entry says everything the layers above need to know about a workload -- its name and family,
// whether its cost is net of the void baseline, its options and parameters (JSON, as a cell
// carries them), which allocators it refuses and why, how a cell of it runs, and the metrics its
// records carry -- so that no code above names a workload in an if-chain.
//
// Each entry is defined in its cell file (`*_cell.cpp`) next to the code that measures it, and
// listed once in workload_registry.cpp.  Adding a workload: docs/architecture.md.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocators/allocator_catalog.hpp"
#include "cells/cell.hpp"
#include "cells/metrics/metric.hpp"
#include "cells/workload_options.hpp"
#include "platform/topology.hpp"
#include "workloads/alloc_test.hpp"

namespace allocstress {

// How the Markdown summary lays out a workload's rows (results/tables/results_table.hpp).
enum class TableKind {
  net_cost,       // cost per malloc/free pair net of the void baseline, overhead, speed vs system
  structure,      // raw build and search cycles, placement utilisation (no baseline)
  false_sharing,  // shared lines and the write slowdown against private objects (no baseline)
  program,        // a real program's wall, user and system time, peak RSS and faults, speed vs system (no baseline)
};

// Defaults a workload's inputs give: the thread count of a trace (fixed: the cell must use it),
// the threads and seed of a fit file (used unless --threads / --seed are given).
struct InputDefaults {
  std::optional<unsigned> threads;
  bool threads_fixed = false;
  std::optional<std::uint64_t> seed;
  std::string_view threads_reason;  // threads_fixed: why (messages); "" = the entry's runs_alone
};

struct WorkloadEntry {
  std::string_view name;     // "alloc-test": the name on the command line and in every record
  std::string_view family;   // workloads that share a model and a cell file ("structures", ...)
  std::string_view summary;  // one line: what it models
  // The net-cost workloads (most) leave the next three as they are: cost net of the void baseline,
  // the net-cost table.  The others say false, why void cannot run them, and their table.
  bool void_baseline = true;        // its cost is net of the void baseline; otherwise void is refused
  std::string_view void_refusal;    // !void_baseline: why void cannot run it
  TableKind table = TableKind::net_cost;
  std::vector<const WorkloadOption*> options;
  std::vector<const Metric*> metrics;

  // Its parameters before any option: from the preset's alloc-test sizes where it draws sizes.
  nlohmann::json (*defaults)(const AllocTestParams& preset);
  // pre: params has the fields defaults() gives.  Decodes and validates them for `threads`
  // workers; throws std::invalid_argument naming the bad value and what is accepted.
  void (*check)(const nlohmann::json& params, unsigned threads);
  // One line for a table's heading: what the parameters mean ("65536 slots, sizes p~1/size, ...").
  std::string (*describe)(const nlohmann::json& params);
  // Measures one cell in this process: cells/measured_phase.hpp, the record of cell_record.hpp
  // plus the workload's own fields.  pre: check(cell.params, cell.threads) passed;
  // pus.size() == cell.threads; the allocator is not refused.
  nlohmann::json (*run)(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus);

  // Optional parts.
  // The record's `params` block (default: the parameters themselves).
  nlohmann::json (*record_params)(const nlohmann::json& params, unsigned threads) = nullptr;
  // Why `allocator` cannot run these parameters at up to `threads` workers, or "" (void aside).
  std::string (*refusal)(const AllocatorSpec& allocator, const nlohmann::json& params, unsigned threads) = nullptr;
  // Files derived from the parameters that a cell needs before it runs, built into `folder`
  // (never inside a measured process: the planner's process or a forked child of run/); returns
  // the cell's `inputs`.  Throws std::invalid_argument when the parameters' files are bad.
  nlohmann::json (*prepare)(const nlohmann::json& params, const std::filesystem::path& folder) = nullptr;
  // Defaults its inputs give (inputs may be {} before prepare ran).
  InputDefaults (*input_defaults)(const nlohmann::json& params, const nlohmann::json& inputs) = nullptr;
  // The parameters an instance's label sets (fleet-profile:3 -> {"fleet_profile": 3}), applied
  // over the defaults and before the options (an option that contradicts the label is refused).
  // Throws std::invalid_argument naming the labels accepted.  nullptr: labels only name instances.
  nlohmann::json (*label_params)(std::string_view label) = nullptr;
  std::string_view runs_alone;     // non-empty: it cannot share a matrix with other workloads, because ...
  bool simulates_caches = false;   // `--cache-sim` runs it under callgrind's cache simulator
  bool profiles = false;           // `--profile` runs it as a profile run
  bool counts = false;             // `--counts` counts its measured phase under callgrind at 1 thread
  // ... and at N threads, per worker: its workers wait for each other only in spells the counts
  // leave out (cross_thread.hpp's WaitMeter), so what is counted is work, not spinning.  valgrind
  // runs the workers one at a time; their interleaving, and so the allocator's paths, can still
  // vary a little between runs (near-exact, not identical as at 1 thread).
  bool counts_threads = false;
  // Its run() counts in counts mode itself (a real program: callgrind wraps the program, not this
  // cell process), so run/ does not re-run the cell under callgrind.
  bool counts_in_cell = false;
  // A parameter that `--counts-iterations` may lower for the counts cell because the op stream
  // with less of it is a prefix of the whole one ("iterations_per_thread"), or "": the counts
  // cell runs the full parameters.
  std::string_view counts_prefix;
  // `--age SPEC` runs it on an aged heap (workloads/heap_ageing.hpp): each of its workers builds an
  // AgedHeap through its own allocator in setup() and releases it in release(), and the record
  // carries the ageing block (cell mode aged).
  bool ages = false;
  // `--soak DURATION` runs it for that long (cells/modes/soak.hpp): a steady state its workers continue
  // in soak rounds (`bool soak_round()`, measured_phase.hpp) until the time is up (cell mode soak).
  bool soaks = false;
  std::vector<std::string_view> companions;  // workloads the matrix runs beside it ...
  std::string_view companion_reason;         // ... because
};

// Every workload, in the order help texts and error messages list them.
const std::vector<const WorkloadEntry*>& workload_registry();
// A workload instance is named BASE or BASE:LABEL ("replay:prog-python3"): the registry entry is
// BASE's, and the label tells instances of one workload apart within a matrix (each with its own
// parameters: the traces of several programs, say).  Records carry the whole name in `workload`,
// and tables, verdicts and plots group by it.  A label is 1..64 of [A-Za-z0-9._-].
std::string_view workload_base_name(std::string_view name);
std::string_view workload_label(std::string_view name);  // "" without one
bool valid_workload_label(std::string_view label);
// The entry of `name` (BASE or BASE:LABEL with a valid label), or nullptr.  A declared program
// workload (cells/programs/program_workloads.hpp) resolves to the registry's `program` entry.
const WorkloadEntry* find_workload(std::string_view name);
// The registry entry named `name` itself (no label, no program names), or nullptr.
const WorkloadEntry* registry_workload(std::string_view name);
// Whether `name` is a program workload (its entry is `program`; its cells carry a definition).
bool is_program_workload(std::string_view name);
// The entry of `name`; throws std::invalid_argument "unknown workload 'x' (accepted: ...)" or,
// for a known BASE with a bad label, "bad workload label ...".
const WorkloadEntry& workload_entry(std::string_view name);
// [{"name", "family", "summary", "void_baseline", "void_refusal", "table", "simulates_caches",
//   "profiles", "counts", "runs_alone", "companions", "companion_reason", "options", "metrics"}] for the
// Python package and `allocstress workloads --json`.
nlohmann::json workload_registry_json();
// The names --workload accepts: the registry's (but `program`, reached by a program's name), then
// the declared program workloads.
std::vector<std::string> workload_names();
// "alloc-test, bintree, ..." for messages and help.
std::string workload_names_text();
// "bintree, linkedlist and multilist": the workloads with a capability (&WorkloadEntry::ages, ...).
std::string names_with(bool WorkloadEntry::*capability);
// The metric `entry`'s allocators are ranked by (the one its metrics mark headline), or nullptr.
const Metric* headline_metric(const WorkloadEntry& entry);
// The metric `entry`'s allocators are ranked by for memory (marked memory_headline), or nullptr.
const Metric* memory_headline_metric(const WorkloadEntry& entry);
// Whether `entry` takes `flag`.
bool takes_option(const WorkloadEntry& entry, std::string_view flag);

// Why `allocator` cannot run a cell of `entry` with these parameters, or "": void without a void
// baseline, then the entry's own refusal (e.g. bump's memory budget).
std::string refusal_reason(const WorkloadEntry& entry, const AllocatorSpec& allocator, const nlohmann::json& params, unsigned threads);

// The record's `params` block of a cell.
nlohmann::json record_params(const Cell& cell);

// Everything a cell must satisfy before it runs on `allocator`: a known workload, parameters
// its entry accepts for cell.threads (unless 0: fixed later by its inputs), an allocator it does
// not refuse, a mode it supports (and a drop-in allocator and a sampling rate for profile runs).
// Throws UsageError (platform/errors.hpp) with one line naming what is wrong.
void check_cell(const Cell& cell, const AllocatorSpec& allocator);

// Runs the cell in this process (entry.run).  pre: check_cell passed, cell.threads > 0.
nlohmann::json run_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus);

}  // namespace allocstress
