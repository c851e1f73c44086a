// The local matrix backend: cell processes, journal appends, progress with ETA, final files.
#include "run/local_backend.hpp"

#include <cstdio>
#include <iostream>

#include "platform/child_process.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "plan/cell_encoding.hpp"
#include "results/results_file.hpp"
#include "results/results_output.hpp"
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

const AllocatorSpec& spec_of(const MatrixPlan& plan, const std::string& name) {
  for (const auto& a : plan.allocators)
    if (a.name == name) return a;
  throw std::logic_error("cell names an allocator outside its plan: " + name);
}

}  // namespace

nlohmann::json run_one_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                            const fs::path& temp_folder, ChildOutcome& outcome) {
  const AllocatorSpec& a = spec_of(plan, cell.cell.allocator);
  // The cell process reads the cell from a file: one encoding (plan/cell_encoding.hpp).
  const fs::path cell_file = temp_folder / "cell.json";
  write_file_atomically(cell_file, json_text(cell_to_json(cell.cell)) + "\n");
  const std::vector<std::string> argv = {executable, "run", "--cell", cell_file.string()};
  EnvironmentChanges env = preload_environment(a);
  env["TMPDIR"] = temp_folder.string();  // a killed cell's leftovers stay there, removed with the folder
  outcome = run_child(argv, env, plan.cell_timeout_s);
  nlohmann::json record;
  if (outcome.end == ChildOutcome::End::exited) {
    record = last_json_line(outcome.out);
  }
  if (!record.is_object()) record = unmeasured_cell(cell, a, plan.repetitions, "failed", describe_failure(outcome, plan.cell_timeout_s));
  record.update(cell_identity(cell, a, plan.repetitions));
  record["command"] = shell_command_line(cell_command(executable, cell.cell));  // reproduces the cell by hand
  if (!outcome.succeeded() && record.value("status", "") == "ok") {
    record["status"] = "failed";
    record["reason"] = describe_failure(outcome, plan.cell_timeout_s);
  }
  return record;
}

int run_matrix(const MatrixPlan& plan, ResultsJournal& journal, const MatrixOutputs& outputs, const std::string& executable,
               const nlohmann::json& context_additions) {
  const auto cells = plan.cells();
  const std::size_t total = cells.size();
  std::size_t done = journal.records().size();
  if (done > 0) std::cerr << "resuming: " << done << " of " << total << " cells already recorded\n";
  install_interrupt_handlers();
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
  for (const auto& cell : cells) {
    if (journal.records().count(cell.key)) continue;
    ChildOutcome outcome;
    nlohmann::json record = run_one_cell(plan, cell, executable, temp_folder, outcome);
    if (outcome.end == ChildOutcome::End::interrupted) {
      std::cerr << "\ninterrupted: " << done << " of " << total << " cells are recorded in " << journal_path_for(outputs.results_json).string()
                << "\ncontinue with: allocstress matrix --resume --out " << outputs.results_json.string() << "\n";
      return 130;
    }
    journal.append(cell.key, record);
    ++done;
    ++ran;
    spent_s += outcome.elapsed_s;
    const int kind = cell.cell.mode == CellMode::timing ? 0 : 1;
    kind_spent_s[kind] += outcome.elapsed_s;
    ++kind_ran[kind];
    --kind_left[kind];
    const bool ok = record.value("status", "") == "ok";
    failed += ok ? 0 : 1;
    double eta = 0;
    for (int k = 0; k < 2; ++k)  // a kind not seen yet is estimated at the other kind's mean
      eta += (kind_ran[k] > 0 ? kind_spent_s[k] / double(kind_ran[k]) : spent_s / double(ran)) * double(kind_left[k]);
    char line[320];
    const std::string rep = cell.cell.mode != CellMode::timing ? std::string(to_string(cell.cell.mode))
                                                         : "rep " + std::to_string(cell.repetition + 1) + "/" + std::to_string(plan.repetitions);
    std::snprintf(line, sizeof line, "[%3zu/%zu] %-9s threads %-3u %-10s %-17s %-6s %6.2f s | elapsed %s  ETA %s", done, total,
                  rep.c_str(), cell.cell.threads, cell.cell.workload.c_str(), cell.cell.allocator.c_str(),
                  ok ? "ok" : "FAILED", outcome.elapsed_s, clock_text(spent_s).c_str(), clock_text(eta).c_str());
    std::cerr << line << (ok ? "" : "  (" + record.value("reason", std::string("?")) + ")") << "\n";
  }

  std::vector<nlohmann::json> records;
  for (const auto& cell : cells) records.push_back(journal.records().at(cell.key));
  nlohmann::json context = journal.header().at("context");
  context.update(context_additions);
  write_results(plan, std::move(context), std::move(records), outputs);
  std::error_code ec;
  fs::remove(journal_path_for(outputs.results_json), ec);
  fs::remove_all(temp_folder, ec);
  if (failed > 0) std::cerr << "note: " << failed << " cell(s) failed; their reasons are in the results and under the table\n";
  return 0;
}

}  // namespace allocstress
