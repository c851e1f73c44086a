// From a request to a plan (see planner.hpp): the steps of `allocstress matrix` before any cell runs.
#include "plan/planner.hpp"

#include <algorithm>

#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/programs/program_workloads.hpp"
#include "cells/record_identity.hpp"
#include "cells/workload_registry.hpp"
#include "plan/memory_limit_spec.hpp"
#include "plan/presets.hpp"
#include "plan/thread_list.hpp"
#include "plan/workload_params.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/comma_list.hpp"
#include "platform/memory/memory_cgroup.hpp"
#include "platform/memory/thp_mode.hpp"
#include "cells/modes/soak.hpp"
#include "workloads/heap_ageing.hpp"
#include "platform/errors.hpp"

namespace allocstress {

namespace {

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out = comma_separated(text);
  if (out.empty()) throw UsageError("--allocators '" + text + "' names no allocator (accepted: comma-separated names)");
  return out;
}

// The workloads asked for, with the companions they need (xthread: alloc-test) put first.
std::vector<std::string> planned_workloads(const PlanRequest& r, const PlanServices& s) {
  std::vector<std::string> workloads = selected_workloads(r.workloads, true);
  for (const std::string& w : std::vector<std::string>(workloads))
    for (std::string_view companion : workload_entry(w).companions)
      if (std::find(workloads.begin(), workloads.end(), companion) == workloads.end()) {
        workloads.insert(workloads.begin(), std::string(companion));
        s.note("note: " + std::string(companion) + " added with the same parameters: " + std::string(workload_entry(w).companion_reason));
      }
  return workloads;
}

// Each workload's parameters, prepared inputs, and the thread counts they fix or suggest.
void plan_params(MatrixPlan& plan, const Preset& preset, OptionValues options, const std::vector<ProgramDefinition>& programs,
                 const PlanServices& s) {
  for (const auto& w : resolve_deprecated_options(plan.workloads, options)) s.note("warning: " + w);
  check_option_scope(plan.workloads, options);
  for (const auto& w : plan.workloads) plan.params[w] = workload_params(w, preset.params, options, programs);
  // The preset's sizes with the options given, as context.plan.params has always shown them.
  const WorkloadEntry& sized = workload_entry("alloc-test");
  OptionValues sized_options;
  for (const auto& [flag, text] : options)
    if (takes_option(sized, flag)) sized_options[flag] = text;
  plan.preset_params = workload_params(sized, preset.params, sized_options);
  plan.preset_params["seed"] = plan.params.at(plan.workloads.front()).at("seed");
  prepare_plan_inputs(plan, s.inputs_folder);
}

// Output checks compare with system's output: it must run.
void check_program_runs(const MatrixPlan& plan) {
  for (const auto& w : plan.workloads) {
    if (!is_program_workload(w)) continue;
    const ProgramDefinition p = program_definition_from_json(plan.params.at(w).at("program"));
    if (!p.check_output) continue;
    if (plan.warmup_runs == 0)
      throw UsageError(w + ": its output check compares every allocator's output with system's verification run: it needs --warmup 1 or "
                       "more, and the local backend (a Slurm array runs no warm-up runs)");
    if (std::none_of(plan.allocators.begin(), plan.allocators.end(), [](const AllocatorSpec& a) { return a.name == kReferenceAllocator; }) ||
        plan.skipped_pair(w, kReferenceAllocator) != nullptr)
      throw UsageError(w + ": --check-output compares every allocator's output with system's: add system to --allocators");
  }
}

// The thread counts: those asked for, or those the workloads' inputs fix or suggest, or 1..usable.
std::vector<unsigned> planned_threads(const MatrixPlan& plan, const PlanRequest& r, unsigned usable) {
  for (const auto& w : plan.workloads) {
    const WorkloadEntry& e = workload_entry(w);
    if (e.input_defaults == nullptr) continue;
    const auto it = plan.inputs.find(w);
    const InputDefaults d = e.input_defaults(plan.params.at(w), it == plan.inputs.end() ? nlohmann::json::object() : it->second);
    if (d.threads && d.threads_fixed) {
      const std::string_view why = d.threads_reason.empty() ? e.runs_alone : d.threads_reason;
      if (!r.threads.empty() && parse_thread_list(r.threads) != std::vector<unsigned>{*d.threads})
        throw UsageError(w + " cannot take --threads " + r.threads + ": " + std::string(why) + " (" + std::to_string(*d.threads) +
                         "); drop --threads");
      return {*d.threads};
    }
    if (d.threads && r.threads.empty()) return {*d.threads};
  }
  if (!r.threads.empty()) return parse_thread_list(r.threads);
  std::vector<unsigned> all;
  for (unsigned t = 1; t <= usable; ++t) all.push_back(t);
  return all;
}

// Every (workload, thread count) checked, and every thread count placeable.
void check_cells(const MatrixPlan& plan, const Topology& topology) {
  for (unsigned t : plan.thread_counts) {
    try {
      topology.choose_pus({t, plan.placement});
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    for (const auto& w : plan.workloads) try {
        workload_entry(w).check(plan.params.at(w), t);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
  }
}

// The names of the allocators asked for (sorted, unique), each checked in the catalogue: the
// matrix's one check of its names, before anything else is planned.
std::vector<std::string> wanted_allocators(const AllocatorCatalog& catalog, const MatrixPlan& plan, const PlanRequest& r) {
  const bool any_baseline = std::any_of(plan.workloads.begin(), plan.workloads.end(), [](const std::string& w) { return workload_entry(w).void_baseline; });
  std::vector<std::string> wanted;
  const bool explicit_list = !r.allocators.empty();
  if (explicit_list) {
    wanted = split_names(r.allocators);
    for (const auto& name : wanted)  // in the order typed: the first mistyped name is the one named
      if (name != kAllAllocators) catalog.find_or_suggest(name, AllocatorCatalog::NameIn::kList);
    if (std::erase(wanted, std::string(kAllAllocators)) > 0)  // every allocator, configurations included
      for (const auto& a : catalog.all()) wanted.push_back(a.name);
    for (const auto& lib : r.added_libraries) wanted.push_back(lib.substr(0, lib.find('=')));
    if (std::find(wanted.begin(), wanted.end(), kBaselineAllocator) == wanted.end()) wanted.insert(wanted.begin(), kBaselineAllocator);
  } else {  // the default matrix: configurations run when named
    for (const auto& a : catalog.all())
      if (a.in_default_matrix() || a.origin == "command line") wanted.push_back(a.name);
  }
  if (!any_baseline) std::erase(wanted, std::string(kBaselineAllocator));  // the baseline only of workloads that have one
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  return wanted;
}

// The allocators that run (catalogue order, void first), those excluded and the skipped pairs.
void plan_allocators(MatrixPlan& plan, const PlanRequest& r, const AllocatorCatalog& catalog, const std::vector<std::string>& wanted,
                     const PlanServices& s) {
  plan.manifest = std::filesystem::absolute(catalog.manifest_path()).string();  // --resume may start elsewhere
  const bool explicit_list = !r.allocators.empty();
  const unsigned max_threads = *std::max_element(plan.thread_counts.begin(), plan.thread_counts.end());
  for (const auto& spec : catalog.all()) {  // catalogue order: void first
    if (std::find(wanted.begin(), wanted.end(), spec.name) == wanted.end()) continue;
    AllocatorSpec a = with_installed_version(spec);
    const bool asked = (explicit_list && r.allocators != kAllAllocators) || a.origin == "command line";
    if (!a.available()) {
      if (asked) throw UsageError("allocator '" + a.name + "' cannot run: " + a.unavailable_reason);
      plan.excluded.push_back({a, "skipped", a.unavailable_reason});
      continue;
    }
    // An allocator not named (the default set, or `all`) runs only if it can run a workload: an in-tree
    // allocator is not offered a real program (drop-ins only), nor listed as skipped for it.
    std::vector<SkippedPair> refused;
    for (const auto& w : plan.workloads)
      if (const std::string why = refusal_reason(workload_entry(w), a, plan.params.at(w), max_threads); !why.empty())
        refused.push_back({w, a.name, why});
    if (!asked && refused.size() == plan.workloads.size()) continue;
    // An allocator that crashes or hangs in its preload check is left out with the reason (the
    // caller prints plan.excluded); the others are measured.  A non-conforming one that runs is
    // measured, flagged in every record and left out of the rankings.  The checks have the cells' timeout.
    if (a.kind == AllocatorKind::drop_in) {
      const DropInPreflight check = s.preload_check(a, plan.cell_timeout_s);
      a.nonconforming = check.nonconforming;
      const std::string flag = a.nonconforming.empty() ? "" : "non-conforming: " + a.nonconforming;
      if (!check.failure.empty()) {
        plan.excluded.push_back({a, "failed", (flag.empty() ? "" : flag + "; ") + "preload check failed: " + check.failure});
        continue;
      }
    }
    plan.allocators.push_back(a);
    plan.skipped.insert(plan.skipped.end(), refused.begin(), refused.end());
  }
}

// The counts tier: asked for (--counts), refused (--no-counts) or the preset's default, which
// gives way with a note where valgrind is missing or nothing would be counted.
void plan_counts(MatrixPlan& plan, const PlanRequest& r, const Preset& preset, const PlanServices& s) {
  if (r.counts_iterations && !r.counts.value_or(preset.counts))
    throw UsageError("--counts-iterations applies to runs with the counts tier (drop --no-counts)");
  if (r.counts_iterations && *r.counts_iterations == 0) throw UsageError("--counts-iterations must be at least 1, got 0");
  plan.counts_iterations = r.counts_iterations.value_or(kDefaultCountsIterations);
  const bool asked = r.counts.value_or(false);
  plan.counts = r.counts.value_or(preset.counts);
  plan.program_counts = asked;  // a real program under callgrind takes minutes: only when asked
  for (const auto& w : plan.workloads)
    if (asked && is_program_workload(w) && plan.params.at(w).at("program").value("drive", "run") == "server")
      s.note("note: no counts for " + w + ": a server is not counted (under callgrind it answers its client some 50 times slower, so the "
             "client's load would not be the one its timing runs measured)");
  if (!plan.counts) return;
  const bool any_counts = std::any_of(plan.workloads.begin(), plan.workloads.end(), [](const std::string& w) {
    return workload_entry(w).counts || workload_entry(w).simulates_caches;
  });
  const bool one_thread = std::find(plan.thread_counts.begin(), plan.thread_counts.end(), 1u) != plan.thread_counts.end() ||
                          std::any_of(plan.workloads.begin(), plan.workloads.end(), [](const std::string& w) {
                            return workload_entry(w).counts && workload_entry(w).counts_threads;
                          });
  std::string why_not;
  std::vector<const WorkloadEntry*> counting, counting_threads;
  for (const WorkloadEntry* e : workload_registry()) {
    if (e->counts || e->simulates_caches) counting.push_back(e);
    if (e->counts && e->counts_threads) counting_threads.push_back(e);
  }
  if (!any_counts)
    why_not = "--counts applies to " + workload_list_text(counting) + " (the data structures through their cache simulation), not to " +
              plan.workloads.front();
  else if (!one_thread)
    why_not = "--counts runs " + plan.workloads.front() + " at 1 thread and this matrix has no 1-thread cells (add 1 to --threads; " +
              workload_list_text(counting_threads) + " count at N threads too)";
  else why_not = cache_simulation_unavailable();
  if (why_not.empty()) return;
  if (asked) throw UsageError(why_not);
  plan.counts = false;
  s.note("note: no counts tier: " + why_not);
}

}  // namespace

void prepare_plan_inputs(MatrixPlan& plan, const std::filesystem::path& folder) {
  for (const auto& w : plan.workloads) {
    const WorkloadEntry& e = workload_entry(w);
    if (e.prepare == nullptr) continue;
    const auto before = plan.inputs.find(w);
    const bool resumed = before != plan.inputs.end() && !plan.thread_counts.empty();
    try {
      plan.inputs[w] = e.prepare(plan.params.at(w), folder);
    } catch (const std::invalid_argument& err) {
      throw UsageError(err.what());
    }
    if (resumed && e.input_defaults != nullptr) {
      const InputDefaults d = e.input_defaults(plan.params.at(w), plan.inputs.at(w));
      if (d.threads_fixed && d.threads && std::find(plan.thread_counts.begin(), plan.thread_counts.end(), *d.threads) == plan.thread_counts.end())
        throw UsageError("the inputs of " + w + " changed since the plan was made (" + std::string(e.runs_alone) + ": now " +
                         std::to_string(*d.threads) + " threads)");
    }
  }
}

unsigned threads_from_inputs(const Cell& cell, unsigned asked) {
  const WorkloadEntry& e = workload_entry(cell.workload);
  if (e.input_defaults == nullptr) return asked;
  InputDefaults d;
  try {
    d = e.input_defaults(cell.params, cell.inputs);
  } catch (const std::invalid_argument& err) {
    throw UsageError(err.what());
  }
  if (!d.threads) return asked;
  if (d.threads_fixed && asked != 0 && asked != *d.threads)
    throw UsageError(cell.workload + " cannot take --threads " + std::to_string(asked) + ": " +
                     std::string(d.threads_reason.empty() ? e.runs_alone : d.threads_reason) + " (" +
                     std::to_string(*d.threads) + "); drop --threads (or pass --threads " + std::to_string(*d.threads) + ")");
  return asked != 0 ? asked : *d.threads;
}

MatrixPlan plan_matrix(const PlanRequest& r, const PlanServices& s) {
  Preset preset;
  try {
    preset = find_preset(r.preset);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  MatrixPlan plan;
  plan.preset = preset.name;
  for (const ProgramDefinition& p : r.programs) declare_program_workload(p.name);
  plan.workloads = planned_workloads(r, s);
  // The catalogue, looked up once per matrix: the names asked for are checked now (a mistyped one
  // gets "did you mean"), and each allocator resolved below is carried in its cells as it is.
  const AllocatorCatalog catalog = load_catalog(r.manifest, r.added_libraries);
  const std::vector<std::string> wanted = wanted_allocators(catalog, plan, r);
  try {
    plan.placement.policy = parse_placement(r.placement);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  plan.placement.reserve_os_pu = r.reserve_os_pu || preset.reserve_os_pu;  // study always leaves one PU
  plan.placement.oversubscribe = r.oversubscribe;

  plan.cache_sim = r.cache_sim;
  plan.profile = r.profile;
  plan.sample_every = r.sample_every.value_or(64);
  auto any = [&](bool WorkloadEntry::*capability) {
    return std::any_of(plan.workloads.begin(), plan.workloads.end(), [&](const std::string& w) { return workload_entry(w).*capability; });
  };
  if (r.cache_sim && !any(&WorkloadEntry::simulates_caches))
    throw UsageError("--cache-sim needs a data-structure workload (--workload bintree, linkedlist or multilist)");
  if (r.profile && !any(&WorkloadEntry::profiles)) throw UsageError("--profile needs the alloc-test workload (--workload alloc-test)");
  if (r.profile && plan.sample_every == 0) throw UsageError("--sample-every must be at least 1, got 0");
  if (!r.profile && r.sample_every) throw UsageError("--sample-every applies to --profile runs only");

  plan_params(plan, preset, r.options, r.programs, s);
  const bool programs = std::any_of(plan.workloads.begin(), plan.workloads.end(), [](const std::string& w) { return is_program_workload(w); });
  plan.warmup_runs = r.warmup_runs.value_or(programs ? 1 : 0);
  plan.randomised_order = r.randomised_order;
  if (!r.memory_limit.empty()) {
    const MemoryLimitSpec spec = parse_memory_limit_spec(r.memory_limit);
    const MemoryCgroupSupport cgroups = find_memory_cgroup_support();
    if (!cgroups.available) throw UsageError("--memory-limit needs a memory cgroup this process may create, and there is none: " + cgroups.why_not);
    if (spec.high.set() && cgroups.controller != "cgroup v2")
      throw UsageError("--memory-limit high=... needs cgroup v2's memory.high, and this host offers " + cgroups.controller +
                       " (accepted here: max only, e.g. --memory-limit 0.8xPEAK)");
    plan.memory_limit = spec.text;
  }
  if (!r.thp_mode.empty()) {  // the first mode is the timing cells'; each other adds thp cells
    std::vector<ThpMode> modes;
    try {
      modes = parse_thp_modes(r.thp_mode);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--thp: ") + e.what());
    }
    std::string why_not;
    if (!system_thp_mode(&why_not)) throw UsageError("--thp needs transparent huge pages, and this kernel has none: " + why_not);
    for (const ThpMode mode : modes) {
      if (const std::string refusal = thp_refusal(mode, can_set_system_thp_mode()); !refusal.empty() && mode != ThpMode::never)
        throw UsageError("--thp " + std::string(to_string(mode)) + ": " + refusal);
      (plan.thp_mode.empty() ? plan.thp_mode : plan.thp_variants.emplace_back()) = std::string(to_string(mode));
    }
  }
  const auto variant_spec = [&](const std::string& spec, const char* flag, auto parse, bool WorkloadEntry::*capability, const char* which) {
    if (spec.empty()) return spec;
    try {
      parse(spec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (std::none_of(plan.workloads.begin(), plan.workloads.end(), [&](const std::string& w) { return workload_entry(w).*capability; }))
      throw UsageError(std::string(flag) + " applies to " + names_with(capability) + " (" + which + "), and this matrix has none of them");
    return spec;
  };
  plan.age = variant_spec(r.age, "--age", parse_age_spec, &WorkloadEntry::ages, "workloads that draw sizes");
  plan.soak = variant_spec(r.soak, "--soak", parse_soak_spec, &WorkloadEntry::soaks, "workloads with a steady state");
  plan.misuse = r.misuse;
  plan.repetitions = r.repetitions.value_or(preset.repetitions);
  if (plan.repetitions == 0) throw UsageError("--reps must be at least 1, got 0");
  plan.cell_timeout_s = r.cell_timeout_s.value_or(preset.cell_timeout_s);
  if (!(plan.cell_timeout_s > 0 && plan.cell_timeout_s <= 1e6)) throw UsageError("--timeout must be a number of seconds in (0, 1000000]");
  // --reps N asks for exactly N: the preset's adaptive rule applies only without it.
  plan.target_ci = r.target_ci.value_or(r.repetitions ? 0.0 : preset.target_ci);
  plan.time_budget_s = r.time_budget_s.value_or(r.repetitions ? 0.0 : preset.time_budget_s);
  if (!(plan.target_ci >= 0 && plan.target_ci < 1)) throw UsageError("--target-ci must be a percentage in [0, 100) (0 = no adaptive repetitions)");
  if (r.time_budget_s && plan.target_ci == 0) throw UsageError("--time-budget bounds adaptive repetitions: give --target-ci PCT too");
  if (plan.target_ci == 0) plan.time_budget_s = 0;

  const unsigned usable = s.topology.usable_worker_count(plan.placement.policy, plan.placement.reserve_os_pu);
  plan.thread_counts = planned_threads(plan, r, usable);
  // A trace's threads may outnumber the PUs: they share them (each record says so in a warning).
  for (const auto& w : plan.workloads)
    if (!workload_entry(w).runs_alone.empty() && plan.thread_counts.front() > usable) plan.placement.oversubscribe = true;
  check_cells(plan, s.topology);
  plan_allocators(plan, r, catalog, wanted, s);
  if (std::none_of(plan.allocators.begin(), plan.allocators.end(), [](const AllocatorSpec& a) { return a.name != kBaselineAllocator; }) &&
      std::any_of(plan.excluded.begin(), plan.excluded.end(), [](const ExcludedAllocator& e) { return e.status == "failed"; })) {
    std::string why;
    for (const auto& e : plan.excluded) why += (why.empty() ? "" : "; ") + e.spec.name + ": " + e.reason;
    throw UsageError("nothing to measure: every allocator asked for failed the preload check (" + why + ")");
  }
  plan_counts(plan, r, preset, s);
  check_program_runs(plan);
  if (plan.cells().empty())
    throw UsageError("nothing to run: every allocator is skipped for these workloads" +
                     (plan.skipped.empty() ? std::string() : " (" + plan.skipped.front().workload + " on " + plan.skipped.front().allocator + ": " +
                                                                 plan.skipped.front().reason + ")"));
  if (plan.allocators.size() < 2 && plan.allocators.front().name == kBaselineAllocator) s.note("note: only the void baseline will run");
  return plan;
}

}  // namespace allocstress
