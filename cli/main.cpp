// Entry point of the `allocstress` executable: parses the command line and dispatches to the
// commands (list, workloads, metrics, run, matrix, replay, probe, trace, trace-info, import, fit, programs, bench, misuse, slurm
// submit|status|merge|run-cell, report, compare, fidelity).  Every failure ends here as one line on stderr.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string_view>

#include "cli/catalogue_commands.hpp"
#include "cli/commands.hpp"
#include "cli/fit_command.hpp"
#include "cli/programs_command.hpp"
#include "cli/bench_command.hpp"
#include "cli/import_command.hpp"
#include "cli/misuse_command.hpp"
#include "cli/parse_errors.hpp"
#include "cli/python_commands.hpp"
#include "cli/slurm_commands.hpp"
#include "cli/trace_command.hpp"
#include "cli/calibrate_command.hpp"
#include "cli/trace_info_command.hpp"
#include "plan/programs_file.hpp"
#include "platform/build_identity.hpp"

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
  MatrixCommand matrix;
  MatrixCommand replay(MatrixCommand::Kind::replay);
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
  list.add_to(app);
  workloads.add_to(app);
  metrics.add_to(app);
  run.add_to(app);
  matrix.add_to(app);
  replay.add_to(app);
  probe.add_to(app);
  trace.add_to(app);
  trace_info.add_to(app);
  import.add_to(app);
  fit.add_to(app);
  programs.add_to(app);
  bench.add_to(app);
  calibrate.add_to(app);
  misuse.add_to(app);
  // The Slurm backend: `allocstress slurm submit|status|merge|run-cell`.
  CLI::App* slurm = app.add_subcommand("slurm", "Run a matrix on a Slurm cluster: submit, status, merge, run-cell (see docs/cluster.md)");
  MatrixCommand submit(MatrixCommand::Kind::slurm_submit);
  RunCellCommand run_cell, run_cell_alias;
  StatusCommand status, status_alias;
  MergeCommand merge, merge_alias;
  submit.add_to(*slurm);
  status.add_to(*slurm, false);
  merge.add_to(*slurm, false);
  run_cell.add_to(*slurm, false);
  status_alias.add_to(app, true);
  merge_alias.add_to(app, true);
  run_cell_alias.add_to(app, true);
  // Analysis commands are implemented in Python: every argument is passed on untouched.
  CLI::App* report = app.add_subcommand("report", "HTML report (tables, plots, context) of results files: report RESULTS... [-o DIR] [--trace TRACE]...");
  CLI::App* compare = app.add_subcommand("compare", "Compare two results files: better, worse or no change per cell beyond --threshold; exit 4 when any is worse, 3 when void itself moved (the machine's speed changed): compare A.json B.json");
  CLI::App* fidelity = app.add_subcommand("fidelity", "Fidelity table: per real program and model, Spearman rank correlation of the allocators on speed and memory with a bootstrap interval: fidelity RESULTS.json [--json] [--model-memory METRIC]");
  for (CLI::App* sub : {report, compare, fidelity}) {
    sub->set_help_flag();
    sub->allow_extras();
  }

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    app.parse(argc, argv);
    if (list.cmd->parsed()) return list.execute();
    if (workloads.cmd->parsed()) return workloads.execute();
    if (metrics.cmd->parsed()) return metrics.execute();
    if (run.cmd->parsed()) return run.execute();
    if (replay.cmd->parsed()) return replay.execute(command_line);
    if (probe.cmd->parsed()) return probe.execute();
    if (trace.cmd->parsed()) return trace.execute();
    if (trace_info.cmd->parsed()) return trace_info.execute();
    if (import.cmd->parsed()) return import.execute();
    if (fit.cmd->parsed()) return fit.execute();
    if (programs.cmd->parsed()) return programs.execute(command_line);
    if (bench.cmd->parsed()) return bench.execute(command_line);
    if (calibrate.cmd->parsed()) return calibrate.execute();
    if (misuse.cmd->parsed()) return misuse.execute(command_line);
    if (submit.cmd->parsed()) return submit.execute(command_line);
    for (RunCellCommand* c : {&run_cell, &run_cell_alias})
      if (c->cmd->parsed()) return c->execute(command_line);
    for (StatusCommand* c : {&status, &status_alias})
      if (c->cmd->parsed()) return c->execute();
    for (MergeCommand* c : {&merge, &merge_alias})
      if (c->cmd->parsed()) return c->execute();
    if (slurm->parsed()) throw UsageError("slurm needs a command (accepted: submit, status, merge, run-cell; see allocstress slurm --help)");
    if (report->parsed()) return exec_python_command("report", report->remaining());
    if (compare->parsed()) return exec_python_command("compare", compare->remaining());
    if (fidelity->parsed()) return exec_python_command("fidelity", fidelity->remaining());
    return matrix.execute(command_line);
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
