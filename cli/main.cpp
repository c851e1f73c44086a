// Entry point of the `allocstress` executable: parses the command line and dispatches to the
// commands (list, workloads, metrics, run, matrix, replay, probe, trace, trace-info, import, fit, programs, bench, misuse, slurm
// submit|status|merge|run-cell, report, compare, fidelity), registered and dispatched through one command
// table (a new command is one row).  Every failure ends here as one line on stderr.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <string_view>

#include "cli/commands/catalogue_commands.hpp"
#include "cli/commands.hpp"
#include "cli/commands/fit_command.hpp"
#include "cli/commands/programs_command.hpp"
#include "cli/commands/bench_command.hpp"
#include "cli/commands/import_command.hpp"
#include "cli/commands/misuse_command.hpp"
#include "cli/parse_errors.hpp"
#include "cli/commands/python_commands.hpp"
#include "cli/commands/slurm_commands.hpp"
#include "cli/commands/trace_command.hpp"
#include "cli/commands/calibrate_command.hpp"
#include "cli/commands/trace_info_command.hpp"
#include "plan/programs_file.hpp"
#include "platform/build_identity.hpp"

namespace {

using namespace allocstress;

// A row of the command table: the command as registered (its name, one-line help and options) and
// what runs it, given the whole command line (the commands that record it in their results use it).
struct CommandRow {
  CLI::App* cmd;
  std::function<int(const std::string& command_line)> execute;
};

// The row of a command object: registered on `parent` (add_to's extra arguments follow).
template <class Command, class... Extra>
CommandRow row(Command& c, CLI::App& parent, Extra... extra) {
  c.add_to(parent, extra...);
  return {c.cmd, [&c](const std::string& command_line) {
            if constexpr (requires { c.execute(command_line); }) return c.execute(command_line);
            else return c.execute();
          }};
}

// The row of a command implemented in Python: every argument after its name is passed on untouched.
CommandRow python_row(CLI::App& app, const char* name, const char* help) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->set_help_flag();
  sub->allow_extras();
  return {sub, [sub, name](const std::string&) { return exec_python_command(name, sub->remaining()); }};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace allocstress;
  declare_shipped_programs();  // `--workload prog-lua` resolves (a command that needs the file says why it is missing)
  CLI::App app{"allocstress: stress-tests memory allocators with program-like workloads"};
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "-h" || std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "--help-all")
      WorkloadFlags::describe_defaults = true;
  app.require_subcommand(1);
  // "allocstress 0.1.0 (commit 1a2b3c4, Release)": the commit is read only when asked for.
  app.set_version_flag(
      "--version",
      [] {
        const std::string commit = source_commit();
        const std::string shown = commit == "unknown" ? commit : commit.substr(0, 7) + (commit.ends_with("-dirty") ? "-dirty" : "");
        return "allocstress " + allocstress_version() + " (commit " + shown + ", " + build_description() + ")";
      },
      "Print the version, the source commit (-dirty: modified) and the build type, and exit");
  ListCommand list;
  RunCommand run;
  MatrixCommand matrix, replay(MatrixCommand::Kind::replay), submit(MatrixCommand::Kind::slurm_submit);
  ProbeCommand probe;
  TraceCommand trace;
  TraceInfoCommand trace_info;
  ImportCommand import;
  FitCommand fit;
  ProgramsCommand programs;
  BenchCommand bench;
  CalibrateCommand calibrate;
  MisuseCommand misuse;
  WorkloadsCommand workloads;
  MetricsCommand metrics;
  RunCellCommand run_cell, run_cell_alias;
  StatusCommand status, status_alias;
  MergeCommand merge, merge_alias;
  // The Slurm backend: `allocstress slurm submit|status|merge|run-cell` (and three aliases at the top).
  CLI::App* slurm = nullptr;
  auto slurm_group = [&](CLI::App& parent) {
    slurm = parent.add_subcommand("slurm", "Run a matrix on a Slurm cluster: submit, status, merge, run-cell (see docs/cluster.md)");
    return slurm;
  };
  // The command table, in --help order: one row per command.
  const std::vector<CommandRow> commands = {
      row(list, app),
      row(workloads, app),
      row(metrics, app),
      row(run, app),
      row(matrix, app),
      row(replay, app),
      row(probe, app),
      row(trace, app),
      row(trace_info, app),
      row(import, app),
      row(fit, app),
      row(programs, app),
      row(bench, app),
      row(calibrate, app),
      row(misuse, app),
      {slurm_group(app), [](const std::string&) -> int {
         throw UsageError("slurm needs a command (accepted: submit, status, merge, run-cell; see allocstress slurm --help)");
       }},
      row(submit, *slurm),
      row(status, *slurm, false),
      row(merge, *slurm, false),
      row(run_cell, *slurm, false),
      row(status_alias, app, true),
      row(merge_alias, app, true),
      row(run_cell_alias, app, true),
      // Analysis commands are implemented in Python: every argument is passed on untouched.
      python_row(app, "report", "HTML report (tables, plots, context) of results files: report RESULTS... [-o DIR] [--trace TRACE]..."),
      python_row(app, "compare", "Compare two results files: better, worse or no change per cell beyond --threshold; exit 4 when any is worse, 3 when void itself moved (the machine's speed changed): compare A.json B.json"),
      python_row(app, "fidelity", "Fidelity table: per real program and model, Spearman rank correlation of the allocators on speed and memory with a bootstrap interval: fidelity RESULTS.json [--json] [--model-memory METRIC]"),
  };

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    app.parse(argc, argv);
    // The command parsed whose own commands were not (`slurm` alone is an error; `slurm status` runs status).
    for (const CommandRow& c : commands)
      if (c.cmd->parsed() && c.cmd->get_subcommands().empty()) return c.execute(command_line);
    throw UsageError("no command given (accepted: the commands `allocstress --help` lists)");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "allocstress: error: " << parse_error_message(app, e) << "\n";
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << "allocstress: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "allocstress: error: " << e.what() << "\n";
    return 1;
  }
}
