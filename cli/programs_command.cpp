// The `allocstress programs` command (see programs_command.hpp).
#include "cli/programs_command.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>

#include "cells/workload_registry.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/name_checks.hpp"
#include "cli/python_commands.hpp"
#include "cli/trace_command.hpp"
#include "plan/planner.hpp"
#include "plan/presets.hpp"
#include "plan/workload_params.hpp"
#include "platform/child_process.hpp"
#include "platform/comma_list.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "results/results_merge.hpp"
#include "results/results_output.hpp"
#include "results/results_reader.hpp"
#include "results/results_table.hpp"
#include "run/preflight.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr const char* kFamily = "programs";
// The models a program can be compared with, and how each is named and parameterised from the
// program's trace and fit file.
const std::vector<std::string> kModels = {"replay", "fitted", "alloc-test", "lifetime"};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string file_time_stamp() {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  return stamp;
}

std::vector<std::string> program_workloads(const std::string& asked) {
  std::vector<std::string> all;
  for (const WorkloadEntry* e : workload_registry())
    if (e->family == kFamily) all.emplace_back(e->name);
  if (asked.empty() || asked == "all") return all;
  std::vector<std::string> chosen;
  for (const std::string& name : comma_separated(asked)) {
    if (std::find(all.begin(), all.end(), name) == all.end())
      throw UsageError("unknown program '" + name + "' (accepted: " + joined(all) + ", or all)");
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
  }
  return chosen;
}

std::vector<std::string> chosen_models(const std::string& asked) {
  std::vector<std::string> chosen;
  for (const std::string& m : comma_separated(asked)) {
    if (std::find(kModels.begin(), kModels.end(), m) == kModels.end())
      throw UsageError("unknown model '" + m + "' in --models (accepted: " + joined(kModels) + ")");
    if (std::find(chosen.begin(), chosen.end(), m) == chosen.end()) chosen.push_back(m);
  }
  return chosen;
}

// The study's folders beside OUT.json: OUT-programs/{parts,traces,fits,inputs,logs}.
struct StudyFolders {
  fs::path root, parts, traces, fits, inputs, logs;
  // Absolute: the trace step runs in the program's own working directory.
  explicit StudyFolders(const fs::path& out) {
    root = fs::absolute(out).parent_path() / (out.stem().string() + "-programs");
    parts = root / "parts";
    traces = root / "traces";
    fits = root / "fits";
    inputs = root / "inputs";
    logs = root / "logs";
  }
};

// Runs `argv` (argv[0] this executable) in `cwd` (or here), its output into `log`; "" when it
// succeeded, else one line saying how it ended.
std::string run_step(std::vector<std::string> argv, const std::string& cwd, const EnvironmentChanges& env, double timeout_s,
                     const fs::path& log) {
  if (!cwd.empty()) argv.insert(argv.begin(), {"/usr/bin/env", "--chdir=" + cwd});
  const ChildOutcome outcome = run_child(argv, env, timeout_s);
  write_file_atomically(log, "$ " + shell_command_line(argv) + "\n" + outcome.out + outcome.err);
  return outcome.succeeded() ? "" : describe_failure(outcome, timeout_s) + " (log: " + log.string() + ")";
}

// The trace file of the program's busiest process: the largest of the files the trace wrote
// (one per process: gcc's driver, cc1 and as each write their own).
fs::path busiest_trace(const fs::path& folder, const std::string& program) {
  fs::path best;
  std::uintmax_t best_size = 0;
  for (const auto& f : fs::directory_iterator(folder)) {
    const std::string name = f.path().filename().string();
    if (!name.starts_with(program + ".") || !name.ends_with(".ast")) continue;
    if (f.file_size() > best_size) best = f.path(), best_size = f.file_size();
  }
  return best;
}

// The options of `model`'s instance for a program: its trace (replay), its fit file (fitted), or
// the fit file's size table (alloc-test, lifetime) at the program's heap, not the preset's:
//   alloc-test  slots = the trace's peak live bytes / its mean size (64 .. 2^20 per thread), so
//               that the slots hold about the program's heap; iterations = twice the trace's
//               allocations (its mallocs and frees), at least 1e4, at most 1e6 and at most 4 GB
//               of blocks written (xz's blocks average 270 KB);
//   lifetime    live bytes = the trace's peak; allocations = the trace's, at least 1e4 and 20
//               mean lifetimes (peak / mean size: the model keeps every mean lifetime within
//               1/16 of its allocations).
// `config` is the fit file's content (every model but replay needs the fit).
OptionValues model_options(const std::string& model, const fs::path& trace, const fs::path& fit, const FitConfig& config) {
  if (model == "replay") return {{"--trace", trace.string()}};
  if (model == "fitted") return {{"--fit", fit.string()}};
  OptionValues sized = {{"--sizes", "fit"}, {"--size-fit", fit.string()}};
  const TraceSummary& t = config.trace;
  const double mean_size = std::max(t.mean_size, 1.0);
  const double blocks_live = double(t.peak_live_requested_bytes) / mean_size;
  if (model == "alloc-test") {
    const double threads = double(std::max(config.params.threads, 1u));
    const double slots = std::clamp(blocks_live, 64.0 * threads, double(1u << 20) * threads);
    const double iterations = std::min({std::max(2.0 * double(t.allocations), 1e4), 1e6, std::max(4e9 / mean_size, 1e3)});
    sized["--slots"] = std::to_string(std::uint64_t(slots));
    sized["--iterations"] = std::to_string(std::uint64_t(iterations));
  } else {
    sized["--live-bytes"] = std::to_string(std::max<std::uint64_t>(t.peak_live_requested_bytes, 1));
    sized["--iterations"] = std::to_string(std::max({t.allocations, std::uint64_t{10'000}, std::uint64_t(20 * blocks_live)}));
  }
  return sized;
}

}  // namespace

void ProgramsCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("programs",
                           "Real programs under every allocator, beside their traces' replay and the models fitted to them, with the "
                           "fidelity table: programs [--programs LIST] [-o OUT.json]");
  cmd->add_option("--programs", programs, "Comma-separated program workloads (prog-*; default: all, each skipped with its reason if not installed)");
  cmd->add_option("--allocators", allocators, std::string(kAllocatorsHelp) + "; real programs run under the drop-ins only");
  cmd->add_option("--add-allocator", added, kAddAllocatorHelp);
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_option("--models", models, "Comma-separated models run on each program's trace: replay, fitted, alloc-test, lifetime (default all)");
  cmd->add_option("--prog-work", work, "Each program's work in percent of its default (1..10000; default 100), in its real runs and its trace");
  cmd->add_option("--reps", reps, "Repetitions (fresh processes) per cell, in every part (default 5)");
  cmd->add_option("--timeout", timeout_s, "Per-cell timeout in seconds, also of each trace and fit step (default 300)");
  cmd->add_option("-o,--out", out, "Results file (.json; default out/programs-<time>.json); the parts, traces and fits go to OUT-programs/");
  cmd->add_flag("--force", force, "Overwrite an existing results file and study folder");
}

int ProgramsCommand::execute(const std::string& command_line) {
  const std::string exe = executable_path();
  const std::vector<std::string> names = program_workloads(programs);
  const std::vector<std::string> model_names = chosen_models(models);
  if (names.empty()) throw UsageError("this build has no program workloads");
  if (reps == 0) throw UsageError("--reps must be at least 1, got 0");
  if (!(timeout_s > 0 && timeout_s <= 1e6)) throw UsageError("--timeout must be a number of seconds in (0, 1000000]");
  if (!allocators.empty()) check_allocator_names(load_catalog(manifest, added), allocators);
  if (!model_names.empty()) try {  // every model rests on the program's trace: no tracer, no study
      find_tracer_library();
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string(e.what()) + "; the models (--models " + models + ") need it");
    }
  const OptionValues program_options = work.empty() ? OptionValues{} : OptionValues{{"--prog-work", work}};
  const Preset preset = find_preset("quick");
  for (const std::string& program : names) try {
      const WorkloadEntry& entry = workload_entry(program);
      entry.check(workload_params(entry, preset.params, program_options), 1);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  const fs::path results = out.empty() ? fs::path("out") / ("programs-" + file_time_stamp() + ".json") : fs::path(out);
  if (results.extension() != ".json") throw UsageError("--out " + results.string() + " must end in .json (the table is written beside it as .md)");
  check_new_output_file(results, force);
  const StudyFolders dirs(results);
  if (fs::exists(dirs.root) && !force)
    throw UsageError("study folder " + dirs.root.string() + " already exists (pass --force to overwrite, or choose another --out)");
  std::error_code ec;
  fs::remove_all(dirs.root, ec);
  for (const fs::path& d : {dirs.parts, dirs.traces, dirs.fits, dirs.inputs, dirs.logs}) fs::create_directories(d);

  const Topology topology;
  const PlanServices services{topology, [&](const AllocatorSpec& a, const std::string& m, double timeout) { return preload_check(exe, a, m, timeout); },
                              dirs.inputs, [](const std::string& line) { std::cerr << line << "\n"; }};
  auto request_for = [&](const std::string& workloads, OptionValues options) {
    PlanRequest r;
    r.workloads = workloads;
    r.options = std::move(options);
    r.allocators = allocators;
    r.added_libraries = added;
    r.manifest = manifest;
    r.repetitions = reps;
    r.cell_timeout_s = timeout_s;
    r.counts = false;  // the fidelity table compares timing and memory rankings
    return r;
  };
  std::vector<ResultsPart> parts;
  Json study = Json::object();  // per program: its trace, fit and what failed
  auto run_part = [&](const std::string& label, const PlanRequest& request) -> bool {
    const fs::path file = dirs.parts / (label + ".json");
    std::cerr << "\nprograms: " << label << " -> " << file.string() << "\n";
    try {
      const MatrixPlan plan = plan_matrix(request, services);
      const Json context = machine_context(topology, command_line);
      if (const int rc = run_matrix_locally(plan, context, exe, file, true, /*report=*/false); rc != 0) return false;
      parts.push_back({file.string(), read_results_file(file)});
      return true;
    } catch (const UsageError& e) {
      std::cerr << "programs: " << label << " not run: " << e.what() << "\n";
      study["parts_not_run"].push_back({{"part", label}, {"reason", e.what()}});
      return false;
    }
  };

  // 1. The real programs, under the drop-ins (the others are refused by the program workloads).
  std::string joined_names;
  for (const auto& n : names) joined_names += (joined_names.empty() ? "" : ",") + n;
  if (!run_part("real", request_for(joined_names, program_options)) && interrupted()) return 130;

  // 2. Per program: its trace, its fit, its models.
  for (const std::string& program : names) {
    if (interrupted()) return 130;
    Json& info = study[program];
    const WorkloadEntry& entry = workload_entry(program);
    const Json params = workload_params(entry, preset.params, program_options);
    if (const std::string why = program_unavailable(program, params); !why.empty()) {
      info["skipped"] = why;
      std::cerr << "\nprograms: " << program << " skipped: " << why << "\n";
      continue;
    }
    std::cerr << "\nprograms: tracing " << program << "\n";
    const fs::path inputs_dir = dirs.inputs / program;
    fs::create_directories(inputs_dir);
    const Json inputs = entry.prepare != nullptr ? entry.prepare(params, inputs_dir) : Json::object();
    const ProgramInvocation how = program_invocation(program, params, inputs);
    std::vector<std::string> argv = {exe, "trace", "--out-prefix", (dirs.traces / program).string(), "--"};
    argv.insert(argv.end(), how.argv.begin(), how.argv.end());
    EnvironmentChanges env;
    for (const auto& [k, v] : how.environment) env[k] = v;
    if (std::string why = run_step(argv, how.working_directory, env, timeout_s, dirs.logs / (program + "-trace.log")); !why.empty()) {
      info["trace_failed"] = why;
      std::cerr << "programs: the trace of " << program << " failed: " << why << "\n";
      continue;
    }
    const fs::path trace = busiest_trace(dirs.traces, program);
    const fs::path fit = dirs.fits / (program + ".fit.json");
    info["trace"] = trace.string();
    if (std::string why = run_step({exe, "fit", trace.string(), "-o", fit.string(), "--force"}, "", {}, timeout_s,
                                   dirs.logs / (program + "-fit.log"));
        !why.empty()) {
      info["fit_failed"] = why;
      std::cerr << "programs: the fit of " << program << "'s trace failed: " << why << "\n";
    } else {
      info["fit"] = fit.string();
    }
    const FitConfig config = info.contains("fit") ? load_fit_config(fit) : FitConfig{};
    for (const std::string& model : model_names) {
      if (model != "replay" && !info.contains("fit")) continue;
      const std::string instance = model + ":" + program;
      PlanRequest request = request_for(instance, model_options(model, trace, fit, config));
      // replay takes the trace's thread count (fixed); fitted and the sized models the fit's,
      // at most this machine's PUs (rocksdb's fit has 3 threads; a 2-PU machine cannot place them).
      if (model != "replay")
        request.threads = std::to_string(std::clamp(config.params.threads, 1u, std::max(topology.usable_pu_count(false), 1u)));
      run_part(model + "-" + program, request);
      if (interrupted()) return 130;
    }
  }
  if (parts.empty()) throw UsageError("nothing was measured: " + json_text(study, 0));

  // 3. One results file, its table and report.
  Json merged = merge_results(parts);
  merged["context"]["programs"] = study;
  merged["context"]["command_line"] = command_line;
  write_file_atomically(results, json_text(merged, 2) + "\n");
  const std::string md = markdown_table(merged);
  write_file_atomically(table_path_for(results), md);
  std::cout << md << "\nresults: " << results.string() << "\nfidelity table: allocstress fidelity " << results.string()
            << " (also in the report)\n";
  return report_after_matrix(results, 0);
}

}  // namespace allocstress
