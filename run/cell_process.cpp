// One cell in this process (see cell_process.hpp).
#include "run/cell_process.hpp"

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "allocators/drop_in/malloc_provider.hpp"
#include "cells/cell_record.hpp"
#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "plan/planner.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/profilers/callgrind_profile.hpp"
#include "platform/profilers/counts_world.hpp"
#include "platform/profilers/instruction_counts.hpp"
#include "platform/memory/thp_mode.hpp"
#include "platform/process/child_process.hpp"
#include "platform/durable_files.hpp"
#include "platform/errors.hpp"
#include "platform/json_text.hpp"
#include "results/record_printing.hpp"
#include "run/child_command.hpp"
#include "run/kernel_events.hpp"
#include "run/profile_run.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// Returns only when the environment already is the one the allocator needs; otherwise
// re-executes this program as `run --cell` with the cell in an anonymous file that survives
// exec.  Under valgrind LD_PRELOAD also names valgrind's own preload, so only the malloc check
// that follows decides there.
void ensure_cell_environment(const Cell& cell, const AllocatorSpec& spec, bool verify_only) {
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
  const int fd = ::memfd_create("allocstress-cell", 0);  // inherited across exec: /proc/self/fd/N there
  if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  write_all(fd, json_text(cell_to_json(cell)), "the cell's anonymous file");
  for (const auto& [name, value] : want) {
    if (value) setenv(name.c_str(), value->c_str(), 1);
    else unsetenv(name.c_str());
  }
  std::vector<std::string> argv = run_cell_command(allocstress_executable(), "/proc/self/fd/" + std::to_string(fd), verify_only);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  execv(args[0], args.data());
  throw std::runtime_error(std::string("could not re-execute /proc/self/exe: ") + std::strerror(errno));
}

// What the process under callgrind sees of its world is the same whatever the caller's: its heap
// before the measured phase (and with address randomisation off, its stack) holds its argv and
// environment, so their lengths moved every later block and the counts with them (a matrix
// written to a.json and one written to abcdefghijklmnop.json disagreed: TMPDIR, and so the cell
// file's path, sit beside the results).  It gets a fixed environment -- the allocator's preload
// and variables, callgrind's, PATH, TMPDIR=/tmp, LC_ALL=C, and the variables that change what a
// cell does (ALLOCSTRESS_EQCLASS_HOT_BLOCKS, ALLOCSTRESS_MANIFEST, HWLOC_*) as the caller set
// them -- its cell file under /tmp, a path of fixed length, and /tmp as its working directory
// (valgrind keeps the path: a longer one moved the simulated misses, not the instructions).
constexpr const char* kCallgrindFolderBase = "/tmp";

EnvironmentChanges callgrind_cell_environment(const AllocatorSpec& spec) {
  EnvironmentChanges environment = unset_all_but([](const std::string& name) {
    return name == "ALLOCSTRESS_EQCLASS_HOT_BLOCKS" || name == "ALLOCSTRESS_MANIFEST" || name.rfind("HWLOC_", 0) == 0;
  });
  environment["PATH"] = "/usr/bin:/bin";
  environment["TMPDIR"] = kCallgrindFolderBase;
  environment["LC_ALL"] = "C";
  for (const auto& [name, value] : preload_environment(spec)) environment[name] = value;
  for (const auto& [name, value] : callgrind_environment()) environment[name] = value;
  return environment;
}

// The environment of a counts cell: the fixed one, in the counts world (its clock and entropy).
EnvironmentChanges counts_cell_environment(const AllocatorSpec& spec) { return in_counts_world(callgrind_cell_environment(spec)); }

// Runs the cell under callgrind (with the allocator's preload), adds what `figures` reads from
// the profile to its record and prints it: the simulated caches of a simulate cell, the counts of
// a counts cell.
int run_under_callgrind(const Cell& cell, const AllocatorSpec& spec, const std::function<void(nlohmann::json&, const fs::path&)>& figures) {
  const EnvironmentChanges environment = cell.mode == CellMode::counts ? counts_cell_environment(spec) : callgrind_cell_environment(spec);
  const fs::path dir = make_temporary_folder("allocstress-callgrind-", kCallgrindFolderBase), profile = dir / "callgrind.out", cell_file = dir / "cell.json";
  write_file_atomically(cell_file, json_text(cell_to_json(cell)) + "\n");
  const bool per_thread = cell.mode == CellMode::counts && cell.threads > 1;
  const std::vector<std::string> command =
      cache_simulation_command(run_cell_command(allocstress_executable(), cell_file.string()), profile, per_thread);
  const ChildOutcome outcome = run_child(command, environment, 0, kCallgrindFolderBase);  // valgrind keeps its working directory
  nlohmann::json record;
  if (outcome.end == ChildOutcome::End::exited) record = last_json_line(outcome.out);
  std::error_code ec;
  if (!outcome.succeeded() || !record.is_object()) {
    fs::remove_all(dir, ec);
    std::cerr << "allocstress: error: the cell under callgrind failed: " << describe_failure(outcome, 0) << "\n";
    if (record.is_object()) std::cout << json_text(record) << std::endl;
    return kExitCellFailed;
  }
  try {
    figures(record, profile);
  } catch (const std::runtime_error& e) {
    record["status"] = "failed";
    record["reason"] = e.what();
  }
  record["simulation_command"] = shell_command_line(command);
  // The timing fields are valgrind's, not the machine's: a warning about how coarse they are says nothing.
  nlohmann::json& warnings = record["warnings"];
  for (auto it = warnings.begin(); it != warnings.end();)
    it = *it == kShortPhaseWarning ? warnings.erase(it) : it + 1;
  warnings.push_back("timing fields of a " + std::string(to_string(cell.mode)) + " record were measured under valgrind and are not the machine's");
  fs::remove_all(dir, ec);
  return print_cell_record(record);
}

void add_simulated_cache(nlohmann::json& record, const fs::path& profile) { record["simulated_cache"] = simulated_cache_figures(profile); }

// The profiles of a counts cell's workers: at 1 thread the one profile, at N threads the
// per-thread profiles whose collection ran (the workers'; the main thread and any thread the
// allocator starts collect nothing), in creation order.
std::vector<CallgrindProfile> worker_profiles(const fs::path& profile, unsigned threads) {
  if (threads == 1) return {read_callgrind_profile(profile)};
  std::vector<CallgrindProfile> workers;
  for (const fs::path& part : thread_profiles(profile)) {
    CallgrindProfile p = read_callgrind_profile(part);
    if (p.total("Ir") > 0) workers.push_back(std::move(p));
  }
  if (workers.size() != threads)
    throw std::runtime_error("the counts cell has " + std::to_string(threads) + " workers but callgrind collected events on " +
                             std::to_string(workers.size()) + " threads");
  return workers;
}

// The counts block: per malloc/free pair of the record; the allocator's own instructions are those
// of the calls out of this executable (drop-ins only: in-tree backends are inlined into it).  At N
// threads the block is the workers' sum, and `per_worker` gives each worker's figures per pair of
// its own (each worker runs pairs / N).
void add_counts(nlohmann::json& record, const fs::path& profile, const AllocatorSpec& spec, unsigned threads) {
  std::optional<OutsideCalls> rule;
  if (spec.kind == AllocatorKind::drop_in) rule = OutsideCalls{.workload_object = allocstress_executable()};
  const char* no_rule = "in-tree backend: its code is inlined into the workload's; see the net figures";
  const std::vector<CallgrindProfile> workers = worker_profiles(profile, threads);
  const double pairs = record.value("pairs", 0.0);
  nlohmann::json counts = instruction_count_figures(summed_profiles(workers), pairs, "pair", rule, no_rule);
  if (threads == 1) {
    counts["reproducibility"] = "exact: one thread, address randomisation off; identical on every run of this build";
  } else {
    counts["reproducibility"] = "near-exact: valgrind runs the workers one at a time and their interleaving, which decides the "
                                "allocator's paths (remote frees, lock hand-overs), can vary a little between runs";
    nlohmann::json per_worker = nlohmann::json::array();
    for (const CallgrindProfile& w : workers) {
      nlohmann::json figures = instruction_count_figures(w, pairs / threads, "pair", rule, no_rule);
      for (const char* shared : {"provenance", "estimated_cycles_formula", "unit"}) figures.erase(shared);
      per_worker.push_back(std::move(figures));
    }
    counts["per_worker"] = std::move(per_worker);
  }
  record["counts"] = std::move(counts);
}

// The workload's inputs, prepared into `folder` by a forked child: its heap is its own, so
// decoding never touches the allocator under test.  Throws UsageError with the child's message.
nlohmann::json prepare_in_child(const WorkloadEntry& entry, const nlohmann::json& params, const fs::path& folder) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    std::string answer;
    int code = 0;
    try {
      answer = entry.prepare(params, folder).dump();
    } catch (const std::exception& e) {
      answer = e.what();
      code = 1;
    }
    [[maybe_unused]] const ssize_t written = ::write(fds[1], answer.data(), answer.size());  // the parent reads it
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string answer;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;)
    if (n > 0) answer.append(buf, std::size_t(n));
    else if (errno != EINTR) break;
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw UsageError(answer.empty() ? "preparing the inputs of " + std::string(entry.name) + " failed" : answer);
  return nlohmann::json::parse(answer);
}

// A configuration's variables as this cell process sees them: the record shows they reached it.
nlohmann::json environment_seen(const AllocatorSpec& spec) {
  nlohmann::json seen = nlohmann::json::object();
  for (const auto& [name, value] : spec.environment)
    if (const char* v = std::getenv(name.c_str())) seen[name] = v;
  return seen;
}

}  // namespace

int run_cell_process(Cell cell, const AllocatorSpec& spec, bool verify_only) {
  if (const char* off = std::getenv(kThpDisableVariable); off != nullptr && std::string(off) == "1")
    if (const std::string error = disable_thp_for_this_process(); !error.empty()) throw std::runtime_error("--thp never: " + error);
  if (cell.mode == CellMode::simulate && !verify_only && !running_under_valgrind()) return run_under_callgrind(cell, spec, add_simulated_cache);
  const WorkloadEntry& entry = workload_entry(cell.workload);
  const bool kernel_events = kernel_events_run() && cell.mode == CellMode::counts;  // the native run of a counts cell
  if (cell.mode == CellMode::counts && !verify_only && !running_under_valgrind() && !kernel_events && !entry.counts_in_cell)
    return run_under_callgrind(cell, spec, [&](nlohmann::json& record, const fs::path& profile) {
      add_counts(record, profile, spec, cell.threads);
      record["counts"]["kernel_events"] = count_kernel_events(allocstress_executable(), profile.parent_path() / "cell.json", counts_cell_environment(spec),
                                                              kCallgrindFolderBase, record["counts"].value("units", 0.0), "pair", cell.threads);
    });
  if (cell.mode == CellMode::profile && cell.profile.pass.empty() && !verify_only) return run_profile(cell, spec);
  if (!kernel_events) ensure_cell_environment(cell, spec, verify_only);  // the native run's environment is its caller's, exactly
  set_marking_measured_phase(kernel_events);
  if (const std::string bad = verify_malloc_provider(spec); !bad.empty()) {
    std::cerr << "allocstress: error: preload verification failed: " << bad << "\n";
    return kExitCellFailed;
  }
  if (verify_only) {
    std::cout << json_text({{"allocator", spec.name}, {"malloc_provider", malloc_provider_path()}, {"allocator_environment", environment_seen(spec)}})
              << "\n";
    return 0;
  }
  TemporaryFolder scratch;
  if (entry.prepare != nullptr && cell.inputs.empty()) {
    scratch.dir = make_temporary_folder("allocstress-inputs-");
    cell.inputs = prepare_in_child(entry, cell.params, scratch.dir);
  }
  const Topology topology;
  cell.threads = threads_from_inputs(cell, cell.threads);
  if (cell.threads == 0) throw UsageError(cell.workload + ": no thread count given (accepted: --threads N)");
  if (!entry.runs_alone.empty() && cell.threads > topology.usable_worker_count(cell.placement.policy, cell.placement.reserve_os_pu))
    cell.placement.oversubscribe = true;  // threads its inputs fix share PUs (the record says so)
  check_cell(cell, spec);
  std::vector<unsigned> pus;
  try {
    pus = topology.choose_pus(cell.placement_request());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  nlohmann::json record = run_cell(cell, spec, topology, pus);
  record["allocator_environment"] = environment_seen(spec);
  return print_cell_record(record);
}

}  // namespace allocstress
