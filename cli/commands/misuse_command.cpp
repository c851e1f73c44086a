// `allocstress misuse` (see misuse_command.hpp).  The allocators: by default every drop-in of the
// catalogue but its configurations, named-only ones included (scudo: safety is where a hardened
// allocator differs); `all` adds the configurations.  An in-tree backend is not a malloc a program
// can call, so naming one is bad input; an allocator not installed is skipped with the reason,
// or refused when named.
#include "cli/commands/misuse_command.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "allocators/allocator_catalog.hpp"
#include "cli/name_checks.hpp"
#include "platform/comma_list.hpp"
#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "platform/topology.hpp"
#include "results/results_file.hpp"
#include "results/results_output.hpp"
#include "results/tables/results_table.hpp"
#include "run/misuse_battery.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// `added`: --add-allocator texts; their allocators run whatever --allocators says, as in matrix.
std::vector<AllocatorSpec> chosen_allocators(const AllocatorCatalog& catalog, const std::string& names, const std::vector<std::string>& added) {
  std::vector<AllocatorSpec> out;
  if (names.empty() || names == kAllAllocators) {
    for (const auto& a : catalog.all()) {
      if (a.kind != AllocatorKind::drop_in || (names.empty() && !a.environment.empty() && a.origin != "command line")) continue;
      if (!a.available()) {
        std::cerr << "skipped: " << a.name << " (" << a.unavailable_reason << ")\n";
        continue;
      }
      out.push_back(a);
    }
    return out;
  }
  check_allocator_names(catalog, names);  // "did you mean ...", as matrix says it
  std::vector<std::string> wanted = comma_separated(names);
  if (wanted.empty()) throw UsageError("--allocators '" + names + "' names no allocator (accepted: comma-separated names, or all)");
  for (const std::string& text : added)
    if (const std::string name = text.substr(0, text.find('=')); std::find(wanted.begin(), wanted.end(), name) == wanted.end()) wanted.push_back(name);
  for (const std::string& name : wanted) {
    const AllocatorSpec* a = nullptr;
    try {
      a = &catalog.find_or_suggest(name);
    } catch (const UsageError& e) {  // NAME=PATH: that is --add-allocator's
      throw UsageError(std::string(e.what()) + " (add a library with --add-allocator NAME=/path/lib.so)");
    }
    if (a->kind != AllocatorKind::drop_in)
      throw UsageError("--allocators: '" + name + "' is an in-tree backend, not a malloc a program can call; the misuse battery runs drop-in allocators (see allocstress list)");
    if (!a->available()) throw UsageError("allocator '" + name + "' cannot run: " + a->unavailable_reason);
    out.push_back(*a);
  }
  return out;
}

}  // namespace

void MisuseCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("misuse", "Which heap misuses each drop-in allocator catches: double and invalid frees, overflows, use after free, "
                                     "impossible sizes and alignments, each in a fresh process (docs/safety.md)");
  cmd->add_option("--allocators", allocators,
                  "Comma-separated drop-in allocators, or all (default: every drop-in of the catalogue but its configurations, scudo included)");
  cmd->add_option("--add-allocator", added, kAddAllocatorHelp);
  cmd->add_option("--manifest", manifest, "Allocator manifest (default: allocators/manifest.tsv)");
  cmd->add_option("--cases", cases, "Comma-separated cases to run (default: all; `allocstress-safety-probe list` names them)");
  cmd->add_option("--processes", processes, "Processes that sample the safety properties per allocator (0 = none)")->check(kWholeNumber)->default_val(30);
  cmd->add_option("--timeout", timeout_s, "Seconds each process may run before it counts as a hang, in [0.1, 3600]")
      ->check(CLI::Validator(
          [](std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            return end != text.c_str() && *end == '\0' && v >= 0.1 && v <= 3600 ? std::string() : "'" + text + "' is not a number of seconds in [0.1, 3600]";
          },
          "SECONDS"))
      ->default_val(5);
  cmd->add_option("-o,--out", out, "Results file ending in .json (default out/misuse-<time>.json); the Markdown goes beside it as .md");
  cmd->add_flag("--force", force, "Overwrite an existing results file");
}

int MisuseCommand::execute(const std::string& command_line) {
  const AllocatorCatalog catalog = load_catalog(manifest, added);
  const std::vector<AllocatorSpec> chosen = chosen_allocators(catalog, allocators, added);
  if (chosen.empty()) throw UsageError("no drop-in allocator can run here (see allocstress list)");
  const fs::path results = out.empty() ? fs::path("out") / ("misuse-" + file_time_stamp() + ".json") : fs::path(out);
  if (out.empty()) fs::create_directories("out");
  check_new_output_file(results, force);
  const std::vector<MisuseCase> selected = select_misuse_cases(comma_separated(cases));
  MisuseOptions options;
  options.property_processes = processes;
  options.timeout_s = timeout_s;
  std::cerr << "misuse battery: " << selected.size() << " case(s) x " << chosen.size() << " drop-in allocator(s)\n";
  install_interrupt_handlers();
  const SafetyReport report = run_misuse_battery(chosen, selected, options, [](const std::string& line) { std::cerr << line << "\n"; });
  if (interrupted()) {
    std::cerr << "interrupted: nothing written\n";
    return 130;
  }
  const nlohmann::json document = {{"schema", kResultsSchemaName},
                                   {"schema_version", kResultsSchemaVersion},
                                   {"context", machine_context(Topology(), command_line)},
                                   {"benchmarks", nlohmann::json::array()},
                                   {"safety", to_json(report)}};
  const std::string md = safety_markdown(document);
  write_file_atomically(results, json_text(document, 2) + "\n");
  write_file_atomically(table_path_for(results), md);
  std::cout << md << "\nresults: " << results.string() << "\ntable:   " << table_path_for(results).string() << "\n";
  return 0;
}

}  // namespace allocstress
