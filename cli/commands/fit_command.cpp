// The `allocstress fit` command (contract: fit_command.hpp).
#include "cli/commands/fit_command.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <tuple>

#include "run/child_command.hpp"
#include "trace/trace_reader.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/name_checks.hpp"
#include "plan/planner.hpp"
#include "platform/process/child_process.hpp"
#include "platform/machine_context.hpp"
#include "run/preflight.hpp"
#include "results/fit_evaluation.hpp"
#include "results/results_file.hpp"
#include "results/results_journal.hpp"
#include "results/results_reader.hpp"
#include "workloads/lifetimes/trace_fit.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

EvaluationFiles evaluation_files(const std::filesystem::path& fit_file) {
  const std::filesystem::path stem = fit_file.parent_path() / fit_file.stem();
  return {stem.string() + "-replay.json", stem.string() + "-fitted.json", stem.string() + "-comparison.md", stem.string() + "-comparison.json"};
}

void FitCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("fit", "Fit a synthetic workload to a trace's size and lifetime distributions: fit TRACE -o FIT.json");
  cmd->add_option("trace", trace_path, "Trace file (allocstress format: `allocstress trace` or `allocstress import`)")->required();
  cmd->add_option("-o,--out", out, "The fit file to write (.json), for `run --workload fitted --fit FILE`")->required();
  cmd->add_flag("--force", force, "Overwrite an existing output file");
  cmd->add_option("--seed", seed, "Seed written into the fit (the workload's random stream)")->check(kWholeNumber);
  cmd->add_option("--threads", threads, "Threads of the fitted workload (default: the trace's effective thread count)")
      ->check(kWholeNumber);
  cmd->add_option("--max-range-share", max_range_share,
                  "Resolution: the largest share of blocks one multi-value table row may hold (0.0001..0.5)");
  cmd->add_flag("--evaluate", evaluate,
                "Then replay the trace and run the fitted workload on the same allocators, and compare rankings and overheads "
                "(writes FIT-replay.json, FIT-fitted.json, FIT-comparison.md/.json beside the fit file)");
  cmd->add_option("--allocators", allocators, std::string("--evaluate: ") + kAllocatorsHelp);
  cmd->add_option("--reps", reps, "--evaluate: repetitions per cell (default 3)")->check(kWholeNumber);
  cmd->add_option("--access", access, "--evaluate: memory access of both runs: none, touch, write, write_read (default write_read)");
  cmd->add_option("--manifest", manifest, "--evaluate: drop-in allocator manifest (default: allocators/manifest.tsv)");
}

namespace {

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string significant(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace

int FitCommand::execute() {
  check_new_output_file(out, force);
  const EvaluationFiles files = evaluation_files(out);
  if (evaluate) {
    for (const auto& f : {files.replay, files.fitted, files.comparison_md, files.comparison_json})
      if (std::filesystem::exists(f) && !force) throw UsageError("output file " + f.string() + " already exists (pass --force to overwrite)");
    try {
      parse_memory_access(access);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (reps == 0) throw UsageError("--reps must be at least 1, got 0");
    if (!allocators.empty()) check_allocator_names(load_catalog(manifest, {}), allocators);
  } else {
    for (const char* opt : {"--allocators", "--reps", "--access", "--manifest"})
      if (cmd->count(opt) > 0) throw UsageError(std::string(opt) + " applies to --evaluate only");
  }
  FitOptions options;
  options.seed = seed;
  options.threads = threads;
  options.max_range_share = max_range_share;
  FitConfig fit;
  try {
    fit = fit_trace(trace::read_trace(trace_path), options);
  } catch (const std::exception& e) {  // unreadable, corrupt, empty trace; bad option
    throw UsageError(e.what());
  }
  fit.trace.path = std::filesystem::absolute(trace_path).string();  // the file records where its trace is
  save_fit_config(out, fit);

  const TraceSummary& s = fit.trace;
  const FitQuality& q = fit.quality;
  const LifetimeParams& p = fit.params;
  std::cout << "trace " << s.path << ": " << s.events << " events; threads " << s.threads << " (" << s.allocating_threads
            << " allocating, effective " << fixed(s.effective_threads, 2) << "); " << s.allocations << " allocations, " << s.frees
            << " frees, " << s.reallocs << " reallocs\n";
  if (!s.truncation.empty()) std::cout << "  note: the trace was cut short (" << s.truncation << "); fitted to its complete blocks\n";
  if (s.unmatched_frees + s.failed_allocations + s.reused_without_free != 0)
    std::cout << "  ignored: " << s.unmatched_frees << " frees of unknown addresses, " << s.failed_allocations << " failed allocations; "
              << s.reused_without_free << " addresses reused without a free\n";
  std::cout << "sizes: mean " << fixed(s.mean_size, 1) << " B, median " << s.median_size << " B, max " << s.max_size << " B -> "
            << q.size_rows << " table rows, KS distance " << fixed(q.size_ks_distance, 4) << "\n";
  std::cout << "lifetimes (allocations of the owning thread): median " << s.median_lifetime << ", mean " << fixed(s.mean_lifetime, 1)
            << ", immortal share " << significant(s.immortal_share) << " (estimated; " << s.never_freed << " never freed, "
            << s.freed_after_owner_done << " freed after their thread's last allocation) -> " << q.lifetime_rows
            << " table rows, KS distance " << fixed(q.lifetime_ks_distance, 4) << "\n";
  std::cout << "peak live requested bytes: trace " << q.trace_peak_live_requested_bytes << ", fitted model "
            << q.model_peak_live_requested_bytes << " ("
            << fixed(q.trace_peak_live_requested_bytes ? double(q.model_peak_live_requested_bytes) / double(q.trace_peak_live_requested_bytes) : 0, 2)
            << "x)\n";
  std::cout << "workload fitted: " << p.threads << " threads x " << p.allocations_per_thread << " allocations, seed " << p.seed
            << " -> " << out << "\n";
  return evaluate ? run_evaluation(files) : 0;
}

int FitCommand::run_evaluation(const EvaluationFiles& files) const {
  const std::string exe = allocstress_executable();
  const Topology topology;
  // Both matrices through the planner, on the same allocators, repetitions and access; the replay
  // program is prepared into a folder removed when this command returns.
  struct Inputs {
    fs::path dir = make_temporary_folder("allocstress-inputs-");
    ~Inputs() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } inputs;
  const PlanServices services{topology, [&](const AllocatorSpec& a, double check_timeout_s) { return preload_check(exe, a, check_timeout_s); }, inputs.dir,
                              [](const std::string& line) { std::cerr << line << "\n"; }};
  const std::tuple<const char*, const char*, std::string, fs::path> runs[] = {{"replay", "--trace", trace_path, files.replay},
                                                                              {"fitted", "--fit", out, files.fitted}};
  for (const auto& [workload, option, file, results] : runs) {
    PlanRequest request;
    request.workloads = workload;
    request.options = {{option, file}, {"--access", access}};
    request.allocators = allocators;
    request.manifest = manifest;
    request.repetitions = reps;
    request.counts = false;  // the evaluation compares timing and memory rankings
    std::cout << "\n" << workload << ": " << file << " -> " << results.string() << std::endl;
    const MatrixPlan plan = plan_matrix(request, services);
    const nlohmann::json context = machine_context(topology, "allocstress fit " + trace_path + " -o " + out + " --evaluate");
    if (const int rc = run_matrix_locally(plan, context, exe, results, force); rc != 0) return rc;
  }
  const FitComparison comparison = compare_fit(read_results_file(files.replay), read_results_file(files.fitted));
  const std::string md = "## Replay of " + trace_path + " vs the fitted workload " + out + "\n\n" + fit_comparison_markdown(comparison);
  write_file_atomically(files.comparison_md, md);
  write_file_atomically(files.comparison_json, json_text(to_json(comparison), 2) + "\n");
  std::cout << "\n" << md << "\ncomparison: " << files.comparison_md.string() << "\n";
  return 0;
}

}  // namespace allocstress
