// CPU use of other processes from two /proc snapshots (see busy_processes.hpp).
#include "platform/process/busy_processes.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace allocstress {

ProcessSnapshot snapshot_processes() {
  ProcessSnapshot out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string dir = e.path().filename().string();
    if (dir.empty() || dir.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    const auto open = line.find('('), close = line.rfind(')');  // the name may contain spaces and ')'
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    int ppid = 0;
    unsigned long long skip = 0, utime = 0, stime = 0;
    rest >> state >> ppid;
    for (int i = 0; i < 9; ++i) rest >> skip;  // pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    rest >> utime >> stime;
    out[std::stoi(dir)] = {line.substr(open + 1, close - open - 1), utime + stime, ppid};
  }
  return out;
}

std::vector<BusyProcess> busy_between(const ProcessSnapshot& before, const ProcessSnapshot& after, double seconds, int self,
                                      double min_percent, double ticks_per_second) {
  std::set<int> ours;  // `self` and its ancestors do not count
  for (int pid = self; pid > 1 && ours.insert(pid).second;) {
    const auto it = after.find(pid);
    if (it == after.end()) break;
    pid = it->second.ppid;
  }
  std::vector<BusyProcess> out;
  if (seconds <= 0) return out;
  for (const auto& [pid, a] : after) {
    const auto b = before.find(pid);
    if (b == before.end() || ours.count(pid) || a.ticks < b->second.ticks) continue;
    const double percent = double(a.ticks - b->second.ticks) / ticks_per_second / seconds * 100.0;
    if (percent >= min_percent) out.push_back({pid, a.name, percent});
  }
  return out;
}

std::vector<BusyProcess> busy_processes(int window_ms, double min_percent) {
  const auto before = snapshot_processes();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
  const auto after = snapshot_processes();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return busy_between(before, after, seconds, int(getpid()), min_percent, double(sysconf(_SC_CLK_TCK)));
}

}  // namespace allocstress
