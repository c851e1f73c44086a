// `allocstress run`: one cell in this process, printed as one JSON record on stdout.  The cell
// comes from flags (built through the workload registry, as a person types it) or from a cell
// file (`--cell FILE|-`, the encoding every backend hands to a cell process: plan/cell_encoding.hpp);
// either way run/cell_process.hpp measures it.
#include <cstdlib>
#include <iostream>

#include "allocators/allocator_catalog.hpp"
#include "cells/workload_registry.hpp"
#include "cli/commands.hpp"
#include "cli/name_checks.hpp"
#include "plan/cell_check.hpp"
#include "plan/cell_encoding.hpp"
#include "plan/presets.hpp"
#include "plan/thread_list.hpp"
#include "plan/workload_params.hpp"
#include "platform/memory/thp_mode.hpp"
#include "run/cell_process.hpp"

namespace allocstress {

namespace {

// A thp cell runs under its mode, which `run` does not set (it may re-execute itself, and a
// changed system mode would outlive it): the system's must be it already, or, for never, this
// process switches THP off for itself and for the cell process it becomes.
void require_thp_mode(const std::string& wanted) {
  ThpMode mode;
  try {
    mode = parse_thp_mode(wanted);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--thp: ") + e.what());
  }
  if (mode == ThpMode::never) {
    setenv(kThpDisableVariable, "1", 1);
    return;
  }
  std::string why_not;
  const std::optional<ThpMode> system = system_thp_mode(&why_not);
  if (!system) throw UsageError("--thp " + wanted + " needs transparent huge pages, and this kernel has none: " + why_not);
  if (*system != mode)
    throw UsageError("--thp " + wanted + ": the system's THP mode is " + std::string(to_string(*system)) +
                     " and `run` does not change it (accepted: the system's mode, or never; `allocstress matrix --thp` sets it for its cells, "
                     "or write the mode to /sys/kernel/mm/transparent_hugepage/enabled first)");
}

// The cell the flags describe.
Cell cell_from_flags(const RunCommand& r) {
  if (r.allocator.empty()) throw UsageError("--allocator is required (or --cell FILE): name an allocator of `allocstress list`");
  Cell cell;
  const auto eq = r.allocator.find('=');
  cell.allocator = r.allocator.substr(0, eq);
  if (eq != std::string::npos) cell.allocator_library = r.allocator.substr(eq + 1);
  cell.manifest = r.manifest;
  const std::vector<ProgramDefinition> programs = r.workload.programs();  // before the names: they may name its programs
  check_workload_names(r.workload.workload);
  cell.workload = selected_workloads(r.workload.workload, false).front();
  const WorkloadEntry& entry = workload_entry(cell.workload);
  OptionValues given = r.workload.given();
  for (const auto& w : resolve_deprecated_options({cell.workload}, given)) std::cerr << "allocstress: warning: " << w << "\n";
  check_option_scope({cell.workload}, given);
  cell.params = workload_params(cell.workload, find_preset("quick").params, given, programs);
  try {
    cell.placement.policy = parse_placement(r.workload.placement);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  cell.placement.reserve_os_pu = r.workload.reserve_os_pu;
  cell.placement.oversubscribe = r.workload.oversubscribe;
  if (!r.threads.empty()) {
    const auto counts = parse_thread_list(r.threads);
    if (counts.size() != 1) throw UsageError("run takes one thread count, got '" + r.threads + "' (accepted: e.g. --threads 2)");
    cell.threads = counts[0];
  } else if (entry.input_defaults != nullptr) {
    InputDefaults d;
    try {
      d = entry.input_defaults(cell.params, nlohmann::json::object());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    cell.threads = d.threads.value_or(entry.prepare != nullptr ? 0 : 1);  // 0: the prepared inputs say
  }
  if (int(r.cache_sim) + int(r.profile) + int(r.counts) + int(!r.age.empty()) + int(!r.thp_mode.empty()) + int(!r.soak.empty()) > 1)
    throw UsageError("--profile, --cache-sim, --counts, --age, --thp and --soak are separate runs: pass one of them");
  if (!r.profile && r.cmd->count("--sample-every") > 0) throw UsageError("--sample-every applies to --profile runs only");
  if (!r.counts && r.cmd->count("--counts-iterations") > 0) throw UsageError("--counts-iterations applies to --counts runs only");
  cell.mode = r.cache_sim ? CellMode::simulate
              : r.profile ? CellMode::profile
              : r.counts  ? CellMode::counts
              : !r.age.empty() ? CellMode::aged
              : !r.thp_mode.empty() ? CellMode::thp
              : !r.soak.empty() ? CellMode::soak
                                    : CellMode::timing;
  cell.age = r.age;
  cell.thp_mode = r.thp_mode;
  cell.soak = r.soak;
  cell.profile.sample_every = r.sample_every;
  if (r.counts && r.counts_iterations == 0) throw UsageError("--counts-iterations must be at least 1, got 0");
  if (r.counts) cell.params = counts_params(entry, cell.params, r.counts_iterations);
  return cell;
}

}  // namespace

void RunCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("run", "Measure one cell in this process (re-executed once with the allocator's LD_PRELOAD; --cache-sim, --counts and --profile run it in child processes) and print its JSON record");
  cmd->add_option("--allocator", allocator, "Allocator name, or NAME=/path/lib.so (a drop-in library not in the manifest)")->group("General");
  cmd->add_option("--threads", threads, "Worker threads (default 1; replay: the trace's; fitted: the fit file's)")->group("General");
  cmd->add_option("--cell", cell_file,
                  "Run this cell: a JSON file (or - for standard input) as `matrix --plan-only` lists cells; no other option applies")
      ->group("General");
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)")->group("General");
  cmd->add_flag("--verify-only", verify_only, "Only check that malloc resolves into the allocator's library")->group("General");
  workload.add_to(*cmd, workload_registry(), true);
  cmd->add_flag("--cache-sim", cache_sim, "Simulate the search phase's L1/LL misses under callgrind (data structures; slow, deterministic)")
      ->group("Modes");
  cmd->add_flag("--profile", profile,
                "A profile run of alloc-test on a drop-in allocator (latency by class, memory syscalls, memory breakdown, counters)")
      ->group("Modes");
  cmd->add_option("--sample-every", sample_every, "--profile: time 1 in N operations (default 64)")->check(kWholeNumber)->group("Modes");
  cmd->add_flag("--counts", counts,
                "Count the measured phase's instructions and simulated cache misses under callgrind (1 thread; deterministic)")
      ->group("Modes");
  cmd->add_option("--counts-iterations", counts_iterations,
                  "--counts: at most N iterations per thread (alloc-test, xthread: a prefix of the op stream; default 1000000)")
      ->check(kWholeNumber)
      ->group("Modes");
  cmd->add_option("--age", age,
                  "Run on an aged heap: SPEC = HEAP[,keep=F][,sizes=MIN..MAX][,pattern=spread|random][,seed=N], e.g. 64M,keep=0.25 "
                  "(alloc-test, fleet-profile; docs/memory.md)")
      ->group("Modes");
  cmd->add_option("--thp", thp_mode,
                  "A thp cell: run under this THP mode (never, madvise, always), which must be the system's (never: this process "
                  "switches THP off for itself); `matrix --thp` sets the system's mode for its cells")
      ->group("Modes");
  cmd->add_option("--soak", soak,
                  "A soak cell: the measured phase lasts DURATION[,every=BIN] (e.g. 1h, or 2m,every=10s; alloc-test, lifetime, "
                  "fleet-profile, phase-plateau, replay in a loop): RSS and hugepage coverage per bin (default 1m) and their drift per hour (docs/memory.md)")
      ->group("Modes");
  workload.add_placement_to(*cmd);
  workload.add_deprecated_to(*cmd);
}

int RunCommand::execute() {
  CellChecker checker;  // the checks `matrix --plan` gives every cell of a plan file
  CheckedCell checked;
  if (!cell_file.empty()) {
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() > 0 && o->get_name() != "--cell" && o->get_name() != "--verify-only")
        throw UsageError("--cell runs the cell file as it is; drop " + o->get_name());
    const CellJson file = read_cell_json(cell_file);
    checked = checker.check(file.json, file.where);
  } else {
    Cell cell = cell_from_flags(*this);
    const std::vector<std::string> added =
        cell.allocator_library.empty() ? std::vector<std::string>{} : std::vector{cell.allocator + "=" + cell.allocator_library};
    cell.resolved = with_installed_version(load_catalog(cell.manifest, added).find_or_suggest(cell.allocator));  // resolved once, as the planner does: a re-executed cell carries it
    checked = checker.check(cell);
  }
  if (checked.cell.mode == CellMode::thp) require_thp_mode(checked.cell.thp_mode);
  return run_cell_process(checked.cell, checked.allocator, verify_only);
}

}  // namespace allocstress
