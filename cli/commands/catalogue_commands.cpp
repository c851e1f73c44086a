// The registry and the catalogue on the command line (see catalogue_commands.hpp).
#include "cli/commands/catalogue_commands.hpp"

#include <iostream>

#include "cells/metrics/metric_catalogue.hpp"
#include "cells/workload_registry.hpp"
#include "platform/errors.hpp"
#include "plan/programs_file.hpp"
#include "workloads/programs/program_invocation.hpp"

namespace allocstress {

void WorkloadsCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("workloads", "List the workloads: what each models, its options, and whether its cost is net of void");
  cmd->add_flag("--json", json, "Print the registry as JSON");
}

int WorkloadsCommand::execute() {
  if (json) {
    std::cout << workload_registry_json().dump(2) << "\n";
    return 0;
  }
  for (const WorkloadEntry* e : workload_registry()) {
    std::cout << e->name << "  (" << e->family << (e->void_baseline ? ", net of the void baseline" : ", no void baseline") << ")\n"
              << "    " << e->summary << "\n    options:";
    for (const WorkloadOption* o : e->options) std::cout << " " << o->flag;
    std::cout << "\n";
  }
  // The shipped programs, each a workload of the `program` entry; one that is not installed:
  // its cells are skipped with this reason.
  if (const std::string why = declare_shipped_programs(); !why.empty()) {
    std::cout << "\nshipped programs: none (" << why << ")\n";
  } else {
    std::cout << "\nprograms of " << shipped_programs().path.string() << " (each a workload; your own: --programs-file FILE, or allocstress bench -- CMD):\n";
    for (const ProgramDefinition& p : shipped_programs().programs) {
      std::cout << p.name << "  (programs, no void baseline)\n    " << p.summary << "\n";
      if (const std::string missing = program_unavailable(p); !missing.empty()) std::cout << "    " << p.name << ": " << missing << " (its cells are skipped)\n";
    }
  }
  std::cout << "\n`allocstress run --help` and `allocstress matrix --help` give each option's meaning and defaults; docs/workloads.md the models.\n";
  return 0;
}

void MetricsCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("metrics", "List the metric catalogue: every figure a record carries that tables compare, with unit and definition");
  cmd->add_flag("--json", json, "Print the catalogue as JSON");
  cmd->add_flag("--markdown", markdown, "Print the catalogue as the Markdown table results/README.md carries");
}

int MetricsCommand::execute() {
  if (json && markdown) throw UsageError("--json and --markdown are two forms of the same list: pass one of them");
  if (json) {
    std::cout << metric_catalogue_json().dump(2) << "\n";
    return 0;
  }
  if (markdown) {
    std::cout << metric_catalogue_markdown();
    return 0;
  }
  for (const CatalogueEntry& e : metric_catalogue()) {
    const Metric& m = *e.metric;
    std::cout << m.name << (m.place == MetricPlace::record ? "" : "  (in " + std::string(to_string(m.place)) + ")") << "  [" << m.unit
              << "]" << (m.headline ? "  headline" : "") << "\n    " << m.definition << "\n    carried by:";
    for (const auto& w : e.workloads) std::cout << " " << w;
    std::cout << "\n";
  }
  return 0;
}

}  // namespace allocstress
