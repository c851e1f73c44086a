// `allocstress slurm run-cell|status|merge` (see slurm_commands.hpp and run/slurm_backend.hpp).
#include "cli/commands/slurm_commands.hpp"

#include "cli/commands/python_commands.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "platform/machine_context.hpp"
#include "run/child_command.hpp"
#include "run/local_backend.hpp"
#include "plan/plan_file.hpp"
#include "results/results_journal.hpp"
#include "run/slurm_backend.hpp"
#include "platform/topology.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// A Slurm command: under `slurm`, or (alias) at the top as a deprecated spelling.
CLI::App* add_slurm_command(CLI::App& app, bool alias, const std::string& name, const std::string& help) {
  CLI::App* cmd = app.add_subcommand(name, alias ? "Deprecated: use `allocstress slurm " + name + "`" : help);
  if (alias) cmd->group("Deprecated spellings");
  return cmd;
}

// The warning of an alias spelling.
void warn_if_alias(bool alias, const std::string& name) {
  if (alias) std::cerr << "allocstress: warning: " << name << " is deprecated: write allocstress slurm " << name << "\n";
}

PlanFile read_results_dir_plan(const SlurmResultsDir& dir) {
  if (!fs::is_directory(dir.root)) throw UsageError("results directory " + dir.root.string() + " does not exist");
  try {
    return read_plan_file(dir.plan());
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string(e.what()) + " (a results directory of `allocstress slurm submit` holds plan.json)");
  }
}

// The record of cell i, or null when it has none (or an unreadable one).
nlohmann::json cell_record(const SlurmResultsDir& dir, std::size_t i) {
  std::ifstream in(dir.cell(i));
  if (!in) return nullptr;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json(nullptr);
}

}  // namespace

void RunCellCommand::add_to(CLI::App& app, bool alias_) {
  alias = alias_;
  cmd = add_slurm_command(app, alias, "run-cell", "(Slurm array task) run cell INDEX of the plan in results directory DIR and record it there");
  cmd->add_option("dir", dir, "Results directory (holds plan.json)")->required();
  cmd->add_option("index", index, "Cell index in the plan")->required()->check(kWholeNumber);
}

int RunCellCommand::execute(const std::string& command_line) {
  warn_if_alias(alias, "run-cell");
  const SlurmResultsDir d{dir};
  const PlanFile plan = read_results_dir_plan(d);
  if (index >= plan.cells.size())
    throw UsageError("cell index " + std::to_string(index) + " is out of range: the plan has " + std::to_string(plan.cells.size()) + " cells");
  const MatrixCell& cell = plan.cells[index];
  const std::string host = host_name();
  std::error_code ec;
  if (!fs::exists(d.context(host), ec)) {  // each node says once what it is
    const Topology topology;
    write_file_atomically(d.context(host), json_text(machine_context(topology, command_line), 2) + "\n");
  }
  const std::string exe = allocstress_executable();
  const fs::path scratch = make_temporary_folder("allocstress-cell-");
  ChildOutcome outcome;
  nlohmann::json record = run_one_cell(plan.plan, cell, exe, scratch, outcome);
  fs::remove_all(scratch, ec);
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  record["slurm"] = {{"job_id", job != nullptr ? job : ""}, {"task", index}, {"host", host}, {"elapsed_s", outcome.elapsed_s}};
  write_file_atomically(d.cell(index), json_text(record) + "\n");
  std::cout << "cell " << index << " (" << cell.key << "): " << record.value("status", std::string("?")) << "\n";
  return 0;  // a failed cell is a result too: its record says why
}

void StatusCommand::add_to(CLI::App& app, bool alias_) {
  alias = alias_;
  cmd = add_slurm_command(app, alias, "status", "Show the cells of a Slurm results directory: done, failed, running, pending, lost");
  cmd->add_option("dir", dir, "Results directory of `allocstress slurm submit`")->required();
}

int StatusCommand::execute() {
  warn_if_alias(alias, "status");
  const SlurmResultsDir d{dir};
  const PlanFile plan = read_results_dir_plan(d);
  const bool slurm_here = !find_on_path("squeue").empty() && !find_on_path("scontrol").empty();
  const auto states = slurm_here ? slurm_task_states(d) : std::map<std::size_t, SlurmTaskState>{};
  if (!slurm_here) std::cout << "note: squeue/scontrol are not on PATH here: cells without a record are listed as not submitted\n";
  std::map<std::string, std::vector<std::string>> groups;  // status -> lines
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const nlohmann::json rec = cell_record(d, i);
    const std::string key = plan.cells[i].key;
    const auto st = states.find(i);
    if (rec.is_object()) {
      const std::string status = rec.value("status", "failed");
      groups[status == "ok" ? "done" : "failed"].push_back(std::to_string(i) + " " + key + (status == "ok" ? "" : ": " + rec.value("reason", std::string("?"))));
    } else if (st == states.end()) {
      groups["not submitted"].push_back(std::to_string(i) + " " + key);
    } else if (st->second.state == "RUNNING" || st->second.state == "COMPLETING" || st->second.state == "CONFIGURING") {
      groups["running"].push_back(std::to_string(i) + " " + key + " (" + st->second.job_id + ")");
    } else if (st->second.state == "PENDING" || st->second.state == "REQUEUED") {
      groups["pending"].push_back(std::to_string(i) + " " + key + " (" + st->second.job_id + ", " + st->second.reason + ")");
    } else {
      groups["lost"].push_back(std::to_string(i) + " " + key + ": task " + st->second.job_id + " ended " + st->second.state +
                               " without a record (" + st->second.reason + ")");
    }
  }
  std::cout << dir << ": " << plan.cells.size() << " cells";
  for (const char* g : {"done", "failed", "running", "pending", "lost", "not submitted"})
    std::cout << ", " << groups[g].size() << " " << g;
  std::cout << "\n";
  for (const char* g : {"failed", "running", "pending", "lost", "not submitted"})
    for (const auto& line : groups[g]) std::cout << "  " << g << ": " << line << "\n";
  if (!groups["lost"].empty() || !groups["not submitted"].empty())
    std::cout << "re-submit the cells without a record: allocstress slurm submit --results-dir " << dir << " --resume\n";
  else if (groups["running"].empty() && groups["pending"].empty())
    std::cout << "every cell has a record: allocstress slurm merge " << dir << " -o results.json\n";
  return 0;
}

void MergeCommand::add_to(CLI::App& app, bool alias_) {
  alias = alias_;
  cmd = add_slurm_command(app, alias, "merge", "Build one results file from a Slurm results directory: merge DIR -o results.json");
  cmd->add_option("dir", dir, "Results directory of `allocstress slurm submit`")->required();
  cmd->add_option("-o,--out", out, "The results file to write (.json); the .md table and the report go beside it")->required();
  cmd->add_flag("--force", force, "Overwrite an existing results file");
}

int MergeCommand::execute() {
  warn_if_alias(alias, "merge");
  const SlurmResultsDir d{dir};
  const PlanFile plan = read_results_dir_plan(d);
  check_new_output_file(out, force);
  std::vector<nlohmann::json> records;
  std::size_t missing = 0;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    records.push_back(cell_record(d, i));
    missing += records.back().is_object() ? 0 : 1;
  }
  if (missing > 0)
    throw UsageError(std::to_string(missing) + " of " + std::to_string(plan.cells.size()) + " cells have no record yet in " + dir +
                     " (see `allocstress slurm status " + dir + "`; re-submit them with --resume)");
  // The context: the node that ran the cells (the first one, when several did), with the hosts listed.
  nlohmann::json context = plan.context, hosts = nlohmann::json::array();
  std::error_code ec;
  std::vector<fs::path> contexts;
  for (const auto& e : fs::directory_iterator(dir + "/contexts", ec)) contexts.push_back(e.path());
  std::sort(contexts.begin(), contexts.end());
  for (const auto& p : contexts) {
    hosts.push_back(p.stem().string());
    if (hosts.size() == 1) {
      std::ifstream in(p);
      const nlohmann::json node = nlohmann::json::parse(in, nullptr, false);
      if (node.is_object()) context = node;
    }
  }
  context["backend"] = {{"name", "slurm"}, {"results_dir", fs::absolute(dir).string()}, {"hosts", hosts}, {"planned_on", plan.context.value("hostname", "")}};
  if (hosts.size() > 1)
    context["warnings"].push_back("cells ran on " + std::to_string(hosts.size()) + " nodes; the context shown is " + hosts[0].get<std::string>() +
                                  "'s (the others are in " + dir + "/contexts/)");
  const fs::path results = out;
  write_results(plan.plan, std::move(context), std::move(records), {results, table_path_for(results)});
  return report_after_matrix(results, 0);
}

}  // namespace allocstress
