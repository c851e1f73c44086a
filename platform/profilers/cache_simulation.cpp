// callgrind command line and profile parsing (see cache_simulation.hpp).
#include "platform/profilers/cache_simulation.hpp"

#include <valgrind/callgrind.h>
#include <valgrind/valgrind.h>

#include <algorithm>
#include <stdexcept>

#include "platform/profilers/cache_geometry.hpp"
#include "platform/profilers/callgrind_profile.hpp"
#include "platform/profilers/instruction_counts.hpp"

namespace allocstress {

namespace {

constexpr const char* kI1 = "32768,8,64";  // instruction cache: fixed, it does not enter the data figures

std::string valgrind_geometry(const CacheGeometry& g) {
  return std::to_string(g.size) + "," + std::to_string(g.associativity) + "," + std::to_string(g.line);
}

nlohmann::json geometry_json(const CacheGeometry& g) {
  return {{"size", g.size}, {"associativity", g.associativity}, {"line", g.line}, {"sets", g.sets()}, {"source", g.source}};
}

std::string find_program(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
    const std::filesystem::path p = std::filesystem::path(dir) / name;
    if (std::filesystem::exists(p)) return p.string();
  }
  return "";
}

}  // namespace

bool running_under_valgrind() { return RUNNING_ON_VALGRIND != 0; }

void start_callgrind_collection() {
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
}

void stop_callgrind_collection() { CALLGRIND_TOGGLE_COLLECT; }

void pause_callgrind_collection() { CALLGRIND_TOGGLE_COLLECT; }

void resume_callgrind_collection() { CALLGRIND_TOGGLE_COLLECT; }

std::vector<std::pair<std::string, std::string>> callgrind_environment() { return {{"HWLOC_COMPONENTS", "-x86"}}; }

std::string cache_simulation_unavailable() {
  if (find_program("valgrind").empty())
    return "--cache-sim needs valgrind, which is not installed (scripts/setup-deps.sh installs it)";
  if (find_program("setarch").empty()) return "--cache-sim needs setarch (util-linux) to switch address randomisation off";
  return "";
}

std::vector<std::string> cache_simulation_command(const std::vector<std::string>& cell_argv, const std::filesystem::path& profile,
                                                  bool per_thread) {
  if (const std::string missing = cache_simulation_unavailable(); !missing.empty()) throw std::runtime_error(missing);
  const std::string valgrind = find_program("valgrind"), setarch = find_program("setarch");
  std::vector<std::string> argv = {setarch, "--addr-no-randomize", valgrind, "--tool=callgrind", "--cache-sim=yes",
                                   "--collect-atstart=no", "--instr-atstart=no", "--fair-sched=yes", "--D1=" + valgrind_geometry(l1_data_cache()),
                                   "--LL=" + valgrind_geometry(last_level_cache()), std::string("--I1=") + kI1,
                                   "--callgrind-out-file=" + profile.string()};
  if (per_thread) argv.push_back("--separate-threads=yes");
  argv.insert(argv.end(), cell_argv.begin(), cell_argv.end());
  return argv;
}

std::vector<std::string> program_counts_command(const std::vector<std::string>& program_argv, const std::filesystem::path& folder) {
  if (const std::string missing = cache_simulation_unavailable(); !missing.empty()) throw std::runtime_error(missing);
  const std::string valgrind = find_program("valgrind"), setarch = find_program("setarch");
  std::vector<std::string> argv = {setarch, "--addr-no-randomize", valgrind, "--tool=callgrind", "--cache-sim=yes", "--trace-children=yes",
                                   "--fair-sched=yes", "--D1=" + valgrind_geometry(l1_data_cache()), "--LL=" + valgrind_geometry(last_level_cache()),
                                   std::string("--I1=") + kI1, "--callgrind-out-file=" + (folder / "callgrind.%p").string()};
  argv.insert(argv.end(), program_argv.begin(), program_argv.end());
  return argv;
}

std::vector<std::filesystem::path> thread_profiles(const std::filesystem::path& profile) {
  std::vector<std::filesystem::path> out;
  const std::string prefix = profile.filename().string() + "-";
  for (const auto& entry : std::filesystem::directory_iterator(profile.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      out.push_back(entry.path());
  }
  // Fixed-width ids sort as numbers only when they have the same width: sort by the number.
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return std::stoul(a.filename().string().substr(prefix.size())) < std::stoul(b.filename().string().substr(prefix.size()));
  });
  return out;
}

nlohmann::json simulated_cache_figures(const std::filesystem::path& profile) {
  const CallgrindProfile p = read_callgrind_profile(profile);
  nlohmann::json raw = nlohmann::json::object();
  for (std::size_t i = 0; i < p.events.size(); ++i) raw[p.events[i]] = p.totals[i];
  const std::uint64_t refs = p.total("Dr") + p.total("Dw"), d1 = p.total("D1mr") + p.total("D1mw"), ll = p.total("DLmr") + p.total("DLmw");
  return {{"tool", "callgrind --cache-sim=yes (" + (p.creator.empty() ? std::string("version unknown") : p.creator) + ")"},
          {"phase", "search"},
          {"address_randomisation", "off (setarch --addr-no-randomize)"},
          {"d1", geometry_json(l1_data_cache())},
          {"ll", geometry_json(last_level_cache())},
          {"events", raw},
          {"instructions", p.total("Ir")},
          {"data_refs", refs},
          {"d1_misses", d1},
          {"ll_misses", ll},
          {"d1_miss_rate", refs > 0 ? nlohmann::json(double(d1) / double(refs)) : nlohmann::json(nullptr)},
          {"estimated_cycles", estimated_cycles(p)}};
}

}  // namespace allocstress
