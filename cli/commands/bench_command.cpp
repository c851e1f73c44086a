// `allocstress bench` (see bench_command.hpp).
#include "cli/commands/bench_command.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "cells/programs/program_workloads.hpp"
#include "cells/workload_registry.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/name_checks.hpp"
#include "cli/commands/program_study.hpp"
#include "plan/planner.hpp"
#include "platform/process/child_process.hpp"
#include "platform/process/elf_linkage.hpp"
#include "platform/machine_context.hpp"
#include "platform/process/program_run.hpp"
#include "platform/process/shell_words.hpp"
#include "results/results_reader.hpp"
#include "run/child_command.hpp"
#include "run/preflight.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// The executable the user means by `word`: a path as given (made absolute), or the first match on
// PATH, as a shell would run it.  Throws UsageError when there is none.
std::string resolve_on_path(const std::string& word, const std::string& option) {
  if (word.find('/') != std::string::npos) {
    const fs::path p = fs::absolute(word);
    if (access(p.c_str(), X_OK) != 0) throw UsageError(option + ": " + word + " is not an executable file");
    return p.string();
  }
  const char* path = std::getenv("PATH");
  const std::string found = find_executable(word, path != nullptr ? path : "/usr/bin:/bin");
  if (found.empty()) throw UsageError(option + ": no program '" + word + "' on PATH (" + (path != nullptr ? path : "") + ")");
  return found;
}

// A workload name from the program's file name: the characters a name takes, "bench-" in front
// when it is a built-in workload's name.
std::string name_from(const std::string& executable) {
  std::string base = fs::path(executable).filename().string(), out;
  for (char c : base) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  if (out.empty()) out = "program";
  if (out.size() > 58) out.resize(58);
  return registry_workload(out) != nullptr ? "bench-" + out : out;
}

// NAME=REGEX[,higher|lower]; the regex may hold commas itself.
ProgramMetric parse_metric(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--metric '" + text + "' is not NAME=REGEX[,higher|lower] (e.g. --metric 'rps=([0-9.]+) requests/s,higher')");
  ProgramMetric m;
  m.name = text.substr(0, eq);
  m.regex = text.substr(eq + 1);
  // the last comma-separated piece says which way is better, when it is one of the two words
  const std::size_t comma = m.regex.rfind(',');
  const std::string better = comma == std::string::npos || comma == 0 ? "" : m.regex.substr(comma + 1);
  if (better == "higher" || better == "lower") {
    m.higher_is_better = better == "higher";
    m.regex.resize(comma);
  }
  return m;
}

}  // namespace

void BenchCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("bench",
                           "Your own program under every allocator, one fresh process tree per run, with a verdict: "
                           "bench [options] -- CMD [ARGS...]  (a server: bench --server CMD --ready-port P --client CMD)");
  const std::string what = "What to run";
  cmd->add_option("command", command, "The program and its arguments, after --")->group(what);
  cmd->add_option("--name", name, "The workload name in the results (default: the program's file name)")->group(what);
  cmd->add_option("--prepare", prepare, "A shell command before each run (not measured, not preloaded), e.g. to reset a database")->group(what);
  cmd->add_option("--cwd", cwd, "The folder the program runs in (default: this one)")->group(what);
  cmd->add_option("--env", env, "VAR=VALUE in the program's environment (repeatable)")->group(what);
  cmd->add_option("--metric", metrics,
                  "NAME=REGEX[,higher|lower]: a figure read from the program's standard output (a server: its client's), the first "
                  "group of the regex or its whole match, the last match; recorded and ranked (default higher is better; repeatable)")
      ->group(what);
  cmd->add_flag("--check-output", check_output,
                "Every allocator's standard output must equal system's (a server: its client's): a run whose output differs fails, "
                "with the first differing line")
      ->group(what);
  const std::string server_group = "Server mode";
  cmd->add_option("--server", server, "A server command to measure (under the allocator) while --client loads it; split like a shell, no expansion")
      ->group(server_group);
  cmd->add_option("--client", client, "The load client, run with /bin/sh -c and without the preload once the server is up; its output gives the metrics")
      ->group(server_group);
  cmd->add_option("--ready-port", ready_port, "The server is up when 127.0.0.1:PORT accepts a connection")->group(server_group);
  cmd->add_option("--ready-regex", ready_regex, "The server is up when its output matches REGEX")->group(server_group);
  cmd->add_option("--stop", stop, "How the server stops after the load: a signal (SIGTERM, SIGINT, ...) or send:TEXT to the ready port (default SIGTERM)")
      ->group(server_group);
  const std::string how = "How it is measured";
  cmd->add_option("--allocators", allocators, std::string(kAllocatorsHelp) + "; programs run under the drop-ins only")->group(how);
  cmd->add_option("--add-allocator", added, kAddAllocatorHelp)->group(how);
  cmd->add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)")->group(how);
  cmd->add_option("--reps", reps, "Measured runs per allocator: exactly N (default: 5, then adaptive runs to --target-ci)")->check(kWholeNumber)->group(how);
  cmd->add_option("--warmup", warmup, "Unmeasured runs per allocator first; the first verifies the preload and that the program calls malloc (default 1)")
      ->check(kWholeNumber)
      ->group(how);
  cmd->add_option("--target-ci", target_ci_pct, "Adaptive runs until every median's interval is within +-PCT% (default 5; 0 = off)")->group(how);
  cmd->add_option("--time-budget", time_budget, "Adaptive runs stop when the whole run would take longer (default 120s)")->group(how);
  cmd->add_option("--timeout", timeout_s, "One run's limit in seconds: a run that takes longer is killed with its children and failed (default 300)")
      ->group(how);
  cmd->add_flag("--counts", counts, "Also run the program once per allocator under callgrind: instructions, allocator instructions, simulated misses (slow)")
      ->group(how);
  cmd->add_flag("--trace", trace,
                "Also trace the program once, replay its trace on every allocator (in-tree ones too), fit the model and say whether "
                "the replay ranks the allocators as the program does")
      ->group(how);
  cmd->add_option("-o,--out", out, "Results file (.json; default out/bench-NAME-<time>.json); the table and the report go beside it")->group(how);
  cmd->add_flag("--force", force, "Overwrite an existing results file")->group(how);
}

int BenchCommand::execute(const std::string& command_line) {
  const std::string exe = allocstress_executable();
  const bool server_mode = cmd->count("--server") > 0;
  if (server_mode && !command.empty())
    throw UsageError("give the program either after -- or as --server CMD, not both (got -- " + command.front() + " and --server)");
  if (!server_mode && command.empty())
    throw UsageError("no command to measure (accepted: allocstress bench [options] -- CMD [ARGS...], or --server CMD --client CMD)");
  if (!server_mode)
    for (const char* opt : {"--client", "--ready-port", "--ready-regex", "--stop"})
      if (cmd->count(opt) > 0) throw UsageError(std::string(opt) + " belongs to server mode: give --server CMD too");
  if (!(timeout_s > 0 && timeout_s <= 1e6)) throw UsageError("--timeout must be a number of seconds in (0, 1000000]");
  if (!(target_ci_pct >= 0 && target_ci_pct < 100)) throw UsageError("--target-ci must be a percentage in [0, 100) (0 = no adaptive runs)");
  if (cmd->count("--reps") > 0 && reps == 0) throw UsageError("--reps must be at least 1, got 0");

  ProgramDefinition p;
  p.origin = "allocstress bench";
  try {
    p.command = server_mode ? split_shell_words(server) : command;
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--server: ") + e.what());
  }
  if (p.command.empty()) throw UsageError("--server names no command");
  p.command.front() = resolve_on_path(p.command.front(), server_mode ? "--server" : "the command");
  if (const std::string why = preload_unreachable_reason(p.command.front()); !why.empty())
    throw UsageError(p.command.front() + " cannot be measured under a drop-in allocator: " + why);
  p.name = name.empty() ? name_from(p.command.front()) : name;
  if (registry_workload(p.name) != nullptr)
    throw UsageError("--name '" + p.name + "' is a built-in workload's name (" + workload_names_text() + "): choose another");
  p.summary = shell_command_line(p.command);
  if (p.summary.size() > 200) p.summary = p.summary.substr(0, 197) + "...";
  for (std::string& word : p.command) word = escape_braces(word, server_mode);
  p.prepare = escape_braces(prepare, server_mode);
  p.working_directory = cwd.empty() ? fs::current_path().string() : fs::absolute(cwd).string();
  if (!fs::is_directory(p.working_directory)) throw UsageError("--cwd " + cwd + " is not a folder");
  p.working_directory = escape_braces(p.working_directory, false);
  for (const std::string& e : env) {
    const std::size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--env '" + e + "' is not VAR=VALUE");
    p.environment[e.substr(0, eq)] = escape_braces(e.substr(eq + 1), server_mode);
  }
  for (const std::string& m : metrics) p.metrics.push_back(parse_metric(m));
  p.check_output = check_output;
  p.timeout_s = timeout_s;
  if (server_mode) {
    p.drive = ProgramDrive::server;
    if (client.empty()) throw UsageError("--server needs --client CMD: the command that sends the server a bounded load");
    p.client = {"/bin/sh", "-c", escape_braces(client, true)};
    p.ready_port = ready_port;
    p.ready_regex = ready_regex;
    p.stop = stop;
  }
  try {
    check_program_definition(p, "");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  declare_program_workload(p.name);  // allocator names: the planner checks them, with "did you mean"

  PlanRequest request;
  request.workloads = p.name;
  request.programs = {p};
  request.allocators = allocators;
  request.added_libraries = added;
  request.manifest = manifest;
  if (cmd->count("--reps") > 0) request.repetitions = reps;
  request.target_ci = cmd->count("--reps") > 0 && cmd->count("--target-ci") == 0 ? 0.0 : target_ci_pct / 100;
  if (*request.target_ci > 0) request.time_budget_s = parse_duration_seconds("--time-budget", time_budget);
  request.cell_timeout_s = timeout_s + 60;  // the cell process's own limit: the run's, and time to start and report
  request.counts = counts;
  request.warmup_runs = warmup;
  request.randomised_order = true;
  if (check_output && warmup == 0) throw UsageError("--check-output compares with system's first warm-up run: it needs --warmup 1 or more");

  const fs::path results = out.empty() ? fs::path("out") / ("bench-" + p.name + "-" + file_time_stamp() + ".json") : fs::path(out);
  if (results.extension() != ".json") throw UsageError("--out " + results.string() + " must end in .json (the table is written beside it as .md)");
  check_new_output_file(results, force);
  if (trace) find_study_tools();

  const Topology topology;
  TemporaryFolder inputs{make_temporary_folder("allocstress-inputs-")};
  const PlanServices services{topology, [&](const AllocatorSpec& a, double t) { return preload_check(exe, a, t); },
                              inputs.dir, [](const std::string& line) { std::cerr << line << "\n"; }};
  const MatrixPlan plan = plan_matrix(request, services);
  const nlohmann::json context = machine_context(topology, command_line);
  if (!trace) {
    const int rc = run_matrix_locally(plan, context, exe, results, force);
    return rc != 0 ? rc : every_allocator_failed(results) ? 1 : 0;
  }
  return run_bench_study(plan, context, exe, results, force, p, request);
}

}  // namespace allocstress
