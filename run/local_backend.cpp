// The local matrix backend: cell processes, journal appends, progress with ETA, final files.
#include "run/local_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>

#include "platform/process/child_process.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/record_identity.hpp"
#include "cells/modes/soak.hpp"
#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "results/results_file.hpp"
#include "results/results_output.hpp"
#include "run/adaptive_repetitions.hpp"
#include "run/child_command.hpp"
#include "run/memory_limit_cell.hpp"
#include "run/misuse_battery.hpp"
#include "platform/memory/thp_mode.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

std::string clock_text(double seconds) {
  const long s = long(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

// Under a cell's progress line: each of its record's warnings, and why an ok process was
// disturbed (it is left out of the figures and replaced), so the reader sees them as they happen.
void print_cell_notes(const nlohmann::json& record) {
  if (const nlohmann::json& limit = record.value("memory_limit", nlohmann::json::object()); limit.contains("outcome"))
    std::cerr << "          memory limit " << limit.value("spec", std::string()) << ": " << limit.at("outcome").get<std::string>() << "\n";
  for (const auto& w : record.value("warnings", nlohmann::json::array()))
    if (w.is_string()) std::cerr << "          warning: " << w.get<std::string>() << "\n";
  const nlohmann::json& interference = record.value("interference", nlohmann::json::object());
  if (interference.value("disturbed", false))
    for (const auto& why : interference.value("disturbed_by", nlohmann::json::array()))
      if (why.is_string()) std::cerr << "          disturbed (left out): " << why.get<std::string>() << "\n";
}

const AllocatorSpec& spec_of(const MatrixPlan& plan, const std::string& name) {
  for (const auto& a : plan.allocators)
    if (a.name == name) return a;
  throw std::logic_error("cell names an allocator outside its plan: " + name);
}

}  // namespace

nlohmann::json run_one_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                            const fs::path& temp_folder, ChildOutcome& outcome, int cgroup_procs_fd) {
  const AllocatorSpec& a = spec_of(plan, cell.cell.allocator);
  // The cell process reads the cell from a file: one encoding (plan/cell_encoding.hpp).
  const fs::path cell_file = temp_folder / "cell.json";
  write_file_atomically(cell_file, json_text(cell_to_json(cell.cell)) + "\n");
  const std::vector<std::string> argv = run_cell_command(executable, cell_file.string());
  EnvironmentChanges env = preload_environment(a);
  env["TMPDIR"] = temp_folder.string();  // a killed cell's leftovers stay there, removed with the folder
  const char* outer_tmpdir = std::getenv("TMPDIR");  // ... and a real program gets the user's back (cells/programs/program_drive.cpp)
  env["ALLOCSTRESS_OUTER_TMPDIR"] = outer_tmpdir != nullptr ? outer_tmpdir : "";
  // --thp never without the right to set the system's mode: the cell process switches THP off for itself.
  if (plan.thp_mode_of(cell.cell) == "never" && !can_set_system_thp_mode()) env[kThpDisableVariable] = "1";
  // A real program's counts run under callgrind, some 50 times slower than its timing runs.
  const bool program_counts = cell.cell.mode == CellMode::counts && is_program_workload(cell.cell.workload);
  // A soak cell runs for its duration, then as long as any cell may.
  const double timeout_s = program_counts ? plan.cell_timeout_s * kProgramCountsTimeoutFactor
                           : cell.cell.mode == CellMode::soak ? plan.cell_timeout_s + parse_soak_spec(cell.cell.soak).duration_s
                                                              : plan.cell_timeout_s;
  outcome = run_child(argv, env, timeout_s, "", cgroup_procs_fd);
  nlohmann::json record;
  if (outcome.end == ChildOutcome::End::exited) {
    record = last_json_line(outcome.out);
  }
  if (!record.is_object()) record = unmeasured_cell(cell, a, plan.repetitions, "failed", describe_failure(outcome, timeout_s));
  record.update(cell_identity(cell, a, plan.repetitions));
  record["command"] = shell_command_line(cell_command(executable, cell.cell));  // reproduces the cell by hand
  if (!outcome.succeeded() && record.value("status", "") == "ok") {
    record["status"] = "failed";
    record["reason"] = describe_failure(outcome, timeout_s);
  }
  return record;
}

namespace {

// How long a real program takes under callgrind (cache simulation on): about this many times its
// own wall time, plus valgrind's start (bench/README.md, "Program counts").
constexpr double kCallgrindSlowdown = 60, kCallgrindStartS = 1.5;
// The kernel events' two native runs (cells/programs/program_counts.cpp): one plain, one under strace -c.
constexpr double kNativeRunsSlowdown = 3;

// The warm-up runs of the program workloads (MatrixPlan::warmup_runs), before any measured cell:
// the first round verifies each (workload, allocator) -- the allocator reached the program, which
// called it, and ran to its end -- and system's run of a workload whose output is checked writes
// the reference.  What they found goes into the measured cells (see ProgramRuns::prepare).
struct ProgramRuns {
  std::map<std::pair<std::string, std::string>, std::string> failed;  // (workload, allocator) -> why its verification failed
  std::map<std::string, nlohmann::json> reference;                   // workload -> expected_stdout
  std::set<std::string> reference_missing;                           // workloads whose system run failed

  // The cell as it must run: a failed pair's reason ("" = run it), the reference output to check.
  std::string prepare(MatrixCell& cell) const {
    if (!is_program_workload(cell.cell.workload)) return "";
    if (const auto it = failed.find({cell.cell.workload, cell.cell.allocator}); it != failed.end()) return it->second;
    if (const auto it = reference.find(cell.cell.workload); it != reference.end() && cell.cell.allocator != kReferenceAllocator)
      cell.cell.inputs["expected_stdout"] = it->second;
    return "";
  }
};

// Before the first counts cell of a real program: how long the program counts cells should take,
// from the timing runs' wall times (the median of each workload's ok runs) and callgrind's slowdown.
std::string program_counts_estimate(const std::vector<MatrixCell>& cells, const ResultsJournal& journal) {
  std::map<std::string, std::vector<double>> walls;  // workload -> ok timing wall times
  for (const auto& [key, r] : journal.records())
    if (r.value("status", "") == "ok" && r.value("mode", "") == "timing" && r.contains("workload_metrics"))
      if (const nlohmann::json& w = r.at("workload_metrics").value("wall_s", nlohmann::json()); w.is_number())
        walls[r.value("workload", "")].push_back(w.get<double>());
  double expected_s = 0;
  std::size_t n = 0;
  for (const MatrixCell& c : cells) {
    if (c.cell.mode != CellMode::counts || !is_program_workload(c.cell.workload) || journal.records().count(c.key)) continue;
    std::vector<double>& w = walls[c.cell.workload];
    std::sort(w.begin(), w.end());
    const double median = w.empty() ? 1.0 : w[w.size() / 2];
    expected_s += kCallgrindStartS + (kCallgrindSlowdown + kNativeRunsSlowdown) * median;
    ++n;
  }
  char line[320];
  std::snprintf(line, sizeof line,
                "counts tier: %zu program run(s) under callgrind and twice natively, expected to take about %.0f s (the timing runs' "
                "median wall time x %.0f, callgrind's usual slowdown with its cache simulator, plus %.0f s to start each, plus x %.0f "
                "for the native runs)",
                n, expected_s, kCallgrindSlowdown, kCallgrindStartS, kNativeRunsSlowdown);
  return line;
}

bool checks_output(const MatrixPlan& plan, const std::string& workload) {
  return is_program_workload(workload) && plan.params.at(workload).at("program").value("check_output", false);
}

}  // namespace

int run_matrix(const MatrixPlan& plan, ResultsJournal& journal, const MatrixOutputs& outputs, const std::string& executable,
               const nlohmann::json& context_additions) {
  const double started_s = steady_seconds();
  const auto cells = plan.cells();
  const std::size_t total = cells.size();
  std::size_t done = 0;
  for (const auto& cell : cells) done += journal.records().count(cell.key);
  if (done > 0) std::cerr << "resuming: " << done << " of " << total << " cells already recorded\n";
  install_interrupt_handlers();
  if (const std::string line = restore_thp_mode_left_by_crashed_run(); !line.empty()) std::cerr << line << "\n";
  std::optional<ThpModeSetting> thp;  // restores the system's mode when this function returns, however it returns
  if (!plan.thp_mode.empty() && can_set_system_thp_mode()) {
    thp.emplace();
    thp->set(parse_thp_mode(plan.thp_mode));
    std::cerr << "THP mode set to " << plan.thp_mode << (plan.thp_variants.empty() ? "" : " (and per thp cell to its own)")
              << " for this run (it was " << (thp->original() ? to_string(*thp->original()) : "unknown") << "; restored when the run ends)\n";
  }
  if (!plan.memory_limit.empty())
    for (const std::string& line : remove_stale_limit_cgroups()) std::cerr << "memory limit: " << line << " (left by a runner that was killed)\n";
  // Scratch space of the cells (callgrind and strace files), beside the results.
  const fs::path temp_folder = outputs.results_json.string() + ".scratch";
  std::error_code tmp_error;
  fs::create_directories(temp_folder, tmp_error);
  if (tmp_error) throw std::runtime_error("cannot create " + temp_folder.string() + ": " + tmp_error.message());
  double spent_s = 0;
  std::size_t ran = 0;
  // ETA per kind of cell: a simulated-cache or profile cell takes several times a timing cell.
  double kind_spent_s[2] = {0, 0};
  std::size_t kind_ran[2] = {0, 0}, kind_left[2] = {0, 0};
  for (const auto& cell : cells)
    if (!journal.records().count(cell.key)) ++kind_left[cell.cell.mode == CellMode::timing ? 0 : 1];
  std::size_t failed = 0;
  // Runs one cell, journals it and prints its progress line; nullopt when interrupted.
  auto run_and_record = [&](const MatrixCell& cell, bool planned) -> std::optional<double> {
    ChildOutcome outcome;
    if (thp) thp->set(parse_thp_mode(plan.thp_mode_of(cell.cell)));  // writes only when the mode changes
    nlohmann::json record = cell.cell.mode == CellMode::limited ? run_limited_cell(plan, cell, executable, temp_folder, outcome, journal)
                                                                : run_one_cell(plan, cell, executable, temp_folder, outcome);
    if (outcome.end == ChildOutcome::End::interrupted) {
      std::cerr << "\ninterrupted: " << journal.records().size() << " cells are recorded in " << journal_path_for(outputs.results_json).string()
                << "\ncontinue with: allocstress matrix --resume --out " << outputs.results_json.string() << "\n";
      return std::nullopt;
    }
    journal.append(cell.key, record);
    ++ran;
    spent_s += outcome.elapsed_s;
    const int kind = cell.cell.mode == CellMode::timing ? 0 : 1;
    kind_spent_s[kind] += outcome.elapsed_s;
    ++kind_ran[kind];
    const bool ok = record.value("status", "") == "ok" || record.value("status", "") == "oom-killed";  // an OOM kill under a limit is a result
    failed += ok ? 0 : 1;
    char line[320];
    if (planned) {
      ++done;
      --kind_left[kind];
      double eta = 0;
      for (int k = 0; k < 2; ++k)  // a kind not seen yet is estimated at the other kind's mean
        eta += (kind_ran[k] > 0 ? kind_spent_s[k] / double(kind_ran[k]) : spent_s / double(ran)) * double(kind_left[k]);
      const std::string rep = cell.cell.mode != CellMode::timing ? std::string(to_string(cell.cell.mode))
                                                                 : "rep " + std::to_string(cell.repetition + 1) + "/" + std::to_string(plan.repetitions);
      std::snprintf(line, sizeof line, "[%3zu/%zu] %-9s threads %-3u %-10s %-17s %-6s %6.2f s | elapsed %s  ETA %s", done, total, rep.c_str(),
                    cell.cell.threads, cell.cell.workload.c_str(), cell.cell.allocator.c_str(), ok ? "ok" : "FAILED", outcome.elapsed_s,
                    clock_text(spent_s).c_str(), clock_text(eta).c_str());
    } else {  // adaptive: the budget, not a cell count, bounds what is left
      std::snprintf(line, sizeof line, "  adaptive rep %-5u threads %-3u %-10s %-17s %-6s %6.2f s | elapsed %s  budget %s", cell.repetition + 1,
                    cell.cell.threads, cell.cell.workload.c_str(), cell.cell.allocator.c_str(), ok ? "ok" : "FAILED", outcome.elapsed_s,
                    clock_text(steady_seconds() - started_s).c_str(), plan.time_budget_s > 0 ? clock_text(plan.time_budget_s).c_str() : "none");
    }
    std::cerr << line << (ok ? "" : "  (" + record.value("reason", std::string("?")) + ")") << "\n";
    print_cell_notes(record);
    return outcome.elapsed_s;
  };
  ProgramRuns programs;
  const std::vector<MatrixCell> warmups = done == 0 ? plan.warmup_cells() : std::vector<MatrixCell>{};
  for (std::size_t i = 0; i < warmups.size(); ++i) {
    MatrixCell cell = warmups[i];
    const bool verification = cell.key.ends_with("/warmup:0");
    const std::pair<std::string, std::string> pair = {cell.cell.workload, cell.cell.allocator};
    if (programs.failed.count(pair)) continue;
    cell.cell.inputs["verification"] = verification;
    const fs::path reference = temp_folder / ("reference-" + std::to_string(i) + ".out");
    if (verification && cell.cell.allocator == kReferenceAllocator && checks_output(plan, cell.cell.workload))
      cell.cell.inputs["write_stdout_to"] = reference.string();
    ChildOutcome outcome;
    const nlohmann::json record = run_one_cell(plan, cell, executable, temp_folder, outcome);
    if (outcome.end == ChildOutcome::End::interrupted) return 130;
    const bool ok = record.value("status", "") == "ok";
    const nlohmann::json& program = record.value("program", nlohmann::json::object());
    std::string note;
    if (verification && ok) {
      const nlohmann::json& preload = program.value("preload", nlohmann::json::object());
      note = "verified: " + std::to_string(preload.value("processes_reached", 0)) + " of " + std::to_string(preload.value("processes", 0)) +
             " process(es) under the allocator" +
             (preload.value("allocation_calls", nlohmann::json()).is_number() ? ", " + preload.at("allocation_calls").dump() + " allocation calls" : "");
      if (cell.cell.inputs.contains("write_stdout_to"))
        programs.reference[cell.cell.workload] = {{"hash", program.value("stdout_hash", "")}, {"bytes", program.value("stdout_bytes", 0)},
                                                  {"file", reference.string()}};
    } else if (!ok) {
      const std::string why = record.value("reason", std::string("?"));
      programs.failed[pair] = std::string(verification ? "its verification run failed: " : "a warm-up run failed: ") + why;
      if (cell.cell.allocator == kReferenceAllocator && checks_output(plan, cell.cell.workload)) programs.reference_missing.insert(cell.cell.workload);
    }
    char line[240];
    std::snprintf(line, sizeof line, "[warm-up %zu/%zu] threads %-3u %-10s %-17s %-6s %6.2f s", i + 1, warmups.size(), cell.cell.threads,
                  cell.cell.workload.c_str(), cell.cell.allocator.c_str(), ok ? "ok" : "FAILED", outcome.elapsed_s);
    std::cerr << line << (ok ? (note.empty() ? "" : "  (" + note + ")") : "  (" + record.value("reason", std::string("?")) + ")") << "\n";
    print_cell_notes(record);
  }
  for (const std::string& w : programs.reference_missing)
    std::cerr << "note: " << w << "'s output is not checked: system's verification run failed, so there is no reference\n";
  auto run_planned = [&](MatrixCell cell, bool planned) -> std::optional<double> {
    if (const std::string why = programs.prepare(cell); !why.empty()) {
      journal.append(cell.key, unmeasured_cell(cell, spec_of(plan, cell.cell.allocator), plan.repetitions, "failed", why));
      if (planned) ++done;
      ++failed;
      return 0.0;
    }
    return run_and_record(cell, planned);
  };
  bool counts_announced = false;
  for (const auto& cell : cells) {
    if (journal.records().count(cell.key)) continue;
    if (!counts_announced && cell.cell.mode == CellMode::counts && is_program_workload(cell.cell.workload)) {
      counts_announced = true;
      std::cerr << program_counts_estimate(cells, journal) << "\n";
    }
    if (!run_planned(cell, true)) return 130;
  }
  const double mean_timing_s = kind_ran[0] > 0 ? kind_spent_s[0] / double(kind_ran[0]) : 1.0;
  const std::optional<nlohmann::json> adaptive =
      run_adaptive_repetitions(plan, journal, started_s, mean_timing_s, [&](const MatrixCell& cell) { return run_planned(cell, false); });
  if (!adaptive) return 130;

  // The planned cells in plan order, then the adaptive repetitions.
  std::vector<nlohmann::json> records;
  std::set<std::string> planned;
  for (const auto& cell : cells) {
    records.push_back(journal.records().at(cell.key));
    planned.insert(cell.key);
  }
  std::vector<const nlohmann::json*> extra;
  for (const auto& [key, record] : journal.records())
    if (!planned.count(key)) extra.push_back(&record);
  std::stable_sort(extra.begin(), extra.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return a->value("repetition_index", 0u) < b->value("repetition_index", 0u);
  });
  for (const nlohmann::json* r : extra) records.push_back(*r);
  nlohmann::json context = journal.header().at("context");
  context.update(context_additions);
  if (!adaptive->is_null()) context["adaptive_repetitions"] = *adaptive;
  nlohmann::json safety;
  if (plan.misuse) {  // after the cells: its processes are short, and it measures no time
    std::vector<AllocatorSpec> drop_ins;
    for (const auto& a : plan.allocators)
      if (a.kind == AllocatorKind::drop_in) drop_ins.push_back(a);
    std::cerr << "misuse battery: " << drop_ins.size() << " drop-in allocator(s)\n";
    safety = to_json(run_misuse_battery(drop_ins, select_misuse_cases({}), MisuseOptions{}, [](const std::string& line) { std::cerr << line << "\n"; }));
    if (interrupted()) return 130;
  }
  try {
    write_results(plan, std::move(context), std::move(records), outputs, std::move(safety));
  } catch (const std::exception& e) {  // a full disk: the journal keeps every record, --resume writes the files
    throw std::runtime_error(std::string(e.what()) + "; every cell's record is safe in " + journal_path_for(outputs.results_json).string() +
                             ": `allocstress matrix --resume --out " + outputs.results_json.string() + "` writes the results and the report");
  }
  std::error_code ec;
  fs::remove(journal_path_for(outputs.results_json), ec);
  fs::remove_all(temp_folder, ec);
  if (failed > 0) std::cerr << "note: " << failed << " cell(s) failed; their reasons are in the results and under the table\n";
  return 0;
}

}  // namespace allocstress
