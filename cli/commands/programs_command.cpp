// The `allocstress programs` command (see programs_command.hpp).
#include "cli/commands/programs_command.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>

#include "cells/workload_registry.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/name_checks.hpp"
#include "cli/commands/python_commands.hpp"
#include "cli/commands/program_study.hpp"
#include "cli/commands/trace_command.hpp"
#include "plan/planner.hpp"
#include "plan/presets.hpp"
#include "plan/workload_params.hpp"
#include "platform/process/child_process.hpp"
#include "platform/comma_list.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "results/results_merge.hpp"
#include "results/results_output.hpp"
#include "results/results_reader.hpp"
#include "results/tables/results_table.hpp"
#include "run/child_command.hpp"
#include "run/preflight.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "plan/programs_file.hpp"

namespace allocstress {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The items of the comma list `asked` among `known` ("" or "all": every one), duplicates dropped;
// UsageError naming the first unknown one as `what`.
std::vector<std::string> chosen(const std::string& asked, const std::vector<std::string>& known, const std::string& what, bool all_allowed) {
  if (all_allowed && (asked.empty() || asked == "all")) return known;
  std::vector<std::string> out;
  for (const std::string& name : comma_separated(asked)) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw UsageError("unknown " + what + " '" + name + "'" + (all_allowed ? "" : " in --models") + " (accepted: " + joined(known) +
                       (all_allowed ? ", or all)" : ")"));
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace

void ProgramsCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("programs",
                           "Real programs under every allocator, beside their traces' replay and the models fitted to them, with the "
                           "fidelity table: programs [--programs-file FILE] [--programs LIST] [-o OUT.json]");
  cmd->add_option("--programs-file", programs_file,
                  "A programs file (TOML, docs/programs-file.md) whose programs to study (default: the shipped prog-* programs)");
  cmd->add_option("--programs", programs, "Comma-separated programs of the file (default: all, each skipped with its reason if not installed)");
  cmd->add_option("--allocators", allocators, std::string(kAllocatorsHelp) + "; real programs run under the drop-ins only");
  cmd->add_option("--add-allocator", added, kAddAllocatorHelp);
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_option("--models", models, "Comma-separated models run on each program's trace: replay, fitted, alloc-test, lifetime (default all)");
  cmd->add_option("--prog-work", work, "Each program's work in percent of its default (1..10000; default 100), in its real runs and its trace");
  cmd->add_option("--reps", reps, "Repetitions (fresh processes) per cell, in every part (default 5)")->check(kWholeNumber);
  cmd->add_option("--timeout", timeout_s, "Per-cell timeout in seconds, also of each trace and fit step (default 300)");
  cmd->add_option("-o,--out", out, "Results file (.json; default out/programs-<time>.json); the parts, traces and fits go to OUT-programs/");
  cmd->add_flag("--force", force, "Overwrite an existing results file and study folder");
  cmd->add_flag("--counts", counts, "Also a counts cell (valgrind) per program, model and allocator: the fidelity table's counts rows, "
                                    "the same on every run (default off: it adds a valgrind run per cell)");
}

int ProgramsCommand::execute(const std::string& command_line) {
  const std::string exe = allocstress_executable();
  const ProgramsFile file = programs_file.empty() ? shipped_programs() : read_programs_file(programs_file);
  std::vector<std::string> all;
  for (const ProgramDefinition& p : file.programs) all.push_back(p.name);
  const std::vector<std::string> names = chosen(programs, all, "program", true);
  const std::vector<std::string> model_names = chosen(models, study_models(), "model", false);
  if (names.empty()) throw UsageError("the programs file " + file.path.string() + " has no program");
  if (reps == 0) throw UsageError("--reps must be at least 1, got 0");
  if (!(timeout_s > 0 && timeout_s <= 1e6)) throw UsageError("--timeout must be a number of seconds in (0, 1000000]");
  if (!allocators.empty()) check_allocator_names(load_catalog(manifest, added), allocators);
  if (!model_names.empty()) find_study_tools();  // every model rests on the program's trace: no tracer, no study
  const OptionValues program_options = work.empty() ? OptionValues{} : OptionValues{{"--prog-work", work}};
  const Preset preset = find_preset("quick");
  for (const std::string& program : names) try {
      workload_entry(program).check(workload_params(program, preset.params, program_options, file.programs), 1);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  const fs::path results = out.empty() ? fs::path("out") / ("programs-" + file_time_stamp() + ".json") : fs::path(out);
  if (results.extension() != ".json") throw UsageError("--out " + results.string() + " must end in .json (the table is written beside it as .md)");
  check_new_output_file(results, force);

  // counts off: the fidelity table compares timing and memory rankings; on: its counts rows too
  PlanRequest base{.allocators = allocators, .added_libraries = added, .manifest = manifest, .repetitions = reps, .cell_timeout_s = timeout_s, .counts = counts};
  ProgramStudy study(exe, command_line, results, base, force);
  // 1. The real programs, under the drop-ins (the others are refused by the program workloads).
  PlanRequest real = base;
  real.workloads.clear();
  for (const std::string& n : names) real.workloads += (real.workloads.empty() ? "" : ",") + n;
  real.options = program_options;
  real.programs = file.programs;
  if (!study.run_part("real", real) && interrupted()) return 130;
  // 2. Per program: its trace, its fit, its models.
  for (const std::string& program : names)
    if (!study.study_program(program, file.programs, program_options, model_names)) return 130;
  // 3. One results file, its table and report.
  return study.finish();
}

}  // namespace allocstress
