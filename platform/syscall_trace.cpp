// strace command line and trace parsing (see syscall_trace.hpp).
#include "platform/syscall_trace.hpp"

#include <sys/prctl.h>

#include <cstdlib>
#include <fstream>
#include <map>
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

}  // namespace allocstress
