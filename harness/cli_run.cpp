// `allocstress run`: one cell in this process, printed as one JSON record on stdout.
// A drop-in allocator needs LD_PRELOAD from the start of the process, so when the environment is
// not yet the one the cell needs, this command re-executes itself once with it; then it checks
// that malloc really resolves into the expected library before measuring anything.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cell_runner.hpp"
#include "cli_commands.hpp"
#include "malloc_provider.hpp"
#include "presets.hpp"
#include "results_journal.hpp"

namespace allocstress {

namespace {

// Returns only when the environment already is the one `spec` needs; otherwise re-executes.
void ensure_cell_environment(const AllocatorSpec& spec, char** argv) {
  const EnvironmentChanges want = preload_environment(spec);
  bool ready = true;
  for (const auto& [name, value] : want) {
    const char* have = std::getenv(name.c_str());
    if ((have == nullptr) != !value.has_value() || (have != nullptr && *value != have)) ready = false;
  }
  if (ready) return;
  if (const char* marker = std::getenv(kCellPreloadMarker); marker != nullptr && want.at(kCellPreloadMarker) == marker)
    throw std::runtime_error("re-executing with LD_PRELOAD=" + want.at("LD_PRELOAD").value_or("") + " did not take effect");
  for (const auto& [name, value] : want) {
    if (value) setenv(name.c_str(), value->c_str(), 1);
    else unsetenv(name.c_str());
  }
  execv("/proc/self/exe", argv);
  throw std::runtime_error(std::string("could not re-execute /proc/self/exe: ") + std::strerror(errno));
}

}  // namespace

void RunCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("run", "Run one cell in a fresh process and print its JSON record");
  cmd->add_option("--allocator", allocator, "Allocator name, or NAME=/path/lib.so")->required();
  cmd->add_option("--threads", threads, "Worker threads (default 1)");
  cmd->add_flag("--verify-only", verify_only, "Only check that malloc resolves into the allocator's library");
  workload.add_to(*cmd);
}

int RunCommand::execute(char** argv) {
  const bool user_library = allocator.find('=') != std::string::npos;
  AllocatorCatalog catalog = load_catalog(workload.manifest, user_library ? std::vector{allocator} : std::vector<std::string>{});
  const std::string name = user_library ? allocator.substr(0, allocator.find('=')) : allocator;
  const AllocatorSpec* spec = nullptr;
  try {
    spec = &catalog.find(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!spec->available()) throw UsageError("allocator '" + spec->name + "' is not installed: " + spec->unavailable_reason);

  CellSpec cell{spec->name, user_library ? spec->library : "", kAllocTestWorkload, find_preset("quick").params, {}};
  apply_workload_options(workload, cell.params, cell.placement);
  const auto counts = parse_thread_list(threads);
  if (counts.size() != 1) throw UsageError("run takes one thread count, got '" + threads + "' (accepted: e.g. --threads 2)");
  cell.params.threads = cell.placement.threads = counts[0];
  try {
    validate(cell.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  Topology topology;
  std::vector<unsigned> pus;
  try {
    pus = topology.choose_pus(cell.placement);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  ensure_cell_environment(*spec, argv);
  if (const std::string bad = verify_malloc_provider(*spec); !bad.empty()) {
    std::cerr << "allocstress: error: preload verification failed: " << bad << "\n";
    return kExitCellFailed;
  }
  if (verify_only) {
    std::cout << json_text({{"allocator", spec->name}, {"malloc_provider", malloc_provider_path()}}) << "\n";
    return 0;
  }
  const nlohmann::json record = run_cell_here(cell, *spec, topology, pus);
  std::cout << json_text(record) << std::endl;
  if (record["status"] != "ok") {
    std::cerr << "allocstress: error: cell failed: " << record["reason"].get<std::string>() << "\n";
    return kExitCellFailed;
  }
  return 0;
}

}  // namespace allocstress
