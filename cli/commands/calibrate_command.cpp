// `allocstress calibrate` (contract: calibrate_command.hpp).
#include "cli/commands/calibrate_command.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/common.hpp"
#include "platform/profilers/cost_measurements.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "platform/topology.hpp"
#include "results/machine_costs.hpp"
#include "results/reproduction.hpp"
#include "results/results_reader.hpp"

namespace allocstress {

namespace fs = std::filesystem;

void CalibrateCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("calibrate",
                           "Measure how far another run's medians land on this machine, from runs of the same matrix: calibrate RUN.json RUN.json [RUN.json...]");
  cmd->add_option("runs", runs, "Results files of the same matrix on this host, run at different times (at least 2; 3 or more recommended)");
  cmd->add_flag("--costs", costs, "Measure this machine's costs instead (CPI, cache and RAM latencies, page faults, memory system calls): "
                                  "the counts tier's estimated cycles use them (default output: $ALLOCSTRESS_COSTS, else machine-costs.json "
                                  "beside the calibration)");
  cmd->add_flag("--if-missing", if_missing, "With --costs: measure only when the output holds no costs of this host");
  cmd->add_option("--repeats", repeats, "With --costs: timed batches per cost (default 21; accepted: 5 to 1001)")->check(kWholeNumber);
  cmd->add_option("-o,--out", out, "Calibration file to write (default: $ALLOCSTRESS_CALIBRATION, else $XDG_DATA_HOME or "
                                   "~/.local/share, allocstress/calibration.json: where matrix runs look for it)");
  cmd->add_option("--level", level, "Probability that another run's median lies inside a reproduction interval (default 0.95; accepted: 0.5 to 0.999)");
}

int CalibrateCommand::execute() {
  if (if_missing && !costs) throw UsageError("--if-missing goes with --costs (accepted: calibrate --costs --if-missing)");
  if (costs) return measure_costs();
  if (runs.size() < 2) throw UsageError("calibrate needs at least 2 results files, got " + std::to_string(runs.size()) + " (accepted: 2 or more runs of the same matrix)");
  if (!(level >= 0.5 && level <= 0.999)) {
    std::ostringstream what;
    what << "invalid --level " << level << " (accepted: 0.5 to 0.999)";
    throw UsageError(what.str());
  }
  const fs::path target = out.empty() ? default_calibration_path() : fs::path(out);
  std::error_code ec;
  if (fs::exists(target, ec)) {
    try {
      read_calibration(target);
    } catch (const std::runtime_error&) {
      throw UsageError("output " + target.string() + " exists and is not a calibration file (accepted: a new path or an older calibration)");
    }
  }
  std::set<std::string> seen;
  std::vector<CellValues> values;
  nlohmann::json sources = nlohmann::json::array();
  std::string host, cpu;
  for (const std::string& path : runs) {
    if (!seen.insert(fs::weakly_canonical(path).string()).second) throw UsageError("results file " + path + " is given twice (accepted: distinct runs)");
    nlohmann::json doc;
    try {
      doc = read_results_file(path);
    } catch (const ResultsFileError& e) {
      throw UsageError(e.what());
    }
    const nlohmann::json& context = doc.at("context");
    const std::string this_host = context.value("host_name", "");
    if (host.empty()) host = this_host, cpu = context.value("cpu_model", "");
    else if (this_host != host)
      throw UsageError("results file " + path + " is from host " + this_host + ", the others from " + host + " (accepted: runs of one host)");
    values.push_back(headline_values(doc.at("benchmarks").get_ref<const nlohmann::json::array_t&>()));
    sources.push_back({{"file", fs::absolute(path).string()}, {"date", context.value("date", "")}, {"git_commit", context.value("git_commit", "")}});
  }
  const std::vector<double> scores = reproduction_scores(values, level);
  if (scores.empty()) throw UsageError("the results files have no timing cell in common with enough processes (accepted: runs of the same matrix)");
  double factor = 0;
  try {
    factor = conformal_factor(scores, level);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!std::isfinite(factor))
    throw UsageError("the runs' medians lie on the edge of intervals of zero width (every process gave the same figure): no factor "
                     "(accepted: runs whose processes vary)");
  std::size_t beyond = 0;
  for (double s : scores) beyond += s > 1;
  const nlohmann::json doc = {
      {"schema", kCalibrationSchemaName},
      {"schema_version", kCalibrationSchemaVersion},
      {"created", iso_utc_now()},
      {"host_name", host},
      {"cpu_model", cpu},
      {"level", level},
      {"factor", factor},
      {"pairs", scores.size()},
      {"pairs_beyond_base_interval", beyond},
      {"metric", "net ns/pair where the workload is net of void, else its speed metric"},
      {"method", "split-conformal quantile of |other run's median - this run's| over the side of this run's distribution-free prediction "
                 "interval toward it (results/reproduction.hpp)"},
      {"runs", sources}};
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
  write_file_atomically(target, json_text(doc) + "\n");
  std::printf("calibration: factor %.2f at %.0f%% from %zu runs (%zu pairs of runs and cells; %zu beyond the unwidened interval)\n", factor,
              100 * level, runs.size(), scores.size(), beyond);
  std::printf("written:     %s (matrix runs on %s widen their reproduction intervals by it)\n", target.string().c_str(), host.c_str());
  return 0;
}

int CalibrateCommand::measure_costs() {
  if (!runs.empty()) throw UsageError("calibrate --costs takes no results files, got " + std::to_string(runs.size()) + " (accepted: --costs alone, or results files without it)");
  if (repeats < 5 || repeats > 1001) throw UsageError("invalid --repeats " + std::to_string(repeats) + " (accepted: 5 to 1001)");
  const fs::path target = out.empty() ? default_machine_costs_path() : fs::path(out);
  std::error_code ec;
  if (fs::exists(target, ec)) {
    if (!is_machine_costs_file(target))
      throw UsageError("output " + target.string() + " exists and is not a machine-costs file (accepted: a new path or older machine costs)");
  }
  const Topology topology;
  const nlohmann::json context = machine_context(topology, "");
  if (if_missing) {
    const MachineCosts existing = machine_costs_for_host(target, context.value("host_name", ""));
    if (existing.calibrated) {
      std::printf("machine costs: %s holds this host's (measured %s); not measured again\n", target.string().c_str(),
                  existing.source.value("created", "").c_str());
      return 0;
    }
  }
  for (const nlohmann::json& p : context.value("busy_processes", nlohmann::json::array()))  // sampled by machine_context
    std::fprintf(stderr, "allocstress: warning: %s (pid %d) uses %.0f%% of a CPU: the costs will be noisier than on a quiet host\n",
                 p.value("name", "?").c_str(), p.value("pid", 0), p.value("cpu_percent", 0.0));
  const nlohmann::json measured = measure_machine_costs(repeats);
  const nlohmann::json doc = {{"schema", kMachineCostsSchemaName},
                              {"schema_version", kMachineCostsSchemaVersion},
                              {"created", iso_utc_now()},
                              {"host_name", context.value("host_name", "")},
                              {"cpu_model", context.value("cpu_model", "")},
                              {"unit", measured.at("minor_fault").value("unit", "")},
                              {"costs", measured}};
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
  try {
    check_machine_costs(doc, target);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("not written: ") + e.what());
  }
  write_file_atomically(target, json_text(doc) + "\n");
  std::printf("%-24s %12s  %s\n", "cost", "median", "interval (ticks)");
  for (const auto& [name, c] : measured.items()) {
    if (c.contains("value")) {
      std::printf("%-24s %12.0f  %s\n", name.c_str(), c.at("value").get<double>(), "(a property of the machine)");
      continue;
    }
    if (c.contains("n/a")) {
      std::printf("%-24s %12s  %s\n", name.c_str(), "n/a", c.at("n/a").get<std::string>().c_str());
      continue;
    }
    std::printf("%-24s %12.3f  [%.3f, %.3f] at %.0f%%\n", name.c_str(), c.at("median").get<double>(), c.at("low").get<double>(),
                c.at("high").get<double>(), 100 * c.at("level").get<double>());
  }
  std::printf("written: %s (counts cells on %s price their events at these costs)\n", target.string().c_str(),
              context.value("host_name", "").c_str());
  return 0;
}

}  // namespace allocstress
