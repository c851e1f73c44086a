// callgrind command line and profile parsing (see cache_simulation.hpp).
#include "platform/cache_simulation.hpp"

#include <valgrind/valgrind.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/cache_geometry.hpp"

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

std::string cache_simulation_unavailable() {
  if (find_program("valgrind").empty())
    return "--cache-sim needs valgrind, which is not installed (scripts/setup-deps.sh installs it)";
  if (find_program("setarch").empty()) return "--cache-sim needs setarch (util-linux) to switch address randomisation off";
  return "";
}

std::vector<std::string> cache_simulation_command(const std::vector<std::string>& cell_argv, const std::filesystem::path& profile) {
  if (const std::string missing = cache_simulation_unavailable(); !missing.empty()) throw std::runtime_error(missing);
  const std::string valgrind = find_program("valgrind"), setarch = find_program("setarch");
  std::vector<std::string> argv = {setarch, "--addr-no-randomize", valgrind, "--tool=callgrind", "--cache-sim=yes",
                                   "--collect-atstart=no", "--instr-atstart=no", "--D1=" + valgrind_geometry(l1_data_cache()),
                                   "--LL=" + valgrind_geometry(last_level_cache()), std::string("--I1=") + kI1,
                                   "--callgrind-out-file=" + profile.string()};
  argv.insert(argv.end(), cell_argv.begin(), cell_argv.end());
  return argv;
}

nlohmann::json simulated_cache_figures(const std::filesystem::path& profile) {
  std::ifstream in(profile);
  if (!in) throw std::runtime_error("callgrind profile " + profile.string() + " could not be read");
  std::vector<std::string> events;
  std::vector<std::uint64_t> totals;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string head;
    words >> head;
    if (head == "events:") {
      events.clear();
      for (std::string e; words >> e;) events.push_back(e);
    } else if (head == "totals:" || (head == "summary:" && totals.empty())) {
      totals.clear();
      for (std::uint64_t v; words >> v;) totals.push_back(v);
    }
  }
  // callgrind leaves out trailing zero counts on these lines.
  if (events.empty() || totals.empty() || totals.size() > events.size())
    throw std::runtime_error("callgrind profile " + profile.string() + " has no matching events/totals lines");
  totals.resize(events.size(), 0);
  nlohmann::json raw = nlohmann::json::object();
  for (std::size_t i = 0; i < events.size(); ++i) raw[events[i]] = totals[i];
  auto get = [&](const char* e) { return raw.value(e, std::uint64_t{0}); };
  const std::uint64_t refs = get("Dr") + get("Dw"), d1 = get("D1mr") + get("D1mw"), ll = get("DLmr") + get("DLmw");
  return {{"tool", "callgrind --cache-sim=yes (valgrind " + std::to_string(__VALGRIND_MAJOR__) + "." +
                       std::to_string(__VALGRIND_MINOR__) + " headers)"},
          {"phase", "search"},
          {"address_randomisation", "off (setarch --addr-no-randomize)"},
          {"d1", geometry_json(l1_data_cache())},
          {"ll", geometry_json(last_level_cache())},
          {"events", raw},
          {"data_refs", refs},
          {"d1_misses", d1},
          {"ll_misses", ll},
          {"d1_miss_rate", refs > 0 ? nlohmann::json(double(d1) / double(refs)) : nlohmann::json(nullptr)}};
}

}  // namespace allocstress
