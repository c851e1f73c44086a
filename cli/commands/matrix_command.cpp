// `allocstress matrix` (and `replay TRACE`, `slurm submit`): options in, a plan from the planner
// (plan/planner.hpp), then one of the backends (matrix_backends.cpp).  `--plan FILE` runs a plan
// written by `--plan-only`; `--resume` continues an interrupted local run from its journal, or
// re-submits a Slurm results directory's cells without a record.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/name_checks.hpp"
#include "plan/plan_file.hpp"
#include "plan/planner.hpp"
#include "platform/process/child_process.hpp"
#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"
#include "run/child_command.hpp"
#include "run/misuse_battery.hpp"
#include "platform/machine_context.hpp"
#include "run/preflight.hpp"

namespace allocstress {

namespace fs = std::filesystem;

void MatrixCommand::add_to(CLI::App& app) {
  const bool replay = kind == Kind::replay;
  const bool slurm = kind == Kind::slurm_submit;
  cmd = replay  ? app.add_subcommand("replay", "Replay a trace against allocators (void baseline included), one fresh process per cell: "
                                               "replay TRACE [--allocators a,b] [--reps N] [--access none|touch|write|write_read]")
        : slurm ? app.add_subcommand("submit", "Plan a matrix and submit it as one Slurm array job (as matrix --backend slurm)")
                : app.add_subcommand("matrix", "Run allocators x workloads x threads x repetitions, one fresh process per cell");
  if (replay) cmd->add_option("trace", trace_argument, "The trace file (allocstress trace, or allocstress import)")->required();
  const std::string general = "General";
  cmd->add_option("--preset", preset, "quick (default: 1e6 iterations, 5 repetitions and more within 150 s, counts tier; under 3 min on a 2-core VM) or study (the 2018 study's sizes; minutes to hours)")->group(general);
  cmd->add_option("-o,--out", out,
                  "Results file ending in .json (default out/<workloads>-<preset>-<time>.json); the .md table and the report go "
                  "beside it.  With --plan-only: the plan file")
      ->group(general);
  cmd->add_option("--allocators", allocators, kAllocatorsHelp)->group(general);
  cmd->add_option("--add-allocator", added, kAddAllocatorHelp)->group(general);
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)")->group(general);
  cmd->add_option("--threads", threads, "Thread counts: 1,2,4 or 1-4 (default 1..usable PUs)")->group(general);
  cmd->add_option("--reps", reps, "Repetitions per cell: exactly N (default: the preset's 5, then adaptive repetitions)")->check(kWholeNumber)->group(general);
  cmd->add_option("--target-ci", target_ci_pct,
                  "Adaptive repetitions: after the planned ones, run more (interleaved, void included) for every timing cell whose "
                  "median's interval is wider than +-PCT% (quick: 5 unless --reps is given; 0 = off; local backend)")
      ->group(general);
  cmd->add_option("--time-budget", time_budget,
                  "Adaptive repetitions stop when the whole matrix would take longer than this (150, 90s, 2.5m, 1h; quick: 150s)")
      ->group(general);
  cmd->add_option("--timeout", timeout_s,
                  "Per-cell timeout in seconds: the wall time one cell process may take (default: quick 120, study 3600)")
      ->group(general);
  cmd->add_option("--warmup", warmup,
                  "Program workloads: unmeasured runs per allocator before the measured ones; the first verifies the preload "
                  "(default 1 when the matrix has a program workload; local backend)")
      ->check(kWholeNumber)
      ->group(general);
  cmd->add_flag("--resume", resume,
                slurm ? "Submit the cells of --results-dir that have no record (the plan is the directory's own)"
                      : "Continue an interrupted matrix from its journal (the plan comes from the journal)")
      ->group(general);
  cmd->add_flag("--force", force, "Overwrite an existing results file")->group(general);
  workload.add_to(*cmd, replay ? std::vector{&workload_entry("replay")} : workload_registry(), !replay);
  cmd->add_flag("--profile", profile,
                "Add one profile cell per drop-in allocator x threads (alloc-test): latency by class, memory syscalls, "
                "memory breakdown, counters")
      ->group("Profile and cache simulation");
  cmd->add_option("--sample-every", sample_every, "--profile: time 1 in N operations (default 64)")
      ->check(kWholeNumber)
      ->group("Profile and cache simulation");
  cmd->add_flag("--cache-sim", cache_sim,
                "Add one callgrind cache-simulation cell per structure workload x allocator x threads (slow, deterministic)")
      ->group("Profile and cache simulation");
  const std::string counts_group = "Counts tier (deterministic)";
  cmd->add_flag("--counts", counts,
                "Add one callgrind counts cell per allocator at 1 thread: instructions, simulated misses and estimated cycles per "
                "pair, net of void (the default of both presets where valgrind is installed)")
      ->group(counts_group);
  cmd->add_flag("--no-counts", no_counts, "No counts tier")->group(counts_group);
  cmd->add_option("--counts-iterations", counts_iterations,
                  "Counts cells run at most N iterations per thread (alloc-test, xthread: a prefix of the timing cells' op stream; "
                  "default 1000000)")
      ->check(kWholeNumber)
      ->group(counts_group);
  cmd->add_option("--memory-limit", memory_limit,
                  "Add one limited cell per workload x allocator x threads, run in a memory cgroup of its own: BYTES or FxPEAK "
                  "(F x the cell's unlimited peak RSS, e.g. 0.8xPEAK), or max=LIMIT,high=LIMIT (high: cgroup v2 only); records "
                  "completed, throttled or oom-killed")
      ->group("Memory");
  cmd->add_option("--thp", thp_mode,
                  "Run the cells under this transparent-huge-page mode: never, madvise or always (root: the system's mode, "
                  "restored afterwards, also after an interrupt or by the next run after a kill; without root: never only, per "
                  "process); a list (never,always) adds a thp cell under each further mode beside every timing cell, compared "
                  "in the THP modes table")
      ->group("Memory");
  cmd->add_option("--age", age,
                  "Add an aged cell beside each timing cell of alloc-test and fleet-profile (every repetition, void aside): the "
                  "workload runs on a heap aged by SPEC = HEAP[,keep=F][,sizes=MIN..MAX][,pattern=spread|random][,seed=N], "
                  "e.g. 64M,keep=0.25, and its control, the same ageing with every block freed; the ageing penalty table compares them")
      ->group("Memory");
  cmd->add_option("--soak", soak,
                  "Add a soak cell per allocator (void aside) of alloc-test, lifetime, fleet-profile, phase-plateau and replay (the "
                  "trace in a loop), after the other cells: its measured phase lasts DURATION[,every=BIN] (e.g. 1h, or 10m,every=30s), and it reports RSS and hugepage "
                  "coverage per bin (default 1m) and their drift per hour with an interval (the soak table)")
      ->group("Memory");
  cmd->add_flag("--misuse", misuse,
                "After the cells, run the misuse battery (allocstress misuse) under every drop-in of the matrix: the safety table, and "
                "each allocator's detection score beside its cost in the verdict (docs/safety.md)")
      ->group("Safety");
  workload.add_placement_to(*cmd);
  const std::string backends = "Backends (where cells run)";
  if (!slurm) {
    cmd->add_flag("--plan-only", plan_only, "Write the plan (every cell and its command) to --out and run nothing")->group(backends);
    cmd->add_option("--backend", backend, "Where cells run: local (default, one after the other here) or slurm (= allocstress slurm submit)")
        ->group(backends);
  } else {
    backend = "slurm";
  }
  cmd->add_option("--plan", plan_file, "Run the cells of this plan file (from --plan-only) instead of planning from options")->group(backends);
  cmd->add_option("--partition", partition, "Slurm: the partition (default: the cluster's default)")->group(backends);
  cmd->add_option("--slurm-time", time_limit,
                  "Slurm: time limit of one array task (one cell), sbatch syntax such as 10:00; the cell's own limit is --timeout")
      ->group(backends);
  cmd->add_option("--results-dir", results_dir, "Slurm: a directory on a filesystem every node sees; each task writes its record there")
      ->group(backends);
  cmd->add_flag("--allow-local-results-dir", allow_local_results_dir, "Slurm: accept a node-local (tmpfs) results directory (single-node clusters)")
      ->group(backends);
  cmd->add_option("--allocator", added_old, "Deprecated: use --add-allocator")->group("Deprecated spellings");
  cmd->add_option("--time", time_limit_old, "Deprecated: use --slurm-time")->group("Deprecated spellings");
  workload.add_deprecated_to(*cmd);
  if (replay)  // the trace is the argument; replay has no profile or simulated cells: accepted (for a clear error), not listed
    for (const char* hidden : {"--trace", "--profile", "--sample-every", "--cache-sim"}) cmd->get_option(hidden)->group("");
  if (slurm)  // a Slurm array's cells are fixed when it is submitted: accepted (for a clear error), not listed
    for (const char* hidden : {"--target-ci", "--time-budget"}) cmd->get_option(hidden)->group("");
}

int MatrixCommand::execute(const std::string& command_line) {
  const std::string exe = allocstress_executable();
  if (warn_if_deprecated(*cmd, "--allocator", "--add-allocator NAME=/path/lib.so")) added.insert(added.end(), added_old.begin(), added_old.end());
  if (warn_if_deprecated(*cmd, "--time", "--slurm-time")) time_limit = time_limit_old;
  if (backend != "local" && backend != "slurm") throw UsageError("unknown --backend '" + backend + "' (accepted: local, slurm)");
  if (backend != "slurm")
    for (const char* opt : {"--partition", "--slurm-time", "--time", "--results-dir", "--allow-local-results-dir"})
      if (cmd->count(opt) > 0) throw UsageError(std::string(opt) + " applies to --backend slurm only");
  if (plan_only && (backend == "slurm" || resume || !plan_file.empty()))
    throw UsageError("--plan-only writes a plan and runs nothing: drop --backend slurm, --resume and --plan");
  if (plan_only && out.empty()) throw UsageError("--plan-only needs -o FILE.json, the plan file to write");
  const std::string own_plan = backend == "slurm" && resume ? "--resume submits the results directory's own plan; drop "
                               : !plan_file.empty()        ? "--plan runs the plan file's own cells; drop "
                               : resume                    ? "--resume continues the journal's own plan; drop "
                                                           : "";
  if (!own_plan.empty()) {  // the plan comes from a file: no option may describe another one
    if (const std::string given = workload.first_given(); !given.empty()) throw UsageError(own_plan + given);
    for (const char* opt : {"--preset", "--allocators", "--add-allocator", "--allocator", "--manifest", "--threads", "--reps", "--timeout", "--warmup",
                            "--cache-sim", "--profile", "--sample-every", "--counts", "--no-counts", "--counts-iterations", "--target-ci",
                            "--time-budget", "--memory-limit", "--thp", "--age"})
      if (cmd->count(opt) > 0) throw UsageError(own_plan + opt);
    if (resume && backend != "slurm" && cmd->count("--force") > 0) throw UsageError(own_plan + "--force");
    if (!plan_file.empty() && resume) throw UsageError(own_plan + "--resume");
  }
  if (backend == "slurm" && resume) return submit_to_slurm(MatrixPlan{}, nlohmann::json::object(), exe, command_line);
  if (!plan_file.empty()) {  // a plan written by --plan-only, run by either backend
    PlanFile file;
    try {
      file = read_plan_file(plan_file, PlanCellChecks::as_run_here);  // every cell, before any runs
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    if (backend == "slurm") return submit_to_slurm(file.plan, file.context, exe, command_line);
    return run_locally(file.plan, file.context, exe);
  }
  if (resume) return resume_locally(exe, command_line);

  const std::vector<ProgramDefinition> programs = workload.programs();  // before the names: they may name its programs
  // Mistyped workload names get their suggestion here; allocator names get theirs from the
  // planner, which looks the catalogue up once for the matrix.
  if (kind != Kind::replay) check_workload_names(workload.workload);
  PlanRequest request;
  request.preset = preset;
  request.workloads = workload.workload;
  request.options = workload.given();
  if (kind == Kind::replay) {
    if (workload.workload_given() || request.options.count("--trace"))
      throw UsageError("replay takes the trace as its argument: drop --workload/--trace (or use matrix --workload replay --trace FILE)");
    request.workloads = "replay";
    request.options["--trace"] = trace_argument;
  }
  request.programs = programs;
  if (cmd->count("--warmup") > 0) request.warmup_runs = warmup;
  request.allocators = allocators;
  request.added_libraries = added;
  request.manifest = manifest;
  request.threads = threads;
  if (cmd->count("--reps") > 0) request.repetitions = reps;
  if (cmd->count("--timeout") > 0) request.cell_timeout_s = timeout_s;
  request.placement = workload.placement;
  request.reserve_os_pu = workload.reserve_os_pu;
  request.oversubscribe = workload.oversubscribe;
  request.cache_sim = cache_sim;
  request.profile = profile;
  if (cmd->count("--sample-every") > 0) request.sample_every = sample_every;
  if (counts && no_counts) throw UsageError("--counts and --no-counts contradict each other: pass one of them");
  if (counts || no_counts) request.counts = counts;
  if (cmd->count("--counts-iterations") > 0) request.counts_iterations = counts_iterations;
  if (cmd->count("--target-ci") > 0) request.target_ci = target_ci_pct / 100;
  if (cmd->count("--time-budget") > 0) request.time_budget_s = parse_duration_seconds("--time-budget", time_budget);
  request.memory_limit = memory_limit;
  request.thp_mode = thp_mode;
  request.age = age;
  request.soak = soak;
  request.misuse = misuse;
  if (misuse) safety_probe_path();  // missing: said now, not after the cells
  if (backend == "slurm") {  // a Slurm array's cells are fixed when it is submitted
    if (misuse) throw UsageError("--misuse applies to --backend local only (run allocstress misuse beside the Slurm matrix)");
    if (!memory_limit.empty()) throw UsageError("--memory-limit applies to --backend local only (a Slurm task runs in the cluster's own cgroup)");
    if (!thp_mode.empty()) throw UsageError("--thp applies to --backend local only (the nodes' THP mode is the cluster's)");
    if (request.target_ci || request.time_budget_s) throw UsageError("--target-ci and --time-budget apply to --backend local only");
    if (request.warmup_runs) throw UsageError("--warmup applies to --backend local only (a Slurm array runs no warm-up runs)");
    request.target_ci = 0.0;
    request.warmup_runs = 0;
  }
  if (plan_only) check_new_output_file(out, force);

  const Topology topology;
  TemporaryFolder inputs;  // local runs: removed when this command returns; Slurm: the results directory's
  if (backend == "slurm")
    check_slurm_target();  // before anything is planned into the results directory
  else
    inputs.dir = make_temporary_folder("allocstress-inputs-");
  const PlanServices services{topology, [&](const AllocatorSpec& a, double check_timeout_s) { return preload_check(exe, a, check_timeout_s); },
                              backend == "slurm" ? fs::path(results_dir) / "inputs" : inputs.dir,
                              [](const std::string& line) { std::cerr << line << "\n"; }};
  if (backend == "slurm") fs::create_directories(services.inputs_folder);
  MatrixPlan plan = plan_matrix(request, services);
  const nlohmann::json context = machine_context(topology, command_line);
  if (plan_only) {
    write_file_atomically(out, json_text(plan_file_json(plan, context, exe, command_line), 2) + "\n");
    for (const auto& e : plan.excluded)
      if (e.status == "failed") std::cerr << "failed: " << e.spec.name << " (" << e.reason << ")\n";
    std::cout << "plan: " << plan.cells().size() << " cells -> " << out << "\nrun it with: allocstress matrix --plan " << out
              << " [--backend slurm --results-dir DIR] [--out results.json]\n";
    return 0;
  }
  if (backend == "slurm") return submit_to_slurm(plan, context, exe, command_line);
  return run_locally(plan, context, exe);
}

}  // namespace allocstress
