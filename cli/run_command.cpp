// `allocstress run`: one cell in this process, printed as one JSON record on stdout.
// A drop-in allocator needs LD_PRELOAD from the start of the process, so when the environment is
// not yet the one the cell needs, this command re-executes itself once with it; then it checks
// that malloc really resolves into the expected library before measuring anything.
// With --cache-sim it runs the same cell once more under callgrind (cache_simulation.hpp) and
// prints that run's record with the simulated figures attached.
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "platform/cache_simulation.hpp"
#include "cells/alloc_test_cell.hpp"
#include "platform/child_process.hpp"
#include "cli/commands.hpp"
#include "allocators/drop_in/malloc_provider.hpp"
#include "plan/presets.hpp"
#include "run/profile_run.hpp"
#include "cells/fitted_cell.hpp"
#include "cells/replay_cell.hpp"
#include "platform/syscall_trace.hpp"
#include "results/results_journal.hpp"
#include "platform/json_text.hpp"

namespace allocstress {

namespace {

// Returns only when the environment already is the one `spec` needs; otherwise re-executes.
// Under valgrind LD_PRELOAD also names valgrind's own preload, so only the malloc check that
// follows (verify_malloc_provider) decides there.
void ensure_cell_environment(const AllocatorSpec& spec, char** argv) {
  if (running_under_valgrind()) return;
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

// Runs argv (this cell, under callgrind, with the allocator's preload) and prints its record
// with the simulated figures.
int run_cache_simulation(char** argv, const EnvironmentChanges& env) {
  std::vector<std::string> cell_argv;
  std::error_code ec;
  cell_argv.push_back(std::filesystem::read_symlink("/proc/self/exe", ec).string());
  if (ec) throw std::runtime_error("cannot find this executable via /proc/self/exe: " + ec.message());
  for (char** a = argv + 1; *a != nullptr; ++a) cell_argv.push_back(*a);
  const std::filesystem::path dir = make_temporary_folder("allocstress-callgrind-"), profile = dir / "callgrind.out";
  const std::vector<std::string> command = cache_simulation_command(cell_argv, profile);
  const ChildOutcome outcome = run_child(command, env, 0);
  nlohmann::json record;
  if (outcome.end == ChildOutcome::End::exited) record = last_json_line(outcome.out);
  if (!outcome.succeeded() || !record.is_object()) {
    std::filesystem::remove_all(dir, ec);
    std::cerr << "allocstress: error: the cell under callgrind failed: " << describe_failure(outcome, 0) << "\n";
    if (record.is_object()) std::cout << json_text(record) << std::endl;
    return kExitCellFailed;
  }
  try {
    record["simulated_cache"] = simulated_cache_figures(profile);
  } catch (const std::runtime_error& e) {
    record["status"] = "failed";
    record["reason"] = e.what();
  }
  record["simulation_command"] = shell_command_line(command);
  record["warnings"].push_back("timing fields of a simulate record were measured under valgrind and are not the machine's");
  std::filesystem::remove_all(dir, ec);
  return print_cell_record(record);
}

// A replay cell: its thread count is the trace's (each recorded thread on its own worker).
int run_replay_here(CellSpec cell, const AllocatorSpec& allocator, const Topology& topology, bool threads_given) {
  std::unique_ptr<MappedReplayProgram> program;
  try {
    program = obtain_replay_program(cell.replay);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const unsigned n = unsigned(program->threads().size());
  if (threads_given && cell.params.threads != n)
    throw UsageError("the trace has " + std::to_string(n) + " thread(s) and replay runs each on its own worker: drop --threads (or pass --threads " +
                     std::to_string(n) + ")");
  cell.params.threads = cell.placement.threads = n;
  if (n > topology.usable_worker_count(cell.placement.policy, cell.placement.reserve_os_pu)) cell.placement.oversubscribe = true;
  const std::vector<unsigned> pus = topology.choose_pus(cell.placement);
  return print_cell_record(run_replay_cell(cell, allocator, topology, pus, *program));
}

}  // namespace

void RunCommand::add_to(CLI::App& app) {
  cmd = app.add_subcommand("run", "Run one cell in a fresh process and print its JSON record");
  cmd->add_option("--allocator", allocator, "Allocator name, or NAME=/path/lib.so")->required();
  cmd->add_option("--threads", threads, "Worker threads (default 1)");
  cmd->add_flag("--verify-only", verify_only, "Only check that malloc resolves into the allocator's library");
  cmd->add_flag("--cache-sim", cache_sim,
                "bintree/linkedlist/multilist: simulate the search phase's L1/LL misses with callgrind (slow, deterministic)");
  cmd->add_flag("--profile", profile,
                "alloc-test with a drop-in allocator: a profile run (latency by class, memory syscalls, memory breakdown, "
                "counters) instead of a timing run");
  cmd->add_option("--sample-every", profile_spec.sample_every, "--profile: time 1 in N operations (default 64)")->check(kWholeNumber);
  cmd->add_option("--profile-pass", profile_spec.pass, "(internal) sample or syscalls")->group("");
  cmd->add_option("--small-limit", profile_spec.small_limit, "(internal)")->group("");
  cmd->add_option("--large-from", profile_spec.large_from, "(internal)")->group("");
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

  CellSpec cell;
  cell.allocator = spec->name;
  cell.user_library = user_library ? spec->library : "";
  cell.workload = selected_workloads(workload, false).front();
  cell.params = find_preset("quick").params;
  apply_workload_options(workload, cell.params, cell.placement);
  apply_model_options(workload, cell.cross_thread, cell.lifetime, cell.phases, cell.false_sharing);
  if (is_false_sharing_workload(cell.workload) && spec->name == "void")
    throw UsageError("allocator 'void' cannot run " + cell.workload +
                     ": it returns one buffer for every object, so no object can share a line with another (its baseline is "
                     "private cache-line-aligned objects, measured inside each cell)");
  if (is_structure_workload(cell.workload)) {
    cell.structure = structure_params_for(workload, cell.workload);
    if (spec->name == "void")
      throw UsageError("allocator 'void' cannot run " + cell.workload +
                       ": it returns one buffer for every block, so no structure can be built (use it with alloc-test)");
  }
  if (cell.workload == kReplayWorkload) {
    cell.replay = replay_spec_for(workload);
    if (cache_sim || profile) throw UsageError("--cache-sim and --profile do not apply to replay (accepted: a timing run)");
  }
  std::optional<FitConfig> fit;
  if (cell.workload == kFittedWorkload) {
    fit = load_fit_option(workload, cell.fit);
    if (cache_sim || profile) throw UsageError("--cache-sim and --profile do not apply to fitted (accepted: a timing run)");
    if (!workload.given("--seed")) cell.params.seed = fit->params.seed;
    if (cmd->count("--threads") == 0) threads = std::to_string(fit->params.threads);
  }
  cell.cache_sim = cache_sim;
  if (cache_sim && profile) throw UsageError("--profile and --cache-sim are separate runs: pass one of them");
  if (cache_sim && !is_structure_workload(cell.workload))
    throw UsageError("--cache-sim applies to bintree, linkedlist and multilist (their search phase), not to " + cell.workload);
  if (const std::string missing = cache_sim ? cache_simulation_unavailable() : ""; !missing.empty()) throw UsageError(missing);
  cell.profile = profile;
  cell.profile_spec = profile_spec;
  if (profile) check_profile_request(cell, *spec, cache_sim);
  else if (cmd->count("--sample-every") > 0) throw UsageError("--sample-every applies to --profile runs only");
  const auto counts = parse_thread_list(threads);
  if (counts.size() != 1) throw UsageError("run takes one thread count, got '" + threads + "' (accepted: e.g. --threads 2)");
  cell.params.threads = cell.placement.threads = counts[0];
  validate_sized_workload(cell);
  Topology topology;
  std::vector<unsigned> pus;
  try {
    if (cell.workload != kReplayWorkload) pus = topology.choose_pus(cell.placement);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  if (cache_sim && !verify_only && !running_under_valgrind()) return run_cache_simulation(argv, preload_environment(*spec));
  if (profile && profile_spec.pass.empty() && !verify_only) {
    std::vector<std::string> cell_argv = {std::filesystem::read_symlink("/proc/self/exe").string()};
    for (char** a = argv + 1; *a != nullptr; ++a) cell_argv.push_back(*a);
    std::vector<std::string> probe_argv = {cell_argv[0], "probe", "--one", spec->name, "--manifest", catalog.manifest_path().string()};
    if (user_library) probe_argv.push_back("--allocator=" + allocator);
    return run_profile(cell_argv, probe_argv, *spec);
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
  if (cell.workload == kReplayWorkload) return run_replay_here(cell, *spec, topology, cmd->count("--threads") > 0);
  if (fit) return print_cell_record(run_fitted_cell(cell, *fit, *spec, topology, pus));
  const nlohmann::json record = run_cell_here(cell, *spec, topology, pus);
  return print_cell_record(record);
}

}  // namespace allocstress
