// `allocstress matrix`: plans allocators x threads x repetitions from a preset and options,
// checks every input before anything is written, then hands the plan to the local runner.
// `--resume` takes the plan from an interrupted run's journal instead.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include "allocators/bump_allocator.hpp"
#include "platform/cache_simulation.hpp"
#include "platform/syscall_trace.hpp"
#include "platform/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/python_commands.hpp"
#include "platform/machine_context.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "run/local_backend.hpp"
#include "plan/presets.hpp"
#include "plan/plan_file.hpp"
#include "cells/replay_cell.hpp"
#include "run/slurm_backend.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

std::string executable_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable via /proc/self/exe: " + ec.message());
  return p.string();
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw UsageError("--allocators '" + text + "' names no allocator (accepted: comma-separated names)");
  return out;
}

// Why `allocator` cannot run `workload` in this plan, or "".
std::string pair_problem(const MatrixPlan& plan, const std::string& workload, const std::string& allocator) {
  if (allocator == "void" && is_structure_workload(workload))
    return "void returns one buffer for every block, so no structure can be built; structure figures are raw, with no "
           "baseline subtracted";
  if (allocator == "void" && is_false_sharing_workload(workload))
    return "void returns one buffer for every object; the false-sharing baseline is private cache-line-aligned objects, "
           "measured inside each cell";
  if (allocator == BumpAllocator::name() && draws_sizes(workload)) {
    // bump never reuses memory: every malloc of the run stays mapped.  At most half the
    // operations are mallocs (lifetime: every iteration is one).
    const double mean = with_size_sampler(plan.params.sizes, plan.params.max_size_exp, [](const auto& s) { return s.mean_size(); }) +
                        double(BumpAllocator::kAlignment);
    const double share = workload == kLifetimeWorkload ? 1.0 : 0.5;
    const unsigned threads = *std::max_element(plan.thread_counts.begin(), plan.thread_counts.end());
    const double need = double(threads) * double(plan.params.iterations_per_thread) * share * mean;
    const double budget = double(ChunkSource::process_budget());
    if (need > budget)
      return "bump never reuses memory: this " + workload + " needs about " + std::to_string(int(need / double(1 << 30))) +
             " GiB, over its budget of " + std::to_string(int(budget / double(1 << 30))) +
             " GiB (half of physical memory); ask for fewer --iterations";
  }
  return "";
}

// The newest journal under out/, for `--resume` without `--out`.
fs::path newest_journal() {
  fs::path best;
  fs::file_time_type best_time{};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("out", ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 14 && n.ends_with(".journal.jsonl") && (best.empty() || e.last_write_time() > best_time)) {
      best = e.path();
      best_time = e.last_write_time();
    }
  }
  if (best.empty()) throw UsageError("nothing to resume: no *.journal.jsonl under out/ (pass --out FILE of the interrupted run)");
  const std::string s = best.string();
  return s.substr(0, s.size() - std::string(".journal.jsonl").size());
}

// Checks in a fresh process that malloc resolves into the allocator's library; "" when it does.
std::string preflight(const std::string& exe, const AllocatorSpec& a, const std::string& manifest) {
  std::vector<std::string> argv = {exe, "run", "--verify-only", "--manifest", manifest, "--allocator",
                                   a.origin == "command line" ? a.name + "=" + a.library_path : a.name};
  const ChildOutcome o = run_child(argv, preload_environment(a), 60);
  return o.succeeded() ? "" : describe_failure(o, 60);
}

// A temporary folder holding the replay program of a plan, removed with this object.
struct ReplayProgramFolder {
  fs::path dir;
  ~ReplayProgramFolder() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// Builds the plan's replay program once, for every cell to map (plan.replay.program); returns
// the trace's thread count.  A bad trace is bad input.
unsigned prepare_replay_program(MatrixPlan& plan, ReplayProgramFolder& folder) {
  folder.dir = make_temporary_folder("allocstress-replay-");
  plan.replay.program = (folder.dir / "program.bin").string();
  try {
    build_replay_program_file(plan.replay.trace, plan.replay.allocstats_every, plan.replay.program);
    return unsigned(MappedReplayProgram(plan.replay.program).threads().size());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

void MatrixCommand::add_to(CLI::App& app) {
  const bool replay = subcommand == kReplayWorkload;
  cmd = app.add_subcommand(subcommand, replay ? "Replay a trace against allocators (void baseline included), one fresh process per cell: "
                                          "replay TRACE [--allocators a,b] [--reps N] [--access none|write|write_read]"
                                        : "Run allocators x threads x repetitions, one fresh process per cell");
  if (replay) cmd->add_option("trace", trace_argument, "The trace file (allocstress trace, or allocstress import)")->required();
  cmd->add_option("--preset", preset, "quick (default, ~45 s on a 2-core VM) or study (the 2018 study's sizes; minutes to hours)");
  cmd->add_option("-o,--out", out,
                  "Results file ending in .json (default out/<workloads>-<preset>-<time>.json); the .md table goes beside it. "
                  "With --plan-only: the plan file");
  cmd->add_option("--allocators", allocators, "Comma-separated allocators (default: every one in the catalogue)");
  cmd->add_option("--allocator", user_libraries, "Add a drop-in allocator NAME=/path/lib.so (repeatable)");
  cmd->add_option("--threads", threads, "Thread counts: 1,2,4 or 1-4 (default 1..usable PUs)");
  cmd->add_option("--reps", reps, "Repetitions per cell (default 5)")->check(kWholeNumber);
  cmd->add_option("--timeout", timeout_s, "Per-cell timeout in seconds (default: quick 120, study 3600)");
  cmd->add_flag("--resume", resume, "Continue an interrupted matrix from its journal (the plan comes from the journal)");
  cmd->add_flag("--force", force, "Overwrite an existing results file");
  cmd->add_flag("--profile", profile,
                "Add one profile cell per drop-in allocator x threads (alloc-test): latency by class, memory syscalls, "
                "memory breakdown, counters");
  cmd->add_option("--sample-every", sample_every, "--profile: time 1 in N operations (default 64)")->check(kWholeNumber);
  cmd->add_flag("--cache-sim", cache_sim,
                "Add one callgrind cache-simulation cell per structure workload x allocator x threads (slow, deterministic)");
  cmd->add_flag("--plan-only", plan_only, "Write the plan (every cell and its command) to --out and run nothing");
  cmd->add_option("--plan", plan_file, "Run the cells of this plan file (from --plan-only) instead of planning from options");
  cmd->add_option("--backend", backend, "Where cells run: local (default, one after the other here) or slurm (one sbatch array job)");
  cmd->add_option("--partition", partition, "--backend slurm: the partition (default: the cluster's default)");
  cmd->add_option("--time", time_limit, "--backend slurm: time limit per cell task, sbatch syntax (e.g. 10:00)");
  cmd->add_option("--results-dir", results_dir, "--backend slurm: a directory on a filesystem every node sees; each task writes its record there");
  cmd->add_flag("--allow-local-results-dir", allow_local_results_dir, "--backend slurm: accept a node-local (tmpfs) results directory (single-node clusters)");
  workload.add_to(*cmd);
}

int MatrixCommand::execute(const std::string& command_line) {
  const std::string exe = executable_path();
  if (backend != "local" && backend != "slurm") throw UsageError("unknown --backend '" + backend + "' (accepted: local, slurm)");
  if (backend != "slurm")
    for (const char* opt : {"--partition", "--time", "--results-dir", "--allow-local-results-dir"})
      if (cmd->count(opt) > 0) throw UsageError(std::string(opt) + " applies to --backend slurm only");
  if (plan_only && (backend == "slurm" || resume || !plan_file.empty()))
    throw UsageError("--plan-only writes a plan and runs nothing: drop --backend slurm, --resume and --plan");
  if (plan_only && out.empty()) throw UsageError("--plan-only needs -o FILE.json, the plan file to write");
  if (backend == "slurm" && resume) {  // the plan is the results directory's own
    for (const auto* o : workload.tracked)
      if (o->count() > 0) throw UsageError("--resume submits the results directory's own plan; drop " + o->get_name());
    return submit_to_slurm(MatrixPlan{}, nlohmann::json::object(), exe, command_line);
  }
  if (!plan_file.empty()) {  // a plan written by --plan-only, run by either backend
    for (const auto* o : workload.tracked)
      if (o->count() > 0) throw UsageError("--plan runs the plan file's own cells; drop " + o->get_name());
    for (const char* opt : {"--preset", "--allocators", "--allocator", "--threads", "--reps", "--timeout", "--cache-sim", "--profile", "--resume"})
      if (cmd->count(opt) > 0) throw UsageError(std::string("--plan runs the plan file's own cells; drop ") + opt);
    PlanFile file;
    try {
      file = read_plan_file(plan_file);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    if (backend == "slurm") return submit_to_slurm(file.plan, file.context, exe, command_line);
    return run_locally(file.plan, file.context, exe);
  }
  if (subcommand == kReplayWorkload) {
    if (workload.given("--workload") || workload.given("--trace"))
      throw UsageError("replay takes the trace as its argument: drop --workload/--trace (or use matrix --workload replay --trace FILE)");
    workload.workload = kReplayWorkload;
    workload.trace = trace_argument;
  }
  if (resume) {
    for (const char* opt : {"--preset", "--allocators", "--allocator", "--threads", "--reps", "--timeout", "--force",
                            "--manifest", "--reserve-os-pu", "--oversubscribe", "--cache-sim", "--profile", "--sample-every"})
      if (cmd->count(opt) > 0) throw UsageError(std::string("--resume continues the journal's own plan; drop ") + opt);
    for (const auto* o : workload.tracked)
      if (o->count() > 0) throw UsageError("--resume continues the journal's own plan; drop " + o->get_name());
    const fs::path results = out.empty() ? newest_journal() : fs::path(out);
    ResultsJournal journal = [&] {
      try {
        return ResultsJournal::open_existing(journal_path_for(results));
      } catch (const std::runtime_error& e) {
        throw UsageError(e.what());
      }
    }();
    MatrixPlan plan = [&] {
      try {
        return MatrixPlan::from_json(journal.header().value("plan", nlohmann::json()));
      } catch (const std::runtime_error& e) {
        throw UsageError("journal " + journal_path_for(results).string() + ": " + e.what());
      }
    }();
    ReplayProgramFolder replay_folder;
    if (plan.workloads.front() == kReplayWorkload && prepare_replay_program(plan, replay_folder) != plan.thread_counts.front())
      throw UsageError("the trace " + plan.replay.trace + " changed since the interrupted run (its thread count differs)");
    const nlohmann::json resumed = {{"resumed", {{"date", iso_utc_now()}, {"command_line", command_line}}}};
    return report_after_matrix(results, run_matrix(plan, journal, {results, table_path_for(results)}, exe, resumed));
  }

  Preset p;
  try {
    p = find_preset(preset);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  MatrixPlan plan;
  plan.preset = p.name;
  plan.params = p.params;
  plan.workloads = selected_workloads(workload, true);
  apply_workload_options(workload, plan.params, plan.placement);
  apply_model_options(workload, plan.cross_thread, plan.lifetime, plan.phases, plan.false_sharing);
  const auto has = [&](const char* w) { return std::find(plan.workloads.begin(), plan.workloads.end(), w) != plan.workloads.end(); };
  if (has(kXThreadWorkload) && !has(kAllocTestWorkload)) {
    // xthread's blowup is its RSS per live byte over alloc-test's: the same stream with no remote frees.
    plan.workloads.insert(plan.workloads.begin(), kAllocTestWorkload);
    std::cerr << "note: alloc-test added with the same parameters: the 0% remote-free reference of xthread's blowup\n";
  }
  const bool any_alloc_test = std::find(plan.workloads.begin(), plan.workloads.end(), kAllocTestWorkload) != plan.workloads.end();
  const bool replay = plan.workloads.front() == kReplayWorkload;  // replay runs alone (selected_workloads)
  const bool any_baseline = std::any_of(plan.workloads.begin(), plan.workloads.end(), has_void_baseline);
  if (replay) {
    plan.replay = replay_spec_for(workload);
    if (!threads.empty()) throw UsageError("replay runs the trace's own threads, one worker each: drop --threads");
  }
  std::optional<FitConfig> fit;  // the fitted workload's model: its seed and threads unless given
  if (std::find(plan.workloads.begin(), plan.workloads.end(), kFittedWorkload) != plan.workloads.end()) {
    fit = load_fit_option(workload, plan.fit);
    if (!workload.given("--seed")) plan.params.seed = fit->params.seed;
  }
  bool any_structure = false;
  for (const auto& w : plan.workloads)
    if (is_structure_workload(w)) {
      plan.structure[w] = structure_params_for(workload, w);
      any_structure = true;
    }
  plan.cache_sim = cache_sim;
  if (cache_sim && !any_structure)
    throw UsageError("--cache-sim needs a data-structure workload (--workload bintree, linkedlist or multilist)");
  if (const std::string missing = cache_sim ? cache_simulation_unavailable() : ""; !missing.empty()) throw UsageError(missing);
  plan.profile = profile;
  plan.sample_every = sample_every;
  if (profile && !any_alloc_test) throw UsageError("--profile needs the alloc-test workload (--workload alloc-test)");
  if (profile && sample_every == 0) throw UsageError("--sample-every must be at least 1, got 0");
  if (!profile && cmd->count("--sample-every") > 0) throw UsageError("--sample-every applies to --profile runs only");
  if (const std::string missing = profile ? syscall_trace_unavailable() : ""; !missing.empty()) throw UsageError(missing);
  plan.placement.reserve_os_pu = plan.placement.reserve_os_pu || p.reserve_os_pu;  // study always leaves one PU
  plan.repetitions = cmd->count("--reps") ? reps : p.repetitions;
  if (plan.repetitions == 0) throw UsageError("--reps must be at least 1, got 0");
  plan.cell_timeout_s = cmd->count("--timeout") ? timeout_s : p.cell_timeout_s;
  if (!(plan.cell_timeout_s > 0 && plan.cell_timeout_s <= 1e6))
    throw UsageError("--timeout must be a number of seconds in (0, 1000000]");

  const Topology topology;
  const unsigned usable = topology.usable_worker_count(plan.placement.policy, plan.placement.reserve_os_pu);
  ReplayProgramFolder replay_folder;  // removed when this command returns
  if (replay) {
    const unsigned n = prepare_replay_program(plan, replay_folder);
    plan.thread_counts = {n};
    if (n > usable) plan.placement.oversubscribe = true;  // the trace's threads share PUs (recorded as a warning per cell)
  } else if (threads.empty() && fit) {
    plan.thread_counts = {fit->params.threads};
  } else if (threads.empty()) {
    for (unsigned t = 1; t <= usable; ++t) plan.thread_counts.push_back(t);
  } else {
    plan.thread_counts = parse_thread_list(threads);
  }
  for (unsigned t : plan.thread_counts) {
    PlacementRequest r = plan.placement;
    r.threads = t;
    AllocTestParams check = plan.params;
    check.threads = t;
    try {
      topology.choose_pus(r);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    for (const auto& w : plan.workloads) {
      CellSpec cell;
      cell.workload = w;
      cell.params = check;
      cell.cross_thread = plan.cross_thread;
      cell.lifetime = plan.lifetime;
      cell.phases = plan.phases;
      validate_sized_workload(cell);
    }
  }

  const AllocatorCatalog catalog = load_catalog(workload.manifest, user_libraries);
  plan.manifest = fs::absolute(catalog.manifest_path()).string();  // --resume may start elsewhere
  std::vector<std::string> wanted;
  const bool explicit_list = !allocators.empty();
  if (explicit_list) {
    wanted = split_names(allocators);
    for (const auto& lib : user_libraries) wanted.push_back(lib.substr(0, lib.find('=')));
    if (std::find(wanted.begin(), wanted.end(), "void") == wanted.end()) wanted.insert(wanted.begin(), "void");
  } else {
    for (const auto& s : catalog.all()) wanted.push_back(s.name);
  }
  if (!any_baseline) std::erase(wanted, std::string("void"));  // the baseline of alloc-test and replay only
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (const auto& name : wanted) {
    try {
      catalog.find(name);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  for (const auto& s : catalog.all()) {  // catalogue order: void first
    if (std::find(wanted.begin(), wanted.end(), s.name) == wanted.end()) continue;
    AllocatorSpec a = s;
    a.version = a.kind == AllocatorKind::in_tree ? s.version : debian_package_version(a.package);
    const bool asked = explicit_list || a.origin == "command line";
    if (!a.available()) {
      if (asked) throw UsageError("allocator '" + a.name + "' cannot run: " + a.unavailable_reason);
      plan.excluded.push_back({a, "skipped", a.unavailable_reason});
      continue;
    }
    if (a.kind == AllocatorKind::drop_in) {
      if (const std::string bad = preflight(exe, a, plan.manifest); !bad.empty()) {
        if (asked) throw UsageError("allocator '" + a.name + "' failed the preload check: " + bad);
        plan.excluded.push_back({a, "failed", "preload check failed: " + bad});
        continue;
      }
    }
    plan.allocators.push_back(a);
    for (const auto& w : plan.workloads)
      if (const std::string why = pair_problem(plan, w, a.name); !why.empty()) plan.skipped.push_back({w, a.name, why});
  }
  if (plan.cells().empty()) throw UsageError("nothing to run: every allocator is skipped for these workloads");
  if (plan.allocators.size() < 2 && any_baseline) std::cerr << "note: only the void baseline will run\n";

  nlohmann::json context = machine_context(topology, command_line);
  if (plan_only) {
    check_new_output_file(out, force);
    write_file_atomically(out, json_text(plan_file_json(plan, context, exe, command_line), 2) + "\n");
    std::cout << "plan: " << plan.cells().size() << " cells -> " << out << "\nrun it with: allocstress matrix --plan " << out
              << " [--backend slurm --results-dir DIR] [--out results.json]\n";
    return 0;
  }
  if (backend == "slurm") return submit_to_slurm(plan, context, exe, command_line);
  return run_locally(plan, context, exe);
}

}  // namespace allocstress
