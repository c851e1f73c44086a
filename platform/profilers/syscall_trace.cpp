// strace command line and trace parsing (see syscall_trace.hpp).
#include "platform/profilers/syscall_trace.hpp"

#include <sys/prctl.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace allocstress {

namespace {

constexpr const char* kStrace = "/usr/bin/strace";

bool traced(const std::string& name) {
  for (const char* s : kTracedSyscalls)
    if (name == s) return true;
  return false;
}

// The syscall a trace line is about and whether it starts (call) or completes it; "" if none.
// Lines: "PID name(args) = ret <0.000012>", "PID name(args <unfinished ...>",
//        "PID <... name resumed>) = ret <0.000012>".
std::string syscall_of(const std::string& line, bool& starts) {
  std::size_t i = line.find_first_not_of("0123456789");
  if (i == std::string::npos) return "";
  i = line.find_first_not_of(' ', i);
  if (i == std::string::npos) return "";
  if (line.compare(i, 5, "<... ") == 0) {
    starts = false;
    const std::size_t end = line.find(' ', i + 5);
    return end == std::string::npos ? "" : line.substr(i + 5, end - i - 5);
  }
  starts = true;
  const std::size_t paren = line.find('(', i);
  return paren == std::string::npos ? "" : line.substr(i, paren - i);
}

// The "<seconds>" at the end of a completed call, in ns; -1 if absent.
double call_time_ns(const std::string& line) {
  const std::size_t open = line.rfind('<'), close = line.rfind('>');
  if (open == std::string::npos || close == std::string::npos || close < open) return -1;
  char* end = nullptr;
  const double s = std::strtod(line.c_str() + open + 1, &end);
  return end == line.c_str() + close ? s * 1e9 : -1;
}

}  // namespace

void mark_phase(const char* marker) { prctl(PR_SET_NAME, marker, 0, 0, 0); }

std::string syscall_trace_unavailable() {
  return std::ifstream(kStrace).good() ? "" : "system-call counts need strace, which is not installed (scripts/setup-deps.sh installs it)";
}

std::vector<std::string> syscall_trace_command(const std::vector<std::string>& cell_argv, const std::filesystem::path& trace) {
  std::vector<std::string> argv = {kStrace, "-f", "--seccomp-bpf", "-qq", "-T",
                                   "-e", "trace=mmap,munmap,mremap,madvise,brk,mprotect,futex,prctl",
                                   "-o", trace.string()};
  argv.insert(argv.end(), cell_argv.begin(), cell_argv.end());
  return argv;
}

nlohmann::json syscalls_in_phase(const std::filesystem::path& trace) {
  std::ifstream in(trace);
  if (!in) throw std::runtime_error("strace output " + trace.string() + " could not be read");
  std::map<std::string, std::uint64_t> counts;
  std::map<std::string, double> time_ns;
  for (const char* s : kTracedSyscalls) counts[s] = 0, time_ns[s] = 0;
  enum { before, inside, after } state = before;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("PR_SET_NAME") != std::string::npos) {
      if (line.find(kPhaseGoMarker) != std::string::npos && state == before) state = inside;
      else if (line.find(kPhaseDoneMarker) != std::string::npos && state == inside) state = after;
      continue;
    }
    if (state != inside) continue;
    bool starts = true;
    const std::string name = syscall_of(line, starts);
    if (!traced(name)) continue;
    if (starts) ++counts[name];
    if (const double t = call_time_ns(line); t >= 0) time_ns[name] += t;
  }
  if (state != after)
    throw std::runtime_error("strace output " + trace.string() + " lacks the " +
                             (state == before ? std::string(kPhaseGoMarker) : std::string(kPhaseDoneMarker)) + " marker");
  return {{"tool", "strace -f --seccomp-bpf -T (between the phase markers, all threads)"},
          {"counts", counts},
          {"time_ns", time_ns},
          {"provenance", {{"counts", "exact"}, {"time_ns", "measured under strace: tracing inflates it"}}}};
}

std::vector<std::string> syscall_count_command(const std::vector<std::string>& argv, const std::filesystem::path& summary) {
  std::vector<std::string> command = {kStrace, "-f", "-c", "-U", "calls,name", "-qq", "-o", summary.string()};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

nlohmann::json syscalls_in_summary(const std::filesystem::path& summary) {
  std::ifstream in(summary);
  if (!in) throw std::runtime_error("strace's summary " + summary.string() + " could not be read");
  std::map<std::string, std::uint64_t> counts, others;
  for (const char* s : kTracedSyscalls) counts[s] = 0;
  counts["other"] = 0;
  bool total_seen = false;
  std::string line;
  while (std::getline(in, line)) {  // "    calls syscall": a count, then the call's name
    std::istringstream fields(line);
    std::uint64_t n = 0;
    std::string name, extra;
    if (!(fields >> n >> name) || (fields >> extra)) continue;  // the heading, the rules
    if (name == "total") {
      total_seen = true;
      continue;
    }
    if (traced(name)) counts[name] += n;
    else counts["other"] += n, others[name] += n;
  }
  if (!total_seen) throw std::runtime_error("strace's summary " + summary.string() + " has no total line (did strace end early?)");
  return {{"tool", "strace -f -c (the whole run: every process and thread of the tree)"},
          {"counts", counts},
          {"other_calls", others},
          {"provenance", {{"counts", "exact"}}}};
}

nlohmann::json kernel_event_figures(std::uint64_t minor_faults, std::uint64_t major_faults, const nlohmann::json& syscalls, double units,
                                    const char* unit) {
  auto per = [&](double n) { return units > 0 ? n / units : 0.0; };
  std::uint64_t calls = 0;
  nlohmann::json per_unit = nlohmann::json::object();
  for (const auto& [name, n] : syscalls.items()) {
    calls += n.get<std::uint64_t>();
    per_unit[name] = per(n.get<double>());
  }
  return {{"minor_faults", minor_faults},
          {"major_faults", major_faults},
          {"syscalls", syscalls},
          {"syscalls_total", calls},
          {"minor_faults_per_unit", per(double(minor_faults))},
          {"syscalls_per_unit", per_unit},
          {"syscalls_total_per_unit", per(double(calls))},
          {"unit", unit}};
}

}  // namespace allocstress
