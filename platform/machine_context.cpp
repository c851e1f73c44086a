// Collects the machine description for results files from /proc, /sys, uname, hwloc and git.
#include "platform/machine_context.hpp"
#include "platform/memory/thp_mode.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "platform/build_identity.hpp"
#include "platform/process/busy_processes.hpp"
#include "platform/profilers/perf_counters.hpp"
#include "platform/sanitizer_build.hpp"
#include "platform/tsc.hpp"

extern char** environ;

namespace allocstress {

namespace {

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "always [madvise] never" -> "madvise"
// The bracketed word of a sysfs choice line (platform/memory/thp_mode.hpp), or the line as it is.
std::string chosen_or_line(const std::string& line) { return std::string(bracketed_choice(line).value_or(line)); }

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? "" : line.substr(colon + 2);
    }
  return "";
}

bool has_cpu_flag(const std::string& flags, const std::string& flag) {
  std::istringstream in(flags);
  std::string f;
  while (in >> f)
    if (f == flag) return true;
  return false;
}

}  // namespace

std::string iso_utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string first_line_of_command(const std::string& command) {
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return "";
  char buf[512] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  const int rc = pclose(p);
  if (!got || rc != 0) return "";
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

nlohmann::json allocator_environment() {
  static const char* const kPrefixes[] = {"MALLOC_", "GLIBC_TUNABLES", "MIMALLOC_", "TCMALLOC_", "HEAPPROFILE",
                                          "JE_MALLOC_CONF", "TBB_", "LD_LIBRARY_PATH", "LD_BIND_NOW",
                                          "ALLOCSTRESS_EQCLASS_"};
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    for (const char* prefix : kPrefixes)
      if (name.rfind(prefix, 0) == 0) env[name] = eq == std::string::npos ? "" : entry.substr(eq + 1);
  }
  return env;
}

nlohmann::json machine_context(const Topology& topology, const std::string& command_line) {
  nlohmann::json warnings = nlohmann::json::array();
  utsname u{};
  uname(&u);
  int kernel_major = 0, kernel_minor = 0;
  std::sscanf(u.release, "%d.%d", &kernel_major, &kernel_minor);
  if (kernel_major < 6 || (kernel_major == 6 && kernel_minor < 2))
    warnings.push_back(std::string("kernel ") + u.release + " batches RSS counter updates per thread (up to 64 pages "
                       "before Linux 6.2): RSS figures can lag by that much per thread");
  const nlohmann::json tuning = allocator_environment();
  if (!tuning.empty())
    warnings.push_back("allocator tuning variables are set (see allocator_environment): every cell inherits them");
  char host[256] = {};
  gethostname(host, sizeof host - 1);

  const std::string flags = cpuinfo_field("flags");
  const bool constant_tsc = has_cpu_flag(flags, "constant_tsc");
  const bool nonstop_tsc = has_cpu_flag(flags, "nonstop_tsc");
  if (kCycleCounterName == "rdtsc" && !(constant_tsc && nonstop_tsc))
    warnings.push_back("TSC is not invariant (constant_tsc/nonstop_tsc missing): cycle figures follow frequency changes");

  std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  if (governor.empty()) governor = "n/a (no cpufreq in /sys: frequency is managed by the host or firmware)";
  else if (governor != "performance") warnings.push_back("CPU governor is '" + governor + "', not 'performance': frequency may vary between runs");

  // Turbo: intel_pstate's no_turbo (0 = turbo on) or the generic cpufreq boost switch (1 = on).
  std::string turbo = "n/a (no intel_pstate/no_turbo or cpufreq/boost in /sys: managed by the host or firmware)";
  if (const std::string no_turbo = read_first_line("/sys/devices/system/cpu/intel_pstate/no_turbo"); !no_turbo.empty())
    turbo = no_turbo == "0" ? "on" : "off";
  else if (const std::string boost = read_first_line("/sys/devices/system/cpu/cpufreq/boost"); !boost.empty())
    turbo = boost == "1" ? "on" : "off";
  if (turbo == "on") warnings.push_back("turbo boost is on: the core clock varies with load and temperature between cells");

  const std::string aslr = read_first_line("/proc/sys/kernel/randomize_va_space");
  if (!aslr.empty() && aslr != "0")
    warnings.push_back("address-space randomisation is on (randomize_va_space=" + aslr + "): block addresses, and so the "
                       "cache-set placement the data-structure workloads measure, differ from run to run (--cache-sim "
                       "switches it off for its own cells)");
  const std::string paranoid = read_first_line("/proc/sys/kernel/perf_event_paranoid");
  if (!paranoid.empty() && std::atoi(paranoid.c_str()) > 2 && geteuid() != 0)
    warnings.push_back("perf_event_paranoid=" + paranoid + " blocks performance counters for this user");

  nlohmann::json busy = nlohmann::json::array();
  for (const auto& p : busy_processes()) {
    busy.push_back({{"pid", p.pid}, {"name", p.name}, {"cpu_percent", p.cpu_percent}});
    char text[160];
    std::snprintf(text, sizeof text, "process %d (%s) used %.0f%% of a CPU just before the run: it disturbs the measurement",
                  p.pid, p.name.c_str(), p.cpu_percent);
    warnings.push_back(text);
  }

  const auto counters = hardware_counter_availability();
  if (!counters.available) warnings.push_back("hardware counters unavailable: " + counters.reason);

  double load1 = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load1) != 1) load1 = -1;
    std::fclose(f);
  }
  if (load1 > 0.5 * topology.pu_count())
    warnings.push_back("1-minute load average " + std::to_string(load1) + " is high for " +
                       std::to_string(topology.pu_count()) + " PUs: other processes disturb the measurement");

#ifdef NDEBUG
  const bool optimised = true;
#else
  const bool optimised = false;
  warnings.push_back("this is a debug build (assertions on): figures are not representative");
#endif
#ifdef ALLOCSTRESS_SANITIZED
  warnings.push_back("this build has a sanitizer (ASan or TSan): figures are not representative");
#endif

  const std::string mhz = cpuinfo_field("cpu MHz");
  const nlohmann::json topo = topology.summary();
  std::error_code ec;
  return {{"date", iso_utc_now()},
          {"host_name", host},
          {"executable", std::filesystem::read_symlink("/proc/self/exe", ec).string()},
          {"command_line", command_line},
          {"num_cpus", topology.pu_count()},
          {"mhz_per_cpu", mhz.empty() ? 0 : std::stoi(mhz)},
          {"cpu_model", cpuinfo_field("model name")},
          {"cpu_scaling_enabled", governor.rfind("n/a", 0) != 0 && governor != "performance"},
          {"caches", topo.at("caches")},
          {"topology", topo},
          {"kernel", std::string(u.sysname) + " " + u.release + " " + u.version},
          {"thp_mode", chosen_or_line(read_first_line("/sys/kernel/mm/transparent_hugepage/enabled"))},
          {"thp_defrag", chosen_or_line(read_first_line("/sys/kernel/mm/transparent_hugepage/defrag"))},
          {"governor", governor},
          {"turbo", turbo},
          {"busy_processes", busy},
          {"aslr", aslr},
          {"perf_event_paranoid", read_first_line("/proc/sys/kernel/perf_event_paranoid")},
          {"hw_counters_available", counters.available},
          {"hw_counters_reason", counters.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(counters.reason)},
          {"cycle_counter", kCycleCounterName},
          {"tsc_invariant", constant_tsc && nonstop_tsc},
          {"load_avg_1min", load1},
          {"git_commit", source_commit()},
          {"allocator_environment", tuning},
          {"build_type", ALLOCSTRESS_BUILD_TYPE},
          {"library_build_type", optimised ? "release" : "debug"},
#if defined(__clang__)
          {"compiler", "clang " __VERSION__},
#else
          {"compiler", "gcc " __VERSION__},
#endif
          {"allocstress_version", allocstress_version()},
          {"warnings", warnings}};
}

}  // namespace allocstress
