// A study of real programs and their models (see program_study.hpp).
#include "cli/commands/program_study.hpp"

#include <algorithm>
#include <iostream>

#include "cells/workload_registry.hpp"
#include "cli/commands.hpp"
#include "cli/commands/python_commands.hpp"
#include "cli/commands/trace_command.hpp"
#include "plan/presets.hpp"
#include "plan/workload_params.hpp"
#include "platform/process/child_process.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "results/results_output.hpp"
#include "results/results_reader.hpp"
#include "results/tables/results_table.hpp"
#include "run/preflight.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

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

// When nothing was measured, the study folder this run made is removed (the inputs it generated
// are made again by the next run), unless a step left a log there (a failed trace or fit), which
// the error line then points to: "" or "; the logs of its steps are in DIR".
std::string discard_unmeasured_study(const StudyFolders& dirs) {
  std::error_code ec;
  if (!fs::is_empty(dirs.logs, ec) && !ec) return "; the logs of its steps are in " + dirs.logs.string();
  fs::remove_all(dirs.root, ec);
  return "";
}

}  // namespace

const std::vector<std::string>& study_models() {
  static const std::vector<std::string> models = {"replay", "fitted", "alloc-test", "lifetime"};
  return models;
}

StudyFolders::StudyFolders(const fs::path& results) {
  root = fs::absolute(results).parent_path() / (results.stem().string() + "-programs");  // absolute: the trace runs elsewhere
  parts = root / "parts";
  traces = root / "traces";
  fits = root / "fits";
  inputs = root / "inputs";
  logs = root / "logs";
}

ProgramStudy::ProgramStudy(const std::string& exe, const std::string& command_line, const fs::path& results, const PlanRequest& base,
                           bool force)
    : exe_(exe), command_line_(command_line), results_(results), base_(base), dirs_(results) {
  if (fs::exists(dirs_.root) && !force)
    throw UsageError("study folder " + dirs_.root.string() + " already exists (pass --force to overwrite, or choose another --out)");
  std::error_code ec;
  fs::remove_all(dirs_.root, ec);
  for (const fs::path& d : {dirs_.parts, dirs_.traces, dirs_.fits, dirs_.inputs, dirs_.logs}) fs::create_directories(d);
}

bool ProgramStudy::run_planned_part(const std::string& label, const MatrixPlan& plan) {
  const fs::path file = dirs_.parts / (label + ".json");
  std::cerr << "\nprograms: " << label << " -> " << file.string() << "\n";
  const Topology topology;
  if (run_matrix_locally(plan, machine_context(topology, command_line_), exe_, file, true, /*report=*/false) != 0) return false;
  parts_.push_back({file.string(), read_results_file(file)});
  return true;
}

bool ProgramStudy::run_part(const std::string& label, const PlanRequest& request) {
  try {
    const Topology topology;
    const PlanServices services{topology, [&](const AllocatorSpec& a, double t) { return preload_check(exe_, a, t); },
                                dirs_.inputs, [](const std::string& line) { std::cerr << line << "\n"; }};
    return run_planned_part(label, plan_matrix(request, services));
  } catch (const UsageError& e) {
    std::cerr << "programs: " << label << " not run: " << e.what() << "\n";
    info_["parts_not_run"].push_back({{"part", label}, {"reason", e.what()}});
    return false;
  }
}

bool ProgramStudy::study_program(const std::string& name, const std::vector<ProgramDefinition>& programs, const OptionValues& options,
                                 const std::vector<std::string>& models) {
  if (interrupted()) return false;
  Json& info = info_[name];
  const Json params = workload_params(name, find_preset("quick").params, options, programs);
  const ProgramDefinition p = program_definition_from_json(params.at("program"));
  if (const std::string why = program_unavailable(p); !why.empty()) {
    info["skipped"] = why;
    std::cerr << "\nprograms: " << name << " skipped: " << why << "\n";
    return true;
  }
  std::cerr << "\nprograms: tracing " << name << "\n";
  const fs::path inputs_dir = dirs_.inputs / name;
  fs::create_directories(inputs_dir);
  const Json inputs = workload_entry(name).prepare(params, inputs_dir);
  const ProgramInvocation how = traced_invocation(p, params, inputs);
  std::vector<std::string> argv = {exe_, "trace", "--out-prefix", (dirs_.traces / name).string(), "--"};
  argv.insert(argv.end(), how.argv.begin(), how.argv.end());
  EnvironmentChanges env;
  for (const auto& [k, v] : how.environment) env[k] = v;
  const double timeout_s = base_.cell_timeout_s.value_or(300);
  if (std::string why = run_step(argv, how.working_directory, env, timeout_s, dirs_.logs / (name + "-trace.log")); !why.empty()) {
    info["trace_failed"] = why;
    std::cerr << "programs: the trace of " << name << " failed: " << why << "\n";
    return true;
  }
  const fs::path trace = busiest_trace(dirs_.traces, name);
  const fs::path fit = dirs_.fits / (name + ".fit.json");
  info["trace"] = trace.string();
  if (std::string why = run_step({exe_, "fit", trace.string(), "-o", fit.string(), "--force"}, "", {}, timeout_s, dirs_.logs / (name + "-fit.log"));
      !why.empty()) {
    info["fit_failed"] = why;
    std::cerr << "programs: the fit of " << name << "'s trace failed: " << why << "\n";
  } else {
    info["fit"] = fit.string();
  }
  const FitConfig config = info.contains("fit") ? load_fit_config(fit) : FitConfig{};
  const Topology topology;
  for (const std::string& model : models) {
    if (model != "replay" && !info.contains("fit")) continue;
    PlanRequest request = base_;
    request.workloads = model + ":" + name;
    request.options = model_options(model, trace, fit, config);
    request.programs.clear();
    request.warmup_runs.reset();
    // replay takes the trace's thread count (fixed); fitted and the sized models the fit's,
    // at most this machine's PUs (rocksdb's fit has 3 threads; a 2-PU machine cannot place them).
    if (model != "replay")
      request.threads = std::to_string(std::clamp(config.params.threads, 1u, std::max(topology.usable_pu_count(false), 1u)));
    run_part(model + "-" + name, request);
    if (interrupted()) return false;
  }
  return true;
}

int ProgramStudy::finish() {
  if (parts_.empty()) throw UsageError("nothing was measured: " + json_text(info_) + discard_unmeasured_study(dirs_));  // one line
  Json merged = merge_results(parts_);
  merged["context"]["programs"] = info_;
  merged["context"]["command_line"] = command_line_;
  write_file_atomically(results_, json_text(merged, 2) + "\n");
  const std::string md = markdown_table(merged);
  write_file_atomically(table_path_for(results_), md);
  std::cout << md << "\nresults: " << results_.string() << "\nfidelity table: allocstress fidelity " << results_.string()
            << " (also in the report)\n";
  return report_after_matrix(results_, 0);
}

void find_study_tools() {
  try {
    find_tracer_library();
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string(e.what()) + "; the models need the program's trace");
  }
}

bool every_allocator_failed(const fs::path& results) {
  const Json doc = read_results_file(results);
  for (const Json& r : doc.at("benchmarks"))
    if (r.value("run_type", "") == "iteration" && r.value("status", "") == "ok" && is_program_workload(r.value("workload", ""))) return false;
  std::cerr << "note: no allocator ran the program to its end: every run failed (the reasons are in the table's \"Not measured\" list)\n";
  return true;
}

int run_bench_study(const MatrixPlan& plan, const Json&, const std::string& exe, const fs::path& results, bool force,
                    const ProgramDefinition& program, const PlanRequest& request) {
  PlanRequest base = request;
  base.allocators = "";  // the models run on every allocator, in-tree ones too, unless the user named some
  if (!request.allocators.empty()) base.allocators = request.allocators;
  base.target_ci.reset();
  base.time_budget_s.reset();
  base.repetitions = request.repetitions.value_or(5);
  ProgramStudy study(exe, "allocstress bench --trace", results, base, force);
  if (!study.run_planned_part("real", plan) && interrupted()) return 130;
  if (!study.study_program(program.name, {program}, {}, {"replay", "fitted"})) return 130;
  const int rc = study.finish();
  // The fidelity line: does the replay rank the allocators as the program does?
  const ChildOutcome fidelity = run_child({exe, "fidelity", results.string()}, {}, 300);
  std::cout << "\nfidelity of the models to " << program.name << ":\n" << (fidelity.succeeded() ? fidelity.out : fidelity.err);
  return rc;
}

}  // namespace allocstress
